"""A PASS on a unit that hangs is no PASS: every kernel proof also proves ``progress`` (issue 38)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.sim.reorder.run import drain, longest_wait, simulate
from warpcheck.verify.reorder.props import Monitored, prove, schedule_of
from warpcheck.verify.result import Status

from kernel_fixtures import ROOT

REORDER = ROOT / "examples" / "reorder"
CONFLICTS = [REORDER / "set_conflicts.ptx", "--grid", 1, "--block", 128, "--param", "data=0", "--param", "rows=3"]
DEADLOCK = [REORDER / "barrier_deadlock.ptx", "--grid", 1, "--block", 64, "--param", "data=0"]
HANGS = ("sent-stays", "wrong-channel", "backlog-plus-one")
WORK = Workload(((0, 0, 0), (0,)), (0, 0))


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, _ = capsys.readouterr()
    return code, out


def monitored(cls: type = ReorderUnit) -> Monitored:
    return Monitored(cls(WORK, 2, channel_lemmas=True), wait=True)


def test_the_unit_makes_progress():
    r = prove(monitored(), "progress", timeout=HANG_GUARD)
    assert r.status is Status.PASS and not r.bounded, r.message


@pytest.mark.slow
@pytest.mark.parametrize("name", HANGS)
def test_a_unit_that_hangs_passes_order_but_fails_progress(name):
    m = monitored(MUTANTS[name].make())
    assert prove(m, "order", timeout=HANG_GUARD).status is Status.PASS  # what the issue found
    r = prove(m, "progress", timeout=HANG_GUARD)
    assert r.status is Status.FAIL and r.trace is not None
    schedule = schedule_of(r.trace)
    stuck = len(drain(m.inner, schedule).order) < len(m.order)  # the run never ends
    late = longest_wait(simulate(m.inner, schedule), m.order, 1) is not None  # or a delivered request waits on
    assert stuck or late
    assert not longest_wait(simulate(ReorderUnit(WORK, 2), schedule), m.order, 1)  # the unit itself keeps it


def test_the_round_order_deadlock_is_no_pass_of_order(capsys):
    code, out = run(capsys, "reorder", "prove", *DEADLOCK)
    assert code == 1 and "check order: FAIL" in out and "progress" in out
    witness = out.split("witness: ")[1].split(" ")[0]
    assert json.loads(Path(witness).read_text())["check"] == "progress"
    code, out = run(capsys, "reorder", "replay", witness)
    assert code == 0 and "reproduced" in out and "stuck" in out
    code, out = run(capsys, "reorder", "prove", *DEADLOCK, "--order", "barrier")
    assert code == 0 and "progress (every request sent" in out and "PASS (unbounded)" in out


@pytest.mark.slow
@pytest.mark.parametrize("check", ["order", "deadlock"])
@pytest.mark.parametrize("name", HANGS)
def test_kernel_checks_fail_a_unit_that_hangs(capsys, name, check):
    code, out = run(capsys, "reorder", "prove", *CONFLICTS, "--check", check, "--mutant", name, "--witness", "w.json")
    assert code == 1 and f"check {check}: FAIL" in out, out
    code, out = run(capsys, "reorder", "replay", "w.json")
    assert code == 0 and "reproduced" in out


# -- over every stream: progress, no phantom request, sets != ways, distinct barrier-key bounds -------------------

def _kill(name, tmp_path):
    from warpcheck._reorder.mutation import kill
    return kill(name, tmp_path)


def test_a_unit_that_accepts_nothing_fails_progress_over_streams(tmp_path):
    """It PASSed the stream proof (nothing sent, nothing out of order); the reference judges the solver's trace."""
    k = _kill("nothing-delivered", tmp_path)
    assert k.status == "FAIL" and k.verdict == "killed" and "progress" in k.evidence, k
    assert "unmutated unit: nothing violated" in k.evidence


@pytest.mark.slow
@pytest.mark.parametrize("name, part", [("phantom-send", "made"), ("sent-never-set", "progress"),
                                        ("set-from-ways", "misses"), ("key-span-from-epochs", "wait")])
def test_stream_mutants_the_issue_found_now_fail(name, part, tmp_path):
    k = _kill(name, tmp_path)
    assert k.status == "FAIL" and k.verdict == "killed" and part in k.evidence.split("reference on the trace")[1], k
    assert k.seconds < 60


def test_the_default_stream_proof_covers_sets_not_ways_and_two_barrier_bounds():
    from warpcheck._reorder.options import ReorderProveOptions
    from warpcheck._reorder.stream_proof import build, family

    a = ReorderProveOptions(streams=3)
    spec = build(a).inner.l1.spec
    assert spec.sets != spec.ways and a.lines >= 3 * spec.sets  # three lines per set: replacement happens
    bounds = [build(a, b).inner.work for b in family(a)]
    assert any(w.max_epoch + 1 < w.longest for w in bounds)  # a key span taken from the epochs collides there


def test_the_reference_judges_a_record_without_the_unit():
    """The judge sees a phantom request, a late one and a hang from the record alone."""
    from warpcheck.spec.reorder.record_check import Record, judge

    warps = [[(0, "L", 0), (0, "L", 128)], [(0, "L", 256)]]
    fine = Record(((0, 0), (1, 0), (0, 1), (-1, 0), (-1, 0)), ((-1, -1), (0, 0), (1, 0), (-1, -1), (0, 1)),
                  None, (True,) * 6)
    assert judge([0, 0], warps, "round", 2, None, fine) == {}
    phantom = Record(((-1, 0),), ((0, 0),), None, (True, True))
    assert set(judge([0, 0], warps, "round", 2, None, phantom)) == {"made"}
    late = Record(((0, 0), (-1, 0), (-1, 0)), ((-1, -1),) * 3, None, (True,) * 4)
    assert set(judge([0, 0], warps, "round", 2, None, late)) == {"wait"}
    hang = Record(((-1, 0),), ((-1, -1),), None, (False, False))
    assert set(judge([0, 0], warps, "round", 2, None, hang)) == {"progress"}
