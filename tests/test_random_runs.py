"""Random concrete runs: they find a deep violation BMC's default depth misses, never claim PASS, and repeat."""
from __future__ import annotations

from typing import Any

from warpcheck.models.ts import State, TransitionSystem, Var
from warpcheck.verify.random_runs import random_runs


class Counter(TransitionSystem):
    """Counts the cycles in which the input is true; the 'bug' is reaching 30 (input false resets it)."""

    name = "counter"

    def state_vars(self) -> list[Var]:
        return [Var("n", "int", 0, 30)]

    def input_vars(self) -> list[Var]:
        return [Var("go", "bool")]

    def init(self, A: Any, p: Any) -> State:
        return {"n": A.const(0)}

    def step(self, A: Any, s: State, i: Any) -> State:
        return {"n": A.ite(i["go"], A.min(A.add(s["n"], A.const(1)), A.const(30)), A.const(0))}


def below(A, s):
    return A.lt(s["n"], A.const(30))


def test_a_deep_violation_is_found_and_its_trace_replays():
    r = random_runs(Counter(), below, steps=5000, cycles=64, seed=3)
    assert r.status.value == "FAIL" and r.depth == len(r.trace.inputs) >= 30
    n = 0
    for i in r.trace.inputs:
        n = min(n + 1, 30) if i["go"] else 0
    assert n == 30 == r.trace.states[-1]["n"]


def test_no_violation_is_unknown_never_pass_and_the_seed_repeats():
    r = random_runs(Counter(), lambda A, s: A.le(s["n"], A.const(30)), steps=300, cycles=50, seed=1)
    assert r.status.value == "UNKNOWN" and "not a proof" in r.message
    a, b = (random_runs(Counter(), below, steps=3000, cycles=64, seed=5) for _ in range(2))
    assert a.trace.inputs == b.trace.inputs
