"""Concrete SIMT execution of one warp: per-thread registers and the activation stack.

The warp runs block by block: the running stack entry names the block and
the active threads; each instruction runs for the active threads whose guard
holds, SSY acts on the stack, and the block's last instruction (branch,
SYNC, EXIT) updates the stack.  The run records the executed (block, active
mask) sequence, the stack after each block, and its cycle count: the sum of
the block costs under the same cost model as IPET (one warp in isolation,
each instruction costs its latency).  This is the oracle of the soundness
tests: its path must be a path of the warp-level CFG, its cycles at most the
IPET bound.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from warpcheck.models.kernels import simt_stack as st
from warpcheck.models.kernels.cfg import CostModel, KernelCFG
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.opcodes import spec_of
from warpcheck.spec.kernels.thread_ops import Machine, ThreadState, WarpInputs


@dataclass
class SimtRun:
    """The outcome of one warp run."""

    steps: list[tuple[int, int]] = field(default_factory=list)  # (block index, active mask)
    stacks: list[st.Stack] = field(default_factory=list)        # stack before each step, then the final one
    cycles: int = 0
    guards: list[tuple[int, int, int]] = field(default_factory=list)  # (pc, active mask, guard-true mask)
    header_counts: dict = field(default_factory=dict)  # (thread, header block) -> max executions per loop entry
    accesses: list[MemoryAccess] = field(default_factory=list)  # every memory instruction the warp ran


@dataclass(frozen=True)
class MemoryAccess:
    """One memory instruction run by the warp: its pc, state space, kind and per-lane addresses."""

    pc: int
    space: str
    kind: str  # "load", "store" or "atomic"
    addresses: tuple[tuple[int, int], ...]  # (lane, byte address) for the lanes whose guard held


def run_warp(kernel: Kernel, inputs: WarpInputs, threads: int = 32, cost: CostModel | None = None,
             max_steps: int = 200000, warp: int = 0) -> SimtRun:
    """Run warp ``warp`` of its block (``threads`` lanes, ``%tid.x = warp * threads + lane``) through ``kernel``."""
    if not 1 <= threads <= 64:
        raise OptionError("threads", threads, "not allowed; a warp has 1 to 64 threads")
    _check_warp(warp, threads, inputs.ntid[0])
    cost = cost or CostModel()
    cfg = KernelCFG(kernel)
    machine = Machine(kernel.params, inputs, {}, dict(kernel.symbols), where=kernel.where)
    state = [ThreadState(lane, inputs, warp, threads) for lane in range(threads)]
    stack = st.initial((1 << threads) - 1)
    run = SimtRun()
    loops = _LoopCounter(cfg)
    while stack:
        if len(run.steps) >= max_steps:
            raise ConfigError(f"kernel {kernel.name!r} did not finish within {max_steps} blocks; "
                              f"check the inputs (a loop bound may be huge) or raise max_steps")
        run.stacks.append(stack)
        block = cfg.blocks[cfg.block_of_pc(stack[-1].pc)]
        mask = stack[-1].mask
        run.steps.append((block.index, mask))
        run.cycles += cfg.block_cost(block, cost)
        loops.visit(block.index, mask)
        stack = _run_block(kernel, cfg, machine, state, stack, block, run)
    run.stacks.append(stack)
    run.header_counts = loops.best
    return run


def _check_warp(warp: int, threads: int, ntid_x: int) -> None:
    """Refuse a warp index whose threads are not in the block (``%tid.x`` would reach ``ntid.x`` or more)."""
    if warp < 0 or warp * threads >= ntid_x:
        last = max(0, (ntid_x - 1) // threads)
        raise OptionError("warp", warp, f"not a warp of the block: ntid.x = {ntid_x} holds warps 0 to {last} "
                                        f"of {threads} threads; raise ntid in the inputs for more")


def _run_block(kernel: Kernel, cfg: KernelCFG, machine: Machine, state, stack: st.Stack, block, run) -> st.Stack:
    mask = stack[-1].mask
    for pc in range(block.start, block.end):
        ins = kernel.instructions[pc]
        if ins.base == "ssy":
            stack = st.ssy(stack, kernel.target_pc(pc), pc + 1)
            continue
        holds = 0
        for t in state:
            if mask >> t.lane & 1 and machine.guard(t, ins.guard):
                holds |= 1 << t.lane
        if ins.base in ("bra", "exit", "ret", "sync"):
            if ins.base == "bra" and ins.guard is not None:
                run.guards.append((pc, mask, holds))
            return _terminate(kernel, cfg, stack, block, ins, pc, holds)
        if ins.cls == "mem" and ins.space not in ("param",) and ins.srcs:
            run.accesses.append(_access(machine, state, ins, pc, holds))
        machine.active = holds
        if ins.base in ("shfl", "vote"):
            machine.execute_warp([t for t in state if holds >> t.lane & 1], ins)
            continue
        for t in state:
            if holds >> t.lane & 1:
                machine.execute(t, ins)
    return st.goto(stack, block.end, kernel.syntax)


def _access(machine: Machine, state, ins, pc: int, holds: int) -> MemoryAccess:
    """The per-lane addresses of a memory instruction, before it runs."""
    operand = next((o for o in ins.srcs if o.startswith("[")), ins.srcs[0])
    access = getattr(spec_of(ins.opcode), "access", "")
    kind = {"store": "store", "atomic": "atomic"}.get(access, "load")
    addresses = tuple((t.lane, machine.address(t, operand)) for t in state if holds >> t.lane & 1)
    return MemoryAccess(pc, ins.space or "generic", kind, addresses)


def _terminate(kernel: Kernel, cfg: KernelCFG, stack, block, ins, pc: int, holds: int) -> st.Stack:
    syntax = kernel.syntax
    if ins.base == "bra":
        ipdom = cfg.ipdom_pc[block.index] if syntax == "ptx" else None
        return st.branch(stack, holds, kernel.target_pc(pc), pc + 1, syntax, ipdom)
    if ins.base in ("exit", "ret"):
        return st.exit_threads(stack, holds, pc + 1, syntax)
    return st.sync(stack, holds, pc + 1)


class _LoopCounter:
    """Per thread and loop header: the most header executions within one stay in the loop."""

    def __init__(self, cfg: KernelCFG) -> None:
        self.loops = cfg.loops
        self.where: dict[int, int] = {}        # thread -> block it last executed
        self.count: dict[tuple, int] = {}      # (thread, header) -> executions in the current stay
        self.best: dict[tuple, int] = {}

    def visit(self, block: int, mask: int) -> None:
        for t in range(mask.bit_length()):
            if not mask >> t & 1:
                continue
            prev = self.where.get(t)
            for header, body in self.loops.items():
                if block not in body:
                    continue
                if prev is None or prev not in body:
                    self.count[(t, header)] = 0
                if block == header:
                    self.count[(t, header)] += 1
                    key = (t, header)
                    self.best[key] = max(self.best.get(key, 0), self.count[key])
            self.where[t] = block
