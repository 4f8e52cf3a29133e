"""The reordering unit proved as a design over symbolic streams, and its reference cross-checked by hand."""
from __future__ import annotations

import random

import pytest

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.reorder.l1 import L1Port, L1Spec
from warpcheck.spec.reorder.reference import static_order
from warpcheck.spec.reorder.reference_l1 import Geometry, ReferenceL1, lru_replay
from warpcheck.models.reorder.streams import Streams
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.sim.reorder.run import random_schedule, simulate
from warpcheck.verify.reorder import streams as S
from warpcheck.verify.result import Status

SPEC = L1Spec(512, 2, 128)


def _monitor(blocks=(0, 0), length=3, channel=2, order="round", cls=ReorderUnit) -> S.StreamMonitor:
    return S.StreamMonitor(cls(Streams(blocks, length, lines=6), channel, order, l1=SPEC, channel_lemmas=True))


@pytest.mark.parametrize("order,blocks", [("round", (0, 0)), ("barrier", (0, 1))])
def test_the_unit_is_proved_for_every_stream(order, blocks):
    r = S.prove_streams(_monitor(blocks, order=order), "stream", timeout=HANG_GUARD)
    assert r.status is Status.PASS and not r.bounded, r.message


@pytest.mark.slow
@pytest.mark.parametrize("channel", [1, 3])
def test_the_unit_is_proved_for_three_warps(channel):
    r = S.prove_streams(_monitor((0, 0, 1), channel=channel, order="barrier"), "stream", timeout=HANG_GUARD)
    assert r.status is Status.PASS, r.message


def test_the_wait_bound_is_tight(monkeypatch):
    monkeypatch.setattr(S, "wait_bound", lambda channel: channel - 2)
    r = S.prove_streams(_monitor(length=2), "wait", timeout=HANG_GUARD)
    assert r.status is Status.FAIL


def _random_stream(rng: random.Random, w: Streams) -> dict:
    p = {f"len.{q}": rng.randint(0, w.length) for q in range(w.warps)}
    for q in range(w.warps):
        for k in range(w.length):
            p.update({f"bar.{q}.{k}": rng.random() < 0.3, f"ln.{q}.{k}": rng.randrange(w.lines),
                      f"ld.{q}.{k}": rng.random() < 0.8})
    return p


@pytest.mark.parametrize("order", ["round", "barrier"])
def test_design_reference_and_plain_replay_agree_on_random_streams(order):
    """The monitor run concretely: the unit sends the sorted order, and both references count the same misses."""
    rng = random.Random(7)
    for _ in range(40):
        m = _monitor((0, 0, 1), length=3, order=order)
        work = m.inner.work
        p = _random_stream(rng, work)
        sched = random_schedule(m.inner, rng, limit=60, params=p)
        run = simulate(m, sched, extra=4, params=p)
        conc = work.concrete(p)
        order_list = static_order([[e for e, _, _ in r] for r in conc["warps"]], order)
        if run.refused is None and len(run.order) == len(order_list):  # complete (no barrier deadlock)
            assert run.order == order_list
        lines = [[(kind, (a,)) for _, kind, a in r] for r in conc["warps"]]
        plain = lru_replay([lines[q][j] for q, j in run.order], Geometry(512, 2, 128)).load_misses
        last = run.states[-1]
        assert last["misses"] == last["r.misses"] == plain
        assert all(s["r.wait"] <= m.bound for s in run.states)


def test_the_stream_unit_runs_as_the_kernel_unit_on_the_same_stream():
    rng = random.Random(3)
    for _ in range(30):
        work = Streams((0, 0, 1), 3, lines=6)
        p = _random_stream(rng, work)
        conc = work.concrete(p)
        kernel = Workload(tuple(tuple(e for e, _, _ in r) for r in conc["warps"]), work.blocks,
                          tuple(tuple((kind, (a,)) for _, kind, a in r) for r in conc["warps"]))
        if kernel.total == 0:
            continue
        sym, con = ReorderUnit(work, 2, "barrier", l1=SPEC), ReorderUnit(kernel, 2, "barrier", l1=SPEC)
        sched = random_schedule(con, rng, limit=60)
        a, b = simulate(sym, sched, extra=4, params=p), simulate(con, sched, extra=4)
        assert a.sent == b.sent and a.states[-1]["misses"] == b.states[-1]["misses"]


@pytest.mark.parametrize("stores", ["evict", "keep", "touch"])
def test_reference_l1_over_the_algebra_matches_its_plain_replay_and_the_unit_l1(stores):
    rng = random.Random(11)
    g = Geometry(512, 2, 128, stores)
    ref = ReferenceL1(g, 6)
    port = L1Port(L1Spec(512, 2, 128, stores), universe=[n * 128 for n in range(6)])
    for _ in range(30):
        acc = [("L" if rng.random() < 0.7 else "S", rng.randrange(6)) for _ in range(10)]
        s = {n: -1 for n in ref.names() + port.names()}
        misses, design = 0, 0
        for kind, n in acc:
            ways, miss = ref.access(A, s, True, kind == "L", n)
            dways, _, dm = port.access_ids(A, s, True, kind == "L", [n])
            s.update(ways)
            s.update(dways)
            misses, design = misses + miss, design + dm
        assert misses == design == lru_replay([(k, (n * 128,)) for k, n in acc], g).load_misses


def test_prove_streams_on_the_command_line(capsys):
    assert main(["reorder", "prove", "--streams", "2"]) == 0
    out = capsys.readouterr().out
    assert "streams bounded: 2 warps x 0..2 requests" in out and "waits at most 1 cycles" in out


@pytest.mark.parametrize("argv,why", [
    (["--streams", "0"], "--streams 0: not allowed; it must be >= 1"),
    (["--streams", "2", "--grid", "1"], "--grid 1: not for streams"),
    (["--streams", "2", "--check", "deadlock"], "--check deadlock: for a kernel"),
    (["--streams", "2", "--mutant", "nope"], "--mutant nope: not one of pointer-stuck"),
    ([], "reorder prove needs kernel, grid, block (a PTX file and its launch), or streams"),
])
def test_bad_stream_options_are_refused_in_one_line(argv, why, capsys):
    assert main(["reorder", "prove", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert why in err and len(err.splitlines()) == 1
