"""The warp-level CFG: how a whole warp moves through a kernel, divergence included.

A node is a basic block paired with the abstract activation stack the warp
has when it enters the block (the running entry's ``pc`` is the block's
first pc).  The construction is a worklist over such states: run the block's
SSYs and value-agreement transfer, then take every possible outcome of its
last instruction (uniform taken, uniform not taken, divergent) and
canonicalise the resulting stacks.  With value agreement, a branch whose
guard agrees across the running group cannot diverge, which prunes
infeasible divergence.  Agreement facts are joined per node (a register
that may differ on one incoming path may differ), so nodes are revisited
until the facts are stable; edges only ever grow, so this terminates.
An edge is marked ``shrinks`` when the group running after it is always a
subset of the group that ran before it (IPET uses this for loop bounds).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from warpcheck.models.kernels import simt_stack as st
from warpcheck.models.kernels.abstract_stack import atom_count, canonical, describe, split_top
from warpcheck.models.kernels.cfg import KernelCFG
from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.value_agreement import RegisterBits, per_lane_loads

END = "END"


class StateLimit(ConfigError):
    """The warp-level CFG grows past its state limit (bad input: raise the limit or simplify the kernel)."""


@dataclass
class WarpCFG:
    """The warp-level CFG of one kernel: node ids -> (block, abstract stack)."""

    kernel: Kernel
    cfg: KernelCFG
    graph: nx.DiGraph
    entry: int
    value_agreement: bool
    branches: dict[int, dict] = field(default_factory=dict)  # pc of a guarded bra -> {"reached", "uniform"}
    widened: frozenset[int] = frozenset()  # nodes whose agreement facts were widened

    def block(self, node: int) -> int:
        """The block index of a warp-level node."""
        return self.graph.nodes[node]["block"]

    def label(self, node: int) -> str:
        """The label of a node's block."""
        return self.cfg.blocks[self.block(node)].label

    def describe(self, node: int) -> str:
        """The node's block label and abstract stack."""
        return f"{self.label(node)} [{describe(self.graph.nodes[node]['stack'])}]"

    def node_of(self, stack: st.Stack) -> int | None:
        """The node id of a canonical abstract stack, if the CFG has it."""
        return self.graph.graph["index"].get(stack)


WIDEN_AFTER = 64  # joins that grow a node's facts before they are widened to "every register may differ"


def build_warp_cfg(kernel: Kernel, value_agreement: bool = True, width: int = 32,
                   max_states: int = 20000, widen_after: int = WIDEN_AFTER) -> WarpCFG:
    """Build the warp-level CFG of ``kernel`` for a warp of ``width`` threads.

    A node whose agreement facts grew ``widen_after`` times is widened: every
    register may differ in every group there (sound; what is lost is the
    agreement of the registers not rewritten after that node).
    """
    return _Builder(kernel, value_agreement, width, max_states, widen_after).run()


