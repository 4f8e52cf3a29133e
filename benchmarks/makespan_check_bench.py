"""Time the certificate checker on large tables: every subset of the phases of a sigma-1 kernel.

The table holds every 0/1 vector over the P phases (cap 1: a 1 means "one
warp or more"), potential 0 and the linear part c_p = P - p: every cycle
moves at least one warp one phase on, so Psi drops by at least 1 and the
table is a valid "cycles" bound (P W, exact for a kernel of one unit).  For
a one-unit kernel the whole certificate is checked (schedule included, W = 2);
for the others only the table (``check_bound``).  Prints the median of
``--runs`` runs per kernel.

    python benchmarks/makespan_check_bench.py --kernels "L*16" "LC*8+L" --runs 3
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import time
from typing import Any

from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.spec.makespan.certificate_check import FORMAT, VERSION, check, check_bound, read_bound


def _kernel(spec: str) -> str:
    """``L*16`` -> sixteen L; ``LC*8+L`` -> LC eight times, then L."""
    parts = [part.partition("*") for part in spec.split("+")]
    return "".join(body * int(times or 1) for body, _, times in parts)


def _bound(phases: int) -> dict[str, Any]:
    rows = [list(v) + [0] for v in itertools.product((0, 1), repeat=phases)]
    return {"method": "bench", "cap": 1, "weight": "cycles", "unit": None,
            "linear": [phases - p for p in range(phases)], "states": rows}


def _certificate(text: str, warps: int = 2) -> dict[str, Any]:
    P = len(text)
    schedule = [[w * P + i + 1 for i in range(P)] for w in range(warps)]  # one warp after the other
    return {"certificate": FORMAT, "version": VERSION, "kernel": text, "sigma": {"L": "1"}, "warps": warps,
            "makespan": warps * P, "schedule": schedule, "bound": _bound(P)}


def _time(text: str) -> float:
    start = time.perf_counter()
    if set(text) == {"L"}:
        assert check(_certificate(text)).upper == 2 * len(text)
    else:
        k = make_kernel(text, {u: 1 for u in set(text)})
        check_bound(k, read_bound(k, _bound(len(text))))
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", nargs="+", default=["L*12", "L*16", "LC*8+L"])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print("| kernel | phases | entries | median s | runs |")
    print("|---|---|---|---|---|")
    for spec in args.kernels:
        text = _kernel(spec)
        times = [_time(text) for _ in range(args.runs)]
        print(f"| {text} | {len(text)} | {2 ** len(text)} | {statistics.median(times):.2f} | "
              f"{', '.join(f'{t:.2f}' for t in times)} |", flush=True)


if __name__ == "__main__":
    main()
