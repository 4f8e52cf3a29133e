"""Timing simulation of a kernel on the kit's SM front end, with or without the reordering unit (Fig. 12-13).

Every warp of the grid is resident on one SM.  The analyzer's per-warp dynamic
traces become the front end's instruction streams (class, whether it depends
on an ALU result still in flight, taken branches); the front end
(``models.reorder_frontend.LoadStoreFrontEnd``, either design, fetch through
the I-cache, ibuffers, the issue policy) runs its step concretely, and the
memory side below times what the class latency cannot:

* a global access issued at cycle t joins the LD/ST unit's queue; each cycle
  the LD/ST delivers the oldest queued request that the rules of
  ``models.reorder`` let it deliver, into the channels (with the unit) or
  straight to L1 (without); the unit's step runs concretely;
* a request that reaches L1 at cycle t completes at t + hit latency when all
  its lines hit, else t + miss latency plus a random 0 .. ``jitter`` cycles
  (the memory side's variation, fixed by ``seed``), plus one cycle per extra
  line; a load's registers are available then;
* a param, shared or local access completes at issue + its space latency
  (``models.cfg.CostModel``);
* the memory side *holds* a warp (the front end's ``m{w}.hold`` input) while
  its next instruction reads or overwrites a memory result not back yet, or is
  a ``bar.sync`` its block has not opened; a block opens its k-th barrier once
  each of its warps has finished or stands at that barrier and none of its
  requests is still before L1.

Policies: ``lrr`` (the kit's loose round robin) and ``rr`` (pure round robin,
the kit's ``srr``: the next warp in turn, idle if it is not ready), used for
issue and, on the baseline design, for fetch.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.reorder import l1
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.frontend.config import DEFAULT_LATENCY, SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import NOP_CLS
from warpcheck.models.kernels.kernel import CLASS_INDEX, Instruction, Kernel
from warpcheck.models.kernels.ptx import operand_registers
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.models.reorder.frontend import LoadStoreFrontEnd
from warpcheck.models.frontend.config import DESIGNS
from warpcheck.models.frontend.stream import Instr
from warpcheck.sim.frontend.compiled import CompiledFrontEnd
from warpcheck.sim.frontend.driver import Feeder, initial_params
from warpcheck.sim.frontend.workloads import ICache, WorkloadSource

POLICIES = {"lrr": "lrr", "rr": "srr"}  # our names -> the kit's policies
MAX_ALU_LATENCY = max(v for k, v in DEFAULT_LATENCY.items() if k != "mem")
Trace = Sequence[tuple[int, int]]  # (pc, access index or -1), the analyzer's per-warp trace


@dataclass(frozen=True)
class Timing:
    """Latencies of the timing simulation (memory side; the front end's are its configuration's)."""

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
    misaligned: int = 0  # issues whose class was not the trace's next instruction's (a bug of the kit)


def sm_config(warps: int, design: str = "baseline", policy: str = "lrr") -> SMConfig:
    """The front end for a timing run: the kit's defaults, memory results timed by the LD/ST side."""
    if policy not in POLICIES:
        raise ConfigError(f"unknown policy {policy!r}; known policies: {', '.join(POLICIES)}")
    if design not in DESIGNS:
        raise ConfigError(f"unknown design {design!r}; known designs: {', '.join(DESIGNS)}")
    return SMConfig(warps=warps, design=design, fetch_policy=POLICIES[policy], issue_policy=POLICIES[policy],
                    latency={**DEFAULT_LATENCY, "mem": 1})


def registers(ins: Instruction) -> list[str]:
    """The registers ``ins`` reads (sources and guard)."""
    return [r for op in list(ins.srcs) + [ins.guard or ""] for r in operand_registers(op.lstrip("!"))]


def stream_of(kernel: Kernel, trace: Trace, latency: Callable[[str], int]) -> list[tuple[int, Instr]]:
    """The front end's view of one warp's trace.

    ``dep``: a source was written by an ALU instruction fewer dynamic
    instructions back than its latency (it may still be in flight; memory
    results are the memory side's).  A jump (next pc not pc + 1) is a taken
    branch; the last instruction is the exit; an exit of some lanes mid-trace,
    or a real ``nop``, is an ``int``.
    """
    out: list[tuple[int, Instr]] = []
    for j, (pc, _) in enumerate(trace):
        ins = kernel.instructions[pc]
        reads = set(registers(ins))
        earlier = [kernel.instructions[trace[j - back][0]] for back in range(1, min(j, MAX_ALU_LATENCY) + 1)]
        dep = any(reads & set(e.dst) for back, e in enumerate(earlier, 1) if e.cls != "mem" and back < latency(e.cls))
        last = j == len(trace) - 1
        taken = not last and trace[j + 1][0] != pc + 1
        cls = "exit" if last else "branch" if taken else ins.cls
        out.append((pc, Instr("int" if cls in ("nop", "exit") and not last else cls, dep, taken)))
    return out


