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


@pytest.mark.parametrize("name", [pytest.param(n, marks=[] if n == "sent-stays" else [pytest.mark.slow])
                                  for n in HANGS])
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
