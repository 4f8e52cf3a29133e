"""The paper's warp-instruction-segment WCET estimator (Huangfu and Zhang, Sec. IV, Eq. 1-4).

A warp's dynamic instruction stream is cut into *segments*: a segment ends
just before an instruction that reads a register written inside it, so the
instructions of a segment can issue back to back and the next segment waits
for the segment's results.  For segment j of warp i, LI_ij is its issue
latency (one cycle per instruction) and LE_ij its execution latency (the
longest latency of its instructions).  A global memory instruction takes

    Eq. 3:  L = COAL + (L_base + COAL * N_conflict)
    Eq. 4:  L = COAL + L_hit + MR * (L_base + COAL * N_conflict)

with COAL the most lines one dynamic instance of that instruction touched,
N_conflict the SMs that send to memory at once, MR the L1 miss rate.  Eq. 4
as printed has no L1 hit time; we add ``L_hit`` so that a hit is not free.
Warps take turns segment by segment (Eq. 1-2):

    T_00 = 0;  T_i0 = T_(i-1)0 + LI_(i-1)0
    T_ij = max(T_prev + LI_prev, T_i(j-1) + LI_i(j-1) + LE_i(j-1))

where "prev" is the segment issued just before: segment j of warp i-1, or
for warp 0 segment j-1 of the last warp.  The estimate is the latest
T_ij + LI_ij + LE_ij.  Barriers, the LD/ST unit's one request per cycle and
the reordering unit's waits are not in the equations.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from warpcheck.models.kernels.kernel import Instruction
from warpcheck.models.kernels.ptx import operand_registers

Step = tuple[int, Instruction, int]  # pc, the issued instruction, the lines it touched (0: not a global access)


@dataclass(frozen=True)
class MemoryModel:
    """The parameters of Eq. 3-4."""

    base: int = 200
    hit: int = 20
    conflict_sms: int = 1
    miss_rate: float | None = None  # None: Eq. 3 (every access goes to memory); else Eq. 4

    def latency(self, coal: int) -> float:
        """The latency of a global access whose instruction touches at most ``coal`` lines."""
        memory = self.base + coal * self.conflict_sms
        if self.miss_rate is None:
            return coal + memory
        return coal + self.hit + self.miss_rate * memory


def segments(stream: Sequence[Step]) -> list[list[Step]]:
    """Cut a warp's stream where an instruction reads a register written in the current segment."""
    out: list[list[Step]] = []
    written: set[str] = set()
    for step in stream:
        ins = step[1]
        reads = {r for op in list(ins.srcs) + [(ins.guard or "").lstrip("!")] for r in operand_registers(op)}
        if not out or reads & written:
            out.append([])
            written = set()
        out[-1].append(step)
        written.update(ins.dst)
    return out


def segment_latencies(stream: Sequence[Step], latency: Callable[[Instruction], int], coal: dict[int, int],
                      mem: MemoryModel) -> list[tuple[int, float]]:
    """(LI, LE) of each segment; ``coal`` gives COAL (most lines of one instance) per static pc."""
    out = []
    for seg in segments(stream):
        le = max(mem.latency(coal[pc]) if lines else latency(ins) for pc, ins, lines in seg)
        out.append((len(seg), float(le)))
    return out


def estimate(warps: Sequence[Sequence[tuple[int, float]]]) -> float:
    """The latest segment end of the turn-taking recurrence (Eq. 1-2) over every warp's (LI, LE)."""
    n, rounds = len(warps), max((len(w) for w in warps), default=0)
    start: list[list[float]] = [[0.0] * len(w) for w in warps]
    prev_end = 0.0  # T + LI of the segment issued just before
    finish = 0.0
    for j in range(rounds):
        for i in range(n):
            if j >= len(warps[i]):
                continue
            own = 0.0 if j == 0 else start[i][j - 1] + warps[i][j - 1][0] + warps[i][j - 1][1]
            start[i][j] = max(prev_end, own)
            prev_end = start[i][j] + warps[i][j][0]
            finish = max(finish, prev_end + warps[i][j][1])
    return finish
