"""The API of the QAWS and reordering domains gives what the verbs print: same data, exit codes and error lines."""
from __future__ import annotations

import dataclasses
import runpy
from pathlib import Path

import pytest

import warpcheck
from warpcheck.cli.main import main
from conftest import same_refusal, steady, verb_json

ROOT = Path(__file__).resolve().parent.parent
PAPER = str(ROOT / "examples" / "reorder" / "paper_example.ptx")
LAUNCH = ["--grid", "1,2,1", "--block", "16,4,1", "--param", "in=0"]
KERNEL = dict(grid=(1, 2, 1), block=(16, 4, 1), params={"in": 0})
VOLATILE = {"seconds", "witness", "certificate", "certificates"}  # wall-clock times, and where each run wrote its files


def _steady(x):
    return steady(x, VOLATILE)


_cli = verb_json


def test_analyze_is_the_verbs_json(capsys):
    r = warpcheck.analyze(PAPER, **KERNEL, cache="16K:4")
    assert (r.code, r.to_dict()) == _cli(capsys, "analyze", PAPER, *LAUNCH, "--cache", "16K:4")
    assert r.order[:2] == [((0, 0, 0), 0, 0), ((0, 0, 0), 1, 0)] and r.to_dict()["l1"]["load_misses"] == 4
    assert r.report().startswith("kernel split_by_row: grid [1, 2, 1]")


def test_reorder_prove_without_the_unit_fails_and_its_witness_replays_as_the_verbs(capsys, tmp_path):
    f = warpcheck.reorder_prove(PAPER, **KERNEL, unit=False, witness=tmp_path / "api.json")
    code, out = _cli(capsys, "reorder", "prove", PAPER, *LAUNCH, "--no-unit", "--witness", str(tmp_path / "cli.json"))
    assert (f.status, f.code, f.witness) == ("FAIL", 1, str(tmp_path / "api.json"))
    mine, theirs = _steady(f.to_dict()), _steady(out)
    for d in (mine, theirs):  # the solver may pick another schedule each time: both must replay
        assert d.pop("reproduced") and [s["order"] != d["static_order"] for s in d.pop("schedules")] == [True, False]
    assert (f.code, mine) == (code, theirs)
    again = warpcheck.reorder_replay(f)
    code, out = _cli(capsys, "reorder", "replay", f.witness)
    assert (again.status, again.code, _steady(again.to_dict())) == ("PASS", code, out)
    # the BMC schedule leaves the static order without the unit; with the unit every schedule keeps it
    runs = [(r["unit"], r["static"]) for r in again.to_dict()["runs"]]
    assert runs == [(False, False), (False, True), (True, True), (True, True)]


def test_reorder_prove_over_every_stream_is_the_verbs(capsys):
    p = warpcheck.reorder_prove(streams=1, warps=2, lines=2)
    code, out = _cli(capsys, "reorder", "prove", "--streams", "1", "--warps", "2", "--lines", "2")
    assert (p.status, p.code) == ("PASS", 0) and (code, _steady(out)) == (0, _steady(p.to_dict()))
    assert "claim" in out and p.witness is None


def test_reorder_simulate_is_the_verbs(capsys):
    s = warpcheck.reorder_simulate(PAPER, **KERNEL, seeds=2, jitter=10)
    code, out = _cli(capsys, "reorder", "simulate", PAPER, *LAUNCH, "--seeds", "2", "--jitter", "10")
    assert (s.status, s.code, _steady(s.to_dict())) == ("PASS", 0, _steady(out)) and code == 0
    assert s.to_dict()["configs"]["unit"]["static_order_kept"]


def test_qaws_wcrt_is_the_verbs_and_agrees_with_enumeration(capsys):
    progs = {"K1": "int", "K2": ["mem"]}
    w = warpcheck.qaws_wcrt("qaws,gto", programs=progs, warps=(1, 1), exhaustive=True)
    code, out = _cli(capsys, "qaws", "wcrt", "--policy", "qaws,gto", "--program", "K1=int", "--program", "K2=mem",
                     "--warps", "1,1", "--exhaustive")
    assert (w.status, w.code) == ("PASS", code) == ("PASS", 0) and _steady(w.to_dict()) == _steady(out)
    assert all(r["exhaustive"]["agrees"] and r["replayed"] for r in w.policies.values())
    assert w.policies["qaws"]["response"] == w.policies["qaws"]["exhaustive"]["response"]


