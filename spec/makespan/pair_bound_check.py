"""The checker's pair bound: T <= P + (W - 1) m on one-cycle kernels, any units and integer sigmas.

Written again from the statement in ``docs/makespan-interval.md``, on the
kernel as ``reference.py`` transforms it (nothing shared with
``models/makespan/pairs.py``): m is the least number of blocks when the
phases are cut into blocks of one phase or of two neighbouring phases that
may share a cycle (on different units, or on one unit of sigma at least 2),
found here by a shortest cut over the phases (the design takes pairs
greedily from the left).
"""
from __future__ import annotations

from warpcheck.spec.makespan.reference import RefKernel


class PairsRefused(ValueError):
    """The pair bound does not apply to this kernel."""


def least_blocks(units: list[str], sigma: dict[str, int]) -> int:
    """The fewest blocks (one phase, or two neighbours that may issue in one cycle) that cut ``units``."""
    best = [0] * (len(units) + 1)  # best[i]: the fewest blocks for the first i phases
    for i in range(1, len(units) + 1):
        best[i] = best[i - 1] + 1
        if i >= 2 and (units[i - 2] != units[i - 1] or sigma[units[i - 1]] > 1):
            best[i] = min(best[i], best[i - 2] + 1)
    return best[-1]


def checked_pairs(kernel: RefKernel, warps: int) -> int:
    """The bound for ``warps`` warps; PairsRefused when the kernel is outside the bound's statement."""
    slow = [i for i in kernel.instrs if i.latency != 1]
    if slow:
        raise PairsRefused(f"the pair bound holds for one-cycle kernels; {slow[0].unit}{slow[0].latency} takes "
                           f"{slow[0].latency} cycles")
    units = [i.unit for i in kernel.instrs]
    return len(units) + (warps - 1) * least_blocks(units, dict(kernel.sigma))
