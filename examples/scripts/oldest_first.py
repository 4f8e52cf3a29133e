"""A policy of your own, from scratch: loose oldest first, proved on SWaS and refuted on the baseline.

Run:  python examples/scripts/oldest_first.py [--warps W]
Only the public API is used: the policy below is written here, not taken from the kit.
"""
from __future__ import annotations

import argparse

import warpcheck


def choose(A, st, eligible):
    """The lowest-numbered (oldest) eligible warp, -1 when none is."""
    pick = A.const(-1)
    for w in reversed(range(len(eligible))):  # a loop over warps is fine: W is concrete
        pick = A.ite(eligible[w], A.const(w), pick)
    return pick


def update(A, st, chosen, eligible):
    """Remember the last warp issued (kept while nothing issues)."""
    return {"last": A.ite(A.lt(chosen, A.const(0)), st["last"], chosen)}


OLDEST_FIRST = warpcheck.UserPolicy(
    name="my-oldest-first", summary="the oldest eligible warp",
    state=lambda W: {"last": (0, W - 1, 0)}, choose=choose, update=update)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warps", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args()
    swas = warpcheck.prove(design="swas", policy=OLDEST_FIRST, warps=a.warps, timeout=a.timeout)
    base = warpcheck.prove(design="baseline", policy=OLDEST_FIRST, warps=a.warps, timeout=a.timeout)
    print(f"swas     {OLDEST_FIRST.name} W={a.warps}: {swas.status} ({swas.engine}, depth {swas.depth})")
    print(f"baseline {OLDEST_FIRST.name} W={a.warps}: {base.status} ({base.engine}, depth {base.depth})")
    if base.witness:
        again = warpcheck.replay(base, design="both", policy=OLDEST_FIRST)
        print(f"witness replayed: {again.designs} (reproduced: {again.reproduced})")
    return 0 if (swas.status, base.status) == ("PASS", "FAIL") else 1


if __name__ == "__main__":
    raise SystemExit(main())
