"""``--method auto``: a brief enumeration, then the bound methods as a portfolio of processes, then enumeration again.

Which bound method answers depends on the kernel in ways no cheap test
foresees: blocks answer kernels of many same-unit phases (and the ranking
LP over blocks some steep ones, MLLMMMCC), deficit with
invariants the ones whose deficit cycles are spurious, the ranking LP the ones
whose worst case grows faster than any unit's work; a method that has no
answer may spend most of its budget refining before it says so (LLCCM at
W = 128: blocks 9 s, deficit 10 s, ranking exact in 1 s; LLCLLL: blocks
23 s without a bound, deficit exact in 1.3 s).  So they run side by side,
one worker process each, and the first exact answer stops the others: on
two cores an answer comes about 1.5 times later than its method alone would
give it, where running them in turn costs the sum of the failures before it.
The enumeration's memo stays in this process and resumes with what is left.
"""
from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, Sequence

from warpcheck._guard import abandon, worker_pool
from warpcheck._makespan.interval import LONG_PHASES, closed_first, interval_only, widen
from warpcheck._makespan.methods import BOUNDS, Outcome, Progress, enumerate_counts, timed, to_stderr
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.sim.makespan.enum import Enumeration
from warpcheck.verify.makespan.abstract import first_runs, work

FIRST = 2.0  # seconds of enumeration before the bound methods (small instances end there)
FIRST_LARGE = 0.25  # the same above SMALL warps, where only trivial kernels end it and the bounds are quicker
SMALL = 32
# one worker each; a chain stops at its first exact answer, each method with its share of the time left.  The
# ranking LP over blocks shares the blocks worker (a fourth worker on two cores would slow the three others).
# blocks goes first with a quarter: when it answers it does so at once (at most 1.4 s alone on the random family),
# when it does not it refines until its budget ends.  Block-ranking first, half the time each, made blocks wait
# for block-ranking's failed pumps (LLLLLLLL, sigma 3, W = 600: 17.8 s against 2.2 s with blocks first).
CHAINS: tuple[tuple[tuple[str, float], ...], ...] = (
    (("blocks", 1 / 4), ("block-ranking", 1.0)), (("deficit", 1.0),), (("ranking", 1.0),))
# Steep kernels (the worst case outgrows every unit's work, by a share of W): a deficit bound (blocks, deficit) is
# one constant excess for every W, so it cannot follow them; only the ranking LPs run, one core each.  On the random
# family the cheap runs' excess over the busiest unit grows by 20 or more from 64 to 128 warps on the 8 steep kernels
# (none of which blocks or deficit ever answered) and by at most 0 on the 42 others.
STEEP_CHAINS: tuple[tuple[tuple[str, float], ...], ...] = ((("block-ranking", 1.0),), (("ranking", 1.0),))
STEEP_PROBES = (64, 128)
STEEP_GROWTH = 1 / 8  # excess cycles per warp between the probes, at least
PORTFOLIO_SHARE = 2 / 3  # of the time left after the first enumeration, up to SMALL warps; the enumeration has the rest
LARGE_SHARE = 0.95  # above SMALL warps: an enumeration that did not end in its first quarter second is hopeless
# there (on the random family at W = 128 every kernel it answers ends in that time); the 5 % left lets a worker
# finishing late still return its run rather than be stopped
WIDEN_RUNS = 100  # policy runs that tighten the lower bound when no exact method answered (work, not seconds)
WIDEN_GRACE = 0.5  # seconds past the searches' deadline the policy runs may take (the exact methods keep all theirs)
GRACE = 5.0  # seconds past its deadline a worker may take to return before it is stopped


def auto_exact(kernel: MkKernel, warps: int, deadline: float, progress: Progress,
               keep: list[Any] | None = None) -> tuple[str, Outcome]:
    """Return the method that answered and its outcome, or the certified interval found by ``deadline``.

    Kernels of more than LONG_PHASES phases go straight to the interval
    (``interval.py``); the others try the exact methods first, and when none
    is exact the interval is tightened with a short local search.
    """
    if sum(i.latency for i in kernel.instrs) > LONG_PHASES:  # phases of a warp
        return "interval", interval_only(kernel, warps, deadline, progress, keep)
    quick = closed_first(kernel, warps, deadline, progress, keep)
    if quick.exact:
        quick.tried = [quick.summary("interval")]
        return "interval", quick
    method, out = _exact_first(kernel, warps, deadline, progress)
    if out.exact:
        return method, out
    # after the searches' deadline, in the verb's own reserve: bounded by runs, and the alarm loses nothing (keep)
    return "interval", widen(kernel, warps, out, deadline + WIDEN_GRACE, progress, runs=WIDEN_RUNS, keep=keep)


