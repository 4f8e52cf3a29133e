"""Proof engines over any transition system: BMC, k-induction with proved lemmas, cover.

Each engine is a short composition of an :class:`Unrolling` and a solver.
None of them knows what a warp is.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.models.errors import ConfigError
from warpcheck.models.ts import TransitionSystem
from warpcheck.verify.lemmas import prove_lemmas
from warpcheck.verify.result import Result, Status

Prop = Callable[[Any, dict], Any]
Progress = Callable[[str], None]


class Deadline:
    """Wall-clock budget shared by the solver calls of one run."""

    def __init__(self, seconds: float | None) -> None:
        self.start = time.monotonic()
        self.end = None if seconds is None else self.start + seconds

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def left_ms(self) -> int | None:
        if self.end is None:
            return None
        return max(1, int((self.end - time.monotonic()) * 1000))

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end


def _solver(deadline: Deadline) -> z3.Solver:
    s = z3.SolverFor("QF_LIA")
    ms = deadline.left_ms()
    if ms is not None:
        s.set("timeout", ms)
    return s


def _check(s: z3.Solver, deadline: Deadline, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
    ms = deadline.left_ms()
    if ms is not None:
        s.set("timeout", ms)
    return s.check(*assumptions)


def _gave_up(name: str, depth: int, deadline: Deadline, bounded_pass: int, why: str) -> Result:
    status = Status.TIMEOUT if deadline.expired() else Status.UNKNOWN
    msg = f"{why}; no violation up to depth {bounded_pass}" if bounded_pass >= 0 else why
    return Result(status, name, depth, seconds=deadline.elapsed(), message=msg)


def bmc(ts: TransitionSystem, prop: Prop, depth: int, timeout: float | None = None,
        progress: Progress | None = None) -> Result:
    """Search the shortest violation of ``prop`` within ``depth`` cycles (incremental)."""
    dl, u = Deadline(timeout), Unrolling(ts, "b.")
    s = _solver(dl)
    s.add(u.init())
    for k in range(depth + 1):
        if k:
            s.add(u.trans(k - 1))
        bad = z3.Bool(f"b.bad{k}")  # activation literal: ask about frame k only
        s.add(z3.Implies(bad, z3.Not(u.holds(prop, k))))
        r = _check(s, dl, bad)
        if progress:
            progress(f"bmc depth {k}: {r}")
        if r == z3.sat:
            return Result(Status.FAIL, "bmc", k, seconds=dl.elapsed(), trace=u.trace(s.model(), k))
        if r != z3.sat and r != z3.unsat:
            return _gave_up("bmc", k, dl, k - 1, f"solver returned unknown at depth {k}")
        s.add(z3.Not(bad))
    return Result(Status.PASS, "bmc", depth, bounded=True, seconds=dl.elapsed(),
                  message=f"no violation in the first {depth + 1} cycles")


def _step_case(ts: TransitionSystem, prop: Prop, k: int, lemmas: list[Prop],
               dl: Deadline) -> z3.CheckSatResult:
    """Is there a simple path of k+1 states, prop on the first k, not on the last?"""
    u = Unrolling(ts, f"k{k}.")
    s = _solver(dl)
    for t in range(k + 1):
        s.add(u.domain(t))
        s.add(*[u.holds(lem, t) for lem in lemmas])
        if t < k:
            s.add(u.trans(t), u.holds(prop, t))
        s.add(*[u.distinct(t0, t) for t0 in range(t)])
    s.add(z3.Not(u.holds(prop, k)))
    return _check(s, dl)


def kinduction(ts: TransitionSystem, prop: Prop, max_k: int = 8, timeout: float | None = None,
               use_lemmas: bool = True, progress: Progress | None = None) -> Result:
    """Prove ``prop`` for every depth: base case by BMC, step case with simple paths.

    The model's candidate lemmas are first proved (``prove_lemmas``); only the
    proved ones strengthen the step case, so a wrong lemma is never assumed.
    """
    dl = Deadline(timeout)
    proved, rejected = prove_lemmas(ts, dl.left_ms) if use_lemmas else ([], [])
    lemma_fns = [fn for _, fn in proved]
    for k in range(max_k + 1):
        base = bmc(ts, prop, k, timeout=None if dl.end is None else max(0.001, dl.end - time.monotonic()))
        if base.status is Status.FAIL:
            base.engine, base.seconds = "kind", dl.elapsed()
            return base
        if base.status is not Status.PASS:
            return _gave_up("kind", k, dl, k - 1, "base case gave up")
        r = _step_case(ts, prop, k + 1, lemma_fns, dl)
        if progress:
            progress(f"k-induction k={k + 1}: step case {r}")
        if r == z3.unsat:
            return Result(Status.PASS, "kind", k + 1, seconds=dl.elapsed(),
                          lemmas=[n for n, _ in proved], rejected_lemmas=rejected,
                          message=f"{k + 1}-inductive with {len(proved)} proved lemmas")
        if r != z3.sat:
            return _gave_up("kind", k, dl, k, "step case gave up")
    return Result(Status.UNKNOWN, "kind", max_k, seconds=dl.elapsed(), lemmas=[n for n, _ in proved],
                  rejected_lemmas=rejected,
                  message=f"not {max_k + 1}-inductive; no violation up to depth {max_k}")


def cover(ts: TransitionSystem, target: Prop, depth: int, timeout: float | None = None) -> Result:
    """Find a run reaching ``target`` within ``depth`` cycles (FAIL of its negation)."""
    r = bmc(ts, lambda A, s: A.not_(target(A, s)), depth, timeout)
    r.engine = "cover"
    return r


ENGINES: dict[str, Callable[..., Result]] = {"bmc": bmc, "kind": kinduction}


def engine(name: str) -> Callable[..., Result]:
    """The engine registered under ``name``."""
    if name not in ENGINES:
        raise ConfigError(f"unknown engine {name!r}; known engines: {', '.join(sorted(ENGINES))}")
    return ENGINES[name]
