"""The worst-case makespan of a small instance, enumerated from the cycle rules alone: the oracle of the mutants.

A second exhaustive search, written apart from ``sim/makespan/enum.py`` and
importing nothing of ``models/makespan`` (kernel from ``reference.py``, the
rules as ``replay.py`` states them): a mutant of the design's transform,
phases or moves changes the design's searches, never this one.

Warps are identical, so a state is how many warps stand at each step of a
warp's way (``wait`` before each instruction, one ``busy`` step per further
cycle of it, then done).  In one cycle every busy warp moves one step on; per
unit u, with ``free`` its sigma minus the warps holding it (busy steps of a
non-pipelined instruction) and ``ready`` the warps waiting on u, exactly
min(free, ready) waiting warps issue, taken from u's wait steps in every
possible way.  Every cycle moves some warp, so the longest path to all-done
is finite; it is found by a memoised depth-first search with an explicit
stack, bounded by a number of states (work, not seconds).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from warpcheck.models.errors import WarpcheckError
from warpcheck.spec.makespan.reference import RefKernel

Counts = tuple[int, ...]
Issues = tuple[tuple[int, int], ...]  # (step, warps issued from it)


class ReferenceBudgetExceeded(WarpcheckError):
    """The reference enumeration met more states than it was allowed."""


@dataclass(frozen=True)
class ReferenceRun:
    """The worst case, the issue cycles of a run reaching it, and the states enumerated."""

    makespan: int
    issue: tuple[tuple[int, ...], ...]
    states: int


class _Steps:
    """A warp's way through the transformed kernel: per step, its instruction, unit, and whether it waits or holds."""

    def __init__(self, kernel: RefKernel) -> None:
        self.instr: list[int] = []
        self.wait: list[bool] = []
        self.hold: list[bool] = []
        unit_of: list[str] = []
        for i, ins in enumerate(kernel.instrs):
            for k in range(ins.latency):
                self.instr.append(i)
                self.wait.append(k == 0)
                self.hold.append(k > 0 and not ins.pipelined)
                unit_of.append(ins.unit)
        self.done = len(self.instr)
        self.units = [(s, [p for p in range(self.done) if unit_of[p] == u and self.wait[p]],
                       [p for p in range(self.done) if unit_of[p] == u and self.hold[p]]) for u, s in kernel.sigma]

    def moves(self, n: Counts) -> Iterator[tuple[Issues, Counts]]:
        """Every work-conserving cycle out of ``n``: the issues, and the counts after it."""
        after = [0] * (self.done + 1)
        after[self.done] = n[self.done]
        for p in range(self.done):
            if self.wait[p]:
                after[p] += n[p]
            else:
                after[p + 1] += n[p]
        per_unit = []
        for sigma, waits, holds in self.units:
            k = min(sigma - sum(n[p] for p in holds), sum(n[p] for p in waits))
            per_unit.append(list(_shares(waits, [n[p] for p in waits], k)))
        for pick in _product(per_unit):
            nxt = after[:]
            for p, a in pick:
                nxt[p] -= a
                nxt[p + 1] += a
            yield pick, tuple(nxt)


def _shares(steps: list[int], have: list[int], k: int) -> Iterator[Issues]:
    """Every way to take k warps from ``steps`` (at most ``have`` from each): (step, warps) pairs, zeros left out."""
    if not steps:
        if k == 0:
            yield ()
        return
    for a in range(min(k, have[0]), -1, -1):
        if k - a <= sum(have[1:]):
            for rest in _shares(steps[1:], have[1:], k - a):
                yield (((steps[0], a),) if a else ()) + rest


def _product(parts: list[list[Issues]]) -> Iterator[Issues]:
    if not parts:
        yield ()
        return
    for head in parts[0]:
        for tail in _product(parts[1:]):
            yield head + tail


def reference_worst_case(kernel: RefKernel, warps: int, max_states: int = 200_000) -> ReferenceRun:
    """The exact worst-case makespan of ``warps`` warps and a run reaching it; ReferenceBudgetExceeded past max_states."""
    st = _Steps(kernel)
    root = tuple([warps] + [0] * st.done)
    value: dict[Counts, int] = {}
    best: dict[Counts, tuple[Issues, Counts]] = {}
    stack: list[Counts] = [root]
    while stack:
        n = stack[-1]
        if n in value:
            stack.pop()
            continue
        if n[st.done] == warps:
            value[n] = 0
            stack.pop()
            continue
        succ = list(st.moves(n))
        todo = [m for _, m in succ if m not in value]
        if todo:
            stack += todo
            continue
        pick, m = max(succ, key=lambda e: value[e[1]])
        value[n], best[n] = value[m] + 1, (pick, m)
        stack.pop()
        if len(value) > max_states:
            raise ReferenceBudgetExceeded(f"the reference enumeration passed {max_states} states")
    return ReferenceRun(value[root], _issue_cycles(st, kernel, warps, root, best), len(value))


def _issue_cycles(st: _Steps, kernel: RefKernel, warps: int, root: Counts,
                  best: dict[Counts, tuple[Issues, Counts]]) -> tuple[tuple[int, ...], ...]:
    """Follow the worst choices from the root, handing each cycle's issues to the warps waiting longest."""
    at: list[list[int]] = [[] for _ in range(st.done + 1)]  # warps per step, in arrival order
    at[0] = list(range(warps))
    issue = [[0] * len(kernel.instrs) for _ in range(warps)]
    n, t = root, 0
    while n in best:
        pick, n = best[n]
        t += 1
        moved: list[tuple[int, list[int]]] = []
        for p in range(st.done):
            if not st.wait[p]:
                moved.append((p + 1, at[p]))
                at[p] = []
        for p, a in pick:
            go, at[p] = at[p][:a], at[p][a:]
            for w in go:
                issue[w][st.instr[p]] = t
            moved.append((p + 1, go))
        for q, ws in moved:
            at[q] += ws
    return tuple(tuple(r) for r in issue)