def test_a_wcrt_the_simulator_does_not_replay_is_an_error_of_the_kit(monkeypatch):
    """Mutant of the cross-check: a simulator that finishes K2 one cycle late must turn the PASS into ERROR (5)."""
    import warpcheck._qaws.searches as q

    real = q.replay

    def late(ts, params, inputs):
        run = real(ts, params, inputs)
        return dataclasses.replace(run, finish=(run.finish[0], run.finish[1] + 1))

    monkeypatch.setattr(q, "replay", late)
    w = warpcheck.qaws_wcrt("qaws", programs={"K1": "int", "K2": "mem"}, warps=(1, 1))
    assert (w.status, w.code, w.problem) == ("ERROR", 5, "the search and the simulator disagree for qaws")


def test_qaws_inversion_and_switches_are_the_verbs(capsys):
    i = warpcheck.qaws_inversion("gto", programs={"K1": "int", "K2": "branch,mem"}, depth=12)
    code, out = _cli(capsys, "qaws", "inversion", "--policy", "gto", "--program", "K1=int", "--program",
                     "K2=branch,mem", "--depth", "12")
    assert (i.status, i.code) == ("FAIL", code) == ("FAIL", 1) and _steady(i.to_dict()) == _steady(out)
    assert i.policies["gto"]["found"] and i.policies["gto"]["replayed"]
    s = warpcheck.qaws_switches("qaws", warps=(1, 1), budgets={"K2": 2})
    code, out = _cli(capsys, "qaws", "switches", "--warps", "1,1", "--budget", "K2=2")
    assert (s.status, s.code, code) == ("PASS", 0, 0) and _steady(s.to_dict()) == _steady(out)
    assert s.report().startswith("qaws: while K2 has an eligible warp, K1 switches warps at most 1 time(s)")


@pytest.mark.parametrize("call, argv", [
    (lambda: warpcheck.analyze(PAPER, grid=(1, 2, 1), block=(16, 4, 1)), ["analyze", PAPER, "--grid", "1,2,1",
                                                                           "--block", "16,4,1"]),
    (lambda: warpcheck.reorder_replay(PAPER), ["reorder", "replay", PAPER]),
])
def test_bad_input_raises_the_verbs_one_line(capsys, call, argv):
    same_refusal(capsys, call, argv)


@pytest.mark.parametrize("call, argv, keyword, flag", [
    (lambda: warpcheck.reorder_prove(PAPER, **KERNEL, unit=False, check="wait"),
     ["reorder", "prove", PAPER, *LAUNCH, "--no-unit", "--check", "wait"], "check='wait'", "--check wait"),
    (lambda: warpcheck.reorder_prove(streams=2, check="deadlock"),
     ["reorder", "prove", "--streams", "2", "--check", "deadlock"], "check='deadlock'", "--check deadlock"),
    (lambda: warpcheck.analyze(PAPER, **KERNEL, line_bytes=-1), ["analyze", PAPER, *LAUNCH, "--line-bytes", "-1"],
     "line_bytes=-1", "--line-bytes -1"),
])
def test_a_bad_option_is_one_problem_named_as_the_caller_wrote_it(capsys, call, argv, keyword, flag):
    """The function names the keyword, the verb the flag; the problem text and the class are the same."""
    with pytest.raises(warpcheck.ConfigError) as e:
        call()
    capsys.readouterr()
    assert str(e.value).startswith(f"{keyword}: ") and main(argv) == 2
    assert capsys.readouterr().err.strip().endswith(f"error: {flag}: {str(e.value).removeprefix(keyword + ': ')}")


def test_keywords_are_checked_as_the_options_are():
    with pytest.raises(warpcheck.ConfigError, match=r"^streams=99: above the ceiling of 8$"):
        warpcheck.reorder_prove(streams=99)
    with pytest.raises(warpcheck.ConfigError, match=r"^warps=\(1, 2, 3\): not two warp counts"):
        warpcheck.qaws_wcrt(warps=(1, 2, 3))  # the keyword, not the flag (tests/test_one_path_qaws.py: both)
    with pytest.raises(warpcheck.ConfigError, match=r"^reorder prove needs grid, block \(a PTX file and its launch\)"):
        warpcheck.reorder_prove(PAPER)
    with pytest.raises(warpcheck.ConfigError, match=r"^order='fifo': not one of round, barrier"):
        warpcheck.analyze(PAPER, **KERNEL, order="fifo")


def test_wcrt_sweep_script_runs(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["qaws_wcrt_sweep.py", "--budgets", "1,2", "--policies", "qaws",
                                     "--warps", "1,1", "--k1", "int", "--k2", "mem"])
    with pytest.raises(SystemExit) as end:
        runpy.run_path(str(ROOT / "examples" / "scripts" / "qaws_wcrt_sweep.py"), run_name="__main__")
    assert end.value.code == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[:2] for r in rows] == [["1", "qaws"], ["2", "qaws"]] and all(r[3] == "proved" for r in rows)
