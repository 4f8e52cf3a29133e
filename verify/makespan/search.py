"""Worst-case makespan search with Z3: bound search with UNSAT proofs, or Optimize.

Bound search: start from any run (its makespan M is a lower bound); ask the
solver for a run still unfinished after M cycles.  SAT gives a longer run
(completed concretely), UNSAT proves that no run is longer than M: the
result is exact only then.  Optimize maximises the number of unfinished
cycles within a horizon (the pessimistic bound, grown if reached).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.makespan.smt import MakespanUnrolling
from warpcheck.encodings.z3_algebra import check
from warpcheck.models.makespan.sm import CountSM
from warpcheck.models.makespan.kernel import MkKernel, pessimistic
from warpcheck.models.makespan.schedule import Schedule, from_counts

Progress = Callable[[str], None]


@dataclass
class SearchResult:
    """A worst-case makespan: exact when ``upper`` is proved equal to ``makespan``."""

    makespan: int
    exact: bool
    upper: int | None
    schedule: Schedule
    method: str
    seconds: float
    queries: list[tuple[int, str, float]] = field(default_factory=list)


def complete_run(sm: CountSM, prefix: list[dict[str, int]]) -> list[dict[str, int]]:
    """Replay ``prefix`` and continue with the first work-conserving choice until every warp is done."""
    s = sm.init(CONCRETE, {})
    run = []
    for inp in prefix:
        if sm.finished(CONCRETE, s):
            break
        s = sm.step(CONCRETE, s, inp)
        run.append(inp)
    while not sm.finished(CONCRETE, s):
        inp = next(sm.choices(s))
        s = sm.step(CONCRETE, s, inp)
        run.append(inp)
    return run


def _solver(deadline: float | None) -> z3.Solver:
    s = z3.SolverFor("QF_LIA")
    if deadline is not None:
        s.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
    return s


def bound_search(kernel: MkKernel, warps: int, timeout: float | None = None,
                 progress: Progress | None = None) -> SearchResult:
    """Raise the lower bound with SAT answers until an UNSAT answer proves it is the worst case."""
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    sm = CountSM(kernel, warps)
    solver = _solver(deadline)
    unrolled = MakespanUnrolling(sm, solver)
    best, queries = complete_run(sm, []), []
    while True:
        m = len(best)
        unrolled.extend(m)
        t0 = time.monotonic()
        if deadline is not None:
            solver.set("timeout", max(1, int((deadline - t0) * 1000)))
        answer = check(solver, unrolled.unfinished(m))
        queries.append((m, str(answer), time.monotonic() - t0))
        if progress:
            progress(f"smt: unfinished after {m} cycles? {answer} ({queries[-1][2]:.2f} s)")
        if answer == z3.sat:
            best = complete_run(sm, unrolled.inputs(solver.model(), m))
            continue
        exact = answer == z3.unsat
        return SearchResult(m, exact, m if exact else None, from_counts(sm, best), "smt",
                            time.monotonic() - start, queries)


def optimize_search(kernel: MkKernel, warps: int, timeout: float | None = None,
                    progress: Progress | None = None) -> SearchResult:
    """Maximise the number of unfinished cycles with z3 Optimize within a growing horizon."""
    start = time.monotonic()
    sm = CountSM(kernel, warps)
    horizon = pessimistic(kernel, warps)
    while True:
        opt = z3.Optimize()
        if timeout is not None:
            opt.set("timeout", max(1, int((start + timeout - time.monotonic()) * 1000)))
        unrolled = MakespanUnrolling(sm, opt)
        unrolled.extend(horizon)
        handle = opt.maximize(unrolled.unfinished_cycles(horizon))
        answer = check(opt)
        if progress:
            progress(f"optimize: horizon {horizon}: {answer}")
        if answer != z3.sat:
            best = complete_run(sm, [])
            return SearchResult(len(best), False, None, from_counts(sm, best), "optimize",
                                time.monotonic() - start)
        value = handle.value().as_long()
        run = complete_run(sm, unrolled.inputs(opt.model(), horizon))
        if value < horizon:
            return SearchResult(len(run), True, value, from_counts(sm, run), "optimize", time.monotonic() - start)
        horizon *= 2
