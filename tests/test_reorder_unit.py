"""The reordering unit: the order proof, its counterexample without the unit, a mutant, deadlock, differential."""
from __future__ import annotations

import json
import random

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as hs

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import term
from warpcheck.models.reorder.l1 import L1Spec
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.models.reorder.order import static_order
from warpcheck.sim.reorder.run import drain, random_schedule, simulate
from warpcheck.verify.reorder.props import Monitored, prove, schedule_of
from warpcheck.verify.result import Status

from kernel_fixtures import ROOT

REORDER = ROOT / "examples" / "reorder"
PAPER = [REORDER / "paper_example.ptx", "--grid", "1,2,1", "--block", "16,4,1", "--param", "in=0"]
CONFLICTS = [REORDER / "set_conflicts.ptx", "--grid", 1, "--block", 128, "--param", "data=0", "--param", "rows=3"]
DEADLOCK = [REORDER / "barrier_deadlock.ptx", "--grid", 1, "--block", 64, "--param", "data=0"]
THREE_EACH = Workload(((0, 0, 0),) * 4, (0, 0, 0, 0))


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch):
    """Default witness files go to a temporary folder."""
    monkeypatch.chdir(tmp_path)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


class HeadOnly(ReorderUnit):
    """Mutant: no search pointer; the unit sends the head of the channel it waits at."""

    def search(self, A, slots, sp, expected):
        return A.ne(slots[0], A.const(-1)), slots[0], A.const(0)


def test_with_the_unit_the_order_is_proved_unbounded():
    r = prove(Monitored(ReorderUnit(THREE_EACH, channel=2)), "order", timeout=HANG_GUARD)
    assert r.status is Status.PASS and not r.bounded and not r.rejected_lemmas, r.message


def test_no_delivery_is_ever_dropped_from_a_channel():
    for channel in (1, 2, 3):
        ts = ReorderUnit(Workload(((0, 0, 1), (0, 1), (1,)), (0, 0, 0)), channel, "barrier", channel_lemmas=True)
        r = prove(Monitored(ts), "order", timeout=HANG_GUARD)
        assert r.status is Status.PASS and not r.rejected_lemmas, r.rejected_lemmas
        assert any(n.startswith("channel_holds_queued.") for n in r.lemmas)


def test_without_the_unit_the_order_fails_and_replays():
    m = Monitored(ReorderUnit(THREE_EACH, channel=2, unit=False))
    r = prove(m, "order", timeout=HANG_GUARD)
    assert r.status is Status.FAIL and r.trace is not None
    replayed = simulate(m.inner, schedule_of(r.trace)).order
    assert replayed != m.order[:len(replayed)]


def test_the_mutant_without_search_pointer_fails():
    m = Monitored(HeadOnly(THREE_EACH, channel=2))
    r = prove(m, "order", timeout=HANG_GUARD)
    assert r.status is Status.FAIL, r.label
    replayed = simulate(m.inner, schedule_of(r.trace)).order
    assert replayed != m.order[:len(replayed)]


def test_random_schedules_under_the_unit_give_the_static_order():
    ts = ReorderUnit(Workload(((0, 0, 1), (0, 1), (0,), (1, 1)), (0, 0, 1, 1)), channel=2, order="barrier")
    order, rng = static_order(ts.work.epochs, "barrier"), random.Random(3)
    for _ in range(30):
        run_ = simulate(ts, random_schedule(ts, rng), extra=12)
        assert run_.order == order and run_.refused is None


def test_deadlock_is_found_replayed_and_the_barrier_order_is_free():
    work = Workload(((1,), (0, 1)), (0, 0))
    m = Monitored(ReorderUnit(work, channel=2, order="round"))
    r = prove(m, "deadlock", timeout=HANG_GUARD)
    assert r.status is Status.FAIL
    assert drain(m.inner, schedule_of(r.trace)).order == []
    free = Monitored(ReorderUnit(work, channel=2, order="barrier"))
    assert prove(free, "deadlock", timeout=HANG_GUARD).status is Status.PASS
    assert drain(free.inner, []).order == free.order


