"""docs/api.md is built from the docstrings, the examples run, and a plain (non-editable) install imports."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "examples" / "scripts"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_md_reference_is_the_docstrings_and_the_html_builds(tmp_path):
    gen = _load(ROOT / "docs" / "gen_api.py")
    text = (ROOT / "docs" / "api.md").read_text()
    assert text == gen.rebuilt(text), "docs/api.md is stale: run python docs/gen_api.py"
    pdoc = pytest.importorskip("pdoc", reason="pdoc is in the test extra: pip install '.[test]'")
    pdoc.render.configure(docformat="restructuredtext")
    pdoc.pdoc("warpcheck", output_directory=tmp_path)  # warnings (a broken annotation, ...) are errors here
    html = (tmp_path / "warpcheck.html").read_text()
    assert all(f'id="{name}"' in html for name in ("prove", "replay", "simulate", "makespan", "export", "UserPolicy"))


@pytest.mark.slow  # a second process (1 s); warpcheck.makespan itself is in tests/test_api.py
def test_makespan_curve_script_runs():
    out = subprocess.run([sys.executable, str(SCRIPTS / "makespan_curve.py"), "--warps", "1,2,4"],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[1].split() == ["1", "5", "True", "5"] and out[3].split()[:3] == ["4", "17", "True"]


@pytest.mark.slow  # 2 s; the oldest-first policy of tests/test_api.py is its cheap sibling
def test_greedy_then_youngest_is_proved_on_swas_and_refuted_on_the_baseline():
    import warpcheck
    gty = _load(SCRIPTS / "greedy_then_youngest.py").GTY
    try:
        assert warpcheck.prove(design="swas", policy=gty, warps=2, engine="kind").status == "PASS"
        assert warpcheck.prove(design="baseline", policy=gty, warps=2, engine="bmc").status == "FAIL"
    finally:
        warpcheck.unregister_policy(gty.name)


@pytest.mark.slow
@pytest.mark.parametrize("script, args", [("oldest_first.py", []), ("greedy_then_youngest.py", []),
                                          ("proof_sweep.py", ["--warps", "2,4"]), ("makespan_curve.py", [])])
def test_example_scripts_run_at_their_defaults(script, args):
    subprocess.run([sys.executable, str(SCRIPTS / script), *args], check=True, capture_output=True, timeout=900)


@pytest.mark.slow
def test_the_done_when_line_of_issue_23():
    code = ("import warpcheck; print(warpcheck.__version__); "
            "r = warpcheck.prove(design='swas', policy='gtlrr', warps=4); print(r.status)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "PASS"


@pytest.mark.slow
def test_a_plain_install_imports_the_package_and_its_layers(tmp_path):
    """What CI does (pip install .): the package warpcheck and every layer below it, from site-packages."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "warpcheck-out",
                                                             ".mypy_cache", "__pycache__", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp_path / "site"),
                    str(src)], check=True, capture_output=True)
    code = ("import warpcheck, warpcheck.models.frontend.design, warpcheck.cli.main, warpcheck.verify.engines; "
            "print(warpcheck.__file__, warpcheck.models.__file__, warpcheck.prove.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"}).stdout.split()
    assert all(p.startswith(str(tmp_path / "site")) for p in out[:2]) and out[2] == "warpcheck._frontend"


@pytest.mark.slow  # every snippet of the tutorial, in order, in one namespace (proofs at W = 4: about 30 s)
def test_every_python_snippet_of_api_md_runs(tmp_path, monkeypatch):
    import re
    monkeypatch.chdir(tmp_path)
    for name in ("examples",):
        (tmp_path / name).symlink_to(ROOT / name)
    text = (ROOT / "docs" / "api.md").read_text()
    namespace: dict = {}
    for n, block in enumerate(re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)):
        try:
            exec(compile(block, f"docs/api.md block {n + 1}", "exec"), namespace)
        except Exception as e:  # noqa: BLE001 - name the block that no longer runs
            pytest.fail(f"docs/api.md python block {n + 1} fails: {type(e).__name__}: {e}\n{block}")
