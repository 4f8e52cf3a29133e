"""A sweep of proofs over W and policies, on both designs: one table row per proof.

Run:  python examples/scripts/proof_sweep.py [--warps 2,4] [--policies lrr,gtlrr,gtlo]
"""
from __future__ import annotations

import argparse

import warpcheck


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warps", default="2,4")
    ap.add_argument("--policies", default="lrr,gtlrr,gtlo")
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args()
    surprises = 0
    print(f"{'design':9} {'policy':7} {'W':>3}  status")
    for W in [int(x) for x in a.warps.split(",")]:
        for policy in a.policies.split(","):
            for design in ("swas", "baseline"):
                r = warpcheck.prove(design=design, policy=policy, warps=W, timeout=a.timeout)
                print(f"{design:9} {policy:7} {W:>3}  {r.status} ({r.engine}, depth {r.depth}, {r.seconds:.1f} s)")
                surprises += r.status != ("PASS" if design == "swas" else "FAIL")
    return 1 if surprises else 0


if __name__ == "__main__":
    raise SystemExit(main())