class _Builder:
    def __init__(self, kernel: Kernel, va: bool, width: int, max_states: int, widen_after: int = WIDEN_AFTER) -> None:
        self.kernel, self.va, self.width, self.max_states = kernel, va, width, max_states
        self.widen_after = widen_after
        self.growths: dict[int, int] = {}
        self.queued: set[int] = set()
        self.widened: set[int] = set()
        self.cfg = KernelCFG(kernel)
        self.graph = nx.DiGraph(index={})
        self.facts: dict[int, dict] = {}
        self.branches: dict[int, dict] = {}
        self.work: list[int] = []   # nodes whose facts grew since they were processed
        self.fresh: list[int] = []  # nodes never processed: first, so the state count grows early
        self.bits = RegisterBits(kernel, per_lane_loads(kernel) if va else frozenset())

    def run(self) -> WarpCFG:
        stack, facts = canonical(st.initial(1), {1: 0})
        entry = self._visit(stack, facts)
        self.graph.add_node(END, block=None, stack=())
        while self.fresh or self.work:
            node = self.fresh.pop() if self.fresh else self.work.pop()
            self.queued.discard(node)
            self._process(node)
        for pc, ins in enumerate(self.kernel.instructions):
            if ins.base == "bra" and ins.guard is not None:
                self.branches.setdefault(pc, {"reached": False, "uniform": True})
        return WarpCFG(self.kernel, self.cfg, self.graph, entry, self.va, dict(sorted(self.branches.items())),
                       frozenset(self.widened))

    def _visit(self, stack: st.Stack, facts: dict) -> int:
        """The node of ``stack``, created or with its facts joined; queued if they grew."""
        index = self.graph.graph["index"]
        if stack not in index:
            if len(index) >= self.max_states:
                raise StateLimit(f"the warp-level CFG of kernel {self.kernel.name!r} exceeds {self.max_states} "
                                  f"states; raise max_states or simplify the kernel's divergence")
            node = len(index)
            index[stack] = node
            self.graph.add_node(node, block=self.cfg.block_of_pc(stack[-1].pc), stack=stack)
            self.facts[node] = dict(facts)
            self.fresh.append(node)
            self.queued.add(node)
            return node
        node = index[stack]
        old = self.facts[node]
        joined = {k: old.get(k, 0) | facts.get(k, 0) for k in set(old) | set(facts)}
        if joined != old:
            self.growths[node] = self.growths.get(node, 0) + 1
            if self.growths[node] >= self.widen_after:
                everything = (1 << len(self.bits.index)) - 1
                joined = {k: everything for k in joined}
                self.widened.add(node)
            self.facts[node] = joined
            if node not in self.queued:
                self.work.append(node)
                self.queued.add(node)
        return node

    def _process(self, node: int) -> None:
        stack: st.Stack = self.graph.nodes[node]["stack"]
        facts = dict(self.facts[node])
        block = self.cfg.blocks[self.graph.nodes[node]["block"]]
        group = stack[-1].mask
        for pc in range(block.start, block.end):
            ins = self.kernel.instructions[pc]
            if ins.base == "ssy":
                stack = st.ssy(stack, self.kernel.target_pc(pc), pc + 1)
            elif self.va:
                facts = self.bits.transfer(pc, facts, group)
        for kind, new_stack, new_facts, old_top in self._outcomes(stack, facts, block):
            if atom_count(new_stack) > self.width:
                continue
            shrinks = bool(new_stack) and not new_stack[-1].mask & ~old_top
            new_stack, new_facts = canonical(new_stack, new_facts)
            target = END if not new_stack else self._visit(new_stack, new_facts)
            self.graph.add_edge(node, target)
            data = self.graph.edges[node, target]
            data.setdefault("kinds", set()).add(kind)
            data["shrinks"] = data.get("shrinks", True) and shrinks

    def _outcomes(self, stack: st.Stack, facts: dict, block):
        """(kind, stack, facts, running mask) for every possible effect of the block's last instruction.

        The running mask is the group that ran the block, in the numbering of the new stack.
        """
        pc = block.end - 1
        ins = self.kernel.instructions[pc]
        nxt, syntax, group = pc + 1, self.kernel.syntax, stack[-1].mask
        if ins.base not in ("bra", "exit", "ret", "sync"):
            return [("fallthrough", st.goto(stack, nxt, syntax), facts, group)]
        may_diverge = ins.guard is not None and (not self.va or self.bits.guard_varies(pc, facts.get(group, 0)))
        if ins.base == "bra" and ins.guard is not None:
            seen = self.branches.setdefault(pc, {"reached": True, "uniform": True})
            seen["reached"] = True
            seen["uniform"] = seen["uniform"] and not may_diverge
        whole = self._apply(block, stack, group)
        if ins.guard is None:
            return [(ins.base, whole, self._drop(ins, facts, group), group)]
        out = [(f"{ins.base}-all", whole, self._drop(ins, facts, group), group),
               (f"{ins.base}-none", self._apply(block, stack, 0), facts, group)]
        if may_diverge:
            split, split_facts, first, _ = split_top(stack, facts, 0)
            out.append((f"{ins.base}-diverge", self._apply(block, split, first),
                        self._drop(ins, split_facts, first), split[-1].mask))
        return out

    def _apply(self, block, stack: st.Stack, threads: int) -> st.Stack:
        """The stack after the block's last instruction acts for ``threads`` (its guard holds for them)."""
        syntax, pc = self.kernel.syntax, block.end - 1
        ins = self.kernel.instructions[pc]
        if ins.base == "bra":
            ipdom = self.cfg.ipdom_pc[block.index] if syntax == "ptx" else None
            return st.branch(stack, threads, self.kernel.target_pc(pc), pc + 1, syntax, ipdom)
        if ins.base in ("exit", "ret"):
            return st.exit_threads(stack, threads, pc + 1, syntax)
        return st.sync(stack, threads, pc + 1)

    @staticmethod
    def _drop(ins, facts: dict, threads: int) -> dict:
        """Facts with exiting threads removed from every group."""
        if ins.base not in ("exit", "ret"):
            return facts
        out: dict = {}
        for k, v in facts.items():
            out[k & ~threads] = out.get(k & ~threads, 0) | v
        return out
