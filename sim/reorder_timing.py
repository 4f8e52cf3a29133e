"""Timing simulation of a kernel on one SM, with or without the reordering unit (Fig. 12-13 style).

Every warp of the grid is resident.  Each cycle the warp scheduler issues at
most one instruction of the warps' dynamic streams (from the analyzer):

* ``lrr`` (default): the first ready warp after the last one issued;
* ``rr`` (pure round robin): the next warp in turn, waiting for it if it is not ready.

A warp is ready when its next instruction's source registers are available
(a scoreboard of result times) and it is not held at a barrier.  A global
access goes to the LD/ST unit's queue; each cycle the LD/ST delivers the
oldest queued request that the rules of ``models.reorder`` let it deliver,
into the channels (with the unit) or straight to L1 (without).  The unit's
step runs concretely.  A request that reaches L1 at cycle t completes at
t + hit latency when all its lines hit, else t + miss latency, plus one cycle
per extra line, plus on a miss a random 0 .. ``jitter`` cycles (the memory side's variation,
fixed by ``seed``); a load's result is available then.  Other instructions take
their class latency (``models.cfg.CostModel``).  A warp passes ``bar.sync``
once every warp of its block has reached it and has no request left before L1.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models import l1
from warpcheck.models.cfg import CostModel
from warpcheck.models.kernel import Kernel
from warpcheck.models.ptx import operand_registers
from warpcheck.models.reorder import ReorderUnit, Workload
from warpcheck.models.errors import ConfigError

POLICIES = ("lrr", "rr")


@dataclass(frozen=True)
class Timing:
    """Latencies of the timing simulation."""

    hit: int = 20
    miss: int = 200
    jitter: int = 0  # a miss takes up to this many cycles more (memory-side variation), drawn from seed
    seed: int = 0
    cost: CostModel = field(default_factory=CostModel)


@dataclass
class TimingRun:
    """Cycles, the L1 order and its load misses."""

    cycles: int
    order: list[tuple[int, int]]
    load_misses: int
    loads: int
    deadlock: bool = False  # nothing moved for longer than any latency while work was left


class _Warp:
    def __init__(self, trace: tuple[tuple[int, int], ...], block: int) -> None:
        self.trace, self.block, self.next = trace, block, 0
        self.ready_at: dict[str, float] = {}
        self.at_barrier = False
        self.barriers = 0

    @property
    def done(self) -> bool:
        return self.next >= len(self.trace)


class _Sim:
    def __init__(self, kernel: Kernel, traces, work: Workload, lines, unit: ReorderUnit, spec: l1.L1Spec,
                 timing: Timing, policy: str) -> None:
        self.kernel, self.work, self.lines, self.ts, self.spec, self.timing = kernel, work, lines, unit, spec, timing
        self.policy = policy
        self.warps = [_Warp(t, b) for t, b in zip(traces, work.blocks)]
        self.queue: list[tuple[int, int]] = []
        self.state = unit.init(A, {})
        self.sets: dict[int, tuple[int, ...]] = {}
        self.pending: dict[tuple[int, int], str] = {}  # request -> destination register of a load ('' for a store)
        self.order: list[tuple[int, int]] = []
        self.loads = self.misses = 0
        self.last, self.now, self.end = -1, 0, 0
        self.rng = random.Random(timing.seed)
        self.active = 0

    def ready(self, w: int) -> bool:
        warp = self.warps[w]
        if warp.done or warp.at_barrier:
            return False
        ins = self.kernel.instructions[warp.trace[warp.next][0]]
        regs = [r for op in list(ins.srcs) + [ins.guard or ""] for r in operand_registers(op.lstrip("!"))]
        regs += list(ins.dst)  # write after an outstanding load: wait for it too
        return all(warp.ready_at.get(r, 0) <= self.now for r in regs)

    def pick(self) -> int | None:
        n = len(self.warps)
        order = [(self.last + 1 + j) % n for j in range(n)]
        if self.policy == "lrr":
            return next((w for w in order if self.ready(w)), None)
        turn = next((w for w in order if not self.warps[w].done), None)
        return turn if turn is not None and self.ready(turn) else None

    def issue(self, w: int) -> None:
        warp = self.warps[w]
        pc, access = warp.trace[warp.next]
        ins = self.kernel.instructions[pc]
        warp.next += 1
        self.last = w
        if access >= 0:
            self.queue.append((w, access))
            self.pending[(w, access)] = ins.dst[0] if ins.dst and ins.base != "st" else ""
            for d in ins.dst:
                warp.ready_at[d] = float("inf")
        elif ins.base in ("bar", "barrier"):
            warp.at_barrier, warp.barriers = True, warp.barriers + 1
        else:
            for d in ins.dst:
                warp.ready_at[d] = self.now + self.timing.cost.latency(ins)
        self.end = max(self.end, self.now + 1)

    def release_barriers(self) -> None:
        for b in set(self.work.blocks):
            peers = [w for w in range(len(self.warps)) if self.work.blocks[w] == b]
            live = [w for w in peers if not self.warps[w].done or self.warps[w].at_barrier]
            waiting = all(self.warps[w].at_barrier for w in live)
            quiet = not any(q in peers for q, _ in self.pending)
            if live and waiting and quiet:
                for w in live:
                    self.warps[w].at_barrier = False

    def ldst(self) -> tuple[int, int]:
        """The oldest queued request the rules let the LD/ST deliver this cycle, or a stall."""
        for j, (w, k) in enumerate(self.queue):
            if self.ts.deliverable(A, self.state, w, k):
                return self.queue.pop(j)
        return (-1, 0)

    def cycle(self) -> None:
        self.release_barriers()
        w = self.pick()
        if w is not None:
            self.issue(w)
        a_warp, a_idx = self.ldst()
        self.state = self.ts.step(A, self.state, {"a_warp": a_warp, "a_idx": a_idx})
        if self.state["o_valid"]:
            self.complete((self.state["o_warp"], self.state["o_idx"]))
        if w is not None or a_warp >= 0 or self.state["o_valid"]:
            self.active = self.now
        self.now += 1

    def stuck(self) -> bool:
        """Nothing issued, delivered or sent for longer than the longest latency and the search pointers' round."""
        quiet = self.timing.miss + self.timing.jitter + 64 + 2 * self.ts.channel * len(self.warps)
        return self.now - self.active > quiet

    def complete(self, req: tuple[int, int]) -> None:
        kind, addresses = self.lines[req[0]][req[1]]
        all_hit = True
        for line in addresses:
            key = self.spec.set_of(line)
            ways = self.sets.get(key, (l1.EMPTY,) * self.spec.ways)
            if kind == "L":
                self.sets[key], hit = l1.load(A, ways, line)
                self.loads += 1
                self.misses += 0 if hit else 1
                all_hit = all_hit and hit
            else:
                self.sets[key], _ = l1.store(A, ways, line, self.spec.stores)
        base = self.timing.hit if all_hit else self.timing.miss + self.rng.randint(0, self.timing.jitter)
        latency = base + max(len(addresses) - 1, 0)
        dst = self.pending.pop(req)
        if dst:
            self.warps[req[0]].ready_at[dst] = self.now + latency
        self.order.append(req)
        self.end = max(self.end, self.now + latency)

    def finished(self) -> bool:
        return all(w.done for w in self.warps) and not self.queue and not self.pending


