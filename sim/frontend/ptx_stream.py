"""Real kernels on the front ends: a PTX launch's warps, run concretely, fed to the SM with a data cache.

The kernel analyzer (:mod:`warpcheck.sim.reorder.accesses`) runs every warp of
the launch on the SIMT activation stack with per-thread registers (the
semantics of ``warpcheck simt``) and gives each warp's dynamic trace: every
instruction it issues, in order, and its global accesses coalesced into L1
lines.  A trace becomes the warp's front-end stream
(:func:`warpcheck.sim.reorder.timing.stream_of`): the instruction class and
latency from the kit's instruction table, ``dep`` on an ALU result still in
flight, a taken branch wherever the next pc is not pc + 1 (divergence and
reconvergence included), the exit last.

Every warp of the launch is resident on one SM (W = the launch's warps).  The
front end is :class:`~warpcheck.models.reorder.frontend.LoadStoreFrontEnd`, the
model's step with a per-warp *hold*: the memory side holds a warp whose next
instruction reads (or overwrites) a load result not back yet, or stands at a
``bar.sync`` its block has not opened.  The memory side is the reordering
domain's (:class:`warpcheck.sim.reorder.timing._Memory`): one global request a
cycle leaves the LD/ST queue, through the reordering unit
(:class:`~warpcheck.models.reorder.unit.ReorderUnit`, its concrete step) or
straight to the L1, whose sets are the LRU model of
:mod:`warpcheck.models.reorder.l1`; a request whose lines all hit completes
``hit`` cycles later, else ``miss`` cycles later (one cycle more per extra
line).  Without a data cache (``DataCache(l1=None)``) every request takes the
``miss`` latency: memory with no cache in front.

The metrics are those of :mod:`warpcheck.sim.frontend.metrics` (Crouzet et al.,
Sec. VI-A5), read per cycle: the warp issued (``o.w`` of the step's record)
against the oracles ``osched1`` and ``osched2``, which here also leave out the
warps the memory side holds (a load's latency is the same for a static
analysis and for the hardware; only the front end's view differs).  A run ends
when every warp has issued its exit and the memory side is empty; its cycles
are the last completion's.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.errors import ConfigError, KitError
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import NOP_CLS
from warpcheck.models.frontend.oracles import osched1_eligible, osched2_eligible
from warpcheck.models.kernels.kernel import CLASS_INDEX, Kernel
from warpcheck.models.reorder.frontend import LoadStoreFrontEnd
from warpcheck.models.reorder.l1 import L1Spec
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.models.frontend.stream import Instr
from warpcheck.models.ts import TransitionSystem
from warpcheck.sim.frontend.compiled import CompiledFrontEnd, TraceAlgebra, emit
from warpcheck.sim.frontend.driver import Feeder, initial_params
from warpcheck.sim.frontend.metrics import Metrics, policy_label
from warpcheck.sim.frontend.workloads import ICache, WorkloadSource
from warpcheck.sim.reorder.timing import Timing, Trace, _Memory, stream_of

ENGINES = ("compiled", "reference")
Lines = Sequence[Sequence[tuple[str, tuple[int, ...]]]]  # per warp, per global request: kind "L"/"S", its lines


@dataclass(frozen=True)
class DataCache:
    """The memory side of a PTX run: the L1 (None: no data cache), its latencies, the reordering unit."""

    l1: L1Spec | None = field(default_factory=L1Spec)
    hit: int = 20
    miss: int = 200
    unit: bool = False
    channel: int = 4
    order: str = "round"

    def label(self) -> str:
        """``16K:4`` (or ``off``), with ``+unit`` behind the reordering unit."""
        if self.l1 is None:
            base = "off"
        else:
            size = self.l1.size
            base = f"{size // 1024}K:{self.l1.ways}" if size % 1024 == 0 else f"{size}:{self.l1.ways}"
        return base + ("+unit" if self.unit else "")

    def timing(self) -> Timing:
        """The memory side's latencies: without a cache, every request takes the miss latency."""
        return Timing(self.hit if self.l1 is not None else self.miss, self.miss)


