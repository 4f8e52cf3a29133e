"""The ``wcet`` verb's work: the IPET bound of one warp in isolation over its warp-level CFG."""
from __future__ import annotations

import time
from typing import Any

from warpcheck._kernels.loaders import loop_bounds
from warpcheck._kernels.options import WcetOptions
from warpcheck._kernels.results import WcetResult
from warpcheck._kernels.warp_level_cfg import branches, cost_model, warp_cfg
from warpcheck.encodings.kernels.ipet import wcet
from warpcheck.models.kernels.abstract_stack import describe
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.warp_cfg import WarpCFG

__all__ = ["wcet_one"]


def wcet_one(o: WcetOptions, kernel: Kernel) -> WcetResult:
    """The IPET bound of one kernel: Z3's optimum, re-solved by HiGHS unless ``o.cross_check`` is False."""
    bounds, cost = loop_bounds(o.bounds, dict(o.loop_bounds)), cost_model(o)
    start = time.perf_counter()
    wcfg = warp_cfg(o, kernel)
    result, prob = wcet(wcfg, bounds, o.max_loop_bound, cost, cross_check=o.cross_check)
    seconds = time.perf_counter() - start
    out = _fields(wcfg, result, prob, cost, seconds, o.cross_check)
    return WcetResult(text=_report(out), **out)


def _fields(wcfg: WarpCFG, result: Any, prob: Any, cost: CostModel, seconds: float, checked: bool) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for n, c in result.node_counts.items():
        counts[wcfg.label(n)] = counts.get(wcfg.label(n), 0) + c
    blocks = [{"label": b.label, "cost": wcfg.cfg.block_cost(b, cost), "count": counts.get(b.label, 0),
               "instructions": b.end - b.start} for b in wcfg.cfg.blocks]
    path = [{"node": n, "block": wcfg.label(n), "stack": describe(wcfg.graph.nodes[n]["stack"]), "count": c}
            for n, c in sorted(result.node_counts.items())]
    return {"kernel": wcfg.kernel.name, "wcet": result.wcet, "value_agreement": wcfg.value_agreement,
            "blocks": blocks, "path": path, "branches": branches(wcfg),
            "warp_cfg_nodes": wcfg.graph.number_of_nodes() - 1,
            "loops": [{"header": lp["header"], "bound": lp["bound"], "nodes": len(lp["nodes"])} for lp in prob.loops],
            "solvers": ["z3", "highs"] if checked else ["z3"], "seconds": round(seconds, 4)}


def _report(out: dict[str, Any]) -> str:
    from tabulate import tabulate

    va = "on" if out["value_agreement"] else "off"
    checked = "Z3 = HiGHS" if len(out["solvers"]) == 2 else "Z3 only"
    lines = [f"kernel {out['kernel']}: WCET bound {out['wcet']} cycles for one warp in isolation "
             f"(value agreement {va}; {out['warp_cfg_nodes']} warp-level nodes; {checked}; {out['seconds']:.2f} s)",
             "", "worst-case path (warp-level nodes executed):",
             tabulate([[p["block"], p["stack"], p["count"]] for p in out["path"]],
                      headers=["block", "abstract stack (top first)", "count"]),
             "", "block costs used:",
             tabulate([[b["label"], b["instructions"], b["cost"], b["count"]] for b in out["blocks"]],
                      headers=["block", "instructions", "cycles", "count on worst path"]),
             "", "conditional branches:",
             tabulate([[b["block"], b["instruction"], "uniform (proved)" if b["uniform"] else "may diverge"]
                       for b in out["branches"]], headers=["block", "branch", "value agreement"])]
    return "\n".join(lines)
