"""``warpcheck simulate --kernels K1,K2``: several kernels on one SM, response times per policy side by side."""
from __future__ import annotations

import argparse
import json
from typing import Any, Sequence

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.sim.qaws.kernels_run import POLICY_OF, Kernel, MultiRun, run_kernels
from warpcheck.sim.frontend.suite import resolve

DEFAULT_POLICIES = ("lrr", "gto", "qaws")
MAX_SM_WARPS = 64  # as simulate --warps


def add_options(p: argparse.ArgumentParser) -> None:
    """The multi-kernel options of ``simulate``."""
    g = p.add_argument_group("several kernels on one SM (QAWS, Singh et al.)")
    g.add_argument("--kernels", metavar="W1,W2", help="comma-separated workloads (names or TOML files), "
                   "run together as kernels K1, K2, ...; reports per-kernel response times")
    g.add_argument("--budget", action="append", default=[], metavar="Kn=B",
                   help="QAWS budget of kernel Kn (>= 1, default 1; repeatable)")
    g.add_argument("--launch", action="append", default=[], metavar="Kn=C",
                   help="launch cycle of kernel Kn (default n - 1: K2 one cycle after K1; repeatable)")


def _assignments(items: Sequence[str], names: Sequence[str], option: str, least: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in names:
            raise ConfigError(f"{option} {item!r} names an unknown kernel {name!r}; the kernels are: {', '.join(names)}")
        try:
            out[name] = int(value)
        except ValueError:
            raise ConfigError(f"{option} {item!r} is not Kn=INTEGER; write e.g. {option} {name}=1") from None
        if out[name] < least:
            raise ConfigError(f"{option} {item!r}: {out[name]} is not allowed; it must be >= {least}")
    return out


def kernels_from_args(a: argparse.Namespace, base: SMConfig) -> list[Kernel]:
    """The kernels named by --kernels, with their budgets, launch cycles and an even share of the warps."""
    specs = [x.strip() for x in a.kernels.split(",") if x.strip()]
    names = [f"K{n + 1}" for n in range(len(specs))]
    budgets = _assignments(a.budget, names, "--budget", 1)
    launches = _assignments(a.launch, names, "--launch", 0)
    warps = a.warps if a.warps is not None else 4 * len(specs)
    if warps > MAX_SM_WARPS:
        raise ConfigError(f"--kernels: {len(specs)} kernel(s) of {warps // max(1, len(specs))} warps make {warps} warps, "
                          f"above the ceiling of {MAX_SM_WARPS} (an SM holds at most {MAX_SM_WARPS} warps)")
    if not specs or warps < len(specs) or warps % len(specs):
        raise ConfigError(f"--warps {warps} does not split evenly over {len(specs)} kernel(s); "
                          f"give a multiple of {max(1, len(specs))}")
    workloads = [resolve(s) for s in specs]
    workloads = [w.scaled(a.scale) if a.scale != 1.0 else w for w in workloads]
    return [Kernel(n, w, warps // len(specs), budgets.get(n, 1), launches.get(n, k))
            for k, (n, w) in enumerate(zip(names, workloads))]


def _policies(text: str | None) -> list[str]:
    names = [x.strip() for x in (text or ",".join(DEFAULT_POLICIES)).split(",") if x.strip()]
    for n in names:
        if n not in POLICY_OF:
            raise ConfigError(f"--policy {n!r} is not one of the multi-kernel policies: {', '.join(POLICY_OF)}")
    return names


def _note(kernels: Sequence[Kernel], policies: Sequence[str]) -> str | None:
    if "qaws" in policies and len({k.budget for k in kernels}) < 2:
        return "qaws with one kernel or equal budgets is GTO (one group; Alg. 1, line 9)"
    return None


def _table(kernels: Sequence[Kernel], runs: Sequence[MultiRun]) -> str:
    from tabulate import tabulate
    rows = []
    for r in runs:
        rows.append([r.policy, *[k.response if k.response is not None else "unfinished" for k in r.kernels],
                     "-" if r.average is None else f"{r.average:g}", r.cycles])
    heads = ["policy", *[f"{k.name} response (launch {k.launch}, budget {k.budget})" for k in kernels],
             "average execution time", "cycles"]
    return tabulate(rows, headers=heads, tablefmt="github")


def simulate_kernels(a: argparse.Namespace, base: SMConfig, icache: tuple[int, int]) -> int:
    """Run the kernels under each policy; 0 if every run finished, 1 otherwise."""
    kernels = kernels_from_args(a, base)
    policies = _policies(a.policy)
    runs = [run_kernels(kernels, base, p, a.max_cycles, icache,
                        "reference" if a.engine == "reference" else "compiled") for p in policies]
    note = _note(kernels, policies)
    if a.json:
        print(json.dumps({"kernels": [_kernel_json(k) for k in kernels], "note": note,
                          "runs": [r.to_json() for r in runs]}))
    else:
        print(_table(kernels, runs))
        if note:
            print(f"note: {note}")
    return 0 if all(r.average is not None for r in runs) else 1


def _kernel_json(k: Kernel) -> dict[str, Any]:
    return {"kernel": k.name, "workload": k.workload.name, "warps": k.warps, "budget": k.budget, "launch": k.launch}
