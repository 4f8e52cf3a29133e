"""Two kernels on one SM, LRR vs GTO vs QAWS: response times normalised to K1 under LRR (Fig. 4 in miniature).

``--suite paper`` (default): look-alikes of the paper's nine benchmarks
(``sim/qaws/workloads.py``; compute-bound pc, pf, 2dc, dxtc, bin; memory-bound
vec, mm, his, atax) with a memory latency of 60 cycles; ``--suite builtin``:
the kit's six built-in workloads (loop trip counts scaled by 0.25, memory 20).
Every homogeneous pair and five heterogeneous pairs, 4 warps per kernel, K2
launched one cycle after K1, budgets K1 = 1 and K2 in {2, 4, 8} (the budget
with the best K2 response time is kept, as the paper does).  Prints a
markdown table (with whether QAWS gives K2 a shorter response time than LRR
and than GTO) and the average change of K2's response time.

    python benchmarks/qaws_bench.py [--suite paper|builtin] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck.models.frontend.config import DEFAULT_LATENCY, SMConfig
from warpcheck.sim.qaws.kernels_run import Kernel, run_kernels
from warpcheck.sim.qaws.workloads import PAPER_WORKLOADS
from warpcheck.sim.frontend.suite import BUILTIN
from warpcheck.sim.frontend.workloads import Workload

SUITES: dict[str, tuple[dict[str, Workload], list[tuple[str, str]], float, int]] = {
    # workloads, heterogeneous pairs (compute-bound K1 with memory-bound K2 and the reverse), scale, memory latency
    "paper": (PAPER_WORKLOADS, [("pc", "vec"), ("2dc", "mm"), ("his", "dxtc"), ("bin", "atax"), ("mm", "pf")], 1.0, 60),
    "builtin": (BUILTIN, [("psort", "sgemm"), ("blackscholes", "hotspot"), ("kmeans", "hotspot3D"),
                          ("sgemm", "kmeans"), ("hotspot", "psort")], 0.25, 20),
}
BUDGETS = (2, 4, 8)


def run_pair(wa: Workload, wb: Workload, warps: int, sm: SMConfig) -> dict[str, Any]:
    """Response times of K1 (wa) and K2 (wb) under LRR, GTO and QAWS (best K2 budget), normalised to K1 under LRR."""
    ks = lambda b2: [Kernel("K1", wa, warps, 1, 0), Kernel("K2", wb, warps, b2, 1)]
    rt = lambda r: [k.response for k in r.kernels]
    out: dict[str, Any] = {"pair": f"{wa.name}+{wb.name}", "lrr": rt(run_kernels(ks(1), sm, "lrr")),
                           "gto": rt(run_kernels(ks(1), sm, "gto"))}
    qaws = {b2: rt(run_kernels(ks(b2), sm, "qaws")) for b2 in BUDGETS}
    best = min(qaws, key=lambda b2: qaws[b2][1])
    out["qaws"], out["budget"] = qaws[best], best
    base = out["lrr"][0]
    out["normalised"] = {p: [round(x / base, 3) for x in out[p]] for p in ("lrr", "gto", "qaws")}
    return out


def _gain(rows: list[dict[str, Any]], versus: str) -> float:
    """Mean relative reduction of K2's response time by QAWS against ``versus`` (percent)."""
    return 100 * sum(1 - r["qaws"][1] / r[versus][1] for r in rows) / len(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=list(SUITES), default="paper", help="workloads (default paper)")
    ap.add_argument("--scale", type=float, help="scale every loop trip count (default: 1 paper, 0.25 builtin)")
    ap.add_argument("--warps", type=int, default=4, help="warps per kernel (default 4)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    a = ap.parse_args()
    workloads, pairs, scale, mem = SUITES[a.suite]
    scale = a.scale if a.scale is not None else scale
    sm = SMConfig(latency={**DEFAULT_LATENCY, "mem": mem})
    w = {n: x.scaled(scale) if scale != 1.0 else x for n, x in workloads.items()}
    homo = [run_pair(w[n], w[n], a.warps, sm) for n in workloads]
    hetero = [run_pair(w[x], w[y], a.warps, sm) for x, y in pairs]
    print("| pair (K1+K2) | K2 budget | LRR K1, K2 | GTO K1, K2 | QAWS K1, K2 | K2 faster than LRR, GTO |")
    print("|---|---|---|---|---|---|")
    for r in homo + hetero:
        n = r["normalised"]
        faster = ", ".join("yes" if r["qaws"][1] < r[p][1] else "no" for p in ("lrr", "gto"))
        print(f"| {r['pair']} | {r['budget']} | {n['lrr'][0]}, {n['lrr'][1]} | {n['gto'][0]}, {n['gto'][1]} | "
              f"{n['qaws'][0]}, {n['qaws'][1]} | {faster} |")
    for name, rows in (("homogeneous", homo), ("heterogeneous", hetero)):
        print(f"\n{name}: QAWS changes K2's response time by {-_gain(rows, 'lrr'):+.1f} % against LRR, "
              f"{-_gain(rows, 'gto'):+.1f} % against GTO (negative: faster)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"homogeneous": homo, "heterogeneous": hetero}, f, indent=1)


if __name__ == "__main__":
    main()
