"""Random kernels and the soundness loop shared by the tests of the bound searches over blocks."""
from __future__ import annotations

import json
import math
import random
from typing import Any, Callable

from warpcheck._makespan.certificate import certificate
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.spec.makespan.certificate_check import check
from warpcheck.sim.makespan.enum import Enumeration, SearchBudgetExceeded, worst_case
from warpcheck.spec.makespan.replay import replay

SIGMAS = ["1", "2", "3", "1/2", "1/3"]


def random_kernel(rng: random.Random) -> tuple[str, dict[str, str]]:
    """1 to 5 instructions over L, C, M, each unit's sigma drawn from SIGMAS."""
    text = "".join(rng.choice("LCM") for _ in range(rng.randint(1, 5)))
    return text, {u: rng.choice(SIGMAS) for u in set(text)}


def certified(text: str, sig: dict[str, str], warps: int, r: Any, kind: str) -> dict[str, Any]:
    """The certificate of an exact result, through JSON, checked: it must prove the run's makespan."""
    cert = json.loads(json.dumps(certificate(text, sig, warps, r.schedule, (kind, r))))
    assert check(cert).makespan == r.makespan
    return cert


ORACLE_STATES = 100_000  # the exhaustive oracle's bound by work: these kernels need at most 11,005 states


def exact_and_sound(search: Callable[..., Any], kind: str, seed: int, kernels: int, **work: Any) -> int:
    """Random kernels at W = 1..6: every bound >= the enumerated worst case, every exact answer equal and
    certified; returns how many were exact. No clock: the search has no budget in seconds (``budget=inf``) and
    ends by its own bounds on work (rounds, caps, beam widths; ``work`` sets them), so the count is the same on a
    busy machine."""
    rng = random.Random(seed)
    exact = 0
    for _ in range(kernels):
        text, sig = random_kernel(rng)
        k = make_kernel(text, sig)
        warps = rng.randint(1, 6)
        try:
            oracle = Enumeration(k, warps, max_states=ORACLE_STATES).run().makespan
        except SearchBudgetExceeded:
            continue  # too large for the oracle in this fast loop
        r = search(k, warps, budget=math.inf, **work)
        assert r.upper is None or r.upper >= oracle, (text, sig, warps)
        assert r.makespan <= oracle and replay(r.schedule).makespan == r.makespan
        if r.exact:
            exact += 1
            assert r.makespan == oracle
            certified(text, sig, warps, r, kind)
    return exact


def sound_at_more_warps(search: Callable[..., Any], seed: int, kernels: int) -> None:
    """Slow: random kernels at W = 1, 3, 5, 8 (while the oracle ends): bound >= worst case, exact means equal."""
    rng = random.Random(seed)
    for _ in range(kernels):
        text, sig = random_kernel(rng)
        k = make_kernel(text, sig)
        for warps in (1, 3, 5, 8):
            try:
                oracle = worst_case(k, warps, timeout=5).makespan
            except Exception:
                break
            r = search(k, warps, budget=3)
            assert r.upper is None or r.upper >= oracle, (text, sig, warps)
            if r.exact:
                assert r.makespan == oracle
