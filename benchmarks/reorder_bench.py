"""The reordering unit on our kernels: L1 miss rates, cycles of three configurations, proof times.

For each kernel and launch below: warps and global requests (analyzer), the
L1 load miss rate of the static order for the Table 2 caches, the cycles of
the timing simulation (default = LRR without the unit, unit = LRR with it,
rr = pure round robin; mean over seeds of the memory-side jitter), whether
LRR without the unit kept the static L1 order, and the time of the order
proof (k-induction) when the kernel is small enough for it, and the paper's segment
WCET estimate with Eq. 3 and Eq. 4 against the largest simulated run (any configuration, any seed), and
the charged cycle bound of each configuration against that configuration's largest run.

    python benchmarks/reorder_bench.py [--seeds 3] [--jitter 100] [--markdown]
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from warpcheck._reorder.launch import MAX_REQUESTS, MAX_WARPS, run_analysis, workload
from warpcheck._reorder.options import LaunchOptions
from warpcheck._reorder.simulate import compare
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.reorder.l1 import L1Spec
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.models.reorder.order import static_order
from warpcheck.spec.reorder.l1_replay import replay
from warpcheck.sim.reorder.timing import Timing
from warpcheck.verify.reorder.props import Monitored, prove

ROOT = Path(__file__).resolve().parent.parent
K, R = "examples/kernels/", "examples/reorder/"
P = {"0": "0x100000", "1": "0x200000", "2": "0x300000"}
CASES = [  # file, grid, block, parameters
    (R + "paper_example.ptx", (1, 2, 1), (16, 4, 1), {"in": "0"}),
    (R + "set_conflicts.ptx", (1, 1, 1), (128, 1, 1), {"data": "0", "rows": "3"}),
    (R + "loop_rows.ptx", (2, 1, 1), (64, 1, 1), {"base": "0", "rows": "4"}),
    (K + "backprop.ptx", (2, 1, 1), (64, 1, 1), {**P, "3": "8", "4": "16"}),
    (K + "hotspot.ptx", (2, 1, 1), (64, 1, 1), {"0": P["0"], "1": P["1"], "2": "32", "3": "2", "4": "4", "5": "1"}),
    (K + "kmeans.ptx", (2, 1, 1), (64, 1, 1), {**P, "3": "64", "4": "4", "5": "4"}),
    (K + "lud.ptx", (1, 1, 1), (32, 1, 1), {"0": P["0"], "1": "32"}),
    (K + "nw.ptx", (1, 1, 1), (32, 1, 1), {"0": P["0"], "1": P["1"], "2": "8", "3": "2"}),
    (K + "pathfinder.ptx", (1, 1, 1), (64, 1, 1), {"0": P["0"], "1": P["1"], "2": "64", "3": "4", "4": "1"}),
    (K + "reduction.ptx", (2, 1, 1), (128, 1, 1), {"0": P["0"], "1": P["1"], "2": "256"}),
    (K + "saxpy_rows.ptx", (2, 1, 1), (64, 1, 1), {**P, "2": "2", "3": "16", "4": "4", "5": "1"}),
]
TABLE_2 = [L1Spec(16 * 1024, 4), L1Spec(32 * 1024, 8), L1Spec(64 * 1024, 16)]


def one(case, seeds: int, jitter: int) -> list:
    """One row of the table."""
    path, grid, block, params = case
    an = run_analysis(LaunchOptions(kernel=str(ROOT / path), grid=grid, block=block, param=params))
    work, lines = workload(an, path, limit=False)
    order = static_order(work.epochs)
    rates = [replay([lines[w][k] for w, k in order], spec).miss_rate for spec in TABLE_2]
    both = compare(an, TABLE_2[0], Timing(20, 200, jitter, 0, CostModel()), seeds, 4)
    sim, wcet = both["configs"], both["wcet"]
    cycles = {n: statistics.mean(c["cycles"]) for n, c in sim.items()}
    proof = _proof_seconds(work) if work.warps <= MAX_WARPS and work.total <= MAX_REQUESTS else None
    return [Path(path).stem, work.warps, work.total, *[f"{r:.3f}" for r in rates],
            *[f"{cycles[n]:.0f}" for n in ("default", "unit", "rr")],
            f"{100 * (cycles['unit'] / cycles['default'] - 1):+.1f}%", sim["default"]["static_order_kept"],
            sim["unit"]["static_order_kept"], f"{wcet['eq3']:.0f} ({wcet['eq3_over']:.2f}x)",
            f"{wcet['eq4']:.0f} ({wcet['eq4_over']:.2f}x)",
            *[f"{sim[n]['bound']} ({sim[n]['bound_over']:.2f}x)" for n in ("default", "unit", "rr")],
            "-" if proof is None else f"{proof:.2f}"]


def _proof_seconds(work) -> float:
    start = time.perf_counter()
    r = prove(Monitored(ReorderUnit(work, 2)), "order", timeout=600)
    assert r.status.value == "PASS", r.label
    return time.perf_counter() - start


HEADERS = ["kernel", "warps", "requests", "miss 16K/4", "miss 32K/8", "miss 64K/16", "cycles default",
           "cycles unit", "cycles rr", "unit vs default", "LRR kept order", "unit kept order", "WCET Eq. 3",
           "WCET Eq. 4", "bound default", "bound unit", "bound rr", "proof s"]


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jitter", type=int, default=100)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    from tabulate import tabulate

    rows = [one(c, a.seeds, a.jitter) for c in CASES]
    print(tabulate(rows, headers=HEADERS, tablefmt="github" if a.markdown else "simple"))


if __name__ == "__main__":
    main()
