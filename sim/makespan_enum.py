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
from dataclasses import dataclass
from typing import Any, Callable

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.makespan import CountSM, WarpSM
from warpcheck.models.makespan_kernel import MkKernel
from warpcheck.models.makespan_schedule import Schedule, from_counts

Key = tuple[int, ...]


class SearchBudgetExceeded(WarpcheckError):
    """The exhaustive search ran out of time."""


@dataclass
class EnumResult:
    """The worst-case makespan, the schedule reaching it, and how many states were visited."""

    makespan: int
    schedule: Schedule
    states: int
    seconds: float


class _Longest:
    """Memoised longest path over the states of a CountSM."""

    def __init__(self, sm: CountSM, deadline: float | None) -> None:
        self.sm, self.deadline = sm, deadline
        self.names = [v.name for v in sm.state_vars()]
        self.value: dict[Key, int] = {}
        self.best: dict[Key, tuple[dict[str, int], Key]] = {}

    def key(self, s: dict[str, int]) -> Key:
        return tuple(s[n] for n in self.names)

    def successors(self, k: Key) -> list[tuple[dict[str, int], Key]]:
        s = dict(zip(self.names, k))
        return [(i, self.key(self.sm.step(CONCRETE, s, i))) for i in self.sm.choices(s)]

    def solve(self, root: Key) -> int:
        """Fill ``value`` bottom-up with an explicit stack (no recursion limit)."""
        stack: list[tuple[tuple[int, ...], Any]] = [(root, None)]
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
                succ = self.successors(k)
                stack[-1] = (k, succ)
                todo = [(m, None) for _, m in succ if m not in self.value]
                if todo:
                    stack += todo
                    continue
            self._close(k, succ)
            stack.pop()
        return self.value[root]

    def _close(self, k: Key, succ: list[tuple[dict[str, int], Key]]) -> None:
        if self.deadline is not None and len(self.value) % 4096 == 0 and time.monotonic() > self.deadline:
            raise SearchBudgetExceeded("the exhaustive search ran out of time")
        inp, m = max(succ, key=lambda e: self.value[e[1]])
        self.value[k] = self.value[m] + 1
        self.best[k] = (inp, m)

    def path(self, root: Key) -> list[dict[str, int]]:
        out, k = [], root
        while k in self.best:
            inp, k = self.best[k]
            out.append(inp)
        return out


def worst_case(kernel: MkKernel, warps: int, timeout: float | None = None,
               progress: Callable[[str], None] | None = None) -> EnumResult:
    """Find the exact worst-case makespan by exhaustive search over counter states."""
    start = time.monotonic()
    sm = CountSM(kernel, warps)
    search = _Longest(sm, None if timeout is None else start + timeout)
    root = search.key(sm.init(CONCRETE, {}))
    makespan = search.solve(root)
    if progress:
        progress(f"enumerate: {len(search.value)} states, worst case {makespan}")
    schedule = from_counts(sm, search.path(root))
    return EnumResult(makespan, schedule, len(search.value), time.monotonic() - start)


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
