"""Benchmark: the paper's ILP on HiGHS, the SMT bound search and the exhaustive search, side by side.

For "LLCLL" (sigmas 1) and "LCLCL" (sigma_L = 1/2), each method runs at
W = 1, 2, 3, ... (then by larger steps) until one run passes the cap or does
not end exact.  Writes a markdown table and a JSON file.

    python benchmarks/makespan_bench.py --cap 120 --out bench-makespan
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from typing import Any, Callable

from warpcheck.encodings.makespan_ilp import MakespanIlp
from warpcheck.models.makespan_kernel import MkKernel, make_kernel
from warpcheck.sim.makespan_enum import SearchBudgetExceeded, worst_case
from warpcheck.verify.makespan_abstract import abstract_search
from warpcheck.verify.makespan_search import bound_search, optimize_search

FAMILIES = {"LLCLL": {"L": 1, "C": 1}, "LCLCL": {"L": "1/2", "C": 1}}
WARPS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256, 420, 600]


def _ilp(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = MakespanIlp(k, w).solve(timeout=cap, threads=1)
    return r.makespan, r.optimal


def _smt(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = bound_search(k, w, timeout=cap)
    return r.makespan, r.exact


def _optimize(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = optimize_search(k, w, timeout=cap)
    return r.makespan, r.exact


def _enum(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    try:
        return worst_case(k, w, timeout=cap).makespan, True
    except SearchBudgetExceeded:
        return None, False


def _deficit(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = abstract_search(k, w, budget=cap)
    return r.makespan, r.exact


METHODS: dict[str, Callable[[MkKernel, int, float], tuple[int | None, bool]]] = {
    "ilp-highs": _ilp, "smt-bound-search": _smt, "smt-optimize": _optimize, "enumerate": _enum, "deficit": _deficit}


def series(kernel: MkKernel, method: str, cap: float, repeat: int = 1) -> list[dict[str, Any]]:
    """Run one method at growing W until a run passes ``cap`` seconds or is not exact."""
    rows = []
    for w in WARPS:
        times = []
        for _ in range(repeat):
            t0 = time.monotonic()
            value, exact = METHODS[method](kernel, w, cap)
            times.append(time.monotonic() - t0)
            if times[-1] > cap:
                break
        secs = statistics.median(times)
        rows.append({"warps": w, "makespan": value, "exact": exact, "seconds": round(secs, 3)})
        print(f"{kernel.text()} {method} W={w}: {value} exact={exact} {secs:.2f} s", flush=True)
        if secs > cap or (not exact and method != "deficit"):
            break  # the deficit bound may be unmet at small W and met at larger W
    return rows


def markdown(results: dict[str, dict[str, list[dict[str, Any]]]], cap: float) -> str:
    """One table per family: W down, methods across (seconds, or '>cap')."""
    out = [f"Cap {cap:g} s per run; median of the runs per point; {platform.machine()}.", ""]
    for fam, per in results.items():
        ws = sorted({r["warps"] for rows in per.values() for r in rows})
        out += [f"**{fam}** ({', '.join(f'sigma_{u}={v}' for u, v in FAMILIES[fam].items())})", "",
                "| W | makespan | " + " | ".join(per) + " |", "|---" * (len(per) + 2) + "|"]
        for w in ws:
            cells, value = [], ""
            for rows in per.values():
                r = next((r for r in rows if r["warps"] == w), None)
                if r is None:
                    cells.append("")
                elif r["exact"] and r["seconds"] <= cap:
                    cells.append(f"{r['seconds']:.2f} s")
                    value = value or str(r["makespan"])
                elif r["seconds"] <= cap:
                    cells.append("bound not met")
                else:
                    cells.append(f"> {cap:g} s")
            out.append(f"| {w} | {value} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    """Run every family and method, then write the markdown and JSON files."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cap", type=float, default=120.0, help="seconds per run before a method stops")
    p.add_argument("--out", default="makespan-bench", help="output prefix (.md and .json)")
    p.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of " + ",".join(METHODS))
    p.add_argument("--repeat", type=int, default=1, help="runs per point; the median is reported")
    args = p.parse_args()
    results = {fam: {m: series(make_kernel(fam, sig), m, args.cap, args.repeat) for m in args.methods.split(",")}
               for fam, sig in FAMILIES.items()}
    text = markdown(results, args.cap)
    with open(f"{args.out}.json", "w") as f:
        json.dump({"cap": args.cap, "results": results}, f, indent=1)
    with open(f"{args.out}.md", "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
