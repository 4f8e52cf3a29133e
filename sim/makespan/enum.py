"""Exhaustive worst-case makespan: the longest path over the counter states of the SM.

Warps are identical, so a state is how many warps stand in each phase
(:class:`CountSM`).  Every cycle moves at least one warp forward, so the
states form a DAG and the worst case is its longest path from the initial
state to the all-done state: a dynamic program with no solver, used as the
oracle of the SMT search and of the ILP.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM, WarpSM
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import Schedule, from_counts

Key = tuple[int, ...]


class SearchBudgetExceeded(WarpcheckError):
    """The exhaustive search ran out of time, or of the states it was allowed."""


@dataclass
class EnumResult:
    """The worst-case makespan, the schedule reaching it, how many states were visited, and their values."""

    makespan: int
    schedule: Schedule
    states: int
    seconds: float
    value: dict[Key, int] = field(default_factory=dict, repr=False)  # worst case to go from each state


class _Longest:
    """Memoised longest path over the states of a CountSM; resumable after a budget runs out."""

    def __init__(self, sm: CountSM, max_states: int | None = None) -> None:
        self.sm, self.moves = sm, CountMoves(sm)
        self.deadline: float | None = None
        self.max_states = max_states  # a bound by work: the same answer on any machine
        self.value: dict[Key, int] = {}
        self.best: dict[Key, tuple[tuple[tuple[int, int], ...], Key]] = {}

    def solve(self, root: Key) -> int:
        """Fill ``value`` bottom-up with an explicit stack (no recursion limit)."""
        stack: list[tuple[Key, Any]] = [(root, None)]
        while stack:
            k, succ = stack[-1]
            if k in self.value:
                stack.pop()
                continue
            if k[-1] == self.sm.warps:
                self.value[k] = 0
                stack.pop()
                continue
            if succ is None:
                succ = self.moves.successors(k)
                stack[-1] = (k, succ)
                todo = [(m, None) for _, m in succ if m not in self.value]
                if todo:
                    stack += todo
                    continue
            self._close(k, succ)
            stack.pop()
        return self.value[root]

    def _close(self, k: Key, succ: list[tuple[tuple[tuple[int, int], ...], Key]]) -> None:
        if self.deadline is not None and len(self.value) % 4096 == 0 and time.monotonic() > self.deadline:
            raise SearchBudgetExceeded("the exhaustive search ran out of time")
        if self.max_states is not None and len(self.value) >= self.max_states:
            raise SearchBudgetExceeded(f"the exhaustive search reached its {self.max_states} states")
        inp, m = max(succ, key=lambda e: self.value[e[1]])
        self.value[k] = self.value[m] + 1
        self.best[k] = (inp, m)

    def path(self, root: Key) -> list[dict[str, int]]:
        out, k = [], root
        while k in self.best:
            moves, k = self.best[k]
            out.append({f"a{p}": a for p, a in moves})
        return out


class Enumeration:
    """The exhaustive search of one instance; ``run`` may be called again after a budget ran out (memo kept)."""

    def __init__(self, kernel: MkKernel, warps: int, max_states: int | None = None) -> None:
        self.sm = CountSM(kernel, warps)
        self.search = _Longest(self.sm, max_states)
        self.root: Key = tuple(warps if p == 0 else 0 for p in range(len(self.sm.phases)))
        self.seconds = 0.0

    def run(self, timeout: float | None = None, progress: Callable[[str], None] | None = None) -> EnumResult:
        """Finish the search within ``timeout`` seconds more, or raise SearchBudgetExceeded."""
        start = time.monotonic()
        self.search.deadline = None if timeout is None else start + timeout
        try:
            makespan = self.search.solve(self.root)
        finally:
            self.seconds += time.monotonic() - start
        if progress:
            progress(f"enumerate: {len(self.search.value)} states, worst case {makespan}")
        schedule = from_counts(self.sm, self.search.path(self.root))
        return EnumResult(makespan, schedule, len(self.search.value), self.seconds, self.search.value)

    @property
    def states(self) -> int:
        """Counter states whose worst case is known so far."""
        return len(self.search.value)


def worst_case(kernel: MkKernel, warps: int, timeout: float | None = None,
               progress: Callable[[str], None] | None = None) -> EnumResult:
    """Find the exact worst-case makespan by exhaustive search over counter states."""
    return Enumeration(kernel, warps).run(timeout, progress)


def worst_case_per_warp(kernel: MkKernel, warps: int) -> int:
    """Worst-case makespan over the per-warp machine (no counter abstraction): a second oracle for tiny cases.

    Every subset of warps that may issue is tried and kept when the model's
    work-conservation assumption accepts it, so this also checks ``CountSM``.
    """
    sm = WarpSM(kernel, warps)
    names = [f"ph{w}" for w in range(warps)]
    memo: dict[Key, int] = {}

    def longest(k: Key) -> int:
        if k in memo:
            return memo[k]
        s = dict(zip(names, k))
        if sm.finished(CONCRETE, s):
            return 0
        best = -1
        for bits in itertools.product((False, True), repeat=warps):
            inp = {f"go{w}": b for w, b in enumerate(bits)}
            if sm.assume(CONCRETE, s, inp):
                nxt = sm.step(CONCRETE, s, inp)
                best = max(best, longest(tuple(nxt[n] for n in names)))
        if best < 0:
            raise RuntimeError("per-warp machine is stuck: a model bug")
        memo[k] = best + 1
        return best + 1

    return longest(tuple(0 for _ in names))
