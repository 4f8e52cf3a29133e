"""Replay a per-warp schedule on the work-conserving SM and check it, independently of the models' step.

The check is written directly from the rules (program order and latencies,
unit slots, work conservation), so that a schedule found by a solver or by
the exhaustive search is judged by code that neither of them shares.
"""
from __future__ import annotations

from dataclasses import dataclass

from warpcheck.models.makespan.schedule import Schedule


@dataclass
class Replay:
    """The outcome of a replay: ``ok``, the makespan reached, and the first violation found."""

    ok: bool
    makespan: int
    problem: str = ""


def _order_problem(schedule: Schedule) -> str:
    instrs = schedule.kernel.instrs
    for w, row in enumerate(schedule.issue):
        if len(row) != len(instrs) or row[0] < 1:
            return f"warp {w + 1} does not issue every instruction once from cycle 1"
        for i in range(1, len(row)):
            if row[i] < row[i - 1] + instrs[i - 1].latency:
                return f"warp {w + 1} issues instruction {i + 1} at cycle {row[i]}, before instruction {i} is over"
    return ""


def _cycle_problem(schedule: Schedule, t: int) -> str:
    instrs, sigma = schedule.kernel.instrs, dict(schedule.kernel.sigma)
    issuing = {u: 0 for u in sigma}
    held = {u: 0 for u in sigma}
    ready = {u: 0 for u in sigma}
    for row in schedule.issue:
        for i, ti in enumerate(row):
            ins = instrs[i]
            if ti == t:
                issuing[ins.unit] += 1
            elif ti < t < ti + ins.latency and not ins.pipelined:
                held[ins.unit] += 1
            prev_over = i == 0 or row[i - 1] + instrs[i - 1].latency <= t
            if prev_over and t <= ti:
                ready[ins.unit] += 1
    for u in sigma:
        if issuing[u] + held[u] > sigma[u]:
            return f"cycle {t}: unit {u} is used by {issuing[u] + held[u]} warps, more than sigma = {sigma[u]}"
        if issuing[u] != min(sigma[u] - held[u], ready[u]):
            return (f"cycle {t}: not work-conserving on unit {u}: {issuing[u]} warps issue while "
                    f"{ready[u]} are ready and {sigma[u] - held[u]} slots are free")
    return ""


def replay(schedule: Schedule) -> Replay:
    """Check program order, unit capacity and work conservation at every cycle; return the makespan."""
    problem = _order_problem(schedule)
    if problem:
        return Replay(False, 0, problem)
    makespan = schedule.makespan
    for t in range(1, makespan + 1):
        problem = _cycle_problem(schedule, t)
        if problem:
            return Replay(False, makespan, problem)
    return Replay(True, makespan)
