"""The layers import downward only, and z3 stays in encodings/ and verify/."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# api/ is the package `warpcheck` itself (its private modules are warpcheck._name): the public API,
# the top layer beside cli/, whose verbs call its functions (one path for scripts and the command line).
ALLOWED = {"models": set(), "encodings": {"models"}, "verify": {"models", "encodings"},
           "sim": {"models", "encodings"}, "cli": {"models", "encodings", "verify", "sim", "cli", "api"},
           "api": {"models", "encodings", "verify", "sim", "cli", "api"}}
API_MODULES = {f.stem for f in (ROOT / "api").glob("_*.py") if f.stem != "__init__"}


def layer_of(parts: list[str]) -> str:
    """The layer of module warpcheck.<parts[1]>...: a folder's name, or api for the package's own modules."""
    return "api" if len(parts) == 1 or parts[1] in API_MODULES else parts[1]
SOLVERS = {"z3", "pysmt", "highspy"}


def imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_imports_go_downward_only():
    bad = []
    for layer, allowed in ALLOWED.items():
        for f in (ROOT / layer).rglob("*.py"):
            for mod in imports(f):
                parts = mod.split(".")
                if parts[0] == "warpcheck" and layer_of(parts) != layer and layer_of(parts) not in allowed:
                    bad.append(f"{f.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_models_and_sim_import_no_solver():
    bad = [f"{f.relative_to(ROOT)} imports {m}" for layer in ("models", "sim") for f in (ROOT / layer).rglob("*.py")
           for m in imports(f) if m.split(".")[0] in SOLVERS]
    assert not bad, "\n".join(bad)


def test_every_layer_type_checks():
    api = pytest.importorskip("mypy.api")
    folders = [str(ROOT / layer) for layer in ALLOWED]
    out, err, code = api.run(["--ignore-missing-imports", "--cache-dir", str(ROOT / ".mypy_cache"), *folders])
    assert code == 0, out + err
