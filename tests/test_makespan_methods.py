"""Every method finds the same worst case, and every schedule replays as work-conserving."""
import itertools

import pytest
from hypothesis import given, settings, strategies as st

from conftest import HANG_GUARD
from warpcheck.encodings.makespan.ilp import MakespanIlp
from warpcheck.models.makespan.sm import CountSM
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.schedule import Schedule, from_counts
from warpcheck.sim.makespan.enum import worst_case, worst_case_per_warp
from warpcheck.spec.makespan.replay import replay
from warpcheck.verify.makespan.abstract import abstract_search
from warpcheck.verify.makespan.search import bound_search, complete_run, optimize_search

SIGMAS = ["1", "2", "1/2"]


def _kernels(max_len):
    return st.text(alphabet="LCM", min_size=1, max_size=max_len)


def test_paper_fig2_example_four_warps_llc():
    k = make_kernel("LLC", {"L": 1, "C": 1})
    r = worst_case(k, 4)
    assert r.makespan == 9 and replay(r.schedule).ok and replay(r.schedule).makespan == 9


def test_worst_case_of_llcll_grows_by_four_per_warp():
    k = make_kernel("LLCLL", {"L": 1, "C": 1})
    assert [worst_case(k, w).makespan for w in range(1, 7)] == [5, 9, 13, 17, 21, 25]


