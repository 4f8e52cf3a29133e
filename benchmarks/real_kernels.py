"""Run the kernel analyses on every entry of every PTX module of some directories (or files).

For each ``.entry`` (calls inlined): the warp-level CFG with value agreement
(blocks, conditional branches proved uniform / possibly divergent), the IPET
bound with and without value agreement (every loop bounded by
``--max-loop-bound``), and random concrete runs of one warp, each checked
against the bound: its cycles at most the bound, and no branch called uniform
splitting the warp.  A run whose loops iterate more often than the loop
bound is outside the bound's premise: it is counted, not checked.  An entry
the kit cannot analyse gets its one-line reason instead of numbers; an entry
that takes longer than ``--entry-timeout`` seconds is stopped and counted as
such.  Each module is parsed once (a parse error refuses that module only);
a progress line on stderr names the entry being analysed.

    python benchmarks/real_kernels.py examples/corpus [more dirs or .ptx files] [--runs 20]
        [--max-loop-bound 16] [--entry-timeout 60] [--markdown]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from warpcheck import _guard as guard
from warpcheck.encodings.kernels.ipet import wcet
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.files import read_text
from warpcheck.models.kernels.ptx import parse_ptx_module
from warpcheck.models.kernels.warp_cfg import WarpCFG, build_warp_cfg
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.spec.kernels.thread_ops import WarpInputs


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
    """One row: the analyses of one entry (cfg and wcet seconds apart), or its one-line error."""
    row: dict = {"entry": entry.name, "cfg_seconds": 0.0, "wcet_seconds": 0.0}
    start = time.perf_counter()
    try:
        kernel = module.inlined(entry)
        wcfg = build_warp_cfg(kernel, True)
        _ = wcfg.cfg.loops
        reached = [b for b in wcfg.branches.values() if b["reached"]]
        row.update(cfg="ok", blocks=len(wcfg.cfg.blocks), nodes=wcfg.graph.number_of_nodes() - 1,
                   uniform=sum(b["uniform"] for b in reached), divergent=sum(not b["uniform"] for b in reached),
                   cfg_seconds=time.perf_counter() - start)
        start = time.perf_counter()
        with_va, _p = wcet(wcfg, {}, loop_bound)
        row["wcet_seconds"] = time.perf_counter() - start
        without, _p = wcet(build_warp_cfg(kernel, False), {}, loop_bound)
        row.update(status="ok", wcet_va=with_va.wcet, wcet_nova=without.wcet)
        row.update(check_runs(kernel, wcfg, with_va.wcet, runs, loop_bound))
    except WarpcheckError as e:
        row.update(status=str(e))
        row["cfg_seconds" if "cfg" not in row else "wcet_seconds"] = time.perf_counter() - start
    return row


def bounded(seconds: float, work):
    """``work()``, or a row saying it was stopped after ``seconds`` (the kit's own alarm and watchdog)."""
    try:
        with guard.guarded(seconds, time.monotonic()):
            return work()
    except guard.RunTimeout:
        return None


def modules(paths: list[Path]) -> list[Path]:
    """The .ptx files named or found (recursively) under the directories named, in order."""
    out: list[Path] = []
    for path in paths:
        out += sorted(path.rglob("*.ptx")) if path.is_dir() else [path]
    return out


def corpus(paths: list[Path], runs: int, loop_bound: int, entry_timeout: float = 60.0,
           progress=None) -> list[tuple[str, dict]]:
    """(file name, row) for every entry of every PTX module found under ``paths``."""
    out = []
    files = modules(paths)
    for index, path in enumerate(files, 1):
        try:
            module = parse_ptx_module(read_text(path, "PTX module", lenient=True), path.name)
        except WarpcheckError as e:
            out.append((path.name, {"entry": "(module)", "status": str(e), "cfg_seconds": 0.0, "wcet_seconds": 0.0}))
            continue
        for entry in module.entries:
            if progress is not None:
                progress(f"[{index}/{len(files)} modules, {len(out)} entries done] {path.name}: {entry.name}")
            row = bounded(entry_timeout, lambda: analyse(module, entry, runs, loop_bound))
            out.append((path.name, row or {"entry": entry.name, "status": f"stopped after {entry_timeout:g} s "
                                           "(--entry-timeout)", "cfg_seconds": entry_timeout, "wcet_seconds": 0.0}))
    return out


def totals(rows: list[tuple[str, dict]], seconds: float) -> str:
    """One paragraph: modules, entries, CFGs built, WCET bounds, refusals, time."""
    files = {name for name, _ in rows}
    entries = [r for _, r in rows if r["entry"] != "(module)"]
    refused_modules = sum(1 for _, r in rows if r["entry"] == "(module)")
    with_cfg = sum(1 for r in entries if r.get("cfg") == "ok")
    with_wcet = sum(1 for r in entries if r["status"] == "ok")
    stopped = sum(1 for r in entries if r["status"].startswith("stopped after"))
    unsound = sum(1 for r in entries if r.get("violations"))
    return (f"{len(files)} modules ({refused_modules} refused whole), {len(entries)} entries: {with_cfg} with a "
            f"warp-level CFG, {with_wcet} with a WCET bound, {stopped} stopped by --entry-timeout, "
            f"{unsound} with a run above its bound; {seconds:.1f} s in all")


def table(rows: list[tuple[str, dict]], markdown: bool) -> str:
    """The rows as text (or a markdown table)."""
    from tabulate import tabulate

    head = ["module", "entry", "status", "blocks", "CFG nodes", "branches uniform/divergent", "WCET VA",
            "WCET no-VA", "max observed", "runs checked (outside loop bound)", "cfg s", "wcet s"]
    body = []
    for name, r in rows:
        entry = r["entry"] if len(r["entry"]) <= 34 else r["entry"][:31] + "..."
        times = [f"{r['cfg_seconds']:.2f}", f"{r['wcet_seconds']:.2f}"]
        if r["status"] != "ok":
            cfg = [r["blocks"], r["nodes"], f"{r['uniform']}/{r['divergent']}"] if r.get("cfg") == "ok" else [""] * 3
            body.append([name, entry, r["status"]] + cfg + [""] * 4 + times)
            continue
        status = "ok" if not r["violations"] else "UNSOUND: " + r["violations"][0]
        body.append([name, entry, status, r["blocks"], r["nodes"], f"{r['uniform']}/{r['divergent']}", r["wcet_va"],
                     r["wcet_nova"], r["observed"], f"{r['checked']} ({r['outside']})"] + times)
    return tabulate(body, headers=head, tablefmt="github" if markdown else "simple")


def _progress(line: str) -> None:
    """The entry being analysed: rewritten in place on a terminal, one line each otherwise."""
    if sys.stderr.isatty():
        print("\r\033[K" + line[:150], end="", file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def main() -> None:
    """Run the corpus and print the table and the totals; exit 1 if any run breaks a bound or a uniform branch."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="directories of PTX files (searched "
                    "recursively) or PTX files")
    ap.add_argument("--runs", type=int, default=20, help="random warp runs per entry (default 20)")
    ap.add_argument("--max-loop-bound", type=int, default=16, help="bound of every loop (default 16)")
    ap.add_argument("--entry-timeout", type=float, default=60.0, help="seconds per entry before it is stopped "
                    "(default 60, as the verbs' --timeout)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    a = ap.parse_args()
    start = time.perf_counter()
    rows = corpus(a.paths, a.runs, a.max_loop_bound, a.entry_timeout, _progress)
    print("\r\033[K", end="", file=sys.stderr) if sys.stderr.isatty() else None
    print(table(rows, a.markdown))
    print("\n" + totals(rows, time.perf_counter() - start) + "; the refused name the construct they stop at.")
    if any(r.get("violations") for _, r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
