"""Benchmark deficit accounting over blocks (verify/makespan/phases.py) on the random family of makespan_bench.py.

Per kernel and W (32, 128, 600): the blocks bound, the best run, exact or
not, seconds, graph states, and for exact answers the certificate's size and
check time (sim/makespan/check.py).  Exact answers are compared with every
exact answer stored in ``benchmarks/results/makespan-random50-cap10.json``.

    python benchmarks/makespan_phases_bench.py --cap 10 --out bench-phases
"""
from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from warpcheck.cli.makespan.cert import certificate
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.sim.makespan.check import check
from warpcheck.verify.makespan.phases import phase_search

from makespan_bench import random_family

WARPS = (32, 128, 600)
STORED = Path(__file__).parent / "results" / "makespan-random50-cap10.json"


def one(job: tuple[str, dict[str, str], int, float]) -> dict[str, Any]:
    """Run phase_search on one kernel and W; certify and check an exact answer."""
    text, sig, warps, cap = job
    r = phase_search(make_kernel(text, sig), warps, budget=cap)
    row: dict[str, Any] = {"kernel": text, "sigma": sig, "warps": warps, "upper": r.upper, "makespan": r.makespan,
                           "exact": r.exact, "seconds": round(r.seconds, 3), "states": r.states}
    if r.exact:
        cert = json.loads(json.dumps(certificate(text, sig, warps, r.schedule, ("blocks", r))))
        t = time.monotonic()
        check(cert)
        row.update(check_seconds=round(time.monotonic() - t, 3), cert_kb=len(json.dumps(cert)) // 1024)
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cap", type=float, default=10.0)
    p.add_argument("--kernels", type=int, default=50)
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", default="bench-phases")
    args = p.parse_args()
    jobs = [(t, s, w, args.cap) for t, s in random_family(args.kernels, args.seed) for w in WARPS]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(one, jobs))
    stored = {(r["kernel"], json.dumps(r["sigma"], sort_keys=True)): r["runs"]
              for r in json.loads(STORED.read_text())["rows"]} if STORED.exists() else {}
    for row in rows:
        runs = stored.get((row["kernel"], json.dumps(row["sigma"], sort_keys=True)), {}).get(str(row["warps"]), {})
        known = {m: v["makespan"] for m, v in runs.items() if v.get("makespan") is not None and v.get("exact", True)}
        row["before"] = known
        row["agree"] = all((row["upper"] is None or row["upper"] >= v) and (not row["exact"] or row["makespan"] == v)
                           for v in known.values())
        row["new"] = row["exact"] and not known
    Path(args.out + ".json").write_text(json.dumps(rows, indent=1))
    for w in WARPS:
        mine = [r for r in rows if r["warps"] == w]
        ex = [r for r in mine if r["exact"]]
        print(f"W = {w}: exact {len(ex)} of {len(mine)}; median {sorted(r['seconds'] for r in ex)[len(ex) // 2] if ex else '-'} s; "
              f"exact where no stored method was: {sum(r['new'] for r in mine)}; "
              f"agrees with every stored exact answer: {all(r['agree'] for r in mine)}")


if __name__ == "__main__":
    main()
