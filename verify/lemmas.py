"""Proving a model's candidate lemmas (Houdini): keep the largest inductive subset.

A candidate survives only if it holds in every initial state and is preserved
by one step assuming all surviving candidates hold before it.  Whatever fails
is dropped and reported; nothing is assumed.  The declared range of every
integer state variable is a candidate too (``range:NAME``): ranges are proved
like any other lemma, never assumed on the pre-state.
"""
from __future__ import annotations

from typing import Any, Callable

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.models.ts import TransitionSystem, Var

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

    return [(n, named(n)) for n in names] + _ranges(ts)


def _ranges(ts: TransitionSystem) -> list[Lemma]:
    """The declared range of each integer state variable, as a candidate lemma."""
    def in_range(v: Var) -> Callable[[Any, dict], Any]:
        return lambda A, s: v.domain(A, s[v.name])
    return [(f"range:{v.name}", in_range(v)) for v in ts.state_vars() if v.kind == "int"]


def prove_lemmas(ts: TransitionSystem, left_ms: Callable[[], int | None] = lambda: None,
                 ) -> tuple[list[Lemma], list[str]]:
    """Split the model's lemmas into proved ones and rejected names."""
    live = _candidates(ts)
    u = Unrolling(ts, "h.")
    init_ok = _filter_init(u, live, left_ms)
    kept = {m for m, _ in init_ok}
    rejected = [n for n, _ in live if n not in kept]
    proved = _preserved(u, init_ok, left_ms)
    done = {n for n, _ in proved}
    return proved, rejected + [n for n, _ in init_ok if n not in done]


def _preserved(u: Unrolling, live: list[Lemma], left_ms: Callable[[], int | None]) -> list[Lemma]:
    """The largest subset whose conjunction one step preserves.

    One incremental solver holds the step; each candidate is assumed before
    the step through an activation literal and asked about after it on its
    own (many small queries are far faster here than one large disjunction).
    """
    s = z3.SolverFor(u.logic)
    s.add(u.trans(0))
    act = {n: z3.Bool(f"h.use.{n}") for n, _ in live}
    bad = {n: z3.Bool(f"h.bad.{n}") for n, _ in live}
    after = {n: u.holds(f, 1) for n, f in live}
    for n, f in live:
        s.add(z3.Implies(act[n], u.holds(f, 0)), z3.Implies(bad[n], z3.Not(after[n])))
    alive = dict(live)
    changed = True
    while changed:
        changed = False
        for n in list(alive):
            if n not in alive:
                continue
            if left_ms() is not None:
                s.set("timeout", left_ms())
            r = s.check(*[act[m] for m in alive], bad[n])
            if r == z3.unsat:
                continue
            changed = True
            if r != z3.sat:  # could not decide: keep nothing rather than assume
                return []
            m = s.model()
            broken = [k for k in alive if k == n or z3.is_false(m.eval(after[k], model_completion=True))]
            for k in broken:
                del alive[k]
    return list(alive.items())


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
