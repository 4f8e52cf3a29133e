"""Replay a per-warp schedule on the work-conserving SM and check it, independently of the models' step.

The check is written directly from the rules (program order and latencies,
unit slots, work conservation), so that a schedule found by a solver or by
the exhaustive search is judged by code that neither of them shares.  It
imports nothing of ``models/makespan``: give it the kernel as the checker's
own transformation reads it (``reference.py``), and the issue cycles;
``replay`` also takes any object with ``kernel`` and ``issue`` (a search's
schedule), whose kernel is then the search's: only ``replay_issue`` with a
reference kernel is independent of the search's transformation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from warpcheck.spec.makespan.reference import RefKernel, last_cycle

Issue = Sequence[Sequence[int]]


@dataclass
class Replay:
    """The outcome of a replay: ``ok``, the makespan reached, and the first violation found."""

    ok: bool
    makespan: int
    problem: str = ""


def _order_problem(kernel: RefKernel, issue: Issue) -> str:
    instrs = kernel.instrs
    for w, row in enumerate(issue):
        if len(row) != len(instrs) or row[0] < 1:
            return f"warp {w + 1} does not issue every instruction once from cycle 1"
        for i in range(1, len(row)):
            if row[i] < row[i - 1] + instrs[i - 1].latency:
                return f"warp {w + 1} issues instruction {i + 1} at cycle {row[i]}, before instruction {i} is over"
    return ""


def _counts(kernel: RefKernel, issue: Issue, horizon: int) -> dict[str, tuple[list[int], list[int], list[int]]]:
    """Per unit and cycle: warps issuing, slots held by earlier issues, warps ready (their previous instruction over).

    Built from intervals in one pass over the issue cycles (difference arrays),
    so the check costs warps x instructions + cycles, not their product.
    """
    instrs = kernel.instrs
    size = horizon + max(ins.latency for ins in instrs) + 2
    out = {u: ([0] * size, [0] * size, [0] * size) for u, _ in kernel.sigma}
    for row in issue:
        for i, ti in enumerate(row):
            ins = instrs[i]
            issuing, held, ready = out[ins.unit]
            issuing[ti] += 1
            if not ins.pipelined and ins.latency > 1:  # held in the cycles after the issue: ti < t < ti + latency
                held[ti + 1] += 1
                held[ti + ins.latency] -= 1
            start = 1 if i == 0 else row[i - 1] + instrs[i - 1].latency  # ready from the cycle the previous ends
            if start <= ti:  # ... up to and including its issue cycle
                ready[start] += 1
                ready[ti + 1] -= 1
    for issuing, held, ready in out.values():
        for t in range(1, size):
            held[t] += held[t - 1]
            ready[t] += ready[t - 1]
    return out


def _cycle_problem(counts: dict[str, tuple[list[int], list[int], list[int]]], sigma: dict[str, int], t: int) -> str:
    for u in sigma:
        issuing, held, ready = (c[t] for c in counts[u])
        if issuing + held > sigma[u]:
            return f"cycle {t}: unit {u} is used by {issuing + held} warps, more than sigma = {sigma[u]}"
        if issuing != min(sigma[u] - held, ready):
            return (f"cycle {t}: not work-conserving on unit {u}: {issuing} warps issue while "
                    f"{ready} are ready and {sigma[u] - held} slots are free")
    return ""


def _length_problem(kernel: RefKernel, issue: Issue, makespan: int) -> str:
    """A work-conserving run makes progress every cycle, so it ends by W x (cycles of one warp)."""
    limit = len(issue) * sum(ins.latency for ins in kernel.instrs)
    if makespan > limit:
        return (f"the schedule runs to cycle {makespan}, past the {limit} cycles of all warps one after "
                "another: some cycle has no work, which work conservation forbids")
    return ""


def replay(schedule: Any) -> Replay:
    """Replay a schedule object (``kernel`` and ``issue``) with its own kernel: see ``replay_issue``."""
    return replay_issue(schedule.kernel, schedule.issue)


def replay_issue(kernel: RefKernel, issue: Issue) -> Replay:
    """Check program order, unit capacity and work conservation at every cycle; return the makespan."""
    if not issue:
        return Replay(False, 0, "the schedule has no warp")
    problem = _order_problem(kernel, issue)
    makespan = 0 if problem else last_cycle(kernel, issue)
    problem = problem or _length_problem(kernel, issue, makespan)
    if problem:
        return Replay(False, 0, problem)
    counts, sigma = _counts(kernel, issue, makespan), dict(kernel.sigma)
    for t in range(1, makespan + 1):
        problem = _cycle_problem(counts, sigma, t)
        if problem:
            return Replay(False, makespan, problem)
    return Replay(True, makespan)