@dataclass(frozen=True)
class PtxMetrics(Metrics):
    """The figures of one PTX run: the front end's, and the L1's."""

    dcache: str = "off"
    l1_loads: int = 0  # load lines looked up in the L1 (0 without a cache)
    l1_misses: int = 0
    global_requests: int = 0
    deadlock: bool = False  # nothing moved for longer than any latency while work was left (a unit at a barrier)


def ptx_config(base: SMConfig) -> SMConfig:
    """The front end of a PTX run: ``base`` with the memory class timed by the LD/ST side (latency 1)."""
    return base.with_(latency={**base.latency, "mem": 1})


class _Compiled(CompiledFrontEnd):
    """The LD/ST-timed front end compiled: issue, fetch and the oracles all leave out the held warps."""

    def _programs(self) -> dict[str, Callable[[Any, dict, dict], Any]]:
        fe = self.fe
        assert isinstance(fe, LoadStoreFrontEnd)
        return {"step": lambda T, s, i: fe.step(T, s, i),
                "fetch_choice": lambda T, s, i: fe.fetch_choice(T, s, fe.scheduled(T, s, i)),
                "issue_choice": lambda T, s, i: fe.scheduled(T, s, i),
                "osched1": lambda T, s, i: _oracle(fe, T, s, i, osched1_eligible),
                "osched2": lambda T, s, i: _oracle(fe, T, s, i, osched2_eligible)}


def _oracle(fe: LoadStoreFrontEnd, T: Any, s: dict, i: dict, eligible: Callable) -> Any:
    """An oracle's choice among the warps it deems eligible and the memory side does not hold."""
    return fe.choose(T, s, [T.and_(e, T.not_(i[f"m{w}.hold"])) for w, e in enumerate(eligible(fe, T, s))])


_COMPILED: dict[str, _Compiled] = {}
_HITS: dict[str, Callable[[dict, int, bool], bool]] = {}


def _compiled_hits(fe: LoadStoreFrontEnd) -> Callable[[dict, int, bool], bool]:
    """``fe.hits`` for each concrete fetching warp, traced and emitted as Python: (state, warp, asked) -> hit."""
    per_warp = []
    for w in range(fe.W):
        T = TraceAlgebra()
        s = {v.name: T.var(f"s:{v.name}", v.kind) for v in fe.state_vars()}
        code = emit(T, {"": fe.hits(T, s, {"f.hit": T.var("i:f.hit", "bool")}, w)}, "scalar", "hits")
        env: dict[str, Any] = {}
        exec(compile(code, f"<compiled {fe.name} hits of warp {w}>", "exec"), env)  # noqa: S102 - our own code
        per_warp.append(env["hits"])
    return lambda s, w, asked: per_warp[w](s, {"f.hit": asked})


def _programs(config: SMConfig, engine: str) -> tuple[Callable, Callable, Callable, Callable]:
    """(step, fetch_choice, osched1, osched2) over concrete values, each taking (state, inputs)."""
    if engine not in ENGINES:
        raise ConfigError(f"engine {engine!r} is not available for PTX kernels; use one of: {', '.join(ENGINES)}")
    if engine == "compiled":
        key = json.dumps(config.to_json(), sort_keys=True)
        if key not in _COMPILED:
            _COMPILED[key] = _Compiled(LoadStoreFrontEnd(config))
        c = _COMPILED[key]
        return c.step, c.fetch_choice, c.osched1, c.osched2
    fe = LoadStoreFrontEnd(config)
    return ((lambda s, i: fe.step(A, s, i)), (lambda s, i: fe.fetch_choice(A, s, fe.scheduled(A, s, i))),
            (lambda s, i: _oracle(fe, A, s, i, osched1_eligible)), (lambda s, i: _oracle(fe, A, s, i, osched2_eligible)))