def _exact_first(kernel: MkKernel, warps: int, deadline: float, progress: Progress) -> tuple[str, Outcome]:
    """The exact methods: a brief enumeration, the portfolio, the enumeration resumed."""
    search = Enumeration(kernel, warps)
    first = FIRST if warps <= SMALL else FIRST_LARGE
    out = enumerate_counts(kernel, warps, max(0.1, min(first, deadline - time.monotonic())), progress, search)
    if out.exact:
        return "enumerate", out
    is_steep = steep(kernel)  # steep kernels' count states grow too fast for the enumeration to end it at 32 warps
    share = PORTFOLIO_SHARE if warps <= SMALL and not is_steep else LARGE_SHARE
    until = time.monotonic() + share * max(0.0, deadline - time.monotonic())
    chains = STEEP_CHAINS if is_steep else CHAINS
    tried = portfolio(kernel, warps, chains, until, deadline, progress is not None)
    summaries = [o.summary(name) for name, o in tried]
    for name, o in tried:
        if o.exact:
            o.tried = summaries
            return name, o
    paired = run_meets_bound(tried)
    if paired is not None:
        paired[1].tried = summaries
        return paired
    last = timed(lambda: enumerate_counts(kernel, warps, max(0.1, deadline - time.monotonic()), progress, search))
    summaries.append(last.summary("enumerate"))
    if not last.exact:
        best = max([out, cheap_run(kernel, warps)] + [o for _, o in tried], key=lambda o: o.makespan or 0)
        bounded = [o for _, o in tried if o.upper is not None]
        least = min(bounded, key=lambda o: o.upper[0] if o.upper else 0) if bounded else None
        last = Outcome(best.makespan, False, best.schedule, 0.0, f"{last.note}; lower bound from the best run found",
                       upper=least.upper if least else None, proof=least.proof if least else None)
    last.tried = summaries
    return "enumerate", last


def run_meets_bound(tried: list[tuple[str, Outcome]]) -> tuple[str, Outcome] | None:
    """The longest run of one method meeting the least bound of another: exact, the certificate pairs the two.

    Each method looks for a run of its own, guided by its own potential, and
    may stop short of its bound where another's run reaches it.  (No kernel of
    the random family needed this in the last benchmark; it costs nothing.)
    """
    bounds = [(o.upper[0], name, o) for name, o in tried if o.upper is not None and o.proof is not None]
    runs = [(o.makespan, name, o) for name, o in tried if o.makespan is not None and o.schedule is not None]
    if not bounds or not runs:
        return None
    upper, bounder, bound = min(bounds, key=lambda b: b[0])
    length, runner, run = max(runs, key=lambda r: r[0])
    if length != upper:
        return None
    return bounder, Outcome(length, True, run.schedule, 0.0, f"{bounder}'s bound {upper} met by {runner}'s run",
                            proof=bound.proof, upper=(upper, bounder))


CHEAP_WORK = 2_000_000  # warp-phases (W times phases) above which the cheap runs are not cheap: the interval's
# policy runs, bounded by the deadline, give the lower bound there (first_runs looks at no clock)


def cheap_run(kernel: MkKernel, warps: int) -> Outcome:
    """The longest of three cheap runs: a lower bound even when every worker was stopped before it returned."""
    if warps * sum(i.latency for i in kernel.instrs) > CHEAP_WORK:
        return Outcome(None, False, None, 0.0, "no priority run (too large to run without a deadline)")
    sm = CountSM(kernel, warps)
    run = first_runs(sm)
    return Outcome(len(run), False, from_counts(sm, run), 0.0, "a priority run")


def steep(kernel: MkKernel) -> bool:
    """Whether the excess of cheap runs over the busiest unit's work grows with W (probes of 64 and 128 warps)."""
    def excess(warps: int) -> float:
        busiest = max(work(kernel, u) * warps / kernel.sigma_of(u) for u in kernel.units)
        return len(first_runs(CountSM(kernel, warps))) - busiest
    low, high = STEEP_PROBES
    return excess(high) - excess(low) >= STEEP_GROWTH * (high - low)


def portfolio(kernel: MkKernel, warps: int, chains: Sequence[Sequence[tuple[str, float]]], until: float,
              deadline: float, verbose: bool) -> list[tuple[str, Outcome]]:
    """Run every chain in its own worker until ``until``; stop them all at the first exact answer.

    A worker still busy a little past ``until`` (never past ``deadline``, the
    end of every search) is stopped and its work lost, so that the verb still
    ends with its best run rather than a TIMEOUT.
    """
    last = min(until + GRACE, deadline)
    ended: list[tuple[str, Outcome]] = []
    with worker_pool(len(chains)) as pool:
        pending: set[Future[list[tuple[str, Outcome]]]] = {
            pool.submit(chain, steps, kernel, warps, until, verbose) for steps in chains}
        while pending:
            finished, pending = wait(pending, timeout=max(0.0, last - time.monotonic()),
                                     return_when=FIRST_COMPLETED)
            for f in finished:
                ended += f.result()
            if not finished or any(o.exact for _, o in ended):
                abandon(pool)  # an answer, or workers past their deadline: the others' work is not needed
                break
    return ended


def chain(steps: Sequence[tuple[str, float]], kernel: MkKernel, warps: int, until: float, verbose: bool
          ) -> list[tuple[str, Outcome]]:
    """Run bound methods one after the other (in a worker), each with its share of the time left."""
    progress = to_stderr if verbose else None
    out: list[tuple[str, Outcome]] = []
    for name, share in steps:
        left = until - time.monotonic()
        if left <= 0:
            break
        o = timed(lambda: BOUNDS[name](kernel, warps, left * share, progress))
        out.append((name, o))
        if o.exact:
            break
    return out