class _LdstCompiled(CompiledFrontEnd):
    """The compiled front end whose fetch (SWaS: the issued warp) sees the memory side's holds."""

    def _programs(self) -> dict[str, Callable[[Any, dict, dict], Any]]:
        fe, progs = self.fe, super()._programs()
        progs["fetch_choice"] = lambda T, s, i: fe.fetch_choice(T, s, fe.scheduled(T, s, i))
        return progs


_COMPILED: dict[tuple[int, str, str], _LdstCompiled] = {}


def _engine(config: SMConfig, engine: str) -> tuple[Callable, Callable]:
    """(step, fetch_choice) over concrete values: compiled once per configuration, or the model's own."""
    fe = LoadStoreFrontEnd(config)
    if engine == "reference":
        return (lambda s, i: fe.step(A, s, i)), (lambda s, i: fe.fetch_choice(A, s, fe.scheduled(A, s, i)))
    if engine != "compiled":
        raise ConfigError(f"engine {engine!r} is unknown; use one of: compiled, reference")
    key = (config.warps, config.design, config.issue_policy)
    if key not in _COMPILED:
        _COMPILED[key] = _LdstCompiled(fe)
    c = _COMPILED[key]
    return c.step, c.fetch_choice


class _Memory:
    """The memory side: LD/ST queue, the unit (or none), the L1, barriers, register results."""

    def __init__(self, kernel: Kernel, traces: Sequence[Trace], work: Workload, lines, unit: ReorderUnit,
                 spec: l1.L1Spec, timing: Timing) -> None:
        self.kernel, self.traces, self.work, self.lines, self.ts, self.spec = kernel, traces, work, lines, unit, spec
        self.timing, self.rng = timing, random.Random(timing.seed)
        self.state = unit.init(A, {})
        self.unit_step: Callable[[dict, dict], dict] = lambda s, i: unit.step(A, s, i)  # or the same step compiled
        self.reads = [registers(ins) + list(ins.dst) for ins in kernel.instructions]  # per pc, for the holds
        self.queue: list[tuple[int, int]] = []
        self.pending: dict[tuple[int, int], tuple[str, ...]] = {}  # request before L1 -> registers it loads
        self.ready_at: list[dict[str, float]] = [{} for _ in traces]
        self.pos = [0] * len(traces)  # next instruction of each warp's trace (the head, once fetched)
        self.barrier = [self._bar(pc) for pc in range(len(kernel.instructions))]  # per pc: a bar.sync
        self.bars = [[sum(1 for q, _ in t[:j] if self._bar(q)) for j in range(len(t) + 1)] for t in traces]
        self.opened = {b: 0 for b in work.blocks}
        self.peers = {b: [w for w in range(len(traces)) if work.blocks[w] == b] for b in self.opened}
        self.sets: dict[int, tuple[int, ...]] = {}
        self.order: list[tuple[int, int]] = []
        self.loads = self.misses = self.end = 0
        # Per warp, kept up to date by issue and complete: the cycle until which its next instruction's
        # registers are not back (0: none pending; -1: the warp is done) and the barrier it stands at.
        self.until: list[float] = [0] * len(traces)
        self.stands = [0] * len(traces)
        self.moved = True  # a warp moved or a request completed since the barriers were last looked at
        for w in range(len(traces)):
            self._refresh(w)

    def _bar(self, pc: int) -> bool:
        return self.kernel.instructions[pc].base in ("bar", "barrier")

    def at_barrier(self, w: int) -> int:
        """The number of the barrier warp ``w`` stands at (1, 2, ...), or 0."""
        t, p = self.traces[w], self.pos[w]
        return self.bars[w][p] + 1 if p < len(t) and self.barrier[t[p][0]] else 0

    def _refresh(self, w: int) -> None:
        """Recompute what holds warp ``w`` (after its position or its registers' readiness changed)."""
        t, p = self.traces[w], self.pos[w]
        if p >= len(t):
            self.until[w], self.stands[w], self.moved = -1, 0, True
            return
        ready = self.ready_at[w]
        self.until[w] = max([ready.get(r, 0) for r in self.reads[t[p][0]]], default=0)
        self.stands[w] = self.at_barrier(w)
        self.moved = True

    def open_barriers(self) -> None:
        """Open each block's barrier that all its live warps stand at with none of their requests before L1."""
        if not self.moved:  # nothing it reads changed (issue and complete refresh the warps they touch)
            return
        self.moved = False
        busy = {q for q, _ in self.pending}
        for b, peers in self.peers.items():
            ks = {self.stands[w] for w in peers if self.until[w] >= 0}
            if len(ks) == 1 and 0 not in ks and busy.isdisjoint(peers):
                self.opened[b] = max(self.opened[b], ks.pop())

    def held(self, w: int, now: int) -> bool:
        """Whether the memory side holds warp ``w`` at cycle ``now`` (a register not back, a closed barrier)."""
        return self.until[w] > now or self.stands[w] > self.opened[self.work.blocks[w]]

    def holds(self, now: int) -> list[bool]:
        """``held`` of every warp."""
        opened, blocks, stands = self.opened, self.work.blocks, self.stands
        return [u > now or stands[w] > opened[blocks[w]] for w, u in enumerate(self.until)]

    def issue(self, w: int, now: int) -> None:
        pc, access = self.traces[w][self.pos[w]]
        ins = self.kernel.instructions[pc]
        self.pos[w] += 1
        if access >= 0:
            self.queue.append((w, access))
            loads = ins.dst if ins.base != "st" else ()
            self.pending[(w, access)] = loads
            self.ready_at[w].update({d: float("inf") for d in loads})
        elif ins.cls == "mem":
            done = now + self.timing.cost.latency(ins)
            self.ready_at[w].update({d: done for d in ins.dst})
            self.end = max(self.end, done)
        self._refresh(w)

    def cycle(self, now: int) -> bool:
        """Deliver, step the unit, complete what reached L1; whether anything moved."""
        a_warp, a_idx = next((self.queue.pop(j) for j, (w, k) in enumerate(self.queue)
                              if self.ts.deliverable(A, self.state, w, k)), (-1, 0))
        self.state = self.unit_step(self.state, {"a_warp": a_warp, "a_idx": a_idx})
        if self.state["o_valid"]:
            self.complete((self.state["o_warp"], self.state["o_idx"]), now)
        return a_warp >= 0 or bool(self.state["o_valid"])

    def complete(self, req: tuple[int, int], now: int) -> None:
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
        done = now + base + max(len(addresses) - 1, 0)
        self.ready_at[req[0]].update({d: done for d in self.pending.pop(req)})
        self._refresh(req[0])
        self.order.append(req)
        self.end = max(self.end, done)


