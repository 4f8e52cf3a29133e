"""An upper bound for any kernel length, by counting how often the units take turns (the alternation bound).

For a one-cycle kernel (every instruction one cycle, after the sigma
transform) with P phases and W warps, call a cycle *alone* when one unit
issues and *shared* when two or more do (some unit issues in every cycle
before the end).  With A alone and M shared cycles, T = A + M, and:

- every cycle in which unit u issues uses at least one of its W n_u issues,
  so A + 2 M <= W P;
- an alone cycle whose issues all stay on the same unit (or finish) issues
  from a *non-exit* phase (the last phase, or one followed by a phase of the
  same unit): at most W X of them, X the non-exit phases; an alone cycle of
  u that moves a warp to another unit v, while more than sigma_max warps are
  unfinished, is followed by a shared cycle (u still has a ready warp it
  could not issue, v has the one that moved), a different one for each; and
  once at most sigma_max warps are left, at most min(W, sigma_max) P cycles
  remain.  So A - M <= W X + min(W, sigma_max) P.

Two thirds of the first plus one third of the second: T <= (2 W P + W X +
min(W, sigma_max) P) / 3.  ``docs/makespan-interval.md`` gives the proof in
full; ``spec/makespan/alternation_check.py`` computes the same bound again, from its
own transform, for the checker.
"""
from __future__ import annotations

from warpcheck.models.makespan.kernel import MkKernel


def non_exit_phases(kernel: MkKernel) -> int:
    """The phases after which a warp stays on the same unit, or finishes."""
    units = [ins.unit for ins in kernel.instrs]
    return sum(1 for p, u in enumerate(units) if p == len(units) - 1 or units[p + 1] == u)


def alternation_bound(kernel: MkKernel, warps: int) -> int | None:
    """The alternation bound on the makespan of ``warps`` warps, or None when the kernel has latencies."""
    if not kernel.single_cycle:
        return None
    P, X = len(kernel.instrs), non_exit_phases(kernel)
    tail = min(warps, max(s for _, s in kernel.sigma)) * P
    return (2 * warps * P + warps * X + tail) // 3


def critical_warp_bound(kernel: MkKernel, warps: int) -> int:
    """The bound of the warp that ends last: its own phases, plus the cycles it waits on a unit that others fill.

    While that warp waits to issue on unit u, every slot of u is taken by
    other warps (work conservation), each of which uses h_u slot-cycles of u
    (1 per pipelined instruction, its latency per other instruction): at most
    floor((W - 1) h_u / sigma_u) such cycles per unit.  Any kernel, latencies
    included; beside Eq. 5-7 it gains on pipelined instructions and on
    sigma > 1.
    """
    phases = sum(ins.latency for ins in kernel.instrs)
    wait = 0
    for u in kernel.units:
        slot_cycles = sum(1 if ins.pipelined else ins.latency for ins in kernel.instrs if ins.unit == u)
        wait += (warps - 1) * slot_cycles // kernel.sigma_of(u)
    return phases + wait
