"""Basic blocks, the thread-level CFG, post-dominators, loops and block costs.

A block ends at a control instruction (``bra``, ``ret``/``exit``, SASS
``SYNC``, or any guarded ``exit``/``SYNC``) or just before a label.  SASS
``SSY`` does not end a block: it only pushes on the activation stack.
The thread-level CFG is a networkx DiGraph over block indices; the virtual
node ``EXIT`` follows every block that leaves the kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

import networkx as nx

from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.latencies import DEFAULT_LATENCIES, DEFAULT_SPACE_LATENCIES

EXIT = "EXIT"
EXIT_PC = -1


CONTROL = ("bra", "ret", "exit", "sync")


def is_terminator(ins: Instruction) -> bool:
    """Say whether ``ins`` ends a basic block."""
    return ins.base in CONTROL


@dataclass(frozen=True)
class CostModel:
    """Latency per instruction class, with overrides per memory state space.

    Given latencies override the defaults; a name of a state space (``shared``,
    ``param``, ``const``) in ``latencies`` overrides that space.
    """

    latencies: Mapping[str, int] = field(default_factory=dict)
    space_latencies: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        given = dict(self.latencies)
        spaces = dict(DEFAULT_SPACE_LATENCIES)
        spaces.update({k: given.pop(k) for k in list(given) if k in DEFAULT_SPACE_LATENCIES})
        spaces.update(self.space_latencies)
        lat = dict(DEFAULT_LATENCIES)
        lat.update(given)
        for name, value in list(lat.items()) + list(spaces.items()):
            if not isinstance(value, int) or value < 0:
                raise ConfigError(f"latency of {name!r} is {value!r}; use a non-negative integer")
        object.__setattr__(self, "latencies", lat)
        object.__setattr__(self, "space_latencies", spaces)

    def latency(self, ins: Instruction) -> int:
        """The cycles ``ins`` costs one warp.

        A memory access costs its state space's latency, plus its own latency class's
        (a fragment load, an asynchronous copy); another instruction with a latency
        class of its own (``mma``) costs that class's latency instead of its pipeline class's.
        """
        if ins.latency is not None:
            return ins.latency
        if ins.cls == "mem":
            access = self.space_latencies.get(ins.space or "", self.latencies["mem"])
            return access + (self.latencies[ins.unit] if ins.unit else 0)
        return self.latencies[ins.unit or ins.cls]


@dataclass(frozen=True)
class BasicBlock:
    """Instructions ``start`` .. ``end - 1`` of a kernel."""

    index: int
    label: str
    start: int
    end: int


class KernelCFG:
    """The basic blocks and thread-level CFG of one kernel."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        for ins in kernel.instructions:
            if ins.base == "brx":
                raise ConfigError(f"{kernel.where(ins)}: kernel {kernel.name!r}: {ins.opcode} (an indirect branch "
                                  f"through a .branchtargets table) is not supported; supported: direct branches "
                                  f"(compile the switch without a jump table)")
        self.blocks = _split_blocks(kernel)
        self.block_at = {b.start: b.index for b in self.blocks}
        self.graph = self._build_graph()

    def block_of_pc(self, pc: int) -> int:
        """The index of the block that starts at ``pc``."""
        return self.block_at[pc]

    def successors_pcs(self, block: BasicBlock) -> list[int]:
        """The pcs a thread may go to after ``block`` (EXIT_PC for leaving)."""
        last = self.kernel.instructions[block.end - 1]
        if last.base == "bra":
            out = [self.kernel.target_pc(block.end - 1)]
            if last.guard is not None and block.end < len(self.kernel):
                out.append(block.end)
            return out
        if last.base in ("ret", "exit"):
            return [EXIT_PC] + ([block.end] if last.guard is not None and block.end < len(self.kernel) else [])
        if last.base == "sync":  # a thread resumes at the target of the innermost open SSY
            tops = sorted({s[-1] if s else EXIT_PC for s in self._ssy_scopes.get(block.index, {()})})
            return tops if last.guard is None else tops + [block.end]
        return [block.end] if block.end < len(self.kernel) else [EXIT_PC]

    @cached_property
    def _ssy_scopes(self) -> dict[int, set[tuple[int, ...]]]:
        """Block index -> the stacks of open SSY targets a thread may have at the block's SYNC."""
        at_entry: dict[int, set] = {0: {()}}
        at_sync: dict[int, set] = {}
        work: list[tuple[int, tuple[int, ...]]] = [(0, ())]
        while work:
            index, scope = work.pop()
            block = self.blocks[index]
            for pc in range(block.start, block.end):
                if self.kernel.instructions[pc].base == "ssy" and len(scope) < 64:
                    scope = scope + (self.kernel.target_pc(pc),)
            last = self.kernel.instructions[block.end - 1]
            succ: list[Any] = []
            if last.base == "sync":
                at_sync.setdefault(index, set()).add(scope)
                succ = [(scope[-1], scope[:-1])] if scope else []
                if last.guard is not None and block.end < len(self.kernel):
                    succ.append((block.end, scope))
            elif last.base in ("ret", "exit") and last.guard is None:
                succ = []
            else:
                succ = [(pc, scope) for pc in self._plain_successors(block)]
            for pc, s in succ:
                target = self.block_at[pc]
                if s not in at_entry.setdefault(target, set()):
                    at_entry[target].add(s)
                    work.append((target, s))
        return at_sync

    def _plain_successors(self, block: BasicBlock) -> list[int]:
        """Successor pcs of a block that does not end with SYNC (no EXIT_PC)."""
        last = self.kernel.instructions[block.end - 1]
        out = []
        if last.base == "bra":
            out.append(self.kernel.target_pc(block.end - 1))
        if (last.base != "bra" or last.guard is not None) and block.end < len(self.kernel):
            out.append(block.end)
        return out

    def _build_graph(self) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_nodes_from(range(len(self.blocks)))
        g.add_node(EXIT)
        for b in self.blocks:
            for pc in self.successors_pcs(b):
                g.add_edge(b.index, EXIT if pc == EXIT_PC else self.block_at[pc])
        return g

    @cached_property
    def ipdom_pc(self) -> dict[int, int]:
        """Block index -> first pc of its immediate post-dominator (EXIT_PC for the exit)."""
        rev = self.graph.reverse(copy=True)
        idom = nx.immediate_dominators(rev, EXIT)
        out = {}
        for b in self.blocks:
            p = idom.get(b.index, EXIT)
            out[b.index] = EXIT_PC if p == EXIT else self.blocks[p].start
        return out

    @cached_property
    def loops(self) -> dict[int, frozenset[int]]:
        """Thread-level natural loops: header block -> body blocks (header included)."""
        return natural_loops(self.graph, 0, what=f"kernel {self.kernel.name!r}",
                             name=lambda n: self.blocks[n].label)

    def block_cost(self, block: BasicBlock, cost: CostModel) -> int:
        """The cycles one warp spends in ``block``."""
        return sum(cost.latency(self.kernel.instructions[pc]) for pc in range(block.start, block.end))


