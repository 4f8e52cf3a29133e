"""The layers import downward only, and z3 stays in encodings/ and verify/."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {"models": set(), "encodings": {"models"}, "verify": {"models", "encodings"},
           "sim": {"models", "encodings"}, "cli": {"models", "encodings", "verify", "sim", "cli"}}
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
                if parts[0] == "warpcheck" and len(parts) > 1 and parts[1] != layer and parts[1] not in allowed:
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