@settings(max_examples=20, deadline=None)
@given(text=_kernels(6), sig=st.sampled_from(SIGMAS), other=st.sampled_from(SIGMAS), warps=st.integers(1, 4))
def test_smt_bound_search_equals_enumeration(text, sig, other, warps):
    k = make_kernel(text, {u: (sig if u == "L" else other) for u in set(text)})
    warps = min(warps, max(1, 14 // len(k.instrs)))  # keeps the Z3 proofs to seconds
    oracle = worst_case(k, warps)
    found = bound_search(k, warps, timeout=HANG_GUARD)
    assert found.exact and found.makespan == oracle.makespan
    for sched in (oracle.schedule, found.schedule):
        r = replay(sched)
        assert r.ok and r.makespan == oracle.makespan, r.problem


@settings(max_examples=25, deadline=None)
@given(text=_kernels(5), sig=st.sampled_from(SIGMAS), warps=st.integers(1, 3))
def test_counter_abstraction_equals_per_warp_machine(text, sig, warps):
    k = make_kernel(text, {u: sig for u in set(text)})
    assert worst_case(k, warps).makespan == worst_case_per_warp(k, warps)


@pytest.mark.parametrize("text,sigma,warps", [("L C4 L C3p", {"L": 1, "C": 2}, 3), ("C3 L2p C", {"L": 1, "C": 1}, 3),
                                               ("L3p L", {"L": "1/2"}, 2), ("C2C2", {"C": 2}, 4)])
def test_multi_cycle_instructions_agree_across_methods(text, sigma, warps):
    k = make_kernel(text, sigma)
    oracle = worst_case(k, warps)
    assert oracle.makespan == worst_case_per_warp(k, warps)
    found = bound_search(k, warps, timeout=HANG_GUARD)
    assert found.exact and found.makespan == oracle.makespan and replay(found.schedule).ok


@pytest.mark.parametrize("text,sigma,warps", [("LLCLL", {"L": 1, "C": 1}, 5), ("LCLCL", {"L": "1/2", "C": 1}, 2)])
def test_optimize_equals_enumeration(text, sigma, warps):
    k = make_kernel(text, sigma)
    found = optimize_search(k, warps, timeout=HANG_GUARD)
    assert found.exact and found.makespan == worst_case(k, warps).makespan and replay(found.schedule).ok


@pytest.mark.parametrize("text,sigma,warps", [("LLC", {"L": 1, "C": 1}, 3), ("LCL", {"L": 1, "C": 1}, 3),
                                               ("LC", {"L": "1/2", "C": 2}, 3), ("LLCLL", {"L": 1, "C": 1}, 2),
                                               ("LL", {"L": 2}, 4)])  # Eq. 5-7 says 4: a horizon of it cut the run of 5
def test_paper_ilp_equals_enumeration(text, sigma, warps):
    k = make_kernel(text, sigma)
    r = MakespanIlp(k, warps).solve(timeout=HANG_GUARD)
    assert r.optimal and r.makespan == worst_case(k, warps).makespan
    assert replay(Schedule(k, tuple(map(tuple, r.issue)))).ok


@pytest.mark.slow
@pytest.mark.parametrize("text", ["LLCLL", "LLC", "CLLC", "LCL"])
@pytest.mark.parametrize("warps", [3, 4])
def test_paper_ilp_equals_enumeration_up_to_four_warps(text, warps):
    k = make_kernel(text, {"L": 1, "C": 1})
    r = MakespanIlp(k, warps).solve(timeout=600)
    assert r.optimal and r.makespan == worst_case(k, warps).makespan


SWEEP = ["".join(p) for n in range(1, 9) for p in itertools.islice(itertools.product("LC", repeat=n), 0, 2 ** n,
                                                                    max(1, 2 ** n // 5))]


@pytest.mark.slow
@pytest.mark.parametrize("text", SWEEP)
@pytest.mark.parametrize("warps", [1, 2, 3, 4, 5, 6])
def test_all_exact_methods_agree_sweep(text, warps):
    k = make_kernel(text, {"L": 1, "C": 1})
    oracle = worst_case(k, warps).makespan
    deficit = abstract_search(k, warps, budget=20)
    assert deficit.upper is None or deficit.upper >= oracle
    assert deficit.makespan <= oracle and (not deficit.exact or deficit.makespan == oracle)
    if warps * len(text) <= 16:  # the Z3 search is slow beyond this
        found = bound_search(k, warps, timeout=HANG_GUARD)
        assert found.exact and found.makespan == oracle and replay(found.schedule).ok
    if warps <= 3 and len(text) <= 5:
        assert worst_case_per_warp(k, warps) == oracle


def test_replay_rejects_a_schedule_that_is_not_work_conserving():
    k = make_kernel("LC", {"L": 1, "C": 1})
    lazy = Schedule(k, ((1, 2), (3, 4)))  # warp 2 waits at cycle 2 while L is free
    r = replay(lazy)
    assert not r.ok and "not work-conserving on unit L" in r.problem


def test_replay_rejects_overuse_of_a_unit():
    k = make_kernel("LC", {"L": 1, "C": 1})
    assert "more than sigma" in replay(Schedule(k, ((1, 2), (1, 2)))).problem


def test_counter_run_becomes_a_per_warp_schedule_that_replays():
    sm = CountSM(make_kernel("LLCLL", {"L": 1, "C": 2}), 5)
    sched = from_counts(sm, complete_run(sm, []))
    assert replay(sched).ok


def test_paper_ilp_solves_after_a_highs_solve_with_other_threads():
    import highspy
    other = highspy.Highs()  # an earlier solve (as the IPET's) starts HiGHS's scheduler with its own thread count
    other.silent()
    other.addVar(0, 1)
    other.run()
    k = make_kernel("LLC", {"L": 1, "C": 1})
    r = MakespanIlp(k, 3).solve(timeout=HANG_GUARD)
    assert r.optimal and r.makespan == worst_case(k, 3).makespan


@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=6), sig=st.sampled_from(["1", "2", "3", "1/2"]),
       lat=st.sampled_from(["", "2", "3p"]), data=st.data())
def test_compiled_moves_equal_the_models_choices_and_step(text, sig, lat, data):
    from warpcheck.encodings.concrete import CONCRETE
    from warpcheck.models.makespan.moves import CountMoves

    k = make_kernel(text + lat, {u: sig if u == "L" else "2" for u in set(text)})
    sm = CountSM(k, 5)
    counts = data.draw(st.lists(st.integers(0, 3), min_size=len(sm.phases), max_size=len(sm.phases)))
    s = {f"n{p}": c for p, c in enumerate(counts)}
    model = sorted(tuple(sm.step(CONCRETE, s, i)[f"n{p}"] for p in range(len(sm.phases))) for i in sm.choices(s))
    compiled = sorted(nxt for _, nxt in CountMoves(sm).successors(tuple(counts)))
    assert compiled == model
