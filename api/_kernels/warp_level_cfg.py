"""The ``cfg`` verb's work: the warp-level CFG of one kernel (blocks paired with abstract activation stacks).

Also the pieces ``wcet`` and ``simt`` share: the cost model of the options, the
warp-level CFG they ask for and its conditional branches.
"""
from __future__ import annotations

import time
from typing import Any

from warpcheck._kernels.options import CfgOptions, KernelOptions, _AnalysisOptions
from warpcheck._kernels.results import CfgResult
from warpcheck.models.files import atomic_write_text
from warpcheck.models.kernels.abstract_stack import describe
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.warp_cfg import END, StateLimit, WarpCFG, build_warp_cfg

__all__ = ["cost_model", "warp_cfg", "branches", "cfg_one", "to_dot"]


def cost_model(o: KernelOptions) -> CostModel:
    """The cost model the options give: class latencies, and ``mem_latency`` for global/local memory."""
    latencies = dict(o.latency)
    if o.mem_latency is not None:
        latencies["mem"] = o.mem_latency
    return CostModel(latencies)


def warp_cfg(o: _AnalysisOptions, kernel: Kernel) -> WarpCFG:
    """The warp-level CFG of ``kernel`` under the options (an irreducible thread-level CFG is refused here)."""
    wcfg = build_warp_cfg(kernel, o.value_agreement, o.threads, o.max_states)
    _ = wcfg.cfg.loops
    return wcfg


def branches(wcfg: WarpCFG) -> list[dict[str, Any]]:
    """Each conditional branch: its block, pc, whether value agreement proves it uniform, whether it is reached."""
    out = []
    for pc, info in wcfg.branches.items():
        block = next(b for b in wcfg.cfg.blocks if b.start <= pc < b.end)
        out.append({"block": block.label, "pc": pc, "uniform": bool(info["uniform"]), "reached": info["reached"],
                    "instruction": " ".join(wcfg.kernel.instructions[pc].text.split())})
    return out


def cfg_one(o: CfgOptions, kernel: Kernel) -> CfgResult:
    """The warp-level CFG of one kernel (and its DOT file when ``o.dot`` is given)."""
    start = time.perf_counter()
    wcfg = warp_cfg(o, kernel)
    other = _nodes_other_mode(o, kernel)
    seconds = time.perf_counter() - start
    cost = cost_model(o)
    if o.dot:
        atomic_write_text(o.dot, to_dot(wcfg, cost), "DOT file")
    nodes = [{"id": n, "block": wcfg.label(n), "stack": describe(wcfg.graph.nodes[n]["stack"]),
              "cost": _node_cost(wcfg, n, cost)} for n in wcfg.graph.nodes if n != END]
    edges = [{"from": u, "to": v, "kinds": sorted(d["kinds"])} for u, v, d in wcfg.graph.edges(data=True)]
    return CfgResult(kernel=kernel.name, text=_report(wcfg, other, cost, seconds),
                     value_agreement=wcfg.value_agreement, blocks=len(wcfg.cfg.blocks), nodes=nodes, edges=edges,
                     nodes_other_mode=other, branches=branches(wcfg), seconds=seconds, warp_cfg=wcfg)


def _nodes_other_mode(o: _AnalysisOptions, kernel: Kernel) -> int | None:
    """Nodes of the warp-level CFG with value agreement the other way; None past the state limit."""
    try:
        return build_warp_cfg(kernel, not o.value_agreement, o.threads, o.max_states).graph.number_of_nodes() - 1
    except StateLimit:
        return None


def _node_cost(wcfg: WarpCFG, node: int, cost: CostModel) -> int:
    return wcfg.cfg.block_cost(wcfg.cfg.blocks[wcfg.block(node)], cost)


def _report(wcfg: WarpCFG, other: int | None, cost: CostModel, seconds: float) -> str:
    from tabulate import tabulate

    va = "on" if wcfg.value_agreement else "off"
    rows = []
    for n in sorted(x for x in wcfg.graph.nodes if x != END):
        succ = ", ".join("end" if s == END else str(s) for s in sorted(wcfg.graph.successors(n), key=str))
        rows.append([n, wcfg.label(n), describe(wcfg.graph.nodes[n]["stack"]), _node_cost(wcfg, n, cost), succ])
    lines = [f"kernel {wcfg.kernel.name}: {len(wcfg.cfg.blocks)} blocks, warp-level CFG {len(rows)} nodes, "
             f"{wcfg.graph.number_of_edges()} edges (value agreement {va}; "
             f"{'more than max_states' if other is None else other} nodes with it "
             f"{'off' if wcfg.value_agreement else 'on'}), "
             f"{seconds:.2f} s",
             tabulate(rows, headers=["node", "block", "abstract stack (top first)", "cost", "successors"]),
             "", _branch_table(wcfg)]
    return "\n".join(lines)


def _branch_table(wcfg: WarpCFG) -> str:
    from tabulate import tabulate

    rows = [[b["block"], b["instruction"], "uniform" if b["uniform"] else "may diverge",
             "" if b["reached"] else "unreached"] for b in branches(wcfg)]
    return tabulate(rows, headers=["block", "conditional branch", "value agreement", ""]) if rows else \
        "no conditional branches"


def to_dot(wcfg: WarpCFG, cost: CostModel) -> str:
    """The warp-level CFG in Graphviz DOT."""
    out = [f'digraph "{wcfg.kernel.name}" {{', "  node [shape=box, fontname=monospace];"]
    for n in wcfg.graph.nodes:
        if n == END:
            out.append('  END [shape=doublecircle, label="end"];')
            continue
        label = f"{wcfg.label(n)} ({_node_cost(wcfg, n, cost)} cy)\\n{describe(wcfg.graph.nodes[n]['stack'])}"
        out.append(f'  n{n} [label="{label}"];')
    for u, v, d in wcfg.graph.edges(data=True):
        target = "END" if v == END else f"n{v}"
        out.append(f'  n{u} -> {target} [label="{",".join(sorted(d["kinds"]))}"];')
    out.append("}")
    return "\n".join(out) + "\n"
