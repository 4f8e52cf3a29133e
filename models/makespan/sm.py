"""The work-conserving SM of the makespan paper, as transition systems.

Cycle convention (the paper's Fig. 3 ILP, extended to latencies):

==========================  =====================================================
cycles                      numbered 1, 2, ...; one ``step`` is one cycle
issue                       a warp issues instruction i at cycle t only if it
                            issued instruction i-1 at a cycle t' with
                            t' + latency(i-1) <= t  (with one-cycle instructions:
                            the cycle right after, as ``Y_{w,i} + 1 <= Y_{w,i+1}``)
unit use                    an issued instruction uses one of the sigma_u slots of
                            its unit at its issue cycle; a non-pipelined one holds
                            the slot for all its ``latency`` cycles
work conservation           at every cycle, for every unit u: warps issuing on u
                            = min(free slots of u, warps ready for an instruction
                            on u)
makespan                    the last cycle in which some warp still executes, i.e.
                            the number of steps until every warp is done
==========================  =====================================================

Every warp walks one linear list of *phases*: ``wait i`` (ready to issue
instruction i), then ``busy i.k`` for k = 1 .. latency-1 (the cycles after the
issue), then the next ``wait``, and finally ``done``.  A warp in a busy phase
always moves on; a warp in a wait phase moves on when it issues.  The only
nondeterminism is the choice of which ready warps issue.

:class:`CountSM` is the counter abstraction (warps are identical: the state is
how many warps stand in each phase); :class:`WarpSM` keeps one phase per warp.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.ts import State, TransitionSystem, Var


@dataclass(frozen=True)
class Phase:
    """A stop on a warp's way: waiting to issue ``instr``, busy on it, or done (instr = -1)."""

    instr: int
    stage: int = 0  # 0: wait; k >= 1: k cycles after the issue

    @property
    def is_wait(self) -> bool:
        return self.instr >= 0 and self.stage == 0


def phases(kernel: MkKernel) -> tuple[Phase, ...]:
    """The phase list of one warp, ending with the done phase."""
    out = []
    for i, ins in enumerate(kernel.instrs):
        out += [Phase(i, k) for k in range(ins.latency)]
    return tuple(out) + (Phase(-1),)


class _Machine:
    """What both systems share: phases, units, and the free slots of each unit."""

    def __init__(self, kernel: MkKernel, warps: int) -> None:
        self.kernel, self.warps = kernel, warps
        self.phases = phases(kernel)
        self.done = len(self.phases) - 1
        self.waits = [p for p, ph in enumerate(self.phases) if ph.is_wait]
        self._is_wait = [ph.is_wait for ph in self.phases]

    def unit_of(self, p: int) -> str:
        return self.kernel.instrs[self.phases[p].instr].unit

    def holds_slot(self, p: int) -> bool:
        """Whether a warp in phase p keeps a slot of its unit (busy, not pipelined)."""
        ph = self.phases[p]
        return ph.stage > 0 and not self.kernel.instrs[ph.instr].pipelined

    def waits_on(self, unit: str) -> list[int]:
        return [p for p in self.waits if self.unit_of(p) == unit]

    def holders_on(self, unit: str) -> list[int]:
        return [p for p in range(self.done) if self.holds_slot(p) and self.unit_of(p) == unit]


