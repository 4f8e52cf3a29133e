"""``simulate --ptx``: a real kernel's warps, run concretely, on the baseline and SWaS front ends with a data cache.

The launch goes through the kernel analyzer of ``analyze`` (every warp on the
SIMT activation stack; a kernel, an instruction or a data-dependent branch it
cannot run is refused by name); every warp's trace then runs on each front-end
configuration (:mod:`warpcheck.sim.frontend.ptx_stream`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from warpcheck._frontend.options import SimulateOptions
from warpcheck._reorder.launch import run_analysis, workload
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.sim.frontend.ptx_stream import DataCache, PtxMetrics, simulate_ptx

__all__ = ["data_cache", "run_ptx"]


def data_cache(o: SimulateOptions) -> DataCache:
    """The memory side the options name: the L1 (or none), its latencies, the reordering unit."""
    l1 = None if o.dcache == "off" else parse_cache(o.dcache, o.line_bytes, "evict", "dcache")
    return DataCache(l1, o.dcache_hit, o.dcache_miss, o.unit)


def run_ptx(o: SimulateOptions, configs: Sequence[SMConfig],
            progress: Callable[[str], None] | None = None) -> list[PtxMetrics]:
    """The launch of ``o`` on each configuration: one row of metrics each."""
    assert o.ptx is not None  # the caller checked
    an = run_analysis(o.launch)
    work, lines = workload(an, o.ptx, limit=False)
    traces = [w.trace for w in an.warps]
    name, cache = Path(o.ptx).stem, data_cache(o)
    if progress:
        longest = max(len(t) for t in traces)
        progress(f"{name}: {len(traces)} warps, up to {longest} instructions each, {len(configs)} run(s), "
                 f"L1 {cache.label()}")
    lanes = [w.lanes for w in an.warps]  # committed counts thread instructions: each one's active lanes
    return [simulate_ptx(name, an.kernel, traces, work, lines, c, cache, o.icache, o.max_cycles,  # type: ignore[arg-type]
                         o.engine, lanes) for c in configs]
