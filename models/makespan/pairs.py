"""The pair bound: every run of a one-cycle kernel ends within P + (W - 1)(P - nu).

After the sigma transform a one-cycle kernel is a word of P one-cycle phases
on units of integer sigma.  Two neighbouring phases *pair* when they are on
different units, or on one unit of sigma 2 or more (it can serve both in one
cycle).  nu is the most disjoint pairs (a maximum matching on a path: taking
pairs greedily from the left is optimal).  Then every work-conserving run
ends within P + (W - 1)(P - nu) cycles, for any number of units:
``docs/makespan-interval.md`` gives the proof, ``spec/makespan/pair_bound_check.py``
computes the bound again for the checker.  On two units of sigma 1 it is the
worst case itself once W is not small (a convoy of W - 1 warps and one
straggler); with more units or wider ones it is an upper bound only.
"""
from __future__ import annotations

from warpcheck.models.makespan.kernel import MkKernel


def pairs(units: list[str], sigma: dict[str, int]) -> int:
    """nu: the most disjoint pairs of neighbouring phases that pair (greedy from the left)."""
    count, p = 0, 0
    while p + 1 < len(units):
        if units[p] != units[p + 1] or sigma[units[p]] >= 2:
            count, p = count + 1, p + 2
        else:
            p += 1
    return count


def applies(kernel: MkKernel) -> bool:
    """Every phase one cycle after the transform (the proof counts issues per cycle)."""
    return kernel.single_cycle


def tight(kernel: MkKernel) -> bool:
    """Two units of sigma 1 at most, where the bound is the worst case from W = 3 on (measured, see the docs)."""
    return applies(kernel) and len(kernel.units) <= 2 and all(kernel.sigma_of(u) == 1 for u in kernel.units)


def pair_bound(kernel: MkKernel, warps: int) -> int | None:
    """P + (W - 1)(P - nu), or None when some phase takes more than one cycle."""
    if not applies(kernel):
        return None
    units = [ins.unit for ins in kernel.instrs]
    blocks = len(units) - pairs(units, dict(kernel.sigma))
    return len(units) + (warps - 1) * blocks
