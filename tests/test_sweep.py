"""Sweeps: a grid of runs of any verb into a results store, resumable, exported as CSV, drawn as figures."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from warpcheck.cli.main import main
from warpcheck._sweep import execute, grid
from warpcheck._verbs import VERBS
from warpcheck.models.errors import InputFileError
from warpcheck._sweep.grid import load_sweep
from warpcheck._sweep import store as store_module
from warpcheck._sweep.store import Store

ROOT = Path(__file__).resolve().parents[1]
TINY = """verb = "makespan"
arguments = ["{kernel}"]
[options]
sigma = ["L=1", "C=1"]
[axes]
kernel = ["LLCLL"]
warps = [1, 2, 3]
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_grid_is_the_product_of_the_axes_and_a_key_ignores_the_order_of_keys(tmp_path):
    a = load_sweep(write(tmp_path, TINY))
    b = load_sweep(write(tmp_path, TINY.replace('kernel = ["LLCLL"]\nwarps = [1, 2, 3]',
                                                'warps = [1, 2, 3]\nkernel = ["LLCLL"]'), "b.toml"))
    assert [r.argv for r in a.runs][0] == ("makespan", "LLCLL", "--sigma", "L=1", "--sigma", "C=1", "--warps", "1")
    assert len(a.runs) == 3 and len({r.key for r in a.runs}) == 3
    assert [r.key for r in a.runs] == [r.key for r in b.runs]


def test_sub_grids_are_added_and_a_run_named_twice_is_one_run(tmp_path):
    text = TINY + '\n[[grid]]\naxes = { method = ["enumerate"] }\n[[grid]]\naxes = { method = ["enumerate", "approx"] }\n'
    sweep = load_sweep(write(tmp_path, text))
    assert len(sweep.runs) == 6  # 3 W x {enumerate, approx}: the second grid's enumerate runs are the first's


def test_every_example_sweep_file_is_valid(monkeypatch):
    monkeypatch.chdir(ROOT)  # the SM files are named relative to the repository
    for path in sorted((ROOT / "examples" / "sweeps").glob("*.toml")):
        assert load_sweep(str(path.relative_to(ROOT))).runs, path


