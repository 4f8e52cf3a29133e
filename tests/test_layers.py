"""The layers import downward only; the library never imports the command line; references stand apart.

The layers, bottom up: ``models`` (what is modelled), ``spec`` (the references
and checkers, beside the models and reading only their shared vocabulary),
``encodings``, then ``verify`` and ``sim``, then the library (``api/``, the
``warpcheck`` package itself) and, above it, the command line ``cli``.
"""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = {"models", "spec", "encodings", "verify", "sim", "api"}
ALLOWED = {"models": set(), "spec": {"models", "spec"}, "encodings": {"models"},
           "verify": {"models", "encodings", "spec"}, "sim": {"models", "encodings", "spec"},
           "api": {"models", "spec", "encodings", "verify", "sim", "api"},
           "cli": {"models", "spec", "encodings", "verify", "sim", "api", "cli"}}
# What a reference or checker may read of the models: what the input is, never what the hardware does with it.
VOCABULARY = {"models.errors", "models.ts", "models.files", "models.file_schemas", "models.frontend.config",
              "models.kernels.kernel"}
SOLVERS = {"z3", "pysmt", "highspy"}


def layer_of(parts: list[str]) -> str:
    """The layer of module warpcheck.<parts[1]>...: a folder's name, or api for the package's own modules."""
    return "api" if len(parts) == 1 or parts[1].startswith("_") else parts[1]


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """The modules ``path`` imports (``from a import b`` counts as a.b when b is a module of the project)."""
    tree = ast.parse(path.read_text())
    nodes = ast.iter_child_nodes(tree) if top_level_only else ast.walk(tree)
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = {f"{node.module}.{a.name}" for a in node.names if _module_file(f"{node.module}.{a.name}")}
            # `from pkg import mod` reads the module; the package's __init__ runs first, but what it imports
            # is not this module's doing (a package whose __init__ re-exports its modules is no circle)
            out.update(modules or {node.module})
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif top_level_only and isinstance(node, (ast.If, ast.Try)):  # `if TYPE_CHECKING:` is not run
            continue
    return out


def _module_file(mod: str) -> Path | None:
    """The file of project module ``warpcheck.x.y`` (None for another package, or a name in a module)."""
    parts = mod.split(".")
    if parts[0] != "warpcheck":
        return None
    folder = "api" if len(parts) == 1 or parts[1].startswith("_") else parts[1]
    rest = parts[1:] if folder == "api" else parts[2:]
    base = ROOT / folder
    base = base.joinpath(*rest) if rest else base
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _layer_files(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


def test_imports_go_downward_only():
    bad = []
    for layer, allowed in ALLOWED.items():
        for f in _layer_files(layer):
            for mod in imports(f):
                parts = mod.split(".")
                if parts[0] == "warpcheck" and layer_of(parts) != layer and layer_of(parts) not in allowed:
                    bad.append(f"{f.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_the_library_never_imports_the_command_line_nor_argparse():
    bad = [f"{f.relative_to(ROOT)} imports {m}" for layer in LIBRARY for f in _layer_files(layer)
           for m in imports(f) if m.startswith("warpcheck.cli") or m == "argparse"]
    assert not bad, "\n".join(bad)


def test_references_read_only_the_shared_vocabulary():
    bad = []
    for f in _layer_files("spec"):
        for mod in imports(f):
            short = mod.removeprefix("warpcheck.")
            if mod.startswith("warpcheck.") and layer_of(mod.split(".")) != "spec" and short not in VOCABULARY:
                bad.append(f"{f.relative_to(ROOT)} imports {mod}")
            if mod.split(".")[0] in SOLVERS:
                bad.append(f"{f.relative_to(ROOT)} imports the solver {mod}")
    assert not bad, "\n".join(bad)


def _module_name(f: Path) -> str:
    rel = f.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts[0] == "api":
        parts = parts[1:]
    return ".".join(["warpcheck", *parts])


def _top_level_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for layer in ALLOWED:
        for f in _layer_files(layer):
            graph[_module_name(f)] = {m for m in imports(f, top_level_only=True) if _module_file(m)}
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo += graph.get(m, set())
    return False


def test_no_import_inside_a_function_dodges_a_circle():
    """A lazy import (for a quick start) is fine; one whose module imports this one back hides a circle."""
    graph, bad = _top_level_graph(), []
    for layer in ALLOWED:
        for f in _layer_files(layer):
            me = _module_name(f)
            for fn in ast.walk(ast.parse(f.read_text())):
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for n in ast.walk(fn):
                        if isinstance(n, ast.ImportFrom) and n.module:
                            subs = [f"{n.module}.{a.name}" for a in n.names if _module_file(f"{n.module}.{a.name}")]
                            targets = subs or [n.module]
                        elif isinstance(n, ast.Import):
                            targets = [a.name for a in n.names]
                        else:
                            continue
                        bad += [f"{f.relative_to(ROOT)}:{n.lineno} imports {t} in {fn.name}(), and {t} imports {me}"
                                for t in targets if _module_file(t) and t != me and _reaches(graph, t, me)]
    assert not bad, "\n".join(sorted(set(bad)))


def test_the_walk_sees_a_circle():
    graph = {"warpcheck.a": {"warpcheck.b"}, "warpcheck.b": {"warpcheck.c"}, "warpcheck.c": {"warpcheck.a"}}
    assert _reaches(graph, "warpcheck.b", "warpcheck.a") and not _reaches(graph, "warpcheck.a", "warpcheck.d")


def test_every_package_folder_is_installed():
    """A folder with an __init__.py that pyproject.toml does not list would be missing from `pip install .`."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {_module_name(init) for layer in ALLOWED for init in (ROOT / layer).rglob("__init__.py")}
    assert found - listed == set(), f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_models_spec_and_sim_import_no_solver():
    bad = [f"{f.relative_to(ROOT)} imports {m}" for layer in ("models", "spec", "sim") for f in _layer_files(layer)
           for m in imports(f) if m.split(".")[0] in SOLVERS]
    assert not bad, "\n".join(bad)


@pytest.mark.slow  # about 400 CPU-seconds with a cold mypy cache (a fresh clone, CI), seconds with a warm one: .ci/run runs it alone
def test_every_layer_type_checks():
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install '.[test]'")
    folders = [str(ROOT / layer) for layer in ALLOWED]
    out, err, code = api.run(["--ignore-missing-imports", "--cache-dir", str(ROOT / ".mypy_cache"), *folders])
    assert code == 0, out + err
