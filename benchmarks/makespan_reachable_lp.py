"""How tight can a ranking potential over capped counts be, with every spurious move gone?

The ranking LP (``verify/makespan/ranking.py``) minimises Psi(initial) over
potentials Psi(n) = sum_p c_p n_p + g(capped counts of n) that drop by at
least 1 on every move of the *abstract* graph, which holds moves no run makes.
Invariants can only remove such moves.  This script asks what is left when
all of them are gone: the same LP over the moves that runs of W warps really
make (every reached count state, by the exhaustive search), the states grouped
by their capped counts (cap K on every phase).  If the LP stays above the
worst case there, no invariant can make the ranking bound exact at that cap:
the class of potentials itself is too small.  Docs: ``docs/makespan-steep.md``.

    python benchmarks/makespan_reachable_lp.py LLLCLCL --sigma C=1/3 --sigma L=1 --warps 6 8 --caps 1 2
"""
from __future__ import annotations

import argparse
import math
import time

from warpcheck.encodings.makespan.lp import solve_lp
from warpcheck.models.makespan.kernel import parse_kernel, parse_sigmas, transform
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.verify.makespan.ranking import move_rows


def reachable_bound(kernel: str, sigma: list[str], warps: int, cap: int, timeout: float) -> dict[str, object]:
    """The least ranking bound over the reached moves of ``warps`` warps, next to the exhaustive worst case."""
    mk = transform(parse_kernel(kernel), parse_sigmas(sigma))
    truth = worst_case(mk, warps)
    sm = CountSM(mk, warps)
    stepper, P = CountMoves(sm), sm.done

    def alpha(n: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(min(x, cap) for x in n[:P])
    moves = {(alpha(n), alpha(nxt), leaving(n, nxt, P)) for n in truth.value if n[-1] != warps
             for _, nxt in stepper.successors(n)}
    entries = sorted({a for a, _, _ in moves} | {b for _, b, _ in moves})
    index = {a: i for i, a in enumerate(entries)}
    done, start = alpha((0,) * P + (warps,)), alpha((warps,) + (0,) * P)
    rows = move_rows(moves, index, P) + [([(P + index[done], -1.0)], 0.0)]  # g(done) = 0 (lower bound 0 below)
    lower = [-math.inf] * (P + len(entries))
    lower[P + index[done]] = 0.0
    cost = [0.0] * (P + len(entries))
    cost[0], cost[P + index[start]] = float(warps), 1.0
    t = time.monotonic()
    solved = solve_lp(len(cost), cost, rows, lower, timeout)
    bound = None if solved is None else sum(c * x for c, x in zip(cost, solved))
    return {"W": warps, "cap": cap, "worst case": truth.makespan, "states": len(truth.value),
            "entries": len(entries), "moves": len(moves), "LP bound": None if bound is None else round(bound, 3),
            "LP s": round(time.monotonic() - t, 1)}


def leaving(n: tuple[int, ...], nxt: tuple[int, ...], phases: int) -> tuple[int, ...]:
    """Warps leaving each phase in the move n -> nxt (what enters phase p left phase p - 1)."""
    out, before = [], 0
    for p in range(phases):
        before = n[p] - nxt[p] + before
        out.append(before)
    return tuple(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel")
    ap.add_argument("--sigma", action="append", default=[], metavar="U=n|U=1/n")
    ap.add_argument("--warps", type=int, nargs="+", default=[6, 8])
    ap.add_argument("--caps", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per LP")
    args = ap.parse_args()
    from tabulate import tabulate

    rows = []
    for warps in args.warps:
        for cap in args.caps:
            rows.append(reachable_bound(args.kernel, args.sigma, warps, cap, args.timeout))
            print(rows[-1], flush=True)
    print(tabulate(rows, headers="keys", tablefmt="github"))


if __name__ == "__main__":
    main()
