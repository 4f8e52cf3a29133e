"""A custom policy, "greedy then youngest": keep the last warp while it is eligible, else the youngest eligible one.

Real H100 timelines suggest it.  Proved on SWaS, refuted on the baseline (with a replayed witness).
Run:  python examples/scripts/greedy_then_youngest.py [--warps W]
"""
from __future__ import annotations

import argparse

import warpcheck


def choose(A, st, eligible):
    """The greedy warp if eligible, else the highest-numbered (youngest) eligible warp, else -1."""
    youngest = A.const(-1)
    for w in range(len(eligible)):
        youngest = A.ite(eligible[w], A.const(w), youngest)
    greedy = A.select(eligible, st["last"])
    return A.ite(greedy, st["last"], youngest)


def update(A, st, chosen, eligible):
    """The greedy warp is the one issued last (unchanged while nothing issues)."""
    return {"last": A.ite(A.lt(chosen, A.const(0)), st["last"], chosen)}


GTY = warpcheck.UserPolicy("gty", state=lambda W: {"last": (0, W - 1, W - 1)}, choose=choose, update=update,
                           summary="greedy then youngest")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warps", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args()
    swas = warpcheck.prove(design="swas", policy=GTY, warps=a.warps, timeout=a.timeout)
    base = warpcheck.prove(design="baseline", policy=GTY, warps=a.warps, timeout=a.timeout)
    print(f"swas     gty W={a.warps}: {swas.status}")
    print(f"baseline gty W={a.warps}: {base.status}")
    if base.witness:
        print(f"replayed: {warpcheck.replay(base, policy=GTY).designs}")
    return 0 if (swas.status, base.status) == ("PASS", "FAIL") else 1


if __name__ == "__main__":
    raise SystemExit(main())
