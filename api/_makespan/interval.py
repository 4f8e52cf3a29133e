"""The anytime interval: ``lower .. upper`` at any timeout, both certified, tightened while time remains.

The lower bound is the longest run found (the local search over priority
policies of ``verify/makespan/worst_runs.py``, plus whatever run the exact
methods returned), replayed by the verb; the upper bound the least of the
paper's Eq. 5-7, the alternation bound of one-cycle kernels
(``models/makespan/alternation.py``), the pair bound of one-cycle kernels
(``models/makespan/pairs.py``), the backlog LP's (``verify/makespan/backlog.py``)
and the bound tables the exact methods proved.  Each is re-checked without a solver by ``spec/makespan/interval_check.py``
when a certificate is written.  Progress lines show the interval shrinking.
"""
from __future__ import annotations

import time
from typing import Any

from warpcheck._guard import stop_cause, stopped_by_memory
from warpcheck._makespan.methods import Outcome, Progress
from warpcheck.models.makespan.closed import closed_bounds
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.pairs import tight
from warpcheck.verify.makespan.backlog import MAX_COLUMNS, backlog_bound, columns
from warpcheck.verify.makespan.worst_runs import PolicySearch, schedule_of

LONG_PHASES = 40  # above this many phases auto goes straight to the interval: the exact methods' graphs explode
SLICE_RUNS = 25  # simulated runs between two checks of the clock and the progress line
LP_SHARE = 0.5  # of the time left, at most, for the backlog LP (HiGHS stops there; the closed forms remain)
POST_RUNS = 10  # what the verb does after the search (schedule, replay, certificate check) costs about this many runs


def closed_uppers(kernel: MkKernel, warps: int, lp_seconds: float = 0.0) -> list[tuple[int, str, tuple[str, Any]]]:
    """The upper bounds: the closed forms (``models/makespan/closed.py``), which cost nothing, and the backlog LP's
    when ``lp_seconds`` allow HiGHS to solve it and the pair bound is not already the worst case (two units of
    sigma 1); the first of the least wins."""
    out: list[tuple[int, str, tuple[str, Any]]] = [(b, name, (method, None))
                                                   for b, name, method in closed_bounds(kernel, warps)]
    if lp_seconds > 0 and _wants_lp(kernel):
        lp = backlog_bound(kernel, warps, lp_seconds)
        if lp is not None:
            out.append((lp.upper, "backlog LP", ("backlog", lp)))
    return out


def _wants_lp(kernel: MkKernel) -> bool:
    """The backlog LP is for one-cycle kernels, and not needed where the pair bound is the worst case but at W = 2
    (two units of sigma 1)."""
    return kernel.single_cycle and not tight(kernel)


def line(lower: int, upper: int, how: str) -> str:
    """One progress line: the interval and its ratio (no run yet: lower 0)."""
    if lower <= 0:
        return f"interval: - .. {upper} (no run yet; {how})"
    return f"interval: {lower} .. {upper} (upper / lower {upper / lower:.3f}; {how})"


def widen(kernel: MkKernel, warps: int, found: Outcome, deadline: float, progress: Progress,
          runs: int | None = None, keep: list[Any] | None = None, lp: bool = True) -> Outcome:
    """Tighten ``found`` (exact or not) into a certified interval: local search below, closed bounds above.

    ``runs`` bounds the local search by work; without it, it runs until ``deadline``, and at least once
    (a deadline that the set-up used up still gets one run, so the interval has a lower end).  ``keep`` receives
    (length, simulator, run) of each longer run at once, so that a caller stopped by the alarm still has it.
    ``lp``: whether the backlog LP may be solved (else the closed forms only, which cost nothing).
    """
    if found.exact:
        return found
    lp_seconds = LP_SHARE * (deadline - time.monotonic()) if lp else 0.0
    if progress and lp and _wants_lp(kernel):
        size = columns(kernel, warps) or 0
        if size > MAX_COLUMNS:
            progress(f"interval: backlog LP not built ({size:,} columns, more than {MAX_COLUMNS:,})")
        else:
            progress(f"interval: solving the backlog LP (HiGHS, at most {max(lp_seconds, 0.1):.1f} s)"
                     if lp_seconds < 1e9 else "interval: solving the backlog LP (HiGHS)")
    uppers = closed_uppers(kernel, warps, lp_seconds)
    if found.upper is not None and found.proof is not None:
        uppers.append((found.upper[0], found.upper[1], found.proof))
    upper, upper_by, proof = min(uppers, key=lambda u: u[0])
    best_len, best_sched, how = found.makespan or 0, found.schedule, found.note
    search = PolicySearch(kernel, warps)
    if progress:
        progress(line(best_len, upper, f"bound by {upper_by}"))
    mine = None
    while (runs is None or search.runs < runs) and (time.monotonic() < deadline or not best_len) and best_len < upper:
        step = SLICE_RUNS if runs is None else min(SLICE_RUNS, runs - search.runs)
        before = search.runs
        # the first run gets KEPT_GRACE even past a deadline the set-up used up (a lower end), and no more
        until = deadline - POST_RUNS * search.last if best_len else max(deadline, time.monotonic() + KEPT_GRACE)
        got = search.more(step, until, target=upper)
        if got is None:
            break  # the first run did not end by the deadline (a million warps): the interval has no run
        mine = got
        if mine.makespan > best_len:
            best_len, how = mine.makespan, "a policy run (local search)"
            if keep is not None:
                keep[:] = [(best_len, search.sim, mine.run)]
            if progress:
                progress(line(best_len, upper, f"{search.runs} polic{'y' if search.runs == 1 else 'ies'} simulated"))
        if search.runs == before:
            break  # no time for one more run
    if mine is not None and mine.makespan == best_len and how.startswith("a policy run"):
        best_sched = schedule_of(search.sim, mine.run)
    exact = best_len == upper
    note = (f"{how}; upper bound by {upper_by}" + ("" if not exact else ": they meet, exact"))
    return Outcome(best_len or None, exact, best_sched, found.seconds, note, proof=proof, upper=(upper, upper_by),
                   tried=found.tried)


