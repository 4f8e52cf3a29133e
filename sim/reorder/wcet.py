"""WCET figures of a launch: the paper's segment estimate (Eq. 1-4) and the charged cycle bound.

Both read the analyzer's per-warp traces and each request's lines; the
bound also the L1's answer to each request (the static order's LRU replay
under the unit, a miss for every load without it) and the front end's
configuration of the timing run (``sim.reorder_timing.sm_config``).
"""
from __future__ import annotations

from typing import Sequence

from warpcheck.models.reorder import l1
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.reorder.bound import Machine, Work, charged_cycles
from warpcheck.models.reorder.order import static_order
from warpcheck.models.reorder.unit import Workload
from warpcheck.spec.reorder.l1_replay import per_access
from warpcheck.sim.reorder.timing import Timing, Trace, sm_config, stream_of
from warpcheck.sim.frontend.workloads import ICache


def request_latencies(work: Workload, lines, spec: l1.L1Spec, timing: Timing, unit: bool,
                      order: str = "round") -> tuple[int, ...]:
    """Cycles from L1 to completion of every request, at most (hits as the static replay says, with the unit)."""
    worst_miss = timing.miss + timing.jitter
    seq = static_order(work.epochs, order, work.pcs or None)
    hits = dict(zip(seq, per_access([lines[w][k] for w, k in seq], spec))) if unit else {}
    out = []
    for w, k in seq:
        kind, addresses = lines[w][k]
        hit = kind == "S" or hits.get((w, k), False)
        out.append((timing.hit if hit else worst_miss) + max(len(addresses) - 1, 0))
    return tuple(out)


def icache_misses(kernel: Kernel, traces: Sequence[Trace], icache: ICache) -> int:
    """I-cache misses, at most: each line once if the kernel fits the direct-mapped cache, else every fetch."""
    if len(kernel) <= icache.lines * icache.line_size:
        return len({pc // icache.line_size for t in traces for pc, _ in t})
    return sum(len(t) for t in traces)


def cycle_bound(kernel: Kernel, traces: Sequence[Trace], work: Workload, lines, spec: l1.L1Spec, timing: Timing,
                unit: bool, policy: str = "lrr", channel: int = 4, order: str = "round",
                design: str = "baseline") -> dict[str, int]:
    """The charged cycle bound (``models.reorder_bound``) of one configuration of the timing run."""
    config = sm_config(len(traces), design, policy)
    streams = [stream_of(kernel, t, lambda c: config.latency[c]) for t in traces]
    alu = local = flushes = 0
    for trace, stream in zip(traces, streams):
        for (pc, access), (_, ins) in zip(trace, stream):
            flushes += ins.taken or ins.cls == "exit"
            if ins.cls != "mem":
                alu += config.latency[ins.cls] - 1
            elif access < 0:
                local += timing.cost.latency(kernel.instructions[pc])
    total = sum(len(t) for t in traces)
    done = Work(total, alu, local, request_latencies(work, lines, spec, timing, unit, order),
                icache_misses(kernel, traces, ICache()), flushes)
    m = Machine(len(traces), config.pipe, config.miss_latency, config.ibuffer, design == "swas",
                channel if unit else 0, policy == "rr")
    return charged_cycles(done, m)


def segment_estimates(kernel: Kernel, traces, lines, timing: Timing, miss_rate: float) -> tuple[float, float]:
    """The paper's segment WCET estimate with Eq. 3 (every access to memory) and Eq. 4 (``miss_rate``)."""
    from warpcheck.models.reorder.segment_wcet import MemoryModel, estimate, segment_latencies

    streams = [[(pc, kernel.instructions[pc], len(lines[w][acc][1]) if acc >= 0 else 0) for pc, acc in trace]
               for w, trace in enumerate(traces)]
    coal: dict[int, int] = {}
    for stream in streams:
        for pc, _, n in stream:
            coal[pc] = max(coal.get(pc, 0), n)
    base = timing.miss + timing.jitter
    out = []
    for rate in (None, miss_rate):
        mem = MemoryModel(base, timing.hit, 1, rate)
        out.append(estimate([segment_latencies(s, timing.cost.latency, coal, mem) for s in streams]))
    return out[0], out[1]
