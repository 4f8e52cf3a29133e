"""Check a pumped run without searching: a run of W0 warps whose repeated cycles give a run for every W0 + m d.

The ``pump`` of a certificate holds a schedule of W0 warps (issue cycles, as
the main schedule), the cycles to repeat (``repeat``: [first, last] pairs,
counted from 1, in time order) and the ``period`` d.  Played m + 1 times
each, the repeated cycles run W0 + m d warps in M0 + m L cycles (L: the
repeated cycles), because (the lemma, argued in ``verify/makespan/pump.py``
and checked here on its premises only):

- a wait phase holding at least sigma of its unit warps makes its unit issue
  exactly its free slots, however many more it holds, and allows any split
  there; so extra warps standing in such phases, or done, change neither
  which issue choices are work-conserving nor what they do elsewhere;
- the m d extra warps start in phase 0 (m d of them: Y_0 = d at phase 0, per
  m); cycles first..last move the run from state k_{first-1} to k_last, and
  played m + 1 times they move the extra warps from Y to Y + (k_last -
  k_{first-1}) (per m), which must stay >= 0; at the end they must all be
  done (Y = d at done).

So the checker replays the W0 schedule, rebuilds its count states from the
issue cycles, and verifies that every phase holding extra warps is a wait
phase at or above its cap (or done) at every state whose choice they live
through.  As a check of the lemma itself, it also replays the pumped run of
W0 + d warps.  This module shares no code with the search.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpcheck.models.errors import WarpcheckError
from warpcheck.spec.makespan.reference import RefKernel
from warpcheck.spec.makespan.replay import replay_issue


class PumpRefused(WarpcheckError):
    """The pump does not give the runs it claims."""


@dataclass
class PumpCheck:
    """A pump that holds: the worst case of W0 + m d warps is at least M0 + m L, for every m >= 0."""

    warps: int
    makespan: int
    period: int
    cycles: int  # L, per period


def _phase_of(kernel: RefKernel) -> tuple[list[tuple[int, int]], int]:
    """(instruction, stage) of every phase in order, and the done phase's number."""
    phases = [(i, stage) for i, ins in enumerate(kernel.instrs) for stage in range(ins.latency)]
    return phases, len(phases)


def count_states(kernel: RefKernel, issue: list[list[int]], horizon: int) -> list[list[int]]:
    """Warps per phase after t cycles, t = 0 .. horizon, from the issue cycles alone."""
    phases, done = _phase_of(kernel)
    index = {ph: p for p, ph in enumerate(phases)}
    states = [[0] * (done + 1) for _ in range(horizon + 1)]
    for row in issue:
        for t in range(horizon + 1):
            last = max((i for i, y in enumerate(row) if y <= t), default=None)
            if last is None:
                p = 0
            else:
                ran = t - row[last] + 1  # cycles of instruction ``last`` run by the end of cycle t
                lat = kernel.instrs[last].latency
                p = index[(last, ran)] if ran < lat else (index[(last + 1, 0)] if last + 1 < len(row) else done)
            states[t][p] += 1
    return states


def _holds(kernel: RefKernel) -> list[int | None]:
    """The least count at which each phase may hold extra warps: sigma for a wait phase, never for a busy stage."""
    phases, _ = _phase_of(kernel)
    sigma = dict(kernel.sigma)
    return [int(sigma[kernel.instrs[i].unit]) if stage == 0 else None for i, stage in phases] + [0]


def _read(pump: Any, kernel: RefKernel) -> tuple[int, list[list[int]], list[tuple[int, int]], int]:
    if not isinstance(pump, dict):
        raise PumpRefused("the pump is not an object")
    warps, rows, repeat, period = (pump.get(k) for k in ("warps", "schedule", "repeat", "period"))
    if type(warps) is not int or warps < 1 or type(period) is not int or period < 1:
        raise PumpRefused("the pump's warps and period must be positive integers")
    if not isinstance(rows, list) or len(rows) != warps or not all(
            isinstance(r, list) and len(r) == len(kernel.instrs) and all(type(v) is int for v in r) for r in rows):
        raise PumpRefused(f"the pump's schedule must give {warps} lists of {len(kernel.instrs)} issue cycles")
    if not isinstance(repeat, list) or not repeat or not all(
            isinstance(s, list) and len(s) == 2 and all(type(v) is int for v in s) for s in repeat):
        raise PumpRefused("the pump's repeat must be a non-empty list of [first, last] cycles")
    spans = [(a - 1, b) for a, b in repeat]
    if any(not (0 <= i < j) for i, j in spans) or any(spans[s][1] > spans[s + 1][0] for s in range(len(spans) - 1)):
        raise PumpRefused(f"the repeated cycles {repeat} are not spans first <= last from cycle 1, in time order")
    return warps, rows, spans, period


