"""Several kernels on one SM: per-kernel response times under LRR, GTO and QAWS (Singh et al., Sec. IV).

Kernels are named K1, K2, ... in the order given.  Each runs its own
workload on its own warps (the SM's warps are split evenly, in launch order,
so a lower warp number is an older warp and GTO's "oldest" is "launched
first").  Kernel ``Kn`` is launched at its launch cycle (default n - 1: K2
one cycle after K1, the paper's pessimistic case).

How a late launch is modelled: the configuration gives each kernel its
launch cycle (``SMConfig.launches``) and the front end keeps a launch counter
per late kernel; its warps are neither eligible to issue nor to fetch until
the counter has run down, so they first issue at cycle L (any L >= 0, in
the simulator and in the solver alike).  Each kernel has its own I-cache
(kernels do not evict each other's lines).

Cycle conventions: a warp *exits* at the cycle its ``exit`` issues; a
kernel *finishes* at (the cycle its last warp exits + 1), counted from cycle
0, the first launch; its response time is its finish - its launch; a warp's
time is (its exit cycle + 1) - its kernel's launch.  The average execution
time of a run is the mean of the kernels' finish cycles (the time axis of the
paper's Fig. 3, on which its averages 29 and 31 hold).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.stream import Instr
from warpcheck.models.qaws.policies import POLICY_OF
from warpcheck.sim.frontend.driver import Feeder, initial_params
from warpcheck.sim.frontend.metrics import compiled
from warpcheck.sim.frontend.workloads import ICache, Workload, WorkloadSource

# The policies compared side by side; "gto" is the kit's gtlo (warp number = launch age, see docs/qaws.md).


@dataclass(frozen=True)
class Kernel:
    """One kernel of a multi-kernel run: its name, workload, warps, budget and launch cycle."""

    name: str
    workload: Workload
    warps: int
    budget: int = 1
    launch: int = 0


@dataclass(frozen=True)
class KernelTimes:
    """What one kernel took in one run."""

    name: str
    launch: int
    response: int | None  # None: not finished within the cycle limit
    warp_times: tuple[int | None, ...]

    @property
    def finish(self) -> int | None:
        """The cycle after its last warp's exit, counted from cycle 0 (None: not finished)."""
        return None if self.response is None else self.launch + self.response

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.name, "launch": self.launch, "response": self.response, "finish": self.finish,
                "warp_times": list(self.warp_times)}


@dataclass(frozen=True)
class MultiRun:
    """One policy's run of all kernels: per-kernel times and the issue order."""

    policy: str
    kernels: tuple[KernelTimes, ...]
    cycles: int
    order: tuple[int, ...]  # the warp issued at each cycle (-1: none)

    @property
    def average(self) -> float | None:
        """Average execution time: the mean of the kernels' finish cycles (None if one did not finish)."""
        times = [k.finish for k in self.kernels]
        return None if any(t is None for t in times) else sum(t for t in times if t is not None) / len(times)

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "cycles": self.cycles, "average_execution_time": self.average,
                "kernels": [k.to_json() for k in self.kernels], "order": list(self.order)}


class MultiSource:
    """A driver source over several kernels' warps; each kernel keeps its own I-cache."""

    def __init__(self, kernels: Sequence[Kernel], ibuffer: int, icache: tuple[int, int] | None = (16, 4)) -> None:
        self.parts = [WorkloadSource(k.workload, k.warps, ibuffer, ICache(*icache) if icache else PerfectICache())
                      for k in kernels]
        self.where = [(n, w) for n, k in enumerate(kernels) for w in range(k.warps)]

    def ibuffers(self) -> list[list[Instr]]:
        """Warm-start ibuffers (a late warp's wait for its launch is the front end's launch counter)."""
        return [list(self.parts[n].ibuffers()[w]) for n, w in self.where]

    def __call__(self, warp: int, k: int) -> Instr:
        n, w = self.where[warp]
        return self.parts[n](w, k)


class PerfectICache(ICache):
    """An I-cache where every fetch hits (for hand-made examples that ignore instruction fetch)."""

    def access(self, pc: int) -> bool:
        return True


def check_kernels(kernels: Sequence[Kernel]) -> None:
    """One-line errors for negative launch cycles and empty kernels."""
    for k in kernels:
        if k.launch < 0:
            raise ConfigError(f"launch cycle of {k.name} = {k.launch} is not allowed; it must be >= 0")
        if k.warps < 1:
            raise ConfigError(f"kernel {k.name} has no warp; give the SM at least one warp per kernel")


def sm_config(kernels: Sequence[Kernel], base: SMConfig, policy: str) -> SMConfig:
    """The SM running ``kernels`` (in launch order) under ``policy``."""
    kow = tuple(n for n, k in enumerate(kernels) for _ in range(k.warps))
    return base.with_(design="swas", issue_policy=POLICY_OF[policy], warps=len(kow), kernel_of_warp=kow,
                      budgets=tuple(k.budget for k in kernels), launches=tuple(k.launch for k in kernels))


def run_kernels(kernels: Sequence[Kernel], base: SMConfig, policy: str, max_cycles: int = 100_000,
                icache: tuple[int, int] | None = (16, 4), engine: str = "compiled") -> MultiRun:
    """Run every kernel on one SM under ``policy`` until all warps exit (or ``max_cycles``).

    ``icache``: (lines, instructions per line) of each kernel's I-cache; None: every fetch hits.
    """
    kernels = sorted(kernels, key=lambda k: k.launch)  # stable: equal launches keep the given order
    check_kernels(kernels)
    config = sm_config(kernels, base, policy)
    fe = FrontEnd(config)
    source = MultiSource(kernels, config.ibuffer, icache)
    s = fe.init(A, initial_params(fe, source.ibuffers()))
    cfe = compiled(config) if engine == "compiled" else None
    feeder = Feeder(fe, source, fetch_choice=(lambda st: cfe.fetch_choice(st, None)) if cfe else None)
    exits: list[int | None] = [None] * fe.W
    order: list[int] = []
    t = 0
    while t < max_cycles and not all(s[f"w{w}.done"] for w in range(fe.W)):
        i = feeder.inputs(s)
        s = cfe.step(s, i) if cfe else fe.step(A, s, i)
        order.append(s["o.w"])
        exits = [t if e is None and s[f"w{w}.done"] else e for w, e in enumerate(exits)]
        t += 1
    return MultiRun(policy, _times(kernels, source, exits), t, tuple(order))


def _times(kernels: Sequence[Kernel], source: MultiSource, exits: list[int | None]) -> tuple[KernelTimes, ...]:
    out = []
    for n, k in enumerate(kernels):
        mine = [exits[w] for w, (m, _) in enumerate(source.where) if m == n]
        warp_times = tuple(None if e is None else e + 1 - k.launch for e in mine)
        done = all(x is not None for x in warp_times)
        out.append(KernelTimes(k.name, k.launch, max(x for x in warp_times if x is not None) if done else None,
                               warp_times))
    return tuple(out)
