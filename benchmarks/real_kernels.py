"""Run the kernel analyses on every entry of every PTX module in a directory.

For each ``.entry`` (calls inlined): the warp-level CFG with value agreement
(blocks, conditional branches proved uniform / possibly divergent), the IPET
bound with and without value agreement (every loop bounded by
``--max-loop-bound``), and random concrete runs of one warp, each checked
against the bound: its cycles at most the bound, and no branch called uniform
splitting the warp.  A run whose loops iterate more often than the loop
bound is outside the bound's premise: it is counted, not checked.  An entry
the kit cannot analyse gets its one-line reason instead of numbers.

    python benchmarks/real_kernels.py examples/corpus [--runs 20] [--max-loop-bound 16] [--markdown]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from warpcheck.encodings.kernels.ipet import wcet
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.ptx import parse_ptx_module
from warpcheck.models.kernels.warp_cfg import WarpCFG, build_warp_cfg
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.sim.kernels.thread_ops import WarpInputs


def random_inputs(kernel: Kernel, rng: random.Random, loop_bound: int) -> WarpInputs:
    """Small parameters (sizes up to the loop bound, pointers among them), a block index and size, a seed."""
    params = {name: rng.randint(0, loop_bound) for name in kernel.params}
    ntid = rng.choice([32, 64, 128, 256])
    return WarpInputs(params=params, ctaid=(rng.randint(0, 3), 0, 0), ntid=(ntid, 1, 1),
                      nctaid=(rng.randint(1, 4), 1, 1), seed=rng.randint(0, 10 ** 9), int_max=loop_bound)


def check_runs(kernel: Kernel, wcfg: WarpCFG, bound: int, runs: int, loop_bound: int) -> dict:
    """Random runs against the bound: largest run, runs checked, runs outside the loop bound, violations."""
    rng = random.Random(9)
    worst, checked, outside, violations = 0, 0, 0, []
    for _ in range(runs):
        run = run_warp(kernel, random_inputs(kernel, rng, loop_bound), threads=32, max_steps=20000)
        if any(count > loop_bound for count in run.header_counts.values()):
            outside += 1
            continue
        checked += 1
        worst = max(worst, run.cycles)
        if run.cycles > bound:
            violations.append(f"a run took {run.cycles} cycles > bound {bound}")
        for pc, active, holds in run.guards:
            if wcfg.branches[pc]["uniform"] and holds not in (0, active):
                violations.append(f"branch at line {kernel.instructions[pc].line} called uniform splits")
    return {"observed": worst, "checked": checked, "outside": outside, "violations": violations}


def analyse(module, entry: Kernel, runs: int, loop_bound: int) -> dict:
    """One row: the analyses of one entry, or its one-line error."""
    row: dict = {"entry": entry.name}
    start = time.perf_counter()
    try:
        kernel = module.inlined(entry)
        wcfg = build_warp_cfg(kernel, True)
        _ = wcfg.cfg.loops
        with_va, _p = wcet(wcfg, {}, loop_bound)
        row["seconds"] = time.perf_counter() - start
        without, _p = wcet(build_warp_cfg(kernel, False), {}, loop_bound)
        reached = [b for b in wcfg.branches.values() if b["reached"]]
        row.update(status="ok", blocks=len(wcfg.cfg.blocks), uniform=sum(b["uniform"] for b in reached),
                   divergent=sum(not b["uniform"] for b in reached), wcet_va=with_va.wcet, wcet_nova=without.wcet,
                   nodes=wcfg.graph.number_of_nodes() - 1)
        row.update(check_runs(kernel, wcfg, with_va.wcet, runs, loop_bound))
    except WarpcheckError as e:
        row.update(status=str(e), seconds=time.perf_counter() - start)
    return row


def corpus(directory: Path, runs: int, loop_bound: int) -> list[tuple[str, dict]]:
    """(file name, row) for every entry of every PTX module in ``directory``."""
    out = []
    for path in sorted(directory.glob("*.ptx")):
        try:
            module = parse_ptx_module(path.read_text(), path.name)
        except WarpcheckError as e:
            out.append((path.name, {"entry": "(module)", "status": str(e), "seconds": 0.0}))
            continue
        out += [(path.name, analyse(module, entry, runs, loop_bound)) for entry in module.entries]
    return out


def table(rows: list[tuple[str, dict]], markdown: bool) -> str:
    """The rows as text (or a markdown table)."""
    from tabulate import tabulate

    head = ["module", "entry", "status", "blocks", "branches uniform/divergent", "WCET VA", "WCET no-VA",
            "max observed", "runs checked (outside loop bound)", "seconds VA"]
    body = []
    for name, r in rows:
        entry = r["entry"] if len(r["entry"]) <= 34 else r["entry"][:31] + "..."
        if r["status"] != "ok":
            body.append([name, entry, r["status"]] + [""] * 6 + [f"{r['seconds']:.2f}"])
            continue
        status = "ok" if not r["violations"] else "UNSOUND: " + r["violations"][0]
        body.append([name, entry, status, r["blocks"], f"{r['uniform']}/{r['divergent']}", r["wcet_va"],
                     r["wcet_nova"], r["observed"], f"{r['checked']} ({r['outside']})", f"{r['seconds']:.2f}"])
    return tabulate(body, headers=head, tablefmt="github" if markdown else "simple")


def main() -> None:
    """Run the corpus and print the table; exit 1 if any run breaks a bound or a uniform branch."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory", type=Path, help="a directory of PTX files")
    ap.add_argument("--runs", type=int, default=20, help="random warp runs per entry (default 20)")
    ap.add_argument("--max-loop-bound", type=int, default=16, help="bound of every loop (default 16)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    a = ap.parse_args()
    rows = corpus(a.directory, a.runs, a.max_loop_bound)
    print(table(rows, a.markdown))
    ok = sum(1 for _, r in rows if r["status"] == "ok")
    print(f"\n{ok} of {len(rows)} entries bounded; the others name the construct they stop at.")
    if any(r.get("violations") for _, r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
