"""The exact makespan methods (the option ``method``), each wrapped into one ``Outcome``."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from warpcheck._makespan.options import BOUND_BUDGET, SMT_BUDGET
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import Schedule
from warpcheck.sim.makespan.enum import Enumeration, SearchBudgetExceeded

Progress = Callable[[str], None] | None


@dataclass
class Outcome:
    """What one method found."""

    makespan: int | None
    exact: bool
    schedule: Schedule | None
    seconds: float
    note: str = ""
    proof: tuple[str, Any] | None = None  # the search's own result, from which a certificate is written
    upper: tuple[int, str] | None = None  # the least upper bound proved, and by which method, exact or not
    tried: list[dict[str, Any]] = field(default_factory=list)  # auto: every method run, in the order they ended

    @property
    def closed_form(self) -> dict[str, Any] | None:
        """The worst case for every W of a class, when the exact run was pumped from a small W."""
        from warpcheck.verify.makespan.pump import closed_form

        pump = getattr(self.proof[1], "pump", None) if self.exact and self.proof else None
        return closed_form(pump) if pump is not None else None

    def summary(self, method: str) -> dict[str, Any]:
        """One line of the ``tried`` list: the method, its run, its bound, and its time."""
        return {"method": method, "makespan": self.makespan, "exact": self.exact,
                "upper": self.upper[0] if self.upper else None, "seconds": round(self.seconds, 3)}


def to_stderr(msg: str) -> None:
    """Print a progress line (a module-level function, so that worker processes can be handed it)."""
    print(msg, file=sys.stderr, flush=True)


def timed(fn: Callable[[], Outcome]) -> Outcome:
    """Run one method and record its wall-clock seconds in its outcome."""
    start = time.monotonic()
    out = fn()
    out.seconds = time.monotonic() - start
    return out


def enumerate_counts(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress,
                     search: Enumeration | None = None) -> Outcome:
    """Exhaustive search over the counter states (resumable: auto keeps the memo)."""
    search = search or Enumeration(kernel, warps)
    try:
        r = search.run(timeout, progress)
    except SearchBudgetExceeded:
        return Outcome(None, False, None, 0.0, f"the exhaustive search timed out after {search.states} states")
    return Outcome(r.makespan, True, r.schedule, 0.0, f"{r.states} counter states", proof=("enumerate", r))


def smt(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress, optimize: bool) -> Outcome:
    """Z3 bound search (or z3 Optimize) over the unrolled counter machine."""
    from warpcheck.verify.makespan.search import bound_search, optimize_search

    search = optimize_search if optimize else bound_search
    r = search(kernel, warps, timeout, progress)
    note = "upper bound proved" if r.exact else "upper bound not proved (timeout): a lower bound"
    return Outcome(r.makespan, r.exact, r.schedule, 0.0, note)


def ilp(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress) -> Outcome:
    """The paper's Fig. 3 ILP on HiGHS."""
    from warpcheck._guard import worker_pool

    with worker_pool(1) as pool:  # HiGHS does not always heed a cancel: a worker can be killed at once
        r = pool.submit(_solve_ilp, kernel, warps, timeout).result()
    if r.issue is None:
        return Outcome(None, False, None, 0.0, "HiGHS found no schedule in time")
    sched = Schedule(kernel, tuple(tuple(row) for row in r.issue))
    note = "optimal" if r.optimal else f"not optimal (HiGHS bound {r.bound})"
    return Outcome(r.makespan, r.optimal, sched, 0.0, note)


def _solve_ilp(kernel: MkKernel, warps: int, timeout: float | None) -> Any:
    """Build and solve the ILP (in a worker process: its result is plain data)."""
    from warpcheck.encodings.makespan.ilp import MakespanIlp

    return MakespanIlp(kernel, warps).solve(timeout)


def _outcome(name: str, r: Any, note: str) -> Outcome:
    """A bound search's result: its run, exact or not, the bound it proved and the search's result behind it.

    The proof is kept even when the run falls short: auto may pair the bound with another method's run.
    """
    return Outcome(r.makespan, r.exact, r.schedule, 0.0, note, proof=(name, r) if r.upper is not None else None,
                   upper=(r.upper, name) if r.upper is not None else None)


def deficit(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress) -> Outcome:
    """Deficit accounting over capped counts, refined by caps and by linear invariants."""
    from warpcheck.verify.makespan.cegar import cegar_search

    r = cegar_search(kernel, warps, budget=timeout or BOUND_BUDGET, progress=progress)
    invs = f", cut by {len(r.invariants)} linear invariant(s)" if r.invariants else ""
    note = (f"deficit bound on unit {r.unit} proved over {r.states} abstract states{invs} and met by a run"
            if r.exact else f"deficit bound {r.upper} not met (best run {r.makespan})")
    return _outcome("deficit", r, note)


def blocks(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress) -> Outcome:
    """Deficit accounting over blocks of same-unit phases (one-cycle kernels)."""
    from warpcheck.verify.makespan.phases import phase_search

    r = phase_search(kernel, warps, budget=timeout or BOUND_BUDGET, progress=progress)
    note = (f"deficit bound on unit {r.unit} proved over {r.states} block states and met by a run" if r.exact
            else f"block deficit bound {r.upper} not met (best run {r.makespan})")
    return _outcome("blocks", r, note)


def ranking(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress) -> Outcome:
    """A ranking function (linear part plus a table over capped counts) found by LP, refined by linear invariants."""
    from warpcheck.verify.makespan.ranking import ranking_search

    r = ranking_search(kernel, warps, budget=timeout or BOUND_BUDGET, progress=progress)
    invs = f", cut by {len(r.invariants)} linear invariant(s)" if r.invariants else ""
    note = (f"ranking function (linear part {' '.join(map(str, r.linear or []))}) over {r.states} abstract states"
            f"{invs}, met by a run" if r.exact else f"ranking bound {r.upper} not met (best run {r.makespan})")
    return _outcome("ranking", r, note)


def block_ranking(kernel: MkKernel, warps: int, timeout: float | None, progress: Progress) -> Outcome:
    """A ranking function (linear part plus a table over block states) found by LP (one-cycle kernels)."""
    from warpcheck.verify.makespan.block_ranking import block_ranking_search

    r = block_ranking_search(kernel, warps, budget=timeout or BOUND_BUDGET, progress=progress)
    note = (f"ranking function over {r.states} block states, met by a run" if r.exact
            else f"block ranking bound {r.upper} not met (best run {r.makespan})")
    return _outcome("block-ranking", r, note)


BOUNDS: dict[str, Callable[[MkKernel, int, float | None, Progress], Outcome]] = {
    "blocks": blocks, "block-ranking": block_ranking, "deficit": deficit, "ranking": ranking}


def exact(method: str, kernel: MkKernel, warps: int, timeout: float | None, progress: Progress) -> Outcome:
    """Run one exact method by name (not auto), timed."""
    if method in BOUNDS:
        return timed(lambda: BOUNDS[method](kernel, warps, timeout, progress))
    if method == "enumerate":
        return timed(lambda: enumerate_counts(kernel, warps, timeout, progress))
    bounded = timeout or SMT_BUDGET
    if method == "ilp":
        return timed(lambda: ilp(kernel, warps, bounded, progress))
    return timed(lambda: smt(kernel, warps, bounded, progress, method == "optimize"))