class CountSM(_Machine, TransitionSystem):
    """The counter abstraction: ``n{p}`` warps in phase p; input ``a{p}`` warps issue from wait phase p."""

    name = "makespan-counts"

    def state_vars(self) -> list[Var]:
        return [Var(f"n{p}", "int", 0, self.warps) for p in range(len(self.phases))]

    def input_vars(self) -> list[Var]:
        return [Var(f"a{p}", "int", 0, min(self.warps, self.kernel.sigma_of(self.unit_of(p)))) for p in self.waits]

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        return {f"n{q}": A.const(self.warps if q == 0 else 0) for q in range(len(self.phases))}

    def _moving(self, A: Any, s: State, i: Mapping[str, Any], p: int) -> Any:
        if p == self.done:
            return A.const(0)
        return i[f"a{p}"] if self._is_wait[p] else s[f"n{p}"]

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        out = {}
        for p in range(len(self.phases)):
            stay = A.sub(s[f"n{p}"], self._moving(A, s, i, p))
            out[f"n{p}"] = A.add(stay, self._moving(A, s, i, p - 1)) if p else stay
        return out

    def free_slots(self, A: Any, s: State, unit: str) -> Any:
        """sigma_u minus the slots held by non-pipelined busy warps."""
        free = A.const(self.kernel.sigma_of(unit))
        for p in self.holders_on(unit):
            free = A.sub(free, s[f"n{p}"])
        return free

    def issued(self, A: Any, i: Mapping[str, Any], unit: str) -> Any:
        total = A.const(0)
        for p in self.waits_on(unit):
            total = A.add(total, i[f"a{p}"])
        return total

    def ready(self, A: Any, s: State, unit: str) -> Any:
        total = A.const(0)
        for p in self.waits_on(unit):
            total = A.add(total, s[f"n{p}"])
        return total

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """Work conservation: per unit, issues = min(free slots, ready warps); none from an empty phase."""
        parts = [A.le(i[f"a{p}"], s[f"n{p}"]) for p in self.waits]
        for u in self.kernel.units:
            parts.append(A.eq(self.issued(A, i, u), A.min(self.free_slots(A, s, u), self.ready(A, s, u))))
        return A.and_(*parts)

    def finished(self, A: Any, s: State) -> Any:
        """Every warp is done."""
        return A.eq(s[f"n{self.done}"], A.const(self.warps))

    def choices(self, s: State) -> Iterator[dict[str, int]]:
        """Every work-conserving input of a concrete state (for explicit search)."""
        per_unit = []
        for u in self.kernel.units:
            ps = self.waits_on(u)
            k = min(self.free_slots(_Py, s, u), self.ready(_Py, s, u))
            per_unit.append([dict(zip(ps, split)) for split in splits([s[f"n{p}"] for p in ps], k)])
        for combo in itertools.product(*per_unit):
            merged: dict[str, int] = {}
            for part in combo:
                merged.update({f"a{p}": v for p, v in part.items()})
            yield merged


def splits(caps: list[int], k: int) -> Iterator[tuple[int, ...]]:
    """Every way to write k as a sum of parts with part j at most caps[j] (iterative: kernels may be long)."""
    if k < 0 or k > sum(caps):
        return
    room = [sum(caps[j:]) for j in range(len(caps))] + [0]
    stack: list[tuple[tuple[int, ...], int]] = [((), k)]
    while stack:
        head, left = stack.pop()
        j = len(head)
        if j == len(caps):
            yield head
            continue
        for a in range(min(caps[j], left), max(0, left - room[j + 1]) - 1, -1):
            stack.append((head + (a,), left - a))


class _PyAlgebra:
    """The few integer operations ``choices`` needs, on plain ints (models import no algebra)."""

    @staticmethod
    def const(v: int) -> int:
        return v

    @staticmethod
    def add(a: int, b: int) -> int:
        return a + b

    @staticmethod
    def sub(a: int, b: int) -> int:
        return a - b


_Py = _PyAlgebra()


class WarpSM(_Machine, TransitionSystem):
    """One phase per warp: ``ph{w}``; input ``go{w}``: warp w issues this cycle."""

    name = "makespan-warps"

    def state_vars(self) -> list[Var]:
        return [Var(f"ph{w}", "int", 0, self.done) for w in range(self.warps)]

    def input_vars(self) -> list[Var]:
        return [Var(f"go{w}", "bool") for w in range(self.warps)]

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        return {f"ph{w}": A.const(0) for w in range(self.warps)}

    def _in(self, A: Any, ph: Any, ps: list[int]) -> Any:
        return A.or_(*[A.eq(ph, A.const(p)) for p in ps]) if ps else A.false

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        busy = [p for p in range(self.done) if not self.phases[p].is_wait]
        out = {}
        for w in range(self.warps):
            ph = s[f"ph{w}"]
            moves = A.or_(i[f"go{w}"], self._in(A, ph, busy))
            out[f"ph{w}"] = A.ite(moves, A.add(ph, A.const(1)), ph)
        return out

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """Work conservation per unit; only a ready warp issues."""
        parts = [A.implies(i[f"go{w}"], self._in(A, s[f"ph{w}"], self.waits)) for w in range(self.warps)]
        for u in self.kernel.units:
            waits, holders = self.waits_on(u), self.holders_on(u)
            ready = A.count([self._in(A, s[f"ph{w}"], waits) for w in range(self.warps)])
            held = A.count([self._in(A, s[f"ph{w}"], holders) for w in range(self.warps)])
            free = A.sub(A.const(self.kernel.sigma_of(u)), held)
            go = A.count([A.and_(i[f"go{w}"], self._in(A, s[f"ph{w}"], waits)) for w in range(self.warps)])
            parts.append(A.eq(go, A.min(free, ready)))
        return A.and_(*parts)

    def finished(self, A: Any, s: State) -> Any:
        """Every warp is done."""
        return A.and_(*[A.eq(s[f"ph{w}"], A.const(self.done)) for w in range(self.warps)])