class _Sim:
    """The front end and the memory side, one cycle at a time."""

    def __init__(self, config: SMConfig, mem: _Memory, streams, engine: str) -> None:
        self.config, self.mem, self.now, self.active, self.misaligned = config, mem, 0, 0, 0
        self.classes = [[CLASS_INDEX[ins.cls] for _, ins in s] for s in streams]
        self.step, choice = _engine(config, engine)
        source = WorkloadSource(None, config.warps, config.ibuffer, ICache(), paths=streams)
        fe = LoadStoreFrontEnd(config)
        self.holds: dict[str, bool] = {}
        self.feeder = Feeder(fe, source, fetch_choice=lambda st: choice(st, self.holds))
        self.s = fe.init(A, initial_params(fe, source.ibuffers()))
        self.done_keys = [f"w{w}.done" for w in range(config.warps)]
        self.hold_keys = [f"m{w}.hold" for w in range(config.warps)]

    def cycle(self) -> None:
        m, now = self.mem, self.now
        m.open_barriers()
        self.holds = dict(zip(self.hold_keys, m.holds(now)))
        i = {**self.feeder.inputs(self.s), **self.holds}
        self.s = self.step(self.s, i)
        iw = self.s["o.w"]
        issued = iw >= 0 and self.s["o.cls"] != NOP_CLS
        if issued:
            pos = m.pos[iw]
            self.misaligned += pos >= len(self.classes[iw]) or self.s["o.cls"] != self.classes[iw][pos]
            m.issue(iw, now)
        if m.cycle(now) or issued:
            self.active = now
        self.now += 1

    def finished(self) -> bool:
        return all(self.s[k] for k in self.done_keys) and not self.mem.queue and not self.mem.pending

    def stuck(self) -> bool:
        """Nothing issued, delivered or sent for longer than any latency and the search pointers' round."""
        t, c = self.mem.timing, self.config
        quiet = t.miss + t.jitter + 64 + c.miss_latency + c.pipe + 2 * self.mem.ts.channel * c.warps
        return self.now - self.active > quiet


def simulate_kernel(kernel: Kernel, traces: Sequence[Trace], work: Workload, lines, spec: l1.L1Spec,
                    unit: bool = True, policy: str = "lrr", timing: Timing | None = None, channel: int = 4,
                    order: str = "round", max_cycles: int = 10 ** 6, design: str = "baseline",
                    engine: str = "compiled") -> TimingRun:
    """Run the kernel's warps to the end on the front end of ``design``; the cycles end at the last completion."""
    timing = timing or Timing()
    config = sm_config(len(traces), design, policy)
    streams = [stream_of(kernel, t, lambda c: config.latency[c]) for t in traces]
    mem = _Memory(kernel, traces, work, lines, ReorderUnit(work, channel, order, unit=unit), spec, timing)
    sim = _Sim(config, mem, streams, engine)
    while not sim.finished():
        if sim.stuck():
            return TimingRun(sim.now, mem.order, mem.misses, mem.loads, deadlock=True)
        if sim.now >= max_cycles:
            raise ConfigError(f"kernel {kernel.name!r} did not finish within {max_cycles} cycles; "
                              f"give a smaller launch or raise the limit")
        sim.cycle()
    unfinished = sum(p != len(t) for p, t in zip(mem.pos, traces))
    return TimingRun(max(mem.end, sim.now), mem.order, mem.misses, mem.loads, misaligned=sim.misaligned + unfinished)