def natural_loops(graph: nx.DiGraph, entry, what: str, name=str) -> dict:
    """Header -> natural-loop body of a reducible graph; ConfigError if irreducible."""
    reach = nx.descendants(graph, entry) | {entry}
    sub = graph.subgraph(reach)
    dom = nx.immediate_dominators(sub, entry)
    back = [(u, v) for u, v in sub.edges if _dominates(dom, v, u)]
    forward = nx.DiGraph(sub)
    forward.remove_edges_from(back)
    if not nx.is_directed_acyclic_graph(forward):
        cycle = nx.find_cycle(forward)
        raise ConfigError(f"{what} has an irreducible control-flow graph (a cycle through "
                          f"{name(cycle[0][0])!r} has no single entry); restructure the loop")
    loops: dict = {}
    for u, v in back:
        body = loops.setdefault(v, {v})
        stack = [u]
        while stack:
            n = stack.pop()
            if n not in body:
                body.add(n)
                stack.extend(sub.predecessors(n))
    return {h: frozenset(b) for h, b in loops.items()}


def _dominates(idom: dict, a, b) -> bool:
    """Say whether ``a`` dominates ``b`` given immediate dominators."""
    while True:
        if a == b:
            return True
        parent = idom.get(b)
        if parent is None or parent == b:
            return False
        b = parent


def _split_blocks(kernel: Kernel) -> tuple[BasicBlock, ...]:
    """Cut the instruction list into basic blocks."""
    names: dict[int, str] = {}
    for label, pc in kernel.labels.items():
        names.setdefault(pc, label)
    leaders = {0} | {pc for pc in kernel.labels.values() if pc < len(kernel)}
    for pc, ins in enumerate(kernel.instructions):
        if is_terminator(ins) and pc + 1 < len(kernel):
            leaders.add(pc + 1)
    starts = sorted(leaders)
    ends = starts[1:] + [len(kernel)]
    return tuple(BasicBlock(i, names.get(s, f"pc{s}"), s, e) for i, (s, e) in enumerate(zip(starts, ends)))
