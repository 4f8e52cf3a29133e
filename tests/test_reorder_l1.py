"""The L1 as LRU sets: three implementations agree with a brute-force reference; exact misses under the unit."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from conftest import HANG_GUARD
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.reorder.l1 import L1Port, L1Spec, parse_cache
from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.models.reorder.order import static_order
from warpcheck.spec.reorder.l1_replay import replay
from warpcheck.sim.reorder.run import l1_misses, random_schedule, simulate
from warpcheck.verify.reorder.props import Monitored, prove
from warpcheck.verify.result import Status

TABLE_2 = [L1Spec(16 * 1024, 4), L1Spec(32 * 1024, 8), L1Spec(64 * 1024, 16)]


def brute_force(accesses, spec: L1Spec) -> int:
    """Load misses by timestamps: a set holds at most `ways` lines; a miss evicts the least recent."""
    stamp: dict[int, int] = {}  # resident line -> time of last use
    misses = 0
    for t, (kind, lines) in enumerate(accesses):
        for j, line in enumerate(lines):
            now = (t, j)
            if kind == "S":
                if line in stamp and spec.stores == "evict":
                    del stamp[line]
                elif line in stamp and spec.stores == "touch":
                    stamp[line] = now
                continue
            if line not in stamp:
                misses += 1
                peers = [x for x in stamp if spec.set_of(x) == spec.set_of(line)]
                if len(peers) == spec.ways:
                    del stamp[min(peers, key=lambda x: stamp[x])]
            stamp[line] = now
    return misses


def port_misses(accesses, spec: L1Spec) -> int:
    """Load misses of the algebra version (models.l1.L1Port), run concretely request by request."""
    port = L1Port(spec, accesses)
    s = {n: -1 for n in port.names()}
    total = 0
    for r in range(len(accesses)):
        ways, _, misses = port.access(CONCRETE, s, True, r)
        s.update(ways)
        total += misses
    return total


accesses_st = hs.lists(hs.tuples(hs.sampled_from("LLS"),
                                 hs.lists(hs.integers(0, 11).map(lambda i: i * 1024), min_size=1, max_size=3)),
                       min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(accesses_st, hs.sampled_from([(1024, 2), (2048, 4), (512, 1), (1024, 8)]),
       hs.sampled_from(["evict", "keep", "touch"]))
def test_lru_implementations_agree_with_brute_force(accesses, geometry, stores):
    spec = L1Spec(geometry[0], geometry[1], 128, stores)
    accesses = [(k, tuple(sorted(set(lines)))) for k, lines in accesses]
    expect = brute_force(accesses, spec)
    assert replay(accesses, spec).load_misses == expect
    assert port_misses(accesses, spec) == expect
    assert l1_misses([(0, k) for k in range(len(accesses))], (tuple(accesses),), spec)["load_misses"] == expect


def test_store_policies_differ_as_stated():
    seq = [("L", (0,)), ("S", (0,)), ("L", (0,))]
    assert [replay(seq, L1Spec(1024, 2, 128, p)).load_misses for p in ("evict", "keep", "touch")] == [2, 1, 1]


def test_cache_option_parsing():
    assert parse_cache("16K:4") == L1Spec(16384, 4)
    assert parse_cache("65536:16").sets == 32
    with pytest.raises(ConfigError, match="positive power of two"):
        parse_cache("12K:4")
    with pytest.raises(ConfigError, match="cannot hold"):
        parse_cache("256:4")


def conflict_workload(stores: bool = False) -> Workload:
    """Four warps; warp w loads rows 2w .. 2w+2 of rows 4096 bytes apart (one L1 set); warp 3 may store."""
    acc = [[("L", (4096 * (2 * w + r),)) for r in range(3)] for w in range(4)]
    if stores:
        acc[3][1] = ("S", (4096 * 2,))
    return Workload(((0, 0, 0),) * 4, (0, 0, 0, 0), tuple(tuple(a) for a in acc))


@pytest.mark.parametrize("spec", TABLE_2, ids=lambda s: f"{s.size // 1024}K-{s.ways}way")
@pytest.mark.parametrize("stores", [False, True])
def test_exact_misses_under_the_unit_for_table_2_caches(spec, stores):
    work = conflict_workload(stores)
    expect = replay([work.accesses[w][k] for w, k in static_order(work.epochs)], spec).load_misses
    rng = random.Random(7)
    with_unit, without = ReorderUnit(work, 2), ReorderUnit(work, 2, unit=False)
    seen_unit, seen_free = set(), set()
    for _ in range(25):
        seen_unit.add(l1_misses(simulate(with_unit, random_schedule(with_unit, rng), extra=20).order,
                                work.accesses, spec)["load_misses"])
        seen_free.add(l1_misses(simulate(without, random_schedule(without, rng)).order, work.accesses,
                                spec)["load_misses"])
    assert seen_unit == {expect}
    if spec.ways < 9:  # nine rows fit in 16 ways: then every order misses alike
        assert seen_free != {expect}


@pytest.mark.parametrize("spec", TABLE_2[:2], ids=lambda s: f"{s.size // 1024}K-{s.ways}way")
def test_misses_are_proved_with_the_unit_and_fail_without(spec):
    work = conflict_workload()
    expect = replay([work.accesses[w][k] for w, k in static_order(work.epochs)], spec).load_misses
    ok = prove(Monitored(ReorderUnit(work, 2, l1=spec), expect), "misses", timeout=HANG_GUARD)
    assert ok.status is Status.PASS and not ok.rejected_lemmas, ok.message
    bad = prove(Monitored(ReorderUnit(work, 2, unit=False, l1=spec), expect), "misses", timeout=HANG_GUARD)
    assert bad.status is Status.FAIL
    assert bad.trace.states[-1]["misses"] != expect


def test_a_cache_without_promotion_on_hit_fails_the_misses_check(monkeypatch):
    """Mutant L1 in the model (a hit leaves the set as it is: FIFO); the reference replay is untouched."""
    from warpcheck.models.reorder import l1 as l1_model

    def fifo_load(A, ways, line):
        hit = A.any_([A.eq(w, line) for w in ways])
        shifted = (line,) + tuple(ways[:-1])
        return tuple(A.ite(hit, w, x) for w, x in zip(ways, shifted)), hit

    a, b, c = 0, 8192, 16384  # one set of a 16 KB 2-way L1 (64 sets)
    work = Workload(((0, 0, 0), (0, 0, 0)), (0, 0), (
        (("L", (a,)), ("L", (a,)), ("L", (a,))), (("L", (b,)), ("L", (c,)), ("L", (b,)))))
    spec = L1Spec(1024 * 16, 2)  # static order A B A C A B: LRU misses 4 times, FIFO 5
    expect = replay([work.accesses[w][k] for w, k in static_order(work.epochs)], spec).load_misses
    assert expect == 4
    assert prove(Monitored(ReorderUnit(work, 2, l1=spec), expect), "misses", timeout=HANG_GUARD).status is Status.PASS
    monkeypatch.setattr(l1_model, "load", fifo_load)
    r = prove(Monitored(ReorderUnit(work, 2, l1=spec), expect), "misses", timeout=HANG_GUARD)
    assert r.status is Status.FAIL and r.trace.states[-1]["misses"] != expect
