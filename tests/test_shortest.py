"""Shortest counterexamples at scale: bitwuzla as the BMC back end, and auto returning a random run only
together with BMC's shortest, or when BMC cannot answer, saying so."""
from __future__ import annotations

import queue

import pytest

import warpcheck
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify import engines
from warpcheck.verify.bmc_bitwuzla import bmc_bitwuzla
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.result import Result, Status

pytest.importorskip("bitwuzla")


def _baseline(warps: int):
    return get_property("oracle").checked(FrontEnd(SMConfig(design="baseline", warps=warps, fetch_policy="lrr",
                                                             issue_policy="gtlrr")))


def test_bitwuzla_finds_the_shortest_violation_and_its_trace_is_a_run():
    ts = _baseline(8)
    cleared: list[int] = []
    r = bmc_bitwuzla(ts, ts.agree, 19, established=lambda what, k: cleared.append(k))
    assert (r.status, r.depth, cleared) == (Status.FAIL, 5, [0, 1, 2, 3, 4])
    assert "shortest" in r.message and len(r.trace.states) == 6
    from warpcheck.encodings.concrete import CONCRETE
    s = ts.init(CONCRETE, r.trace.params)
    for t, i in enumerate(r.trace.inputs):  # the trace is the kit's own run, state by state
        assert s == r.trace.states[t] and ts.assume(CONCRETE, s, i)
        s = ts.step(CONCRETE, s, i)
    assert s == r.trace.states[5] and not ts.agree(CONCRETE, s)


def _race(*answers: tuple[str, Result], end: float | None = None) -> Result:
    q: queue.Queue = queue.Queue()
    for a in answers:
        q.put(a)
    return engines._first_conclusive(q, engines.Deadline(end), {"kind": 0, "bmc": 0, "random": 0})


RANDOM = Result(Status.FAIL, "random", 41, message="violation at depth 41 found by 3 random runs (seed 0); "
                                                   "shorter ones not excluded")


def test_auto_answers_with_bmcs_shortest_even_after_a_random_fail():
    r = _race(("random", RANDOM), ("bmc", Result(Status.FAIL, "bmc", 5, message="shortest violation")))
    assert (r.engine, r.depth) == ("auto:bmc", 5) and "random runs found one at depth 41 too" in r.message


def test_auto_gives_a_random_run_only_when_bmc_cannot_answer_and_says_so():
    deeper = _race(("random", RANDOM), ("bmc", Result(Status.PASS, "bmc", 19, bounded=True)))
    assert deeper.depth == 41 and "none up to depth 19 (BMC), depths 20 .. 40 not excluded" in deeper.message
    late = _race(("random", RANDOM), end=0.0)
    assert late.depth == 41 and "BMC did not finish within the timeout" in late.message


@pytest.mark.slow  # about 9 CPU-seconds (25 s on a loaded 2-core machine)
def test_the_baselines_shortest_violation_at_32_warps():
    r = warpcheck.prove(design="baseline", fetch="lrr", issue="gtlrr", warps=32, timeout=120)
    assert (r.status, r.depth) == ("FAIL", 5) and "shortest" in r.message
