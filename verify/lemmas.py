"""Proving a model's candidate lemmas (Houdini): keep the largest inductive subset.

A candidate survives only if it holds in every initial state and is preserved
by one step assuming all surviving candidates (and the variable ranges) hold
before it.  Whatever fails is dropped and reported; nothing is assumed.
"""
from __future__ import annotations

from typing import Any, Callable

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.models.ts import TransitionSystem

Lemma = tuple[str, Callable[[Any, dict], Any]]


def _candidates(ts: TransitionSystem) -> list[Lemma]:
    """Each named lemma of the model as a predicate on a state (built once per state)."""
    probe = Unrolling(ts, "probe.")
    names = list(ts.lemmas(probe.A, probe.state(0)).keys())
    built: dict[int, tuple[Any, dict[str, Any]]] = {}

    def one(A: Any, s: dict, n: str) -> Any:
        if id(s) not in built:  # keep s alive with its lemmas so its id stays unique
            built[id(s)] = (s, ts.lemmas(A, s))
        return built[id(s)][1][n]

    def named(n: str) -> Callable[[Any, dict], Any]:
        return lambda A, s: one(A, s, n)

    return [(n, named(n)) for n in names]


def prove_lemmas(ts: TransitionSystem, left_ms: Callable[[], int | None] = lambda: None,
                 ) -> tuple[list[Lemma], list[str]]:
    """Split the model's lemmas into proved ones and rejected names."""
    live = _candidates(ts)
    rejected: list[str] = []
    u = Unrolling(ts, "h.")
    init_ok = _filter_init(u, live, left_ms)
    rejected += [n for n, _ in live if n not in {m for m, _ in init_ok}]
    live = init_ok
    while live:
        s = z3.SolverFor(u.logic)
        if left_ms() is not None:
            s.set("timeout", left_ms())
        s.add(u.domain(0), u.trans(0), *[u.holds(f, 0) for _, f in live])
        after = [(n, f, u.holds(f, 1)) for n, f in live]
        r = s.check(z3.Not(z3.And([h for _, _, h in after])))
        broken = []
        if r == z3.sat:
            m = s.model()
            broken = [n for n, _, h in after if z3.is_false(m.eval(h, model_completion=True))]
        elif r == z3.unknown:  # could not decide: keep nothing rather than assume
            broken = [n for n, _ in live]
        if not broken:
            break
        rejected += broken
        live = [(n, f) for n, f in live if n not in broken]
    return live, rejected


def _filter_init(u: Unrolling, live: list[Lemma], left_ms: Callable[[], int | None]) -> list[Lemma]:
    """The candidates that hold in every initial state (one query while all of them hold)."""
    s = z3.SolverFor(u.logic)
    s.add(u.init())
    held = [(n, f, u.holds(f, 0)) for n, f in live]
    while held:
        if left_ms() is not None:
            s.set("timeout", left_ms())
        r = s.check(z3.Not(z3.And([h for _, _, h in held])))
        if r == z3.unsat:
            break
        if r != z3.sat:  # could not decide: keep nothing rather than assume
            return []
        m = s.model()
        held = [(n, f, h) for n, f, h in held if not z3.is_false(m.eval(h, model_completion=True))]
    return [(n, f) for n, f, _ in held]
