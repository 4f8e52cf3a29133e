"""Exhaustive exploration of a small warp's activation stack, the oracle of the abstract stack.

Every guarded control instruction may hold for any subset of the running
threads; exploring all of them from the full warp gives every concrete stack
evolution.  Mapped to abstract stacks, these transitions must be exactly the
edges of the warp-level CFG built without value agreement (for a warp of the
same width): soundness (no concrete transition missing) and precision (no
abstract edge that no concrete warp can take; this one only while no thread
exits early, since the abstract stack forgets how many threads exited).  Register values are not
modelled, so this is for loop-free kernels, whose exploration is finite.
"""
from __future__ import annotations

from warpcheck.models.kernels import simt_stack as st
from warpcheck.models.kernels.abstract_stack import from_concrete
from warpcheck.models.kernels.cfg import KernelCFG
from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Kernel

END = "END"


def abstract_transitions(kernel: Kernel, width: int, max_states: int = 100000) -> set[tuple]:
    """Every (abstract stack, next abstract stack or END) a warp of ``width`` threads can take."""
    cfg = KernelCFG(kernel)
    start = st.initial((1 << width) - 1)
    seen, work, edges = {start}, [start], set()
    while work:
        stack = work.pop()
        for nxt in _successors(kernel, cfg, stack):
            edges.add((from_concrete(stack), from_concrete(nxt) if nxt else END))
            if nxt and nxt not in seen:
                if len(seen) >= max_states:
                    raise ConfigError(f"exhaustive exploration of {kernel.name!r} exceeds {max_states} stacks")
                seen.add(nxt)
                work.append(nxt)
    return edges


def _successors(kernel: Kernel, cfg: KernelCFG, stack: st.Stack) -> list[st.Stack]:
    block = cfg.blocks[cfg.block_of_pc(stack[-1].pc)]
    for pc in range(block.start, block.end):
        if kernel.instructions[pc].base == "ssy":
            stack = st.ssy(stack, kernel.target_pc(pc), pc + 1)
    pc = block.end - 1
    ins = kernel.instructions[pc]
    mask = stack[-1].mask
    if ins.base not in ("bra", "exit", "ret", "sync"):
        return [st.goto(stack, block.end, kernel.syntax)]
    subsets = [mask] if ins.guard is None else _subsets(mask)
    out = []
    for holds in subsets:
        if ins.base == "bra":
            ipdom = cfg.ipdom_pc[block.index] if kernel.syntax == "ptx" else None
            out.append(st.branch(stack, holds, kernel.target_pc(pc), pc + 1, kernel.syntax, ipdom))
        elif ins.base in ("exit", "ret"):
            out.append(st.exit_threads(stack, holds, pc + 1, kernel.syntax))
        else:
            out.append(st.sync(stack, holds, pc + 1))
    return out


def _subsets(mask: int) -> list[int]:
    """Every subset of the bits of ``mask``."""
    out, sub = [], mask
    while True:
        out.append(sub)
        if sub == 0:
            return out
        sub = (sub - 1) & mask
