"""The independent references: reference policies against the model's, the analysis machine concretely."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.spec.frontend.priority_lists import REF_POLICIES
from warpcheck.models.frontend.stream import Instr
from warpcheck.sim.frontend.replay import replay
from warpcheck.verify.frontend.policy_equivalence import policy_agrees


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("warps", [1, 2, 3, 8, 32])
def test_every_model_policy_equals_its_reference(policy, warps):
    status, link = policy_agrees(policy, warps)
    assert status.value == "PASS", f"{policy} at W = {warps}: {link}"


@pytest.mark.slow
@pytest.mark.parametrize("policy", list(POLICIES))
def test_every_model_policy_equals_its_reference_up_to_64_warps(policy):
    for warps in range(1, 65):
        assert policy_agrees(policy, warps)[0].value == "PASS", (policy, warps)


def test_a_broken_policy_is_told_apart_from_its_reference():
    from warpcheck.models.frontend.mutants import POLICY_MUTANTS
    import warpcheck.verify.frontend.policy_equivalence as pe
    saved = pe.POLICIES
    try:
        pe.POLICIES = {**saved, "lrr": POLICY_MUTANTS["lrr-starts-at-ptr"]}
        assert policy_agrees("lrr", 4)[0].value == "FAIL"
    finally:
        pe.POLICIES = saved


def test_reference_lrr_is_round_robin_after_the_last_issued_warp():
    p = REF_POLICIES["lrr"]
    st_ = {"last": A.const(1)}
    assert p.choose(A, st_, [True, True, True, True], [0] * 4) == 2
    assert p.choose(A, st_, [True, True, False, False], [0] * 4) == 0
    assert p.choose(A, st_, [False] * 4, [0] * 4) == -1


def test_reference_gtlo_keeps_the_greedy_warp_then_the_oldest():
    p = REF_POLICIES["gtlo"]
    assert p.choose(A, {"last": 2}, [True, True, True], [0] * 3) == 2
    assert p.choose(A, {"last": 2}, [False, True, False], [0] * 3) == 1


def test_reference_icount_picks_the_fewest_then_the_oldest():
    p = REF_POLICIES["icount"]
    assert p.choose(A, {"last": 0}, [True, True, True], [3, 1, 1]) == 1


instr = st.builds(Instr, st.sampled_from(["int", "fadd", "fdiv", "mem", "branch"]), st.booleans(), st.booleans(),
                  st.booleans())


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(instr, min_size=4, max_size=4), min_size=2, max_size=2),
       st.lists(st.lists(instr, max_size=12), min_size=2, max_size=2), st.sampled_from(["gtlrr", "lrr", "gtlo"]))
def test_swas_issues_exactly_what_the_analysis_machine_predicts_on_random_programs(ibuf, streams, policy):
    cfg = SMConfig(warps=2, design="swas", issue_policy=policy)
    r = replay(cfg, ibuf, streams, "exact", 40)
    assert r.first_violation is None


def test_the_baseline_leaves_the_analysis_machine_on_some_random_program():
    rng = random.Random(7)
    cfg = SMConfig(warps=4, design="baseline", fetch_policy="lrr", issue_policy="gtlrr")
    found = False
    for _ in range(20):
        ibuf = [[Instr("int")] * 4 for _ in range(4)]
        streams = [[Instr(rng.choice(["int", "fadd", "mem"]), rng.random() < 0.3) for _ in range(30)] for _ in range(4)]
        found = found or replay(cfg, ibuf, streams, "exact", 40).first_violation is not None
    assert found


@pytest.mark.parametrize("design", ["baseline", "swas"])
def test_the_references_windows_equal_the_designs_counter_on_random_runs(design):
    """osched2's windows, computed from the record alone, against the design's own ghost counter (cross-check)."""
    import random

    from warpcheck.encodings.concrete import CONCRETE as C
    from warpcheck.models.frontend.checked import reference_part
    from warpcheck.models.frontend.design import FrontEnd
    from warpcheck.spec.frontend.ghost import Windows
    from warpcheck.models.kernels.kernel import CLASS_INDEX
    from warpcheck.verify.frontend.properties import get_property

    cfg = SMConfig(warps=3, design=design, miss_latency=3)
    ts, win, rng = get_property("oracle").checked(FrontEnd(cfg)), Windows(cfg), random.Random(7)
    opened = 0
    for _ in range(30):
        s = ts.init(C, {v.name: rng.randint(v.lo, v.hi) if v.kind == "int" else rng.random() < 0.3
                        for v in ts.param_vars()})
        for _ in range(40):
            now = win.now(C, reference_part(s), s)
            assert all(now[f"w{w}.win"] == s[f"w{w}.win"] for w in range(3))
            opened += sum(now[f"w{w}.win"] > 0 for w in range(3))
            cls = rng.choice(["int", "fadd", "mem", "branch", "exit"])
            i = {"f.cls": CLASS_INDEX[cls], "f.dep": rng.random() < 0.3,
                 "f.tk": cls == "branch" and rng.random() < 0.3, "f.hit": rng.random() < 0.7}
            if ts.assume(C, s, i):
                s = ts.step(C, s, i)
    assert opened > 100  # the windows were exercised, not only closed
