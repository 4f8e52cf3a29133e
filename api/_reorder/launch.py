"""A kernel launch made concrete: the kernel read from its file, its parameters bound, the analyzer run, the workload.

Shared by ``analyze`` and ``reorder prove|replay|simulate``: each takes a
:class:`LaunchOptions` (or a witness's launch) to the analyzer's record and the
reordering unit's workload.
"""
from __future__ import annotations

from typing import Any, Mapping

from warpcheck._kernels.loaders import load_kernel
from warpcheck._reorder.options import LaunchOptions
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.reorder.unit import Workload
from warpcheck.sim.reorder.accesses import Analysis, analyze, blocks_of
from warpcheck.sim.reorder.run import Delivery, Lines

MAX_WARPS, MAX_REQUESTS = 64, 256


def bind_params(given: Mapping[str, int], kernel: Kernel) -> dict[str, int]:
    """Every kernel parameter's value, each given exactly once (by name, by suffix or by index)."""
    out: dict[str, int] = {}
    for name, value in given.items():
        try:
            key = kernel.param_named(name, "name")
        except ConfigError as e:
            raise OptionError("param", dict(given), str(e)) from None
        if key in out:
            raise OptionError("param", dict(given), f"{name!r} gives parameter {key!r} a second time; give each "
                                                    "parameter once")
        out[key] = value
    missing = [p for p in kernel.params if p not in out]
    if missing:
        raise ConfigError(f"kernel {kernel.name!r} needs a value for {', '.join(missing)}; give each parameter "
                          "as NAME=VALUE")
    return out


def run_analysis(o: LaunchOptions) -> Analysis:
    """Load the kernel of the launch and run the analyzer on it."""
    assert o.kernel is not None and o.grid is not None and o.block is not None  # the record checked them
    kernel = load_kernel(o.kernel, o.entry)
    return analyze(kernel, o.grid, o.block, bind_params(o.param, kernel), o.line_bytes)


def launch_of(kernel: str, entry: str | None, grid: Any, block: Any, params: Any, line_bytes: int) -> LaunchOptions:
    """The launch a witness file names (its texts checked as options are)."""
    return LaunchOptions(kernel=kernel, entry=entry, grid=grid, block=block, param=params, line_bytes=line_bytes)


def workload(an: Analysis, filename: str = "", limit: bool = True) -> tuple[Workload, Lines]:
    """The unit's workload and each request's (kind, lines), warps in global order."""
    if an.undecided:
        raise ConfigError(an.undecided[0].describe(filename or an.kernel.name))
    linear = {b: i for i, b in enumerate(blocks_of(an.grid))}
    epochs = tuple(tuple(a.epoch for a in w.accesses) for w in an.warps)
    lines = tuple(tuple((a.kind, a.lines) for a in w.accesses) for w in an.warps)
    total = sum(len(e) for e in epochs)
    if total == 0 or limit and (len(epochs) > MAX_WARPS or total > MAX_REQUESTS):
        raise ConfigError(f"kernel {an.kernel.name!r} has {len(epochs)} warps and {total} global requests; a proof "
                          f"takes 1 to {MAX_REQUESTS} requests and at most {MAX_WARPS} warps (shrink the grid)")
    pcs = tuple(tuple(a.pc for a in w.accesses) for w in an.warps)
    return Workload(epochs, tuple(linear[w.block] for w in an.warps), lines, pcs), lines


def request_names(an: Analysis, order: list[Delivery]) -> list[str]:
    """Each request as ``B[block]W<warp>#<access>``."""
    return [f"B{list(an.warps[w].block)}W{an.warps[w].warp}#{k}" for w, k in order]