def interval_only(kernel: MkKernel, warps: int, deadline: float, progress: Progress,
                  keep: list[Any] | None = None, runs: int | None = None) -> Outcome:
    """The interval without the exact methods (long kernels, and ``--method interval``); ``runs`` as in widen."""
    start = time.monotonic()
    out = widen(kernel, warps, Outcome(None, False, None, 0.0, "no run yet"), deadline, progress, runs, keep)
    out.seconds = time.monotonic() - start
    return out


CLOSED_RUNS = (5, 25)  # policy runs auto tries against the closed forms before any exact search, at least / most
CLOSED_WORK = 200_000  # ... and within this many warp-phases simulated (W times phases per run): work, not seconds


def closed_first(kernel: MkKernel, warps: int, deadline: float, progress: Progress,
                 keep: list[Any] | None = None) -> Outcome:
    """A few policy runs against the closed forms (no LP): exact at once when a run meets one of them.

    5 to 25 runs, fewer on large instances (CLOSED_WORK), so that a kernel the closed forms do not close loses
    a fraction of a second (40 phases, W = 600: 8 runs, about 0.25 s).

    On two units of sigma 1 the pair bound is the worst case from W = 3 on, and a convoy with one warp held
    back meets it within the first runs; the exact searches would take seconds to prove the same number.
    """
    start = time.monotonic()
    phases = sum(ins.latency for ins in kernel.instrs)
    runs = max(CLOSED_RUNS[0], min(CLOSED_RUNS[1], CLOSED_WORK // (warps * phases)))
    out = widen(kernel, warps, Outcome(None, False, None, 0.0, "no run yet"), deadline, progress, runs, keep, lp=False)
    out.seconds = time.monotonic() - start
    return out


FALLBACK_RUNS = 3  # policy runs when the alarm stopped the search before the interval had any (work, not seconds)
KEPT_GRACE = 1.0  # seconds past the alarm for those runs and the schedule of the run kept: then nothing more runs


def kept(kernel: MkKernel, warps: int, keep: list[Any], seconds: float) -> Outcome:
    """What is established when the alarm stopped the search: the longest run ``widen`` had found (if it had none
    yet, the longest of the first fixed policies' runs), with the least closed upper bound.

    The alarm has sounded and no backstop would stop a step begun now (one run of a million warps takes minutes):
    the runs and the schedule get KEPT_GRACE seconds between them, past which the bound alone is reported.
    """
    end = time.monotonic() + (0.0 if stopped_by_memory() is not None else KEPT_GRACE)  # memory: allocate no more
    upper, by, proof = min(closed_uppers(kernel, warps), key=lambda u: u[0])
    if keep:
        length, sim, run = keep[0]
    else:
        search = PolicySearch(kernel, warps)
        best = search.more(FALLBACK_RUNS, end)
        if best is None:
            return Outcome(None, False, None, seconds, f"{stop_cause()} before a policy run ended; upper bound by "
                           f"{by}", proof=proof, upper=(upper, by))
        length, sim, run = best.makespan, search.sim, best.run
    schedule = schedule_of(sim, run, end)
    if schedule is None:
        return Outcome(None, False, None, seconds, f"{stop_cause()}: a run of {length} cycles had been found, but its "
                       f"schedule was not built in time to be replayed; upper bound by {by}", proof=proof,
                       upper=(upper, by))
    return Outcome(length, length == upper, schedule, seconds, f"{stop_cause()}: the longest policy "
                   f"run found by then; upper bound by {by}", proof=proof, upper=(upper, by))