def _hits(fe: LoadStoreFrontEnd) -> Callable[[dict, int, bool], bool]:
    """The compiled ``hits`` of ``fe``'s configuration, built once."""
    key = json.dumps(fe.c.to_json(), sort_keys=True)
    if key not in _HITS:
        _HITS[key] = _compiled_hits(fe)
    return _HITS[key]


def compiled_step(ts: TransitionSystem) -> Callable[[dict, dict], dict]:
    """``ts.step`` traced once over :class:`TraceAlgebra` and emitted as straight-line Python (concrete values)."""
    T = TraceAlgebra()
    s = {v.name: T.var(f"s:{v.name}", v.kind) for v in ts.state_vars()}
    i = {v.name: T.var(f"i:{v.name}", v.kind) for v in ts.input_vars()}
    env: dict[str, Any] = {"A": None, "_select": A.select, "_first_true": A.first_true,
                           "_first_from": A.first_from, "_argmin_true": A.argmin_true}
    code = emit(T, ts.step(T, s, i), "scalar", "step")
    exec(compile(code, f"<compiled {ts.name} step>", "exec"), env)  # noqa: S102 - our own generated code
    return env["step"]  # type: ignore[no-any-return]


def streams_of(kernel: Kernel, traces: Sequence[Trace], config: SMConfig) -> list[list[tuple[int, Instr]]]:
    """Each warp's front-end stream: (pc, instruction as the front end sees it), in issue order."""
    return [stream_of(kernel, t, lambda c: config.latency[c]) for t in traces]


@dataclass
class _Counts:
    cycles: int = 0
    issued: int = 0
    threads: int = 0  # active lanes of the instructions issued (thread instructions)
    nops: int = 0
    discrepancies: int = 0
    errors: int = 0
    misaligned: int = 0


