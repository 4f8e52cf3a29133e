"""Two kernels on one SM, LRR vs GTO vs QAWS: response times normalised to K1 under LRR (Fig. 4 in miniature).

Uses the kit's six built-in workloads (not look-alikes of the paper's nine
benchmarks): every homogeneous pair and five heterogeneous pairs, 4 warps
per kernel, K2 launched one cycle after K1, budgets K1 = 1 and K2 in
{2, 4, 8} (the budget with the best K2 response time is kept, as the paper
does).  Prints a markdown table and the average change of K2's response
time under QAWS against LRR and GTO.

    python benchmarks/qaws_bench.py [--scale 0.25] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck.models.config import SMConfig
from warpcheck.sim.kernels_run import Kernel, run_kernels
from warpcheck.sim.suite import BUILTIN, builtin

HETEROGENEOUS = [("psort", "sgemm"), ("blackscholes", "hotspot"), ("kmeans", "hotspot3D"), ("sgemm", "kmeans"),
                 ("hotspot", "psort")]
BUDGETS = (2, 4, 8)


def run_pair(a: str, b: str, scale: float, warps: int) -> dict[str, Any]:
    """Response times of K1 (a) and K2 (b) under LRR, GTO and QAWS (best K2 budget), normalised to K1 under LRR."""
    wa, wb = builtin(a).scaled(scale), builtin(b).scaled(scale)
    ks = lambda b2: [Kernel("K1", wa, warps, 1, 0), Kernel("K2", wb, warps, b2, 1)]
    rt = lambda r: [k.response for k in r.kernels]
    out: dict[str, Any] = {"pair": f"{a}+{b}", "lrr": rt(run_kernels(ks(1), SMConfig(), "lrr")),
                           "gto": rt(run_kernels(ks(1), SMConfig(), "gto"))}
    qaws = {b2: rt(run_kernels(ks(b2), SMConfig(), "qaws")) for b2 in BUDGETS}
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
    ap.add_argument("--scale", type=float, default=0.25, help="scale every loop trip count (default 0.25)")
    ap.add_argument("--warps", type=int, default=4, help="warps per kernel (default 4)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    a = ap.parse_args()
    homo = [run_pair(n, n, a.scale, a.warps) for n in BUILTIN]
    hetero = [run_pair(x, y, a.scale, a.warps) for x, y in HETEROGENEOUS]
    print("| pair (K1+K2) | K2 budget | LRR K1, K2 | GTO K1, K2 | QAWS K1, K2 |")
    print("|---|---|---|---|---|")
    for r in homo + hetero:
        n = r["normalised"]
        print(f"| {r['pair']} | {r['budget']} | {n['lrr'][0]}, {n['lrr'][1]} | {n['gto'][0]}, {n['gto'][1]} | "
              f"{n['qaws'][0]}, {n['qaws'][1]} |")
    for name, rows in (("homogeneous", homo), ("heterogeneous", hetero)):
        print(f"\n{name}: QAWS changes K2's response time by {-_gain(rows, 'lrr'):+.1f} % against LRR, "
              f"{-_gain(rows, 'gto'):+.1f} % against GTO (negative: faster)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"homogeneous": homo, "heterogeneous": hetero}, f, indent=1)


if __name__ == "__main__":
    main()
