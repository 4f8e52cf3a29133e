"""The closed-form upper bounds of the makespan, in one list: what the interval takes and the ILP's horizon.

Each costs nothing to compute and is proved in ``docs/makespan-interval.md``:
Eq. 5-7 where every sigma is 1 (``kernel.py``), the critical-warp bound
(any kernel), and on one-cycle kernels the alternation and pair bounds.
``spec/makespan/interval_check.py`` computes each again for the checker.
"""
from __future__ import annotations

from warpcheck.models.makespan.alternation import alternation_bound, critical_warp_bound
from warpcheck.models.makespan.kernel import MkKernel, pessimistic_bound
from warpcheck.models.makespan.pairs import pair_bound


def closed_bounds(kernel: MkKernel, warps: int) -> list[tuple[int, str, str]]:
    """(bound, its name, its certificate method) for every closed form that holds for ``kernel``."""
    found = [(pessimistic_bound(kernel, warps), "Eq. 5-7", "pessimistic"),
             (critical_warp_bound(kernel, warps), "critical-warp", "critical-warp"),
             (alternation_bound(kernel, warps), "alternation", "alternation"),
             (pair_bound(kernel, warps), "pairs", "pairs")]
    return [(b, name, method) for b, name, method in found if b is not None]


def time_horizon(kernel: MkKernel, warps: int) -> int:
    """The cycles a time-indexed search (the ILP) must span: the least closed bound, so that no run is cut off."""
    return min(b for b, _, _ in closed_bounds(kernel, warps))
