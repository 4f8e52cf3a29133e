"""``warpcheck simulate --kernels K1,K2``: several kernels on one SM, response times per policy side by side.

The options and the call; the work is the library's (``warpcheck._qaws.kernel_runs``).
"""
from __future__ import annotations

import argparse
import json

from warpcheck._qaws import SimulateKernelsOptions, kernel_runs_of
from warpcheck.cli.options import record_from_args
from warpcheck.models.frontend.config import SMConfig


def add_options(p: argparse.ArgumentParser) -> None:
    """The multi-kernel options of ``simulate``."""
    g = p.add_argument_group("several kernels on one SM (QAWS, Singh et al.)")
    g.add_argument("--kernels", metavar="W1,W2", help="comma-separated workloads (names or TOML files), "
                   "run together as kernels K1, K2, ...; reports per-kernel response times")
    g.add_argument("--budget", action="append", metavar="Kn=B",
                   help="QAWS budget of kernel Kn (>= 1, default 1; repeatable)")
    g.add_argument("--launch", action="append", metavar="Kn=C",
                   help="launch cycle of kernel Kn (default n - 1: K2 one cycle after K1; repeatable)")


def simulate_kernels(a: argparse.Namespace, base: SMConfig, icache: tuple[int, int]) -> int:
    """Run the kernels under each policy on ``base``; print the table (or --json); 0 if every run finished, else 1."""
    r = kernel_runs_of(record_from_args(SimulateKernelsOptions, a, icache=icache), base)
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return r.code
