"""The options of the QAWS verbs, one frozen record per verb: each default stated once, each field checked once.

The fields are named like the verbs' options (``program`` <-> ``--program``,
``no_misses`` <-> ``--no-misses``), so that a refusal names the keyword in a
script and the flag on the command line, with one problem text.  A kernel's
settings (``program``, ``budget``, ``launch``) take a mapping (``{"K2": 4}``)
or the command line's list of ``"K2=4"``; the record keeps the whole mapping,
the defaults merged in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from warpcheck import _values as v
from warpcheck.models.errors import OptionError
from warpcheck.models.limits import MAX_LATENCY, MAX_REPLAY_CYCLES, MAX_STAGE
from warpcheck.models.frontend.config import DEFAULT_LATENCY
from warpcheck.models.kernels.kernel import CLASSES
from warpcheck.sim.frontend.limits import DEFAULT_MAX_CYCLES, ENGINES
from warpcheck.models.qaws.policies import POLICY_OF

__all__ = ["QawsWcrtOptions", "QawsInversionOptions", "QawsSwitchesOptions", "SimulateKernelsOptions"]

NAMES = ("K1", "K2")
SEARCH_POLICIES = tuple(POLICY_OF)  # lrr, gto, gtlo (gto's name in the kit), qaws
SWITCH_POLICIES = ("qaws", "gto", "gtlo", "lrr")
MAX_KERNEL_WARPS = 16  # warps per kernel: the searches unroll every warp's stalls; 16 + 16 already takes hours
MAX_SM_WARPS = 64  # simulate --kernels: as simulate --warps
PROGRAM_CLASSES = tuple(c for c in CLASSES if c not in ("nop", "exit"))

# The searches' defaults, stated once (the verbs' help reads them from here).
DEFAULT_PROGRAMS = {"K1": ("int", "mem", "int"), "K2": ("mem", "int", "int")}
DEFAULT_BUDGETS = {"K1": 1, "K2": 2}
DEFAULT_LAUNCHES = {"K1": 0, "K2": 1}
SWITCH_BUDGETS = {"K1": 1, "K2": 4}
SM_CEILINGS = {"t_fetch": MAX_STAGE, "t_decode": MAX_STAGE, "ibuffer": MAX_STAGE, "miss_latency": MAX_LATENCY}
SM_WHY = "as an SM configuration's: larger sizes do not finish on one machine"
MAX_CYCLES = MAX_REPLAY_CYCLES  # horizon and depth: a run found is replayed on the simulator, as a witness is
CYCLES_WHY = f"a run found is replayed cycle by cycle, as a witness of at most {MAX_REPLAY_CYCLES} cycles"
SMALL_LATENCY = {"fadd": 2, "fmul": 2, "fmadd": 2, "fcvt": 2, "fdiv": 4, "fsqrt": 4, "mem": 3}


def shown(values: Mapping[str, Any]) -> str:
    """A mapping as the help writes it: ``K1=1, K2=2``."""
    return ", ".join(f"{k}={','.join(x) if isinstance(x, tuple) else x}" for k, x in values.items())


def policy_list(option: str, value: Any, allowed: Sequence[str]) -> tuple[str, ...]:
    """A comma string (``"lrr,qaws"``) or a list of policy names, each one of ``allowed``."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(x, str) for x in items):
        raise OptionError(option, value, f"not a list of policies; give one or more of {', '.join(allowed)}")
    names = tuple(x.strip() for x in items if x.strip())
    if not names:
        raise OptionError(option, value, f"names no policy; give one or more of {', '.join(allowed)}")
    for n in names:
        if n not in allowed:
            v.one_of(option, n, allowed)
    return names


def warp_pair(option: str, value: Any) -> tuple[int, int]:
    """``"N1,N2"`` or ``(N1, N2)``: the warps of K1 and of K2, each from 1 to MAX_KERNEL_WARPS."""
    items = value.split(",") if isinstance(value, str) else value
    problem = f"not two warp counts N1,N2, each from 1 to {MAX_KERNEL_WARPS}"
    if not isinstance(items, (list, tuple)) or len(items) != 2:
        raise OptionError(option, value, problem)
    try:
        counts = tuple(v.integer(option, x, 1, MAX_KERNEL_WARPS) for x in items)
    except OptionError:
        raise OptionError(option, value, problem) from None
    return counts[0], counts[1]


def _count(name: str, x: Any) -> int:
    n = v.whole(x)
    if n is None:
        raise ValueError(f"{name}={x!r} is not an integer; write e.g. {name}=1")
    if n > MAX_CYCLES:
        raise ValueError(f"{name}={n} is above the ceiling of {MAX_CYCLES} ({CYCLES_WHY})")
    return n


