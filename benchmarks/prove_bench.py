"""Proof-time benchmark of the front end (a script, not a timed test).

Measures, medians of --repeat runs, one fresh process per run:
- SWaS, the default property ('exact', or --property), unbounded (k-induction with proved lemmas), per policy and warp count;
- the time to the first baseline counterexample (BMC), per fetch x issue combination.
Writes a markdown table on stdout and JSON to --out.

Every run gets a fresh lemma cache, so no run reads back the lemmas of the one before. With --busy N the
runs share the machine with N busy loops (`yes > /dev/null`, killed however the script ends), as on a
loaded machine; the table states the load average seen.

    python benchmarks/prove_bench.py --warps 2 4 8 16 32 --repeat 3 --out benchmarks/prove_bench.json
    python benchmarks/prove_bench.py --warps 4 16 32 --cex-warps 4 --repeat 3 --busy 16 --out loaded.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POLICIES = ("gtlrr", "gtlo", "lrr")


def one_run(args: list[str]) -> dict:
    """Run `warpcheck prove ... --json` in a fresh process with a fresh lemma cache; return its JSON plus wall time."""
    with tempfile.TemporaryDirectory(prefix="wc-lemmas-") as cache:
        start = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "warpcheck.cli", "prove", *args, "--lemma-cache", cache,
                            "--json", "--quiet"], capture_output=True, text=True)
        wall = time.monotonic() - start
    out = json.loads(r.stdout)
    out["wall"] = wall
    out["load"] = os.getloadavg()[0]
    return out


def median_of(args: list[str], repeat: int) -> dict:
    runs = [one_run(args) for _ in range(repeat)]
    statuses = {r["status"] for r in runs}
    return {"status": "/".join(sorted(statuses)), "label": runs[0]["status"] + ("" if not runs[0]["bounded"] else " (bounded)"),
            "engine": runs[0]["engine"], "depth": runs[0]["depth"],
            "seconds": statistics.median(r["seconds"] for r in runs),
            "wall": statistics.median(r["wall"] for r in runs),
            "load": statistics.median(r["load"] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warps", type=int, nargs="*", default=[2, 4, 8, 16, 32])
    ap.add_argument("--cex-warps", type=int, nargs="*", default=[4, 32])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--policies", nargs="+", default=list(POLICIES))
    ap.add_argument("--property", default="exact")
    ap.add_argument("--timeout", default="600")
    ap.add_argument("--out", default="benchmarks/prove_bench.json")
    ap.add_argument("--busy", type=int, default=0, help="busy loops sharing the machine during the runs")
    a = ap.parse_args()
    busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(a.busy)]
    try:
        measure(a)
    finally:
        for b in busy:
            b.kill()


def measure(a: argparse.Namespace) -> None:
    rows, tmp = [], Path(tempfile.mkdtemp(prefix="wc-bench-"))
    for w in a.warps:
        for p in a.policies:
            m = median_of(["--design", "swas", "--policy", p, "--warps", str(w), "--engine", "kind",
                           "--property", a.property, "--timeout", a.timeout], a.repeat)
            rows.append({"kind": "swas proof", "warps": w, "policy": p, **m})
            print(f"swas {p} W={w}: {m['status']} {m['seconds']:.2f} s", file=sys.stderr, flush=True)
    for w in a.cex_warps:
        for f in POLICIES:
            for i in POLICIES:
                m = median_of(["--design", "baseline", "--fetch", f, "--issue", i, "--warps", str(w),
                               "--engine", "bmc", "--depth", "20", "--witness", str(tmp / f"{f}-{i}.json")], a.repeat)
                rows.append({"kind": "baseline counterexample", "warps": w, "policy": f"{f}/{i}", **m})
                print(f"baseline {f}/{i} W={w}: {m['status']} depth {m['depth']} {m['seconds']:.2f} s",
                      file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        json.dump(rows, f, indent=1)
    print(f"{a.busy} busy loops, {os.cpu_count()} cores")
    print("| run | W | policy | status | depth | engine s (median) | wall s incl. start-up | load |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kind']} | {r['warps']} | {r['policy']} | {r['status']} | {r['depth']} | "
              f"{r['seconds']:.2f} | {r['wall']:.2f} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
