"""The reference of the kernel analyses: every thread run alone, without the SIMT stack, the CFG or the cost model.

Each thread steps through the kernel's instruction list from pc 0 with the
instruction semantics of :mod:`warpcheck.spec.kernels.thread_ops`, following its
own guards: a branch whose guard holds jumps to its label, ``exit``/``ret``
end the thread.  In the SASS discipline a thread keeps its own list of open
``SSY`` targets: ``SSY t`` opens ``t``, a ``SYNC`` whose guard holds closes the
innermost one and resumes there (a thread alone never waits for others).

What the reference gives:

* :func:`thread_paths`: each thread's sequence of pcs.  A warp that runs SIMT
  (stack, reconvergence, exits) makes each of its threads execute exactly this
  sequence, whatever the interleaving of the paths, as long as the threads do
  not exchange values (no shuffles, votes or elections: refused here);
* :func:`path_cycles`: the time of a sequence of pcs (a thread's path, or the
  pcs of a warp run's steps), each instruction charged by the instruction
  reference (:mod:`warpcheck.spec.kernels.instructions`: its opcode as the PTX
  ISA reads it, not the class the front end gave it);
* :func:`warp_lower_bound`: the warp issues each instruction at least as often
  as the thread that executes it most, so its time is at least the sum of
  those counts times their costs: a WCET bound below it is unsound.

It imports nothing of the design (``tests/test_reference_independence.py``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.spec.kernels.instructions import DEFAULT_CYCLES, cycles
from warpcheck.spec.kernels.thread_ops import Machine, ThreadState, WarpInputs

# Instructions whose result depends on other threads: a thread alone cannot run them.
_WARP_WIDE = ("shfl", "vote", "elect", "activemask", "match", "redux", "bar.red")


@dataclass
class ThreadPath:
    """One thread's run alone: the pcs it executed and the state spaces each of them touched."""

    pcs: list[int] = field(default_factory=list)
    touched: list[tuple[str, ...]] = field(default_factory=list)


class _Observed(Machine):
    """The instruction semantics, recording which state spaces each instruction reads or writes."""

    touched: list[str]

    def load(self, addr, dtype, space, t):
        self.touched.append(space or "generic")
        return super().load(addr, dtype, space, t)

    def store(self, addr, value, space, t):
        self.touched.append(space or "generic")
        super().store(addr, value, space, t)


def thread_paths(kernel: Kernel, inputs: WarpInputs, threads: int, warp: int = 0,
                 max_steps: int = 200000) -> list[ThreadPath]:
    """Every thread of warp ``warp`` run alone (``%tid.x = warp * threads + lane``)."""
    for ins in kernel.instructions:
        if ins.opcode.lower().startswith(_WARP_WIDE):
            raise ConfigError(f"{kernel.where(ins)}: {ins.opcode} exchanges values between threads; the one-thread "
                              "reference cannot run it")
    return [_run_alone(kernel, inputs, lane, threads, warp, max_steps) for lane in range(threads)]


def _run_alone(kernel: Kernel, inputs: WarpInputs, lane: int, threads: int, warp: int, max_steps: int) -> ThreadPath:
    machine = _Observed(kernel.params, inputs, {}, dict(kernel.symbols))
    t = ThreadState(lane, inputs, warp, threads)
    machine.active = 1 << lane
    path, pc, ssy = ThreadPath(), 0, []
    while 0 <= pc < len(kernel.instructions):
        if len(path.pcs) >= max_steps:
            raise ConfigError(f"thread {lane} of kernel {kernel.name!r} ran {max_steps} instructions; raise the limit")
        ins = kernel.instructions[pc]
        path.pcs.append(pc)
        machine.touched = []
        holds = machine.guard(t, ins.guard)
        base = ins.opcode.split(".")[0].lower()
        nxt = pc + 1
        if base == "ssy":
            ssy.append(kernel.labels[ins.target])
        elif not holds:
            pass
        elif base == "bra":
            nxt = kernel.labels[ins.target]
        elif base in ("exit", "ret"):
            nxt = -1
        elif base == "sync":
            if not ssy:
                raise ConfigError(f"thread {lane}: SYNC at pc {pc} without an open SSY")
            nxt = ssy.pop()
        else:
            machine.execute(t, ins)
        path.touched.append(tuple(machine.touched))
        pc = nxt
    return path


