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
import time

from warpcheck.encodings.makespan.lp import solve_lp
from warpcheck.models.makespan.kernel import parse_kernel, parse_sigmas, transform
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM
from warpcheck.sim.makespan.enum import worst_case


def reachable_bound(kernel: str, sigma: list[str], warps: int, cap: int, timeout: float) -> dict[str, object]:
    """The least ranking bound over the reached moves of ``warps`` warps, next to the exhaustive worst case."""
    mk = transform(parse_kernel(kernel), parse_sigmas(sigma))
    truth = worst_case(mk, warps)
    sm = CountSM(mk, warps)
    moves, P = CountMoves(sm), sm.done
    entry: dict[tuple[int, ...], int] = {}  # capped counts -> LP variable (after the P linear ones)

    def var(n: tuple[int, ...]) -> int | None:
        if n[-1] == warps:
            return None  # all done: Psi = 0
        return P + entry.setdefault(tuple(min(x, cap) for x in n[:P]), len(entry))
    rows = []
    for n in truth.value:
        if n[-1] == warps:
            continue
        for _, nxt in moves.successors(n):
            terms = {p: n[p] - nxt[p] for p in range(P) if n[p] != nxt[p]}  # c . (n - n') + g(a) - g(a') >= 1
            here, there = var(n), var(nxt)
            if here != there:
                for j, v in ((here, 1), (there, -1)):
                    if j is not None:
                        terms[j] = terms.get(j, 0) + v
            rows.append((list(terms.items()), 1.0))
    root = tuple([warps] + [0] * P)
    start = var(root)
    cost = [0.0] * (P + len(entry))
    cost[0], cost[start] = float(warps), 1.0  # type: ignore[index]
    t = time.monotonic()
    solved = solve_lp(len(cost), cost, rows, timeout=timeout)
    bound = None if solved is None else sum(c * x for c, x in zip(cost, solved))
    return {"W": warps, "cap": cap, "worst case": truth.makespan, "states": len(truth.value),
            "entries": len(entry), "rows": len(rows), "LP bound": None if bound is None else round(bound, 3),
            "LP s": round(time.monotonic() - t, 1)}


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
