"""How fast the command line answers before any work: --version, --help, a refused option, ``import warpcheck``.

The goal (docs/cli.md, "Start-up") is under 0.3 s on an idle machine for --version, --help and a refused option.  Each is
run N times in a fresh interpreter; the table gives the median and the largest wall-clock time, the
median CPU time (user + system, which load changes less), and the bare interpreter for comparison.

    python benchmarks/startup.py [--repeat 15]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from tabulate import tabulate

CASES = {
    "python -c pass (the interpreter alone)": ["-c", "pass"],
    "import warpcheck": ["-c", "import warpcheck"],
    "warpcheck --version": ["-m", "warpcheck.cli", "--version"],
    "warpcheck --help": ["-m", "warpcheck.cli", "--help"],
    "warpcheck --bogus (refused, exit 2)": ["-m", "warpcheck.cli", "--bogus"],
    "warpcheck prove --warps 0 (refused, exit 2)": ["-m", "warpcheck.cli", "prove", "--warps", "0"],
    "warpcheck simulate --warps 0 (refused, exit 2)": ["-m", "warpcheck.cli", "simulate", "--warps", "0"],
    "warpcheck makespan --warps 0 (refused, exit 2)": ["-m", "warpcheck.cli", "makespan", "--warps", "0"],
    "warpcheck reorder prove --warps 0 (refused, exit 2)": ["-m", "warpcheck.cli", "reorder", "prove", "--warps", "0"],
    "warpcheck qaws wcrt --bogus (refused, exit 2)": ["-m", "warpcheck.cli", "qaws", "wcrt", "--bogus"],
    "warpcheck wcet --bogus (refused, exit 2)": ["-m", "warpcheck.cli", "wcet", "--bogus"],
    "warpcheck sweep --bogus (refused, exit 2)": ["-m", "warpcheck.cli", "sweep", "--bogus"],
}
# An installed kit has its bytecode (pip compiles it); a machine that sets PYTHONDONTWRITEBYTECODE would
# measure the compiler on every start instead, so the children run without it.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
GOAL = 0.3  # seconds, for --version, --help and a refused option of the command itself


def once(argv: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one fresh interpreter running ``argv``."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=ENV)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15, help="runs per case (default 15)")
    a = ap.parse_args()
    rows = []
    for name, argv in CASES.items():
        once(argv)  # warm the file cache
        runs = [once(argv) for _ in range(a.repeat)]
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        rows.append([name, f"{statistics.median(walls):.3f}", f"{max(walls):.3f}", f"{statistics.median(cpus):.3f}"])
    print(tabulate(rows, headers=["case", "median s", "max s", "median CPU s"]))
    print(f"load average {os.getloadavg()[0]:.2f} (goal: under {GOAL} s on an idle machine)")


if __name__ == "__main__":
    main()
