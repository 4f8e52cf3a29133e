"""The numpy algebra runs the same step function: every lane equals the concrete simulator."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.numpy_algebra import NumpyAlgebra, lane
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.sim.frontend.batch import batch_iter, lane_state, simulate_batch, sources_for
from warpcheck.sim.frontend.driver import run_iter
from warpcheck.sim.frontend.metrics import simulate
from warpcheck.sim.frontend.suite import BUILTIN, builtin
from warpcheck.sim.frontend.workloads import ICache

NAMES = list(BUILTIN)


def _lanes(seeds: list[int], scale: float = 0.2):
    return [dataclasses.replace(builtin(NAMES[s % len(NAMES)]).scaled(scale), seed=s) for s in seeds]


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["baseline", "swas"]), st.sampled_from(list(POLICIES)), st.sampled_from(list(POLICIES)),
       st.lists(st.integers(0, 50), min_size=1, max_size=6), st.integers(2, 4), st.sampled_from([(2, 2), (8, 4)]))
def test_every_lane_steps_exactly_like_the_concrete_simulator(design, fetch, issue, seeds, warps, shape):
    fe = FrontEnd(SMConfig(warps=warps, design=design, fetch_policy=fetch, issue_policy=issue))
    wls = _lanes(seeds)
    cycles = 60
    batch = []
    for t, (s, i) in enumerate(batch_iter(fe, sources_for(wls, warps, fe.B, shape))):
        if t == cycles:
            break
        batch.append((s, i))
    for e, src in enumerate(sources_for(wls, warps, fe.B, shape)):
        for t, (s, i) in enumerate(run_iter(fe, src.ibuffers(), src)):
            if t == cycles:
                break
            assert lane_state(batch[t][0], e) == s, f"lane {e} state differs at cycle {t}"
            assert lane_state(batch[t][1], e) == i, f"lane {e} inputs differ at cycle {t}"


@pytest.mark.parametrize("design", ["baseline", "swas"])
def test_batch_metrics_equal_the_concrete_metrics(design):
    config = SMConfig(warps=4, design=design, fetch_policy="lrr", issue_policy="gtlrr")
    wls = _lanes(list(range(6)), 0.1)
    m = simulate_batch(FrontEnd(config), sources_for(wls, 4, config.ibuffer), 3000)
    for e, w in enumerate(wls):
        c = simulate(w, config, icache=ICache(16, 4))
        assert (m.cycles[e], m.warp_instructions[e], m.nops[e], m.discrepancies[e], m.errors[e], m.finished[e]) == (
            c.cycles, c.warp_instructions, c.nops, c.discrepancies, c.errors, c.finished), w.name


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=5, max_size=5), min_size=3, max_size=3),
       st.lists(st.lists(st.integers(0, 6), min_size=5, max_size=5), min_size=3, max_size=3),
       st.lists(st.integers(-2, 6), min_size=3, max_size=3))
def test_numpy_operations_agree_with_the_concrete_algebra_lane_by_lane(bits, keys, starts):
    A = NumpyAlgebra(3)
    barr = [np.array([bits[e][j] for e in range(3)]) for j in range(5)]
    karr = [np.array([keys[e][j] for e in range(3)], dtype=np.int32) for j in range(5)]
    start = np.array([s % 5 for s in starts], dtype=np.int32)
    index = np.array(starts, dtype=np.int32)
    for e in range(3):
        C = CONCRETE
        assert lane(A.first_from(barr, start), e) == C.first_from(bits[e], starts[e] % 5)
        assert lane(A.first_true(barr), e) == C.first_true(bits[e])
        assert lane(A.argmin_true(barr, karr), e) == C.argmin_true(bits[e], keys[e])
        assert lane(A.count(barr + [True, False]), e) == C.count(bits[e] + [True, False])
        assert lane(A.select(karr, index), e) == C.select(keys[e], starts[e])
        assert lane(A.dec_sat(A.sub(karr[0], 2)), e) == C.dec_sat(keys[e][0] - 2)
        picked = A.ite(barr[0], {"a": karr[1], "b": True}, {"a": 9, "b": barr[2]})
        assert {k: lane(v, e) for k, v in picked.items()} == C.ite(bits[e][0], {"a": keys[e][1], "b": True},
                                                                     {"a": 9, "b": bits[e][2]})