def check_pump(kernel: RefKernel, pump: Any) -> PumpCheck:
    """Verify a pump (parsed JSON) against its transformed kernel; raise PumpRefused with the first fault."""
    warps, rows, spans, period = _read(pump, kernel)
    r = replay_issue(kernel, rows)
    if not r.ok:
        raise PumpRefused(f"the pump's schedule does not replay: {r.problem}")
    if spans[-1][1] > r.makespan:
        raise PumpRefused(f"the repeated cycles end after the pump's run ({r.makespan} cycles)")
    states = count_states(kernel, rows, r.makespan)
    least = _holds(kernel)
    done = len(least) - 1

    def stand(y: list[int], t: int) -> None:
        for p, n in enumerate(y):
            cap = least[p]
            if n and (cap is None or states[t][p] < cap):
                what = "a busy stage" if cap is None else f"{states[t][p]} warps, below its cap {cap}"
                raise PumpRefused(f"extra warps would stand in phase {p} after cycle {t}, where the run has {what}")

    y, at = [period] + [0] * done, 0
    for i, j in spans:
        for t in range(at, i):
            stand(y, t)
        y2 = [a + b - c for a, b, c in zip(y, states[j], states[i])]
        if min(y2) < 0:
            raise PumpRefused(f"cycles {i + 1}..{j} move more warps out of a phase than the extra ones in it")
        for t in range(i, j):
            stand(y, t)
            stand(y2, t)
        y, at = y2, j
    if y != [0] * done + [period]:
        raise PumpRefused(f"after the repeated cycles the extra warps are not all done: {y}")
    cycles = sum(j - i for i, j in spans)
    _replay_pumped(kernel, rows, spans, warps, period, r.makespan + cycles)
    return PumpCheck(warps, r.makespan, period, cycles)


def _replay_pumped(kernel: RefKernel, rows: list[list[int]], spans: list[tuple[int, int]], warps: int, period: int,
                   expect: int) -> None:
    """Build the run of W0 + d warps (the repeated cycles played twice) and replay it: the lemma, tried once."""
    source = []  # cycle t of the pumped run plays cycle source[t - 1] of the base run
    at = 0
    for i, j in spans:
        source += list(range(at + 1, i + 1)) + list(range(i + 1, j + 1)) * 2
        at = j
    source += list(range(at + 1, max(max(r) for r in rows) + 1))
    issue = _reassign(kernel, rows, source, warps + period)
    r = replay_issue(kernel, issue)
    if not r.ok or r.makespan != expect:
        raise PumpRefused(f"the run of {warps + period} warps built from the pump does not replay to {expect}: "
                          f"{r.problem or r.makespan}")


def _reassign(kernel: RefKernel, rows: list[list[int]], source: list[int], total: int) -> list[list[int]]:
    """Issue cycles of ``total`` warps that issue, at pumped cycle t, as many per instruction as the base at source[t]."""
    per_cycle: dict[int, list[int]] = {}
    for row in rows:
        for i, y in enumerate(row):
            per_cycle.setdefault(y, []).append(i)
    nxt = [0] * total  # the next instruction of each warp
    ready_at = [1] * total  # the first cycle at which it may issue it
    issue = [[0] * len(kernel.instrs) for _ in range(total)]
    for t, s in enumerate(source, start=1):
        for i in sorted(per_cycle.get(s, [])):
            w = next((w for w in range(total) if nxt[w] == i and ready_at[w] <= t), None)
            if w is None:
                raise PumpRefused(f"the run built from the pump has no warp ready for instruction {i + 1} "
                                  f"at cycle {t}")
            issue[w][i], nxt[w], ready_at[w] = t, i + 1, t + kernel.instrs[i].latency
    if any(n != len(kernel.instrs) for n in nxt):
        raise PumpRefused("the run built from the pump does not finish every warp")
    return issue
