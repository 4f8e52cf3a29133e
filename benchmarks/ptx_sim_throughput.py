"""Simulated cycles per second of ``simulate --ptx`` at W = 32: a real kernel, front end and data cache.

The default engine (``compiled``: the front end's step, its fetch choice and the
two oracles traced and emitted as Python, the reordering unit's step likewise)
runs examples/kernels/hotspot.ptx with 1024 threads (32 warps) on one SM, its
global accesses through the 16 KiB 4-way L1, on the baseline LRR-GTLRR and
SWaS GTLRR, with and without the reordering unit.  Each figure is the median
of ``--runs`` runs of the whole simulation (metrics and memory side included),
timed after the analysis and the compilation (reported apart), both in wall time
and in the process's CPU time (on a shared machine the wall time also counts the
other jobs' share of the cores).  The anchor is Vortex's own cycle simulator,
simx: about 330,000 cycles per second.

    python benchmarks/ptx_sim_throughput.py [--runs N] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from tabulate import tabulate

from warpcheck._reorder.launch import run_analysis, workload
from warpcheck._reorder.options import LaunchOptions
from warpcheck.models.frontend.config import SMConfig
from warpcheck.sim.frontend.ptx_stream import DataCache, PtxRun

SIMX = 330_000  # cycles/s of Vortex's simx, the anchor
KERNEL = "examples/kernels/hotspot.ptx"
PARAMS = {"0": 0, "1": 1 << 20, "2": 1024, "3": 1, "4": 16, "5": 0}


def measure(runs: int) -> list[dict]:
    """Each configuration's cycles, median seconds and cycles per second."""
    t = time.perf_counter()
    an = run_analysis(LaunchOptions(kernel=KERNEL, grid=1, block=1024, param=PARAMS))
    work, lines = workload(an, limit=False)
    traces, lanes = [w.trace for w in an.warps], [w.lanes for w in an.warps]
    analysis = time.perf_counter() - t
    rows = []
    for design, policy in (("baseline", "gtlrr"), ("swas", "gtlrr")):
        for cache in (DataCache(), DataCache(unit=True)):
            config = SMConfig(warps=32, design=design, fetch_policy="lrr", issue_policy=policy)
            t = time.perf_counter()
            PtxRun("hotspot", an.kernel, traces, work, lines, config, cache)  # compiles once per configuration
            setup = time.perf_counter() - t
            seconds, cpu, cycles = [], [], 0
            for _ in range(runs):
                run = PtxRun("hotspot", an.kernel, traces, work, lines, config, cache, lanes=lanes)
                t, c = time.perf_counter(), time.process_time()
                cycles = run.run(10 ** 6).cycles
                seconds.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            median, cpu_median = statistics.median(seconds), statistics.median(cpu)
            rows.append({"design": design, "dcache": cache.label(), "cycles": cycles, "seconds": round(median, 2),
                         "cycles_per_s": round(cycles / median), "cpu_seconds": round(cpu_median, 2),
                         "cycles_per_cpu_s": round(cycles / cpu_median),
                         "of_simx": round(cycles / cpu_median / SIMX, 4),
                         "first_setup_s": round(setup, 2), "analysis_s": round(analysis, 2)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per configuration (the median is kept)")
    ap.add_argument("--out", help="also write the figures as JSON")
    a = ap.parse_args()
    rows = measure(a.runs)
    print(tabulate([[r["design"], r["dcache"], r["cycles"], r["seconds"], f"{r['cycles_per_s']:,}", r["cpu_seconds"],
                     f"{r['cycles_per_cpu_s']:,}", f"{r['of_simx']:.2%}", r["first_setup_s"]] for r in rows],
                   headers=["design", "L1", "cycles", "wall s", "cycles/wall s", "CPU s", "cycles/CPU s",
                            "of simx's 330k", "setup s"],
                   tablefmt="github"))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"kernel": KERNEL, "warps": 32, "simx_cycles_per_s": SIMX, "runs": rows}, f, indent=1)


if __name__ == "__main__":
    main()
