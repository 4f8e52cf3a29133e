"""Evaluate the warp-level CFG and its IPET bound on every fixture kernel.

For each kernel (the nvcc PTX fixtures and the SASS-style listings) with an
evaluation file ``<kernel>.toml`` next to it (parameter ranges, launch shape,
loop bounds that hold for those ranges), print: basic blocks, warp-level CFG
nodes and IPET bound with and without value agreement, their ratio, and the
largest execution observed over many random inputs (one warp, the same cost
model).  Every run is also checked: its loop counts within the stated bounds
and its cycles at most both bounds, charged by the cost model and by the
instruction reference (spec/kernels/instructions.py); a violation stops the script.

    python benchmarks/wcet_eval.py [--runs 200] [--repeat 3] [--markdown]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from warpcheck.encodings.kernels.ipet import wcet
from warpcheck.models.kernels.ptx import parse_ptx
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import build_warp_cfg
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.spec.kernels.reference import path_cycles
from warpcheck.spec.kernels.thread_ops import WarpInputs

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "examples" / "kernels").glob("*.ptx")) + sorted((ROOT / "examples" / "sass").glob("*.sass"))


def random_inputs(kernel, spec: dict, rng: random.Random) -> WarpInputs:
    """Inputs drawn from an evaluation file: listed parameters in range, pointers apart."""
    ranges = {int(k): v for k, v in spec.get("params", {}).items()}
    params = {}
    for i, name in enumerate(kernel.params):
        params[name] = rng.randint(*ranges[i]) if i in ranges else (i + 1) << 24
    shape = spec.get("inputs", {})
    lo, hi = shape.get("ntid", [32, 32])
    ntid = rng.choice([n for n in (32, 64, 128, 256, 512, 1024) if lo <= n <= hi] or [lo])
    return WarpInputs(params=params, ctaid=(rng.randint(0, 3), 0, 0), ntid=(ntid, 1, 1),
                      seed=rng.randint(0, 10 ** 9), int_max=shape.get("int_max", 8))


def evaluate(path: Path, runs: int, repeat: int) -> dict:
    """One row of the table."""
    text = path.read_text()
    kernel = (parse_ptx if path.suffix == ".ptx" else parse_sass)(text, str(path))[0]
    spec = tomllib.loads(path.with_suffix(".toml").read_text())
    bounds = spec.get("loops", {})
    row: dict[str, Any] = {"kernel": path.name}
    for va in (True, False):
        times = []
        for _ in range(max(repeat, 1)):
            start = time.perf_counter()
            wcfg = build_warp_cfg(kernel, va)
            result, _ = wcet(wcfg, bounds, 0)
            times.append(time.perf_counter() - start)
        tag = "va" if va else "nova"
        row[f"nodes_{tag}"] = wcfg.graph.number_of_nodes() - 1
        row[f"wcet_{tag}"] = result.wcet
        row[f"seconds_{tag}"] = statistics.median(times)
        if va:
            row["blocks"] = len(wcfg.cfg.blocks)
            row["branches"] = len(wcfg.branches)
            row["uniform"] = sum(1 for b in wcfg.branches.values() if b["uniform"] and b["reached"])
    rng = random.Random(2023)
    worst = 0
    for _ in range(runs):
        run = run_warp(kernel, random_inputs(kernel, spec, rng), threads=32)
        for (_, header), count in run.header_counts.items():
            label = wcfg.cfg.blocks[header].label
            if count > bounds.get(label, 0):
                sys.exit(f"{path.name}: loop {label} ran {count} times, over its stated bound {bounds.get(label, 0)}")
        if run.cycles > row["wcet_va"]:
            sys.exit(f"{path.name}: a run took {run.cycles} cycles, over the bound {row['wcet_va']}")
        blocks = wcfg.cfg.blocks  # the same run charged by the instruction reference, not by the design's table
        charged = path_cycles(kernel, (pc for b, _ in run.steps for pc in range(blocks[b].start, blocks[b].end)))
        if charged > row["wcet_va"]:
            sys.exit(f"{path.name}: a run charged by the instruction reference took {charged} cycles, over the "
                     f"bound {row['wcet_va']}")
        worst = max(worst, run.cycles)
    row["observed"] = worst
    return row


def table(rows: list[dict], markdown: bool) -> str:
    """The rows as text (or a markdown table)."""
    head = ["kernel", "blocks", "branches (uniform)", "nodes VA", "nodes no-VA", "WCET VA", "WCET no-VA",
            "no-VA / VA", "max observed", "VA / observed", "time VA (s)"]
    body = [[r["kernel"], r["blocks"], f"{r['branches']} ({r['uniform']})", r["nodes_va"], r["nodes_nova"],
             r["wcet_va"], r["wcet_nova"], f"{r['wcet_nova'] / r['wcet_va']:.2f}", r["observed"],
             f"{r['wcet_va'] / max(r['observed'], 1):.2f}", f"{r['seconds_va']:.3f}"] for r in rows]
    from tabulate import tabulate

    return tabulate(body, headers=head, tablefmt="github" if markdown else "simple")


def main() -> None:
    """Run the evaluation and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="random inputs per kernel (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repetitions, median reported (default 3)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    a = ap.parse_args()
    rows = [evaluate(p, a.runs, a.repeat) for p in FIXTURES if p.with_suffix(".toml").exists()]
    print(table(rows, a.markdown))
    degraded = sum(1 for r in rows if r["wcet_nova"] >= 10 * r["wcet_va"])
    print(f"\n{degraded} of {len(rows)} kernels degrade 10x or more without value agreement; "
          f"{sum(1 for r in rows if r['wcet_nova'] > r['wcet_va'])} degrade at all.")


if __name__ == "__main__":
    main()
