"""Run a workload on one SM configuration and collect the metrics of Crouzet et al. (Sec. VI-A5).

Per cycle (from the state at the start of the cycle, with the model's own
functions): the issued warp ``fe.issue_choice``, its head instruction's class,
and the choices of the oracles ``osched1`` (discrepancies) and ``osched2``
(errors).  A cycle counts once even if both oracles disagree.  The run stops
when every warp is done (its ``exit`` issued) or at the cycle cap, which the
result reports as ``finished = False``.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from tabulate import tabulate

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import NOP_CLS, FrontEnd
from warpcheck.models.frontend.oracles import osched1_choice, osched2_choice
from warpcheck.sim.frontend.compiled import CompiledFrontEnd
from warpcheck.sim.frontend.driver import Feeder, initial_params, run_iter
from warpcheck.sim.frontend.limits import DEFAULT_MAX_CYCLES, ENGINES
from warpcheck.sim.frontend.workloads import ICache, Workload, WorkloadSource



@dataclass(frozen=True)
class Metrics:
    """The figures of one run."""

    workload: str
    design: str
    policies: str  # "FETCH-ISSUE" for the baseline, "ISSUE" for SWaS
    warps: int
    cycles: int
    committed: int  # non-NOP warp instructions issued x threads per warp
    warp_instructions: int  # non-NOP warp instructions issued
    ipc: float
    discrepancies: int
    errors: int
    error_rate: float
    nops: int
    finished: bool
    dynamic_instructions: int  # what the workload's warps execute in a full run

    def to_json(self) -> dict[str, Any]:
        """The figures as a JSON object."""
        return asdict(self)


def policy_label(config: SMConfig) -> str:
    """'lrr-gtlrr' for the baseline (fetch-issue), 'gtlrr' for SWaS."""
    if config.design == "swas":
        return config.issue_policy
    return f"{config.fetch_policy}-{config.issue_policy}"


_COMPILED: dict[str, CompiledFrontEnd] = {}


def compiled(config: SMConfig) -> CompiledFrontEnd:
    """The compiled front end of ``config`` (built once per configuration)."""
    key = json.dumps(config.to_json(), sort_keys=True)
    if key not in _COMPILED:
        _COMPILED[key] = CompiledFrontEnd(FrontEnd(config))
    return _COMPILED[key]


def _reference_run(fe: FrontEnd, source: WorkloadSource) -> Iterator[tuple[dict, Callable, Callable, Callable]]:
    for s, _ in run_iter(fe, source.ibuffers(), source):
        yield s, lambda: fe.issue_choice(A, s), lambda: osched1_choice(fe, A, s), lambda: osched2_choice(fe, A, s)


def _compiled_run(cfe: CompiledFrontEnd, source: WorkloadSource) -> Iterator[tuple[dict, Callable, Callable, Callable]]:
    fe = cfe.fe
    s = fe.init(A, initial_params(fe, source.ibuffers()))
    feeder = Feeder(fe, source, fetch_choice=lambda st: cfe.fetch_choice(st, None))
    while True:
        i = feeder.inputs(s)
        yield s, lambda: cfe.issue_choice(s, i), lambda: cfe.osched1(s, i), lambda: cfe.osched2(s, i)
        s = cfe.step(s, i)


def simulate(workload: Workload, config: SMConfig, max_cycles: int = DEFAULT_MAX_CYCLES,
             icache: ICache | None = None, engine: str = "compiled") -> Metrics:
    """Run ``workload`` on ``config`` until every warp is done or ``max_cycles`` pass.

    ``engine``: "compiled" (the traced step, :mod:`warpcheck.sim.frontend.compiled`),
    "reference" (the model's functions over the concrete algebra) or "native"
    (numba, :mod:`warpcheck.sim.frontend.native`; compiles once per configuration);
    all give the same figures (tested).
    """
    fe = FrontEnd(config)
    source = WorkloadSource(workload, config.warps, config.ibuffer, icache)
    if engine not in ENGINES:
        raise ConfigError(f"engine {engine!r} is unknown; use one of: {', '.join(ENGINES)}")
    if engine == "native":
        return _native(workload, config, source, max_cycles)
    cycles_iter = _compiled_run(compiled(config), source) if engine == "compiled" else _reference_run(fe, source)
    done_keys = [f"w{w}.done" for w in range(fe.W)]
    cycles = issued = nops = disc = err = 0
    finished = False
    for t, (s, issue, osched1, osched2) in enumerate(cycles_iter):
        if all(s[k] for k in done_keys):
            finished = True
            break
        if t == max_cycles:
            break
        iw = issue()
        if iw >= 0:
            if s[f"w{iw}.b0.cls"] == NOP_CLS:
                nops += 1
            else:
                issued += 1
        disc += iw != osched1()
        err += iw != osched2()
        cycles = t + 1
    committed = issued * config.threads_per_warp
    return Metrics(workload.name, config.design, policy_label(config), config.warps, cycles, committed, issued,
                   committed / cycles if cycles else 0.0, disc, err, err / cycles if cycles else 0.0, nops,
                   finished, source.dynamic_count())


_NATIVE: dict[str, Any] = {}


def _native(workload: Workload, config: SMConfig, source: WorkloadSource, max_cycles: int) -> Metrics:
    from warpcheck.sim.frontend.native import NativeFrontEnd, available
    if not available():
        raise ConfigError("engine 'native' needs numba; install it with: pip install 'warpcheck[fast]'")
    key = json.dumps(config.to_json(), sort_keys=True)
    if key not in _NATIVE:
        _NATIVE[key] = NativeFrontEnd(FrontEnd(config))
    cycles, issued, nops, disc, err, finished = (int(x) for x in _NATIVE[key].run([source], max_cycles)[0])
    committed = issued * config.threads_per_warp
    return Metrics(workload.name, config.design, policy_label(config), config.warps, cycles, committed, issued,
                   committed / cycles if cycles else 0.0, disc, err, err / cycles if cycles else 0.0, nops,
                   bool(finished), source.dynamic_count())


def configurations(base: SMConfig, fetch: Sequence[str], issue: Sequence[str], swas: Sequence[str],
                   designs: Iterable[str] = ("baseline", "swas")) -> list[SMConfig]:
    """The baseline for each fetch x issue pair and SWaS for each policy, in that order."""
    out: list[SMConfig] = []
    if "baseline" in designs:
        out += [base.with_(design="baseline", fetch_policy=f, issue_policy=i) for f in fetch for i in issue]
    if "swas" in designs:
        out += [base.with_(design="swas", issue_policy=p) for p in swas]
    return out


def compare(workload: Workload, configs: Sequence[SMConfig], max_cycles: int = DEFAULT_MAX_CYCLES,
            icache_shape: tuple[int, int] = (16, 4), engine: str = "compiled") -> list[Metrics]:
    """Run the same workload on each configuration (a fresh I-cache each time)."""
    return [simulate(workload, c, max_cycles, ICache(*icache_shape), engine) for c in configs]


COLUMNS = ("workload", "design", "policies", "warps", "cycles", "committed", "ipc", "discrepancies",
           "errors", "error_rate", "nops", "finished")

CACHE_COLUMNS = ("dcache", "l1_loads", "l1_misses")


def table(rows: Sequence[Metrics], fmt: str = "github") -> str:
    """The metrics as a text table; ``ipc/base``: IPC over the workload's first baseline row."""
    bases: dict[str, Metrics] = {}
    for r in rows:
        if r.design == "baseline":
            bases.setdefault(r.workload, r)
    extra = [c for c in CACHE_COLUMNS if rows and all(hasattr(r, c) for r in rows)]  # PTX runs: the L1's figures
    headers = list(COLUMNS) + extra + (["ipc/base"] if bases else [])
    body = []
    for r in rows:
        base = bases.get(r.workload)
        line = [getattr(r, c) for c in (*COLUMNS, *extra)]
        line[COLUMNS.index("ipc")] = f"{r.ipc:.3f}"
        line[COLUMNS.index("error_rate")] = f"{r.error_rate:.4f}"
        if bases:
            line.append(f"{r.ipc / base.ipc:.2f}" if base is not None and base.ipc else "-")
        body.append(line)
    return tabulate(body, headers=headers, tablefmt=fmt)
