"""The checker's alternation bound: T <= (2 W P + W X + min(W, sigma_max) P) / 3 on one-cycle kernels.

Written again from the argument of ``docs/makespan-interval.md``, on the
kernel as ``reference.py`` transforms it (no code shared with
``models/makespan/alternation.py``): P phases of a warp, X of them *non-exit*
(the next phase is on the same unit, or there is none), sigma_max the
largest sigma.  A cycle where one unit issues is alone, else shared; alone
cycles that keep their warps on their unit come from non-exit phases (W X
issues in all), the others are each followed by their own shared cycle while
more than sigma_max warps are unfinished, and every issuing unit spends one
of the W P issues per cycle.
"""
from __future__ import annotations

from warpcheck.spec.makespan.reference import RefKernel


class AlternationRefused(ValueError):
    """The alternation bound does not apply to this kernel."""


def checked_alternation(kernel: RefKernel, warps: int) -> int:
    """The bound for ``warps`` warps; AlternationRefused when an instruction takes more than one cycle."""
    slow = [f"{i.unit}{i.latency}" for i in kernel.instrs if i.latency != 1]
    if slow:
        raise AlternationRefused(f"the alternation bound holds for one-cycle kernels; {slow[0]} takes "
                                 f"{slow[0][1:]} cycles")
    unit_of = [i.unit for i in kernel.instrs]
    phases = len(unit_of)
    stay = sum(1 for p in range(phases) if p + 1 == phases or unit_of[p + 1] == unit_of[p])
    largest = max(s for _, s in kernel.sigma)
    total = 2 * warps * phases + warps * stay + min(warps, largest) * phases
    return total // 3


def checked_critical_warp(kernel: RefKernel, warps: int) -> int:
    """The last warp's bound: its own cycles plus, per unit, the cycles the other warps can fill every slot.

    Written again from the argument (``docs/makespan-interval.md``): a warp
    waiting on unit u sees its sigma_u slots taken; the other W - 1 warps
    hold u for (W - 1) times their slot-cycles on u in all.
    """
    own = sum(i.latency for i in kernel.instrs)
    filled = 0
    for unit, sigma in kernel.sigma:
        held = sum(i.latency if not i.pipelined else 1 for i in kernel.instrs if i.unit == unit)
        filled += ((warps - 1) * held) // sigma
    return own + filled