def _classes(name: str, value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(c, str) for c in items):
        raise ValueError(f"the program of {name} is not CLASS,CLASS,...; write e.g. {name}=mem,int")
    classes = tuple(c.strip() for c in items if c.strip())
    bad = [c for c in classes if c not in PROGRAM_CLASSES]
    if bad:
        raise ValueError(f"{bad[0]!r} in the program of {name} is not an instruction class; "
                         f"use {', '.join(PROGRAM_CLASSES)}")
    if not classes:
        raise ValueError(f"the program of {name} is empty; write e.g. {name}=mem,int")
    return classes


def per_kernel(option: str, value: Any, names: Sequence[str], low: int | None, convert: Any = _count) -> dict[str, Any]:
    """A kernel's settings (``{"K2": 4}`` or ``["K2=4"]``) for kernels of ``names``; integers >= ``low``."""
    out = {}
    for name, x in v.assignments(option, value, lambda x: x).items():
        if name not in names:
            raise OptionError(option, value, f"names an unknown kernel {name!r}; the kernels are {', '.join(names)}")
        try:
            out[name] = convert(name, x)
        except ValueError as e:
            raise OptionError(option, value, str(e)) from None
        if low is not None and out[name] < low:
            raise OptionError(option, value, f"{name}={out[name]} is not allowed; it must be >= {low}")
    return out


def programs(option: str, value: Any) -> dict[str, tuple[str, ...]]:
    """Each kernel's program, ``{"K2": "mem,int"}`` (or a list of classes) or ``["K2=mem,int"]``, defaults merged."""
    return {**DEFAULT_PROGRAMS, **per_kernel(option, value, NAMES, None, _classes)}


def latencies(option: str, value: Any) -> dict[str, int]:
    """Latencies per instruction class (``{"mem": 5}`` or ``["mem=5"]``), each >= 1, the search's small ones merged."""
    given = v.assignments(option, value, lambda x: x)
    for name, x in given.items():
        if name not in DEFAULT_LATENCY:
            v.one_of(option, name, DEFAULT_LATENCY)
        n = v.whole(x)
        if n is None or not 1 <= n <= MAX_LATENCY:
            shown = x if n is None else n
            raise OptionError(option, value, f"{name}={shown!r} is not allowed; it must be an integer from 1 to "
                                             f"{MAX_LATENCY} ({SM_WHY})")
        given[name] = n
    return {**DEFAULT_LATENCY, **SMALL_LATENCY, **given}


def _common(r: Any, default_budgets: Mapping[str, int]) -> None:
    """Check the fields every QAWS search record has: warps, budget, timeout, memory."""
    v.settle(r, warps=warp_pair("warps", r.warps),
             budget={**default_budgets, **per_kernel("budget", r.budget, NAMES, 1)},
             timeout=v.seconds("timeout", r.timeout), memory=v.gib("memory", r.memory))


@dataclass(frozen=True)
class QawsSearchOptions:
    """What ``qaws wcrt`` and ``qaws inversion`` share: two kernels' programs on one small SWaS SM.

    ``program``, ``budget``, ``launch`` and ``latency`` give some kernels (or
    classes) and keep the defaults for the others; ``no_misses``, ``no_deps``
    and ``no_branches`` take one kind of stall out of the search.
    """

    policy: Any = "lrr,gto,qaws"
    program: Any = None  # merged with DEFAULT_PROGRAMS
    warps: Any = (1, 2)
    budget: Any = None  # merged with DEFAULT_BUDGETS
    launch: Any = None  # merged with DEFAULT_LAUNCHES
    latency: Any = None  # merged with the SM's latencies and SMALL_LATENCY
    t_fetch: int = 1
    t_decode: int = 1
    ibuffer: int = 2
    miss_latency: int = 2
    no_misses: bool = False
    no_deps: bool = False
    no_branches: bool = False
    timeout: float | None = 300.0  # each policy's search, and the whole run
    memory: float | None = v.DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        _common(self, DEFAULT_BUDGETS)
        v.settle(self, policy=policy_list("policy", self.policy, SEARCH_POLICIES), program=programs("program", self.program),
                 launch={**DEFAULT_LAUNCHES, **per_kernel("launch", self.launch, NAMES, 0)},
                 latency=latencies("latency", self.latency),
                 **{k: v.integer(k, getattr(self, k), 1, high, SM_WHY) for k, high in SM_CEILINGS.items()},
                 **{k: v.flag(k, getattr(self, k)) for k in ("no_misses", "no_deps", "no_branches")})


@dataclass(frozen=True)
class QawsWcrtOptions(QawsSearchOptions):
    """``qaws wcrt``: K2's worst-case response time per policy, searched up to ``horizon`` cycles."""

    horizon: int = 400
    exhaustive: bool = False  # also enumerate every stall pattern (small instances)

    def __post_init__(self) -> None:
        super().__post_init__()
        v.settle(self, horizon=v.integer("horizon", self.horizon, 1, MAX_CYCLES, CYCLES_WHY),
                 exhaustive=v.flag("exhaustive", self.exhaustive))


