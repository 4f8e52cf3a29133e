"""The exact worst-case makespan of a kernel as W grows, beside the paper's pessimistic bound.

Run:  python examples/scripts/makespan_curve.py [--kernel LLCLL] [--warps 1,2,4,8,16,32]
"""
from __future__ import annotations

import argparse

import warpcheck


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="LLCLL")
    ap.add_argument("--warps", default="1,2,4,8,16,32")
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    print(f"{'W':>4} {'makespan':>9} {'exact':>6} {'pessimistic':>12}")
    for W in [int(x) for x in a.warps.split(",")]:
        r = warpcheck.makespan(a.kernel, warps=W, sigma={"L": 1, "C": 1}, timeout=a.timeout)
        print(f"{W:>4} {r.makespan:>9} {str(r.exact):>6} {r.pessimistic:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