def path_cycles(kernel: Kernel, pcs: Iterable[int], table: Mapping[str, int] = DEFAULT_CYCLES) -> int:
    """The cycles of executing ``pcs`` in turn, each instruction charged by the instruction reference.

    The charge comes from the opcode as written (:mod:`warpcheck.spec.kernels.instructions`),
    never from the class, unit or space the front end gave the instruction: a thread's
    path gives its time alone, the pcs of a warp run's steps the run's time.
    ``table``: cycles per latency class (the cost model's defaults when not given).
    """
    cost: dict[int, int] = {}
    total = 0
    for pc in pcs:
        if pc not in cost:
            cost[pc] = _cycles(kernel, pc, table)
        total += cost[pc]
    return total


def warp_lower_bound(kernel: Kernel, paths: list[ThreadPath], table: Mapping[str, int] = DEFAULT_CYCLES) -> int:
    """The fewest cycles a warp whose threads take ``paths`` can run, charged by the instruction reference.

    Each issue of an instruction serves each thread at most once, so the warp issues the
    instruction at ``pc`` at least as often as the thread that executes it most: the sum
    over pcs of that count times the pc's cost.  It holds for any stack and any
    reconvergence, and it exceeds every single thread's time when threads take different
    sides of a branch, which a branch wrongly called uniform leaves out of the bound.
    """
    most: dict[int, int] = {}
    for path in paths:
        for pc, n in Counter(path.pcs).items():
            most[pc] = max(most.get(pc, 0), n)
    return sum(_cycles(kernel, pc, table) * n for pc, n in most.items())


def _cycles(kernel: Kernel, pc: int, table: Mapping[str, int]) -> int:
    ins = kernel.instructions[pc]
    try:
        return cycles(ins.opcode, table)
    except ValueError:
        raise ConfigError(f"{kernel.where(ins)}: {ins.opcode} is not in the instruction reference "
                          "(spec/kernels/instructions.py); add it there") from None


def immediate_post_dominators(kernel: Kernel) -> dict[int, int | None]:
    """pc -> the pc every path from it to the kernel's end passes first (None: only the end), for PTX.

    Computed on the instruction list itself (a pc's successors: the next pc
    unless it is an unconditional branch or exit, and a branch's label), by the
    textbook fixpoint over sets of post-dominators.
    """
    n = len(kernel.instructions)
    succ: list[list[int]] = []
    for pc, ins in enumerate(kernel.instructions):
        base = ins.opcode.split(".")[0].lower()
        out = [kernel.labels[ins.target]] if base == "bra" else []
        if not (base in ("bra", "exit", "ret") and ins.guard is None) and pc + 1 < n:
            out.append(pc + 1)
        succ.append(out)
    every = frozenset(range(n))
    pdom = [every] * n
    changed = True
    while changed:
        changed = False
        for pc in reversed(range(n)):
            after = [pdom[s] for s in succ[pc]]
            ends = not succ[pc] or any(not s_ok for s_ok in after) or _may_end(kernel, pc)
            new = frozenset({pc}) | (frozenset() if ends else frozenset.intersection(*after))
            if new != pdom[pc]:
                pdom[pc], changed = new, True
    # the immediate one: the strict post-dominator that every other strict one post-dominates
    return {pc: next((d for d in pdom[pc] - {pc} if pdom[d] == pdom[pc] - {pc}), None) for pc in range(n)}


def _may_end(kernel: Kernel, pc: int) -> bool:
    """Whether a thread may leave the kernel at ``pc`` (an exit, or the last instruction)."""
    base = kernel.instructions[pc].opcode.split(".")[0].lower()
    return base in ("exit", "ret") or pc == len(kernel.instructions) - 1