def simulate_kernel(kernel: Kernel, traces, work: Workload, lines, spec: l1.L1Spec, unit: bool = True,
                    policy: str = "lrr", timing: Timing | None = None, channel: int = 4, order: str = "round",
                    max_cycles: int = 10 ** 6) -> TimingRun:
    """Run the kernel's warps to the end; the cycle count is the last completion."""
    if policy not in POLICIES:
        raise ConfigError(f"unknown policy {policy!r}; known policies: {', '.join(POLICIES)}")
    ts = ReorderUnit(work, channel, order, unit=unit)
    sim = _Sim(kernel, traces, work, lines, ts, spec, timing or Timing(), policy)
    while not sim.finished():
        if sim.stuck():
            return TimingRun(sim.now, sim.order, sim.misses, sim.loads, deadlock=True)
        if sim.now >= max_cycles:
            raise ConfigError(f"kernel {kernel.name!r} did not finish within {max_cycles} cycles; "
                              f"give a smaller launch or raise the limit")
        sim.cycle()
    return TimingRun(max(sim.end, sim.now), sim.order, sim.misses, sim.loads)


def segment_estimates(kernel: Kernel, traces, lines, timing: Timing, miss_rate: float) -> tuple[float, float]:
    """The paper's segment WCET estimate with Eq. 3 (every access to memory) and Eq. 4 (``miss_rate``)."""
    from warpcheck.models.segment_wcet import MemoryModel, estimate, segment_latencies

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