@pytest.mark.parametrize("text, says", [
    ("bogus = 1\n" + TINY, "unknown key 'bogus'; known keys: options, axes, verb"),
    (TINY.replace("[axes]", "[axes]\nfoo = []"), "axes.foo = [] is not allowed; it must have at least 1 item"),
    (TINY.replace('sigma = ["L=1", "C=1"]', 'sigma = ["L=1", "C=1"]\nwarps = 2'), "'warps' is both an option and an axis"),
    (TINY.replace("[options]", "[options]\nnope = 3"), "the run {nope = 3, sigma = ['L=1', 'C=1'], kernel = 'LLCLL', "
                                                      "warps = 1} is refused: makespan: unknown keyword 'nope'"),
    (TINY.replace('"{kernel}"', '"{kernal}"'), "arguments name {kernal}, which is no axis or option"),
    (TINY.replace("[options]", "[options]\njson = true"), "option 'json' is set by the sweep itself"),
    (TINY.replace('verb = "makespan"', 'verb = "frobnicate"'), "verb 'frobnicate' is not a verb a sweep runs"),
    (TINY.replace('verb = "makespan"', 'verb = "sweep"'), "verb 'sweep' is not a verb a sweep runs"),
    (TINY.replace("warps = [1, 2, 3]", "warps = [1, 2.5e0]"), "is refused: makespan: warps=2.5: not an integer"),
    ("verb = 3\n", "verb = 3 is not allowed; it must be a string"),
    (TINY.replace('"{kernel}"', '"{kernel}{"'), "arguments[0] = '{kernel}{': Single '{' encountered in format string"),
    (TINY.replace('"{kernel}"', '"{kernel!z}"'), "{kernel!z} is not an axis or option name in braces; write {name}"),
    (TINY.replace('"{kernel}"', '"{kernel:>9}"'), "{kernel:>9} is not an axis or option name in braces"),
    (TINY.replace('"{kernel}"', '"{}"'), "arguments[0] = '{}': {} is not an axis or option name in braces"),
    (TINY.replace('"{kernel}"', '"{kernel[0]}"'), "{kernel[0]} is not an axis or option name in braces"),
    (TINY.replace("[options]", "[options]\ntimeout = nan"), "warps = 1} is refused: makespan: timeout=nan: not a number "
                                                            "of seconds"),
    (TINY.replace("[options]", "[options]\nmemory = -inf"), "is refused: makespan: memory=-inf: not allowed; give a "
                                                           "finite number"),
    (TINY.replace("warps = [1, 2, 3]", "warps = [1, -2]"), "warps = -2} is refused: makespan: warps=-2: not allowed; "
                                                           "it must be >= 1"),
    (TINY.replace("[axes]", "[axes]\ntimeout = [10, -0.5]"), "timeout = -0.5, kernel = 'LLCLL', warps = 1} is refused: makespan: "
                                                            "timeout=-0.5: not allowed; it must be > 0 seconds"),
    ('verb = "makespan"\narguments = ["LLCLL"]\noptions = { sigma = ["L=1", "C=1"] }\n' + "".join(
        f"[[grid]]\naxes = {{ warps = {list(range(1, 1001))}, method = ['enumerate', 'approx'] }}\n" for _ in range(51)),
     "the 51 grids make 102000 runs in all, above the ceiling of 100000; split the sweep"),
])
def test_a_bad_sweep_file_is_one_line_exit_2_and_nothing_is_written(text, says, tmp_path, capsys):
    store = tmp_path / "runs.duckdb"
    assert main(["sweep", write(tmp_path, text), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err
    assert not store.exists()


def test_the_grids_together_are_capped_before_any_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setattr(grid, "MAX_SWEEP_RUNS", 5)
    monkeypatch.setattr(grid, "_expand", lambda *a: pytest.fail("a grid was expanded"))
    text = TINY + "[[grid]]\naxes = { timeout = [10] }\n[[grid]]\naxes = { timeout = [20] }\n"  # 3 runs each
    with pytest.raises(InputFileError, match=r"s.toml: the 2 grids make 6 runs in all, above the ceiling of 5"):
        load_sweep(write(tmp_path, text))


SWEPT_ARGUMENTS = {"replay": ["examples/witnesses/baseline-lrr-gtlrr-W4-oracle.json"], "simulate": ["psort"],
                   "run": ["examples/jobs/swas-vs-baseline.toml"], "makespan": ["LLCLL"],
                   **dict.fromkeys(["cfg", "wcet", "simt"], ["examples/sass/loop.sass"]),
                   **dict.fromkeys(["analyze", "reorder prove", "reorder simulate"],
                                   ["examples/reorder/paper_example.ptx"])}
SWEPT_OPTIONS = {"simulate --kernels": {"kernels": ["psort", "saxpy"]}, "reorder replay": {"witness": "w.json"},
                 "check": {"certificate": "c.smt2"},
                 "export": {"format": "smt2"}, **dict.fromkeys(["analyze", "reorder prove", "reorder simulate"],
                                                               {"grid": "1", "block": "32"})}


def _numeric(f) -> bool:
    return not isinstance(f.default, bool) and isinstance(f.default, (int, float)) or \
        (f.default is None and str(f.type) in ("int | None", "float | None"))


@pytest.mark.parametrize("name", [n for n in VERBS])
def test_every_number_a_sweep_gives_a_verb_refuses_nan_inf_and_negatives_before_any_run(name, monkeypatch):
    """Each run's options record is built and checked before any run: a row's NaN, inf or -1 in any numeric
    option of any verb is refused naming the run and the option."""
    from dataclasses import fields
    monkeypatch.chdir(ROOT)
    numeric = [f.name for f in fields(VERBS[name].options_type()) if _numeric(f)]
    assert numeric
    for option in numeric:
        for bad in (float("nan"), float("inf"), -1):
            params = {**SWEPT_OPTIONS.get(name, {}), option: bad}
            run = grid.Run(name, params, (), tuple(SWEPT_ARGUMENTS.get(name, [])), tuple(params.items()))
            with pytest.raises(InputFileError) as e:
                grid.check_runs((run,), "s.toml")
            assert f"{option} = {bad!r}" in str(e.value) and f": {option}={bad!r}: " in str(e.value), str(e.value)


def test_a_sweep_runs_once_resumes_with_nothing_to_do_and_exports_csv(tmp_path, capsys):
    sweep, store, out = write(tmp_path, TINY), str(tmp_path / "runs.duckdb"), str(tmp_path / "runs.csv")
    assert main(["sweep", sweep, "--store", store, "--jobs", "1", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["runs"], first["already"], first["ran"], first["failed"]) == (3, 0, 3, [])
    assert main(["sweep", sweep, "--store", store, "--json", "--csv", out]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["already"], again["ran"], again["csv_rows"]) == (3, 0, 3)
    rows = list(csv.DictReader(io.StringIO(Path(out).read_text())))
    assert {(r["param.warps"], r["result.makespan"], r["result.pessimistic"]) for r in rows} == \
        {("1", "5", "5"), ("2", "9", "10"), ("3", "13", "15")}  # LLCLL, sigmas 1: exact 4W + 1, pessimistic 5W


def test_an_interrupted_sweep_keeps_its_finished_runs_and_a_rerun_does_only_the_rest(tmp_path, capsys, monkeypatch):
    sweep, store = write(tmp_path, TINY), str(tmp_path / "runs.duckdb")
    real = execute.run_local

    def two_then_ctrl_c(runs, jobs):
        yield from real(runs[:2], jobs)
        raise KeyboardInterrupt

    monkeypatch.setattr(execute, "run_local", two_then_ctrl_c)
    assert main(["sweep", sweep, "--store", store, "--jobs", "1"]) == 130
    err = capsys.readouterr().err
    assert "2 run(s) finished and kept" in err and "run the same command again" in err
    monkeypatch.setattr(execute, "run_local", real)
    assert main(["sweep", sweep, "--store", store, "--jobs", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["already"], report["ran"]) == (2, 1)
    with Store(store, read_only=True) as s:
        assert s.count() == (3, 0)


def test_the_store_keeps_a_result_once_and_replaces_only_a_failure(tmp_path):
    ok = {"code": 0, "result": {"makespan": 5}, "error": "", "seconds": 0.1, "worker": "w:1"}
    bad = {"code": 5, "result": None, "error": "crash", "seconds": 0.1, "worker": "w:2"}
    with Store(str(tmp_path / "s.duckdb")) as s:
        s.put("s", "makespan", "k1", {}, [], bad, True)
        assert s.done() == set()
        s.put("s", "makespan", "k1", {}, [], ok, False)
        s.put("s", "makespan", "k1", {}, [], {**ok, "result": {"makespan": 6}}, False)  # delivered twice
        s.put("s", "makespan", "k1", {}, [], bad, True)
        rows = list(s.rows())
    assert len(rows) == 1 and rows[0]["result"] == {"makespan": 5} and not rows[0]["failed"]


@pytest.mark.parametrize("argv, says", [
    (["plot", "nowhere.duckdb", "--figure", "table2"], "store 'nowhere.duckdb' does not exist"),
    (["plot", "STORE", "--figure", "qaws-reduction"], "holds no simulate --kernels runs"),
    (["plot", "STORE", "--figure", "nope"], "--figure nope: not one of swas-ipc, error-rate"),
    (["sweep", "--store", "nowhere.duckdb", "--csv", "x.csv"], "store 'nowhere.duckdb' does not exist"),
    (["sweep"], "no sweep file given"),
    (["sweep", "SWEEP", "--jobs", "0"], "--jobs 0: not allowed; it must be >= 1"),
    (["sweep", "SWEEP", "--csv", "SWEEP"], "--csv SWEEP is also the input SWEEP; give another path"),
    (["sweep", "SWEEP", "--memory", "1e300"], "argument --memory: 1e+300: above the ceiling of 1048576 GiB"),
    (["plot", "STORE", "--figure", "table2", "--memory", "inf"], "argument --memory: inf: not allowed; give a finite"),
])
def test_plot_and_export_refuse_bad_input_in_one_line(argv, says, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with Store(str(tmp_path / "empty.duckdb")):
        pass
    sweep = write(tmp_path, TINY)
    argv = [sweep if a == "SWEEP" else str(tmp_path / "empty.duckdb") if a == "STORE" else a for a in argv]
    says = says.replace("SWEEP", sweep)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.slow  # matplotlib costs seconds; test_table2_divides_swas_ipc_by_the_baselines keeps plot in the suite
def test_makespan_figure_is_drawn_from_the_store(tmp_path, capsys):
    sweep, store = write(tmp_path, TINY), str(tmp_path / "runs.duckdb")
    assert main(["sweep", sweep, "--store", store, "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    out = tmp_path / "fig"
    assert main(["plot", store, "--figure", "makespan-vs-w", "--out", str(out), "--json"]) == 0
    drawn = json.loads(capsys.readouterr().out)
    assert sorted(Path(f).name for f in drawn["files"]) == ["makespan-vs-w.png", "makespan-vs-w.svg"]
    assert (out / "makespan-vs-w.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (out / "makespan-vs-w.svg").read_text()
    assert [(v["warps"], v["makespan"], v["exact"]) for v in drawn["values"]] == [(1, 5, True), (2, 9, True),
                                                                                  (3, 13, True)]


OK_RUN = {"code": 0, "result": {"kernel": "LLCLL", "sigma": {"L": 1, "C": 1}, "warps": 2, "pessimistic": 10,
                                 "approximation": {"value": 9, "x": 2}, "makespan": 9, "exact": True}}


def a_store(path: Path, runs: int = 40) -> str:
    with Store(str(path)) as s:
        for k in range(runs):
            s.put("t", "makespan", f"k{k}", {"warps": k}, [], OK_RUN, False)
    return str(path)


def duckdb_file(path: Path, *sql: str) -> str:
    import duckdb
    db = duckdb.connect(str(path))
    for statement in sql:
        db.execute(statement)
    db.close()
    return str(path)


def cut_short(path: Path, at: str) -> str:
    size = Path(a_store(path)).stat().st_size
    os.truncate(path, {"first page": 4096, "half": size // 2}[at])
    return str(path)


FOREIGN = {  # a store that is not one warpcheck wrote, and the words that refuse it
    "cut at its first page": (lambda p: cut_short(p, "first page"), "damaged (cut short?)"),
    "cut in half": (lambda p: cut_short(p, "half"), "is damaged (cut short?)"),
    "not a DuckDB file": (lambda p: (p.write_text("key,result\n1,2\n"), str(p))[1], "is not a warpcheck results store"),
    "other columns": (lambda p: duckdb_file(p, "CREATE TABLE runs (a INTEGER, b VARCHAR)"),
                      "is not a warpcheck results store: its runs table has no column 'key'"),
    "a column of another type": (lambda p: duckdb_file(p, store_module.SCHEMA.replace("result JSON", "result INTEGER")),
                                 "its runs column 'result' is INTEGER, not JSON"),
    "a view": (lambda p: duckdb_file(p, "CREATE TABLE t (key VARCHAR)", "CREATE VIEW runs AS SELECT * FROM t"),
               "its runs is a view, not a table"),
    "no key": (lambda p: duckdb_file(p, store_module.SCHEMA.replace(" PRIMARY KEY", "")),
               "its runs table is not keyed by the column 'key'"),
    "other tables only": (lambda p: duckdb_file(p, "CREATE TABLE accounts (x INTEGER)"),
                          "holds the table(s) accounts and no runs table"),
    "newer": (lambda p: duckdb_file(Path(a_store(p)), "UPDATE meta SET value = '7'"),
              "was written by a newer warpcheck (store version 7; this one reads versions up to 1)"),
}


@pytest.mark.parametrize("verb", ["sweep", "plot", "csv"])
@pytest.mark.parametrize("kind", list(FOREIGN))
def test_a_damaged_foreign_or_newer_store_is_refused_in_one_line_before_anything_runs(kind, verb, tmp_path, capsys,
                                                                                      monkeypatch):
    make, says = FOREIGN[kind]
    store = make(tmp_path / "s.duckdb")
    before = Path(store).read_bytes()
    monkeypatch.setattr(execute, "run_local", lambda *a: pytest.fail("a run started"))
    argv = {"sweep": ["sweep", write(tmp_path, TINY), "--store", store],
            "plot": ["plot", store, "--figure", "makespan-vs-w", "--out", str(tmp_path / "figs")],
            "csv": ["sweep", "--store", store, "--csv", str(tmp_path / "s.csv")]}[verb]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err
    assert Path(store).read_bytes() == before and not (tmp_path / "figs").exists() and not (tmp_path / "s.csv").exists()


def test_a_store_written_before_stores_had_a_version_is_read_and_gains_one(tmp_path, capsys):
    old = str(tmp_path / "old.duckdb")
    duckdb_file(Path(old), store_module.SCHEMA)  # the layout of version 0: runs alone, no meta table
    with Store(old, read_only=True) as s:
        assert s.count() == (0, 0)
    assert main(["sweep", write(tmp_path, TINY), "--store", old, "--jobs", "1", "--quiet"]) == 0
    with Store(old, read_only=True) as s:
        assert s.count() == (3, 0) and s.query("SELECT value FROM meta WHERE key = 'store_version'") == [("1",)]


@pytest.mark.parametrize("figure, verb, result, says", [
    ("makespan-vs-w", "makespan", {**OK_RUN["result"], "pessimistic": "ten"}, "Could not convert string 'ten'"),
    ("makespan-vs-w", "makespan", {**OK_RUN["result"], "makespan": 0}, "whose makespan is 0, not a number > 0"),
    ("makespan-vs-w", "makespan", {**OK_RUN["result"], "sigma": "L"}, 'whose sigma "L" or exact True is not'),
    ("proof-time", "prove", {"config": {"design": "swas"}, "status": "PASS", "seconds": 1},
     "whose warps is None, not a number > 0"),
    ("table2", "simulate", {"config": {"t_fetch": 3}, "runs": [
        {"workload": "w", "warps": 8, "cycles": 9, "finished": True, "design": "swas", "policies": "gtlrr",
         "ipc": float("inf"), "errors": 0, "error_rate": 0.0}]}, "whose ipc is inf, not a number > 0"),
    ("qaws-reduction", "simulate", {"kernels": [{"workload": "a", "budget": 1}, {"workload": "b", "budget": 2}],
                                    "runs": [{"policy": p, "kernels": [{}, {"response": "x"}]}
                                             for p in ("lrr", "gto", "qaws")]}, "has K2 responses 'x', 'x', 'x'"),
    ("qaws-reduction", "simulate", {"kernels": [{"workload": "a", "budget": 1}, {"workload": "b", "budget": 2}],
                                    "runs": [{"policy": p, "kernels": [{}, {}]} for p in ("lrr", "gto", "qaws")]},
     "lacks what warpcheck writes there (KeyError: 'response')"),
])
def test_a_result_that_is_not_a_number_where_a_figure_needs_one_is_refused_by_name(figure, verb, result, says,
                                                                                    tmp_path, capsys):
    store = str(tmp_path / "s.duckdb")
    with Store(store) as s:
        s.put("t", verb, "k", {}, [], {"code": 0, "result": result}, False)
    assert main(["plot", store, "--figure", figure, "--out", str(tmp_path / "figs")]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and store in err, err
    assert not (tmp_path / "figs").exists()


def test_table2_divides_swas_ipc_by_the_baselines(tmp_path, capsys):
    """Table II from stored simulate results: the ratio and the error counts, checked by hand."""
    def sim(workload, base_ipc, swas_ipc, errors):
        run = {"workload": workload, "warps": 8, "cycles": 100, "finished": True}
        return {"config": {"t_fetch": 3}, "runs": [
            {**run, "design": "baseline", "policies": "lrr-gtlrr", "ipc": base_ipc, "errors": errors, "error_rate": 0.1},
            {**run, "design": "baseline", "policies": "gtlo-lrr", "ipc": 99.0, "errors": 1, "error_rate": 0.01},
            {**run, "design": "swas", "policies": "gtlrr", "ipc": swas_ipc, "errors": 0, "error_rate": 0.0}]}
    store = str(tmp_path / "s.duckdb")
    unfinished = sim("kmeans", 1.0, 1.0, 1)
    unfinished["runs"][0]["finished"] = False  # stopped at --max-cycles: left out, and said so
    with Store(store) as s:
        for k, (w, b, sw, e) in enumerate([("psort", 20.0, 13.0, 1650), ("sgemm", 10.0, 10.8, 40)]):
            s.put("t", "simulate", f"k{k}", {}, [], {"code": 0, "result": sim(w, b, sw, e)}, False)
        s.put("t", "simulate", "k3", {}, [], {"code": 1, "result": unfinished}, False)
    assert main(["plot", store, "--figure", "table2", "--out", str(tmp_path), "--json"]) == 0
    out, err = capsys.readouterr()
    values = json.loads(out)["values"]
    assert "note: 1 simulate run(s) that did not finish within their --max-cycles are left out" in err
    assert [(v["benchmark"], v["ipc_ratio"], v["errors_baseline"], v["errors_swas"]) for v in values] == \
        [("psort", 0.65, 1650, 0), ("sgemm", 1.08, 40, 0)]
    md = (tmp_path / "table2.md").read_text()
    assert "| psort | 20.0 | 13.0 | 0.65 | 1650 | 0 |" in md
    assert (tmp_path / "table2.csv").read_text().splitlines()[0].startswith("benchmark,ipc_baseline,ipc_swas")


@pytest.mark.slow
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_swas_table2_is_interrupted_by_a_signal_and_resumed(sig, code, tmp_path):
    """The shipped sweep, stopped by Ctrl-C or SIGTERM once some runs are stored, then run again to the end."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "warpcheck.cli", "sweep", str(ROOT / "examples/sweeps/swas-table2.toml"),
            "--store", str(tmp_path / "t2.duckdb")]
    with subprocess.Popen(argv, cwd=ROOT, stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("  .. 3/72 done"):
                break
        proc.send_signal(sig)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == code, rest
    with Store(str(tmp_path / "t2.duckdb"), read_only=True) as s:
        kept, failed = s.count()
    assert kept >= 3 and failed == 0
    said = re.search(r"(\d+) run\(s\) finished and kept", rest)
    assert said and int(said.group(1)) == kept, rest
    again = subprocess.run([*argv, "--json"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    report = json.loads(again.stdout)
    assert again.returncode == 0 and report["already"] == kept and report["ran"] == 72 - kept


def test_any_verb_sweeps_and_a_failed_run_is_kept_as_failed_exit_1_and_tried_again(tmp_path, capsys, monkeypatch):
    """wcet, whose result is one object (no `runs` list): a CSV row per run, the verb's keys as columns, the
    values those of the same run by hand; a kernel that does not exist fails (exit 2) and is tried again."""
    monkeypatch.chdir(ROOT)
    text = ('verb = "wcet"\narguments = ["examples/sass/{kernel}.sass"]\n[options]\nmax_loop_bound = 3\n'
            '[axes]\nkernel = ["loop", "slides", "missing"]\n')
    sweep, store, out = write(tmp_path, text), str(tmp_path / "w.duckdb"), str(tmp_path / "w.csv")
    assert main(["sweep", sweep, "--store", store, "--jobs", "1", "--csv", out, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(f["params"]["kernel"], f["exit_code"]) for f in report["failed"]] == [("missing", 2)]
    rows = {r["param.kernel"]: r for r in csv.DictReader(io.StringIO(Path(out).read_text()))}
    assert sorted(rows) == ["loop", "missing", "slides"] and rows["missing"]["failed"] == "True"
    for kernel in ("loop", "slides"):
        assert main(["wcet", f"examples/sass/{kernel}.sass", "--max-loop-bound", "3", "--json"]) == 0  # by hand
        assert rows[kernel]["result.wcet"] == str(json.loads(capsys.readouterr().out.splitlines()[-1])["wcet"])
    assert main(["sweep", sweep, "--store", store, "--jobs", "1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["ran"] == 1  # the failed run only
    with Store(store, read_only=True) as s:
        assert s.count() == (2, 1)


SMALL_SWEEPS = {  # the example sweeps cut down: (file, replacements that shrink them)
    "swas-table2.toml": [('workload = ["blackscholes", "hotspot", "hotspot3D", "kmeans", "psort", "sgemm"]',
                          'workload = ["psort", "sgemm"]'), ("warps = 8", "warps = 4")],
    "swas-ratio.toml": [('workload = ["blackscholes", "hotspot", "hotspot3D", "kmeans", "psort", "sgemm"]',
                         'workload = ["sgemm"]'), ("[2, 4, 8, 16, 32]", "[2, 4]")],
    "makespan-fig6.toml": [("warps = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 600]",
                            "warps = [1, 2, 4, 8]")],
    "qaws-pairs.toml": [("scale = 0.25", "scale = 0.05")],
    "proof-time.toml": [("warps = [2, 3, 4, 5, 6, 8]", "warps = [2]")],
}
FIGURES_OF = {"swas-table2.toml": ["swas-ipc", "error-rate", "table2"], "swas-ratio.toml": ["ipc-ratio"],
              "makespan-fig6.toml": ["makespan-vs-w"], "qaws-pairs.toml": ["qaws-reduction"],
              "proof-time.toml": ["proof-time"]}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SMALL_SWEEPS))
def test_each_example_sweep_draws_its_figures(name, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / "examples" / "sweeps" / name).read_text()
    for old, new in SMALL_SWEEPS[name]:
        assert old in text
        text = text.replace(old, new)
    store = str(tmp_path / "s.duckdb")
    assert main(["sweep", write(tmp_path, text, name), "--store", store, "--quiet"]) == 0
    for figure in FIGURES_OF[name]:
        assert main(["plot", store, "--figure", figure, "--out", str(tmp_path), "--json"]) == 0, figure
        drawn = json.loads(capsys.readouterr().out.splitlines()[-1])
        assert drawn["values"] and all(Path(f).stat().st_size > 50 for f in drawn["files"])


def test_a_script_sweeps_as_the_verb_does_and_is_refused_in_its_own_words(tmp_path, capsys):
    import warpcheck
    sweep = write(tmp_path, TINY)
    by_hand = warpcheck.sweep(sweep, store=str(tmp_path / "a.duckdb"), jobs=1)
    assert main(["sweep", sweep, "--store", str(tmp_path / "b.duckdb"), "--jobs", "1", "--json"]) == 0
    verb = json.loads(capsys.readouterr().out)
    mine = by_hand.to_dict()
    for report in (mine, verb):
        report.pop("seconds"), report.pop("store")
    assert mine == verb and by_hand.code == 0
    with Store(str(tmp_path / "a.duckdb"), read_only=True) as a, Store(str(tmp_path / "b.duckdb"), read_only=True) as b:
        assert [(r["key"], r["result"]["makespan"]) for r in a.rows()] == \
            [(r["key"], r["result"]["makespan"]) for r in b.rows()]
    with pytest.raises(warpcheck.ConfigError, match=r"^jobs=0: not allowed; it must be >= 1"):
        warpcheck.sweep(sweep, jobs=0)
    with pytest.raises(warpcheck.ConfigError, match=r"unknown keyword 'job'; did you mean 'jobs'"):
        warpcheck.sweep(sweep, job=1)
