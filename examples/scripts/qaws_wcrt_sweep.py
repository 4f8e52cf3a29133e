"""K2's worst-case response time, proved over every stall pattern, as its QAWS budget grows (LRR and GTO beside).

Run:  python examples/scripts/qaws_wcrt_sweep.py [--budgets 1,2,3] [--policies lrr,gto,qaws]
          [--warps 1,2] [--k1 int,mem,int] [--k2 mem,int,int]

Each row is one search: the largest response time of K2 (launch to the cycle after its
last exit) over every I-cache miss, dependence and taken branch, proved maximal by the
solver ("proved") and replayed on the simulator, or a lower bound ("UNKNOWN", the horizon).
"""
from __future__ import annotations

import argparse

import warpcheck


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", default="1,2,3", help="K2's QAWS budgets (K1's stays 1)")
    ap.add_argument("--policies", default="lrr,gto,qaws")
    ap.add_argument("--warps", default="1,2", help="warps of K1 and of K2")
    ap.add_argument("--k1", default="int,mem,int", help="K1's program")
    ap.add_argument("--k2", default="mem,int,int", help="K2's program")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per search")
    a = ap.parse_args()
    print(f"{'budget':>6} {'policy':>6} {'response':>8} {'maximal?':>8} {'replayed':>8}")
    worst = 0
    for b in [int(x) for x in a.budgets.split(",")]:
        r = warpcheck.qaws_wcrt(a.policies, program={"K1": a.k1, "K2": a.k2}, warps=a.warps,
                                budget={"K1": 1, "K2": b}, timeout=a.timeout)
        for name, row in r.policies.items():
            maximal = "proved" if row.status == "PASS" else row.status
            print(f"{b:>6} {name:>6} {row.response:>8} {maximal:>8} {str(row.replayed):>8}")
        worst = max(worst, r.code)
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