def test_cli_proves_the_paper_example(capsys):
    code, out, _ = run(capsys, "reorder", "prove", *PAPER, "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "PASS" and data["bounded"] is False
    assert data["l1"]["exact"] and data["l1"]["load_misses"] == 4


def test_cli_without_the_unit_gives_two_schedules_with_different_misses(capsys, tmp_path):
    witness = tmp_path / "w.json"
    code, out, _ = run(capsys, "reorder", "prove", *CONFLICTS, "--no-unit", "--json", "--witness", witness)
    data = json.loads(out)
    assert code == 1 and data["status"] == "FAIL" and data["reproduced"] and data["misses_differ"]
    first, second = data["schedules"]
    assert first["order"] != second["order"] and second["order"] == data["static_order"]
    assert sorted([first["load_misses"], second["load_misses"]]) == [9, 12]
    saved = json.loads(witness.read_text())
    assert saved["format"] == "warpcheck-reorder-witness" and len(saved["schedules"]) == 2


def test_cli_reports_the_barrier_deadlock(capsys):
    code, out, _ = run(capsys, "reorder", "prove", *DEADLOCK, "--check", "deadlock")
    assert code == 1 and "deadlock: the unit waits for B[0, 0, 0]W0#0" in out
    code, out, _ = run(capsys, "reorder", "prove", *DEADLOCK, "--check", "deadlock", "--order", "barrier")
    assert code == 0 and "PASS (unbounded)" in out


def test_witnesses_replay_with_and_without_the_unit(capsys):
    code, out, _ = run(capsys, "reorder", "prove", *DEADLOCK, "--check", "deadlock", "--json")
    path = json.loads(out)["witness"]
    code, out, _ = run(capsys, "reorder", "replay", path, "--json")
    data = json.loads(out)
    assert code == 0 and data["reproduced"]
    assert [(r["unit"], r["complete"]) for r in data["runs"]] == [(True, False), (False, True)]
    code, out, _ = run(capsys, "reorder", "prove", *CONFLICTS, "--no-unit", "--json")
    code, out, _ = run(capsys, "reorder", "replay", json.loads(out)["witness"], "--json")
    runs = json.loads(out)["runs"]
    assert code == 0 and all(r["static"] for r in runs if r["unit"]) and not runs[0]["static"]


def test_a_file_that_is_no_witness_is_refused(capsys, tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text('{"format": "warpcheck-witness", "version": 1}')
    code, out, err = run(capsys, "reorder", "replay", bad)
    assert code == 2 and out == "" and err.count("\n") == 1 and "is not a reorder witness" in err


def test_cli_bad_input_exits_2(capsys):
    code, out, err = run(capsys, "reorder", "prove", *PAPER, "--channel", 0)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--channel 0: not allowed; it must be >= 1" in err
    code, _, err = run(capsys, "reorder", "prove", *PAPER, "--no-unit", "--check", "deadlock")
    assert code == 2 and "needs the unit" in err


@hs.composite
def small_systems(draw):
    warps = draw(hs.integers(1, 3))
    epochs = tuple(tuple(sorted(draw(hs.lists(hs.integers(0, 1), min_size=w == 0, max_size=3))))
                   for w in range(warps))
    blocks = tuple(sorted(draw(hs.lists(hs.integers(0, 1), min_size=warps, max_size=warps))))
    line = hs.integers(0, 5).map(lambda i: i * 256)
    accesses = tuple(tuple((draw(hs.sampled_from("LS")), tuple(sorted(set(draw(hs.lists(line, min_size=1,
                                                                                          max_size=2))))))
                           for _ in e) for e in epochs)
    l1 = draw(hs.sampled_from([None, L1Spec(512, 2, 128, "evict"), L1Spec(1024, 2, 128, "touch")]))
    ts = ReorderUnit(Workload(epochs, blocks, accesses), channel=draw(hs.integers(1, 2)),
                     order=draw(hs.sampled_from(["round", "barrier"])), unit=draw(hs.booleans()), l1=l1)
    return ts, draw(hs.integers(0, 10 ** 6))


@settings(max_examples=30, deadline=None)
@given(small_systems())
def test_concrete_runs_equal_the_solver_unrolling(case):
    ts, seed = case
    schedule = random_schedule(ts, random.Random(seed), limit=10)[:10]
    concrete = simulate(ts, schedule).states
    u = Unrolling(ts, "d.")
    s = z3.SolverFor(u.logic)
    s.add(u.init())
    for t, (w, k) in enumerate(schedule):
        s.add(u.trans(t), term(u.input(t)["a_warp"]) == w, term(u.input(t)["a_idx"]) == k)
    assert s.check() == z3.sat
    assert u.trace(s.model(), len(schedule)).states == concrete
    last, rng = concrete[-1], random.Random(seed)
    for _ in range(4):  # the LD/ST rules agree on legal and illegal deliveries alike
        i = {"a_warp": rng.randint(-1, ts.work.warps - 1), "a_idx": rng.randint(0, ts.work.longest - 1)}
        symbolic = ts.assume(u.A, {k: u.A.const(v) for k, v in last.items()}, {k: u.A.const(v) for k, v in i.items()})
        assert z3.is_true(z3.simplify(term(symbolic))) == ts.assume(CONCRETE, last, i)


def test_per_kernel_wait_sees_a_stuck_search_pointer():
    """Per kernel too, a request stuck in its channel FAILs ``wait`` (order alone cannot see it)."""
    from warpcheck.models.reorder.mutants import MUTANTS
    from warpcheck.sim.reorder.run import longest_wait

    work = Workload(((0, 0, 0), (0, 0)), (0, 0))
    good = prove(Monitored(ReorderUnit(work, 2, channel_lemmas=True), wait=True), "wait", timeout=HANG_GUARD)
    assert good.status is Status.PASS and not good.bounded, good.message
    stuck = Monitored(MUTANTS["pointer-stuck"].make()(work, 2, channel_lemmas=True), wait=True)
    assert prove(stuck, "order", timeout=HANG_GUARD).status is Status.PASS  # what the issue found
    r = prove(stuck, "wait", timeout=HANG_GUARD)
    assert r.status is Status.FAIL
    assert longest_wait(simulate(stuck.inner, schedule_of(r.trace)), stuck.order, 1) is not None


def test_prove_wait_on_the_paper_example(capsys):
    code, out, _ = run(capsys, "reorder", "prove", *PAPER, "--check", "wait")
    assert code == 0 and "check wait: PASS (unbounded)" in out