@dataclass(frozen=True)
class QawsInversionOptions(QawsSearchOptions):
    """``qaws inversion``: a run in which K2 finishes after K1, searched up to ``depth`` cycles."""

    depth: int = 40

    def __post_init__(self) -> None:
        super().__post_init__()
        v.settle(self, depth=v.integer("depth", self.depth, 1, MAX_CYCLES, CYCLES_WHY))


@dataclass(frozen=True)
class QawsSwitchesOptions:
    """``qaws switches``: K1's warp switches between K2 issues bounded by b(K1), on the full SWaS front end."""

    policy: str = "qaws"
    warps: Any = (2, 2)
    budget: Any = None  # merged with SWITCH_BUDGETS; K2's must be the larger
    depth: int = 24  # BMC depth if induction does not close
    timeout: float | None = 600.0
    memory: float | None = v.DEFAULT_MEMORY_GIB
    certificate: str | None = None  # an unbounded PASS's certificate (SMT-LIB2); default warpcheck-out/NAME.smt2
    no_certificate: bool = False  # write none

    def __post_init__(self) -> None:
        given = self.budget
        _common(self, SWITCH_BUDGETS)
        v.settle(self, policy=v.one_of("policy", self.policy, SWITCH_POLICIES),
                 depth=v.integer("depth", self.depth, 1, MAX_CYCLES, CYCLES_WHY),
                 certificate=v.path("certificate", self.certificate),
                 no_certificate=v.flag("no_certificate", self.no_certificate))
        v.distinct_paths(self, outputs=("certificate",))
        v.certificate_or_none(self)
        if self.budget["K1"] >= self.budget["K2"]:
            raise OptionError("budget", given, f"K2's budget ({self.budget['K2']}) is not larger than K1's "
                                               f"({self.budget['K1']}); the bound is about K2 having the larger one")


def icache_shape(option: str, value: Any) -> tuple[int, int]:
    """``"16x4"`` or ``(16, 4)``: lines x instructions per line of each kernel's I-cache."""
    items = value.lower().split("x") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or len(items) != 2:
        raise OptionError(option, value, "not LINESxSIZE; write e.g. 16x4")
    return v.integer(option, items[0], 1, 4096), v.integer(option, items[1], 1, 64)


@dataclass(frozen=True)
class SimulateKernelsOptions:
    """``simulate --kernels``: several workloads run together on one SM as K1, K2, ..., under each policy.

    ``kernels``: workload names or TOML files (a comma string or a list);
    ``warps``: the SM's warps, split evenly (default 4 per kernel);
    ``budget`` (default 1) and ``launch`` (default n - 1 for Kn) per kernel;
    ``config``: an SM configuration file whose timing the runs take.
    """

    kernels: Any = None
    policy: Any = "lrr,gto,qaws"
    budget: Any = None
    launch: Any = None
    warps: int | None = None
    scale: float = 1.0
    max_cycles: int = DEFAULT_MAX_CYCLES
    icache: Any = (16, 4)
    engine: str = "compiled"
    config: str | None = None
    timeout: float | None = 600.0
    memory: float | None = v.DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        specs = self.kernels.split(",") if isinstance(self.kernels, str) else self.kernels
        if not isinstance(specs, (list, tuple)) or not all(isinstance(s, str) for s in specs) \
                or not [s for s in specs if s.strip()]:
            raise OptionError("kernels", self.kernels, "not a list of workloads; give e.g. 'psort,saxpy'")
        specs = tuple(s.strip() for s in specs if s.strip())
        names = [f"K{n + 1}" for n in range(len(specs))]
        v.settle(self, kernels=specs, policy=policy_list("policy", self.policy, SEARCH_POLICIES),
                 budget=per_kernel("budget", self.budget, names, 1), launch=per_kernel("launch", self.launch, names, 0),
                 warps=self._warps(specs), scale=v.number("scale", self.scale),
                 max_cycles=v.integer("max_cycles", self.max_cycles, 1), icache=icache_shape("icache", self.icache),
                 engine=v.one_of("engine", self.engine, ENGINES), config=v.path("config", self.config),
                 timeout=v.seconds("timeout", self.timeout), memory=v.gib("memory", self.memory))

    def _warps(self, specs: Sequence[str]) -> int:
        if self.warps is None:
            if 4 * len(specs) > MAX_SM_WARPS:
                raise OptionError("kernels", ",".join(specs), f"{len(specs)} kernel(s) of 4 warps make {4 * len(specs)} "
                                  f"warps, above the ceiling of {MAX_SM_WARPS} (an SM holds at most {MAX_SM_WARPS} warps)")
            return 4 * len(specs)
        warps = v.integer("warps", self.warps, 1, MAX_SM_WARPS, f"an SM holds at most {MAX_SM_WARPS} warps")
        if warps < len(specs) or warps % len(specs):
            raise OptionError("warps", warps, f"does not split evenly over {len(specs)} kernel(s); "
                                              f"give a multiple of {len(specs)}")
        return warps
