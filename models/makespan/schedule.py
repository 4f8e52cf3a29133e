"""Per-warp schedules: when each warp issues each instruction, and their cycle x warp table.

A counter-level run (how many warps issue from each phase, cycle by cycle)
becomes a per-warp schedule by giving each cycle's issues to the
lowest-numbered warps standing in that phase.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from warpcheck.models.makespan.sm import CountSM
from warpcheck.models.makespan.kernel import MkKernel


@dataclass(frozen=True)
class Schedule:
    """``issue[w][i]``: the cycle (from 1) at which warp w issues instruction i."""

    kernel: MkKernel
    issue: tuple[tuple[int, ...], ...]

    @property
    def warps(self) -> int:
        return len(self.issue)

    @property
    def makespan(self) -> int:
        """The last cycle in which some warp executes."""
        last = self.kernel.instrs[-1].latency - 1
        return max(row[-1] + last for row in self.issue)

    def to_json(self) -> dict[str, Any]:
        """Plain data: the transformed kernel and the issue cycles per warp."""
        return {"kernel": self.kernel.text(), "issue_cycles": [list(r) for r in self.issue]}


def from_counts(sm: CountSM, inputs: Sequence[Mapping[str, int]]) -> Schedule:
    """Turn a counter-level run (``a{p}`` per cycle) into a per-warp schedule."""
    members: list[list[int]] = [[] for _ in sm.phases]  # warps per phase, lowest number first
    members[0] = list(range(sm.warps))
    issue: list[list[int]] = [[0] * len(sm.kernel.instrs) for _ in range(sm.warps)]
    for t, inp in enumerate(inputs, start=1):
        moved: list[list[int]] = [[] for _ in sm.phases]
        for p in range(sm.done):
            if sm.phases[p].is_wait:
                k = inp.get(f"a{p}", 0)
                moved[p], members[p] = members[p][:k], members[p][k:]
                for w in moved[p]:
                    issue[w][sm.phases[p].instr] = t
            else:
                moved[p], members[p] = members[p], []
        for p in range(sm.done):
            if moved[p]:
                members[p + 1] = sorted(members[p + 1] + moved[p])
    if len(members[sm.done]) != sm.warps:
        raise ValueError("counter run does not finish every warp")  # an engine bug, not user input
    return Schedule(sm.kernel, tuple(tuple(r) for r in issue))


def table(schedule: Schedule) -> list[list[str]]:
    """Rows (one per cycle) of cells (one per warp): ``L2`` while warp w executes instruction 2.

    Instructions are numbered from 1 in the transformed kernel; a pipelined
    instruction shows ``~`` while its warp waits for the result; ``.`` is a
    ready or waiting warp, and an empty cell a warp that is done.
    """
    rows = [["." for _ in range(schedule.warps)] for _ in range(schedule.makespan)]
    for w, row in enumerate(schedule.issue):
        for i, t in enumerate(row):
            ins = schedule.kernel.instrs[i]
            for k in range(ins.latency):
                rows[t - 1 + k][w] = f"{ins.unit}{i + 1}" if k == 0 or not ins.pipelined else "~"
        end = row[-1] + schedule.kernel.instrs[-1].latency - 1
        for t in range(end, schedule.makespan):
            rows[t][w] = ""
    return rows


def render(schedule: Schedule) -> str:
    """The cycle x warp table as text."""
    cells = table(schedule)
    width = max([len(c) for r in cells for c in r] + [len(f"w{schedule.warps}")])
    head = "cycle " + " ".join(f"w{w + 1}".rjust(width) for w in range(schedule.warps))
    lines = [head] + [f"{t + 1:5d} " + " ".join(c.rjust(width) for c in r) for t, r in enumerate(cells)]
    return "\n".join(lines)
