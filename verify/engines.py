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


def _solver(deadline: Deadline, u: Unrolling) -> z3.Solver:
    s = z3.SolverFor(u.logic)
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
    s = _solver(dl, u)
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


class _StepCase:
    """Incremental step case: frames 0..k, prop on 0..k-1, simple path, lemmas everywhere."""

    def __init__(self, ts: TransitionSystem, prop: Prop, lemmas: list[Prop], dl: Deadline) -> None:
        self.u, self.prop, self.lemmas, self.dl = Unrolling(ts, "k."), prop, lemmas, dl
        self.s = _solver(dl, self.u)
        self._frame(0)
        self.k = 0

    def _frame(self, t: int) -> None:
        u = self.u
        self.s.add(*[u.holds(lem, t) for lem in self.lemmas])
        self.s.add(*[u.distinct(t0, t) for t0 in range(t)])

    def check(self, k: int) -> z3.CheckSatResult:
        """Is there a path of k+1 states, prop on the first k, violated on the last?"""
        while self.k < k:
            self.s.add(self.u.trans(self.k), self.u.holds(self.prop, self.k))
            self.k += 1
            self._frame(self.k)
        bad = z3.Bool(f"k.bad{k}")
        self.s.add(z3.Implies(bad, z3.Not(self.u.holds(self.prop, k))))
        return _check(self.s, self.dl, bad)


class _BaseCase:
    """Incremental base case: is prop violated exactly at depth k from an initial state?"""

    def __init__(self, ts: TransitionSystem, prop: Prop, dl: Deadline) -> None:
        self.u, self.prop, self.dl = Unrolling(ts, "b."), prop, dl
        self.s = _solver(dl, self.u)
        self.s.add(self.u.init())
        self.k = 0

    def check(self, k: int) -> z3.CheckSatResult:
        while self.k < k:
            self.s.add(self.u.trans(self.k))
            self.k += 1
        bad = z3.Bool(f"b.bad{k}")
        self.s.add(z3.Implies(bad, z3.Not(self.u.holds(self.prop, k))))
        r = _check(self.s, self.dl, bad)
        if r == z3.unsat:
            self.s.add(z3.Not(bad))
        return r


def kinduction(ts: TransitionSystem, prop: Prop, max_k: int = 8, timeout: float | None = None,
               use_lemmas: bool = True, progress: Progress | None = None) -> Result:
    """Prove ``prop`` for every depth: base case by BMC, step case with simple paths.

    The model's candidate lemmas are first proved (``prove_lemmas``); only the
    proved ones strengthen the step case, so a wrong lemma is never assumed.
    """
    dl = Deadline(timeout)
    proved, rejected = prove_lemmas(ts, dl.left_ms) if use_lemmas else ([], [])
    if progress and use_lemmas:
        progress(f"lemmas: {len(proved)} proved, {len(rejected)} rejected ({dl.elapsed():.1f} s)")
    base, step = _BaseCase(ts, prop, dl), _StepCase(ts, prop, [f for _, f in proved], dl)
    names = [n for n, _ in proved]
    for k in range(max_k + 1):
        r = base.check(k)
        if r == z3.sat:
            return Result(Status.FAIL, "kind", k, seconds=dl.elapsed(), trace=base.u.trace(base.s.model(), k))
        if r != z3.unsat:
            return _gave_up("kind", k, dl, k - 1, "base case gave up")
        r = step.check(k + 1)
        if progress:
            progress(f"k-induction k={k + 1}: base case holds to depth {k}, step case {r}")
        if r == z3.unsat:
            return Result(Status.PASS, "kind", k + 1, seconds=dl.elapsed(), lemmas=names,
                          rejected_lemmas=rejected, message=f"{k + 1}-inductive with {len(proved)} proved lemmas")
        if r != z3.sat:
            return _gave_up("kind", k, dl, k, "step case gave up")
    return Result(Status.UNKNOWN, "kind", max_k, seconds=dl.elapsed(), lemmas=names, rejected_lemmas=rejected,
                  message=f"not {max_k + 1}-inductive; no violation up to depth {max_k}")


def cover(ts: TransitionSystem, target: Prop, depth: int, timeout: float | None = None) -> Result:
    """Find a run reaching ``target`` within ``depth`` cycles (FAIL of its negation)."""
    r = bmc(ts, lambda A, s: A.not_(target(A, s)), depth, timeout)
    r.engine = "cover"
    return r


def auto(ts: TransitionSystem, prop: Prop, max_k: int = 8, timeout: float | None = None,
         progress: Progress | None = None) -> Result:
    """A short BMC run for cheap counterexamples, then k-induction for the proof."""
    quick = min(2.0, timeout / 10) if timeout else 2.0
    first = bmc(ts, prop, max_k, timeout=quick, progress=progress)
    if first.status is Status.FAIL:
        first.engine = "auto:bmc"
        return first
    rest = None if timeout is None else max(0.001, timeout - first.seconds)
    r = kinduction(ts, prop, max_k, rest, progress=progress)
    r.engine, r.seconds = "auto:kind", r.seconds + first.seconds
    return r


ENGINES: dict[str, Callable[..., Result]] = {"auto": auto, "bmc": bmc, "kind": kinduction}


def engine(name: str) -> Callable[..., Result]:
    """The engine registered under ``name``."""
    if name not in ENGINES:
        raise ConfigError(f"unknown engine {name!r}; known engines: {', '.join(sorted(ENGINES))}")
    return ENGINES[name]
