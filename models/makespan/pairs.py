"""The pair bound: the worst case of one-cycle kernels on two units of sigma 1, P + (W - 1)(P - nu).

After the sigma transform a kernel whose units all have sigma 1 or 1/n is a
word of one-cycle phases on units of sigma 1.  On at most two units, cut the
word into the fewest blocks that are one phase or two neighbouring phases on
different units: m blocks, nu = P - m of them pairs (a maximum matching of
neighbours on different units; taking pairs greedily from the left is
optimal on a path).  Then every run ends within P + (W - 1) m cycles:
``docs/makespan-interval.md`` gives the proof; ``sim/makespan/pairs.py``
computes the bound again for the checker.  The bound is the worst case
itself once W is not small (a convoy of W - 1 warps and one straggler).
"""
from __future__ import annotations

from warpcheck.models.makespan.kernel import MkKernel


def pairs(units: list[str]) -> int:
    """nu: the most disjoint pairs of neighbouring phases on different units (greedy from the left)."""
    count, p = 0, 0
    while p + 1 < len(units):
        if units[p] != units[p + 1]:
            count, p = count + 1, p + 2
        else:
            p += 1
    return count


def applies(kernel: MkKernel) -> bool:
    """One-cycle phases on at most two units, each of sigma 1 after the transform."""
    return kernel.single_cycle and len(kernel.units) <= 2 and all(kernel.sigma_of(u) == 1 for u in kernel.units)


def pair_bound(kernel: MkKernel, warps: int) -> int | None:
    """P + (W - 1)(P - nu), or None when the kernel is not one-cycle on at most two units of sigma 1."""
    if not applies(kernel):
        return None
    units = [ins.unit for ins in kernel.instrs]
    blocks = len(units) - pairs(units)
    return len(units) + (warps - 1) * blocks