class PtxRun:
    """One PTX launch on one front end and memory side, a cycle at a time (``issued``: each warp's classes).

    ``lanes`` gives, per warp, the active lanes of each instruction of its trace: ``committed`` counts them
    (thread instructions, as the paper's committed); without it, every issued instruction counts
    ``threads_per_warp``.
    """

    def __init__(self, name: str, kernel: Kernel, traces: Sequence[Trace], work: Workload, lines: Lines,
                 config: SMConfig, cache: DataCache = DataCache(), icache: tuple[int, int] = (16, 4),
                 engine: str = "compiled", lanes: Sequence[Sequence[int]] | None = None) -> None:
        if len(traces) != config.warps:
            raise ConfigError(f"the launch has {len(traces)} warps but the SM {config.warps}; give W = {len(traces)}")
        self.name, self.config, self.cache = name, ptx_config(config), cache
        full = [config.threads_per_warp] * max((len(t) for t in traces), default=0)
        self.lanes = [list(ls) for ls in lanes] if lanes is not None else [full] * len(traces)
        unit = ReorderUnit(work, cache.channel, cache.order, unit=cache.unit)
        self.mem = _Memory(kernel, traces, work, lines, unit, cache.l1 or L1Spec(), cache.timing())
        if engine == "compiled":
            self.mem.unit_step = compiled_step(unit)
        self.streams = streams_of(kernel, traces, self.config)
        self.classes = [[CLASS_INDEX[ins.cls] for _, ins in s] for s in self.streams]
        self.issued: list[list[int]] = [[] for _ in traces]
        self.step, choice, self.osched1, self.osched2 = _programs(self.config, engine)
        fe = LoadStoreFrontEnd(self.config)
        source = WorkloadSource(None, fe.W, fe.B, ICache(*icache), paths=self.streams)
        self.holds: dict[str, bool] = {}
        self.feeder = Feeder(fe, source, fetch_choice=lambda st: choice(st, self.holds),
                             hits=_hits(fe) if engine == "compiled" else None)
        self.s = fe.init(A, initial_params(fe, source.ibuffers()))
        self.dynamic = source.dynamic_count()
        self.now = self.active = 0
        self.n = _Counts()
        self.done_keys = [f"w{w}.done" for w in range(fe.W)]
        self.hold_keys = [f"m{w}.hold" for w in range(fe.W)]

    def cycle(self) -> None:
        """One clock cycle: holds, the front end's step with its metrics, then the memory side."""
        m, now, n = self.mem, self.now, self.n
        m.open_barriers()
        self.holds = dict(zip(self.hold_keys, m.holds(now)))
        i = {**self.feeder.inputs(self.s), **self.holds}
        o1, o2 = self.osched1(self.s, i), self.osched2(self.s, i)
        self.s = self.step(self.s, i)
        iw = self.s["o.w"]
        n.discrepancies += iw != o1
        n.errors += iw != o2
        moved = iw >= 0
        if moved and self.s["o.cls"] == NOP_CLS:
            n.nops += 1
        elif moved:
            self._issue(iw)
        if m.cycle(now) or moved:
            self.active = now
        self.now += 1

    def _issue(self, w: int) -> None:
        pos = self.mem.pos[w]
        self.n.misaligned += pos >= len(self.classes[w]) or self.s["o.cls"] != self.classes[w][pos]
        self.issued[w].append(self.s["o.cls"])
        self.n.issued += 1
        self.n.threads += self.lanes[w][pos] if pos < len(self.lanes[w]) else 0
        self.mem.issue(w, self.now)

    def finished(self) -> bool:
        """Every warp issued its exit and every request completed."""
        return all(self.s[k] for k in self.done_keys) and not self.mem.queue and not self.mem.pending

    def stuck(self) -> bool:
        """Nothing issued, delivered or completed for longer than any latency and a round of the unit."""
        t, c = self.mem.timing, self.config
        quiet = t.miss + 64 + c.miss_latency + c.pipe + 2 * self.mem.ts.channel * c.warps
        return self.now - self.active > quiet

    def run(self, max_cycles: int) -> PtxMetrics:
        """Run to the end (or ``max_cycles``, or a deadlock) and give the metrics."""
        deadlock = False
        while not self.finished():
            if self.now >= max_cycles or self.stuck():
                deadlock = self.now < max_cycles
                break
            self.cycle()
        done = self.finished()
        unfinished = sum(p != len(t) for p, t in zip(self.mem.pos, self.mem.traces)) if done else 0
        if self.n.misaligned or unfinished:
            raise KitError(f"kernel {self.name!r}: the front end issued {self.n.misaligned} instruction(s) out of "
                           f"their warp's trace and left {unfinished} trace(s) unfinished; a bug of the kit")
        return self._metrics(done, deadlock)

    def _metrics(self, done: bool, deadlock: bool) -> PtxMetrics:
        c, n = self.config, self.n
        cycles = max(self.mem.end, self.now) if done else self.now
        committed = n.threads
        requests = sum(len(w) for w in self.mem.lines)
        return PtxMetrics(self.name, c.design, policy_label(c), c.warps, cycles, committed, n.issued,
                          committed / cycles if cycles else 0.0, n.discrepancies, n.errors,
                          n.errors / cycles if cycles else 0.0, n.nops, done, self.dynamic,
                          self.cache.label(), self.mem.loads if self.cache.l1 else 0,
                          self.mem.misses if self.cache.l1 else 0, requests, deadlock)


def simulate_ptx(name: str, kernel: Kernel, traces: Sequence[Trace], work: Workload, lines: Lines,
                 config: SMConfig, cache: DataCache = DataCache(), icache: tuple[int, int] = (16, 4),
                 max_cycles: int = 200_000, engine: str = "compiled",
                 lanes: Sequence[Sequence[int]] | None = None) -> PtxMetrics:
    """Run the launch's warps (their traces) on ``config`` with the memory side ``cache``; the paper's metrics."""
    return PtxRun(name, kernel, traces, work, lines, config, cache, icache, engine, lanes).run(max_cycles)
