"""The options records of ``cfg``, ``wcet`` and ``simt``: one frozen dataclass per verb, checked once.

Fields are named like the verbs' options (``max_states`` is ``--max-states``;
``value_agreement=False`` is ``--no-value-agreement``, ``cross_check=False``
``--no-cross-check``, ``loop_bounds`` the repeated ``--loop-bound``), and every
default is stated here only.  A bad value raises :class:`OptionError` naming
the field; the command line re-spells it with the flag the user typed.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from warpcheck import _values as values
from warpcheck.models.errors import OptionError
from warpcheck.models.kernels.latencies import CLASSES_WITH_LATENCY
from warpcheck.models.limits import MAX_LATENCY, MAX_LOOP_BOUND

__all__ = ["KernelOptions", "CfgOptions", "WcetOptions", "SimtOptions"]

MAX_THREADS = 64
MAX_STEPS = 10**6
LOOP_BOUND_WHY = "past it the two IPET solvers' floating-point answers no longer agree"
STEPS_WHY = "a warp runs about 3,000 blocks/s: more would take over 5 minutes"
LATENCY_WHY = "as an SM configuration's: no unit of a GPU takes longer"


@dataclass(frozen=True)
class KernelOptions:
    """What every kernel verb takes: the kernel file, the entry, the warp width, the cost model and the budget.

    ``kernel`` is a PTX file or a SASS-style listing (``.sass``); ``entry``
    names the kernel of a module with several (a part of its name works;
    ``cfg`` and ``wcet`` take a list too); ``threads`` is the warp width (1
    to 64).  ``latency`` overrides class latencies (``{"mem": 200}``, or the command
    line's ``["mem=200"]``); ``mem_latency`` is the latency of global and local
    memory.  ``timeout`` (seconds, set-up included) and ``memory`` (GiB) bound
    the run as ``--timeout`` and ``--memory`` do.
    """

    kernel: str
    entry: Any = None
    threads: int = 32
    latency: Mapping[str, int] = field(default_factory=dict)
    mem_latency: int | None = None
    timeout: float | None = 60.0
    memory: float | None = values.DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        values.settle(self, kernel=values.path("kernel", self.kernel, optional=False),
                      threads=values.integer("threads", self.threads, 1, MAX_THREADS,
                                             f"a warp has at most {MAX_THREADS} threads"),
                      latency=_latencies(self.latency),
                      mem_latency=values.optional_integer("mem_latency", self.mem_latency, 0, MAX_LATENCY,
                                                          LATENCY_WHY),
                      timeout=values.seconds("timeout", self.timeout), memory=values.gib("memory", self.memory))

    @property
    def several(self) -> bool:
        """Whether the run takes several entries (one result per entry)."""
        return False


@dataclass(frozen=True)
class _AnalysisOptions(KernelOptions):
    """What ``cfg`` and ``wcet`` share: entries (several, or all), value agreement, the state limit."""

    all_entries: bool = False
    value_agreement: bool = True
    max_states: int = 20000

    def __post_init__(self) -> None:
        super().__post_init__()
        values.settle(self, entry=_entries(self.entry), all_entries=values.flag("all_entries", self.all_entries),
                      value_agreement=values.flag("value_agreement", self.value_agreement),
                      max_states=values.integer("max_states", self.max_states, 1))
        if self.all_entries and self.entry:
            raise OptionError("entry", self.entry, "not allowed with all_entries, which takes every kernel; "
                                                   "give one of them")

    @property
    def several(self) -> bool:
        """Whether the run takes several entries (one result per entry)."""
        return self.all_entries or len(self.entry or ()) > 1


@dataclass(frozen=True)
class CfgOptions(_AnalysisOptions):
    """The options of ``cfg``: the warp-level CFG of a kernel; ``dot`` also writes it as Graphviz DOT.

    The fields of :class:`KernelOptions`, and: ``all_entries=True`` takes
    every kernel of the module (parsed once); ``value_agreement=False``
    (``--no-value-agreement``) treats every guarded branch as possibly
    divergent; past ``max_states`` nodes the warp-level CFG is refused.
    """

    dot: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        values.settle(self, dot=values.path("dot", self.dot))
        if self.dot is not None and self.several:
            raise OptionError("dot", self.dot, "a DOT file holds the CFG of one kernel; choose a single entry")
        values.distinct_paths(self, inputs=("kernel",), outputs=("dot",))


@dataclass(frozen=True)
class WcetOptions(_AnalysisOptions):
    """The options of ``wcet``: the IPET bound of one warp in isolation.

    A loop bound N: each thread executes the loop's header at most N times per
    entry into the loop.  ``loop_bounds`` names loops by their header's label
    (``{"$L__BB0_3": 16}``, or ``["$L__BB0_3=16"]``), ``bounds`` reads them from
    a TOML file (``[loops] LABEL = N``; ``loop_bounds`` wins) and
    ``max_loop_bound`` bounds every loop not named.  ``cross_check=False``
    (``--no-cross-check``) skips the HiGHS re-solve of Z3's optimum.  The
    other fields are :class:`CfgOptions`' (but ``dot``).
    """

    loop_bounds: Mapping[str, int] = field(default_factory=dict)
    bounds: str | None = None
    max_loop_bound: int | None = None
    cross_check: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        values.settle(self, loop_bounds=values.assignments("loop_bounds", self.loop_bounds, _loop_bound),
                      bounds=values.path("bounds", self.bounds),
                      max_loop_bound=values.optional_integer("max_loop_bound", self.max_loop_bound, 0,
                                                             MAX_LOOP_BOUND, LOOP_BOUND_WHY),
                      cross_check=values.flag("cross_check", self.cross_check))


@dataclass(frozen=True)
class SimtOptions(KernelOptions):
    """The options of ``simt``: one warp run concretely.

    ``inputs`` is a TOML or JSON file, or its mapping directly (``{"params":
    {"param_2": 8}, "ctaid": [0], "ntid": [32], "seed": 1}``); ``warp`` picks
    the warp of the block (``%tid.x = warp * threads + lane``); past
    ``max_steps`` blocks the kernel is refused as not ending.  The other
    fields are :class:`KernelOptions`' (one ``entry`` only).
    """

    inputs: str | Mapping[str, Any] | None = None
    warp: int = 0
    max_steps: int = 100000

    def __post_init__(self) -> None:
        super().__post_init__()
        inputs = dict(self.inputs) if isinstance(self.inputs, Mapping) else values.path("inputs", self.inputs)
        values.settle(self, entry=values.text("entry", self.entry), inputs=inputs,
                      warp=values.integer("warp", self.warp, 0),
                      max_steps=values.integer("max_steps", self.max_steps, 1, MAX_STEPS, STEPS_WHY))


def _entries(entry: Any) -> tuple[str, ...] | None:
    """One name or several (a list, as the repeated ``--entry`` gives), as a tuple; None for "not given"."""
    if entry is None:
        return None
    if isinstance(entry, str):
        return (values.text("entry", entry) or "",)
    if isinstance(entry, Sequence) and entry and all(isinstance(e, str) and e.strip() for e in entry):
        return tuple(entry)
    raise OptionError("entry", entry, "not a kernel name nor a non-empty list of names")


def _count(value: Any) -> int:
    """A latency or a loop bound: a non-negative integer (a digit string, as the command line gives, too)."""
    n = values.whole(value)
    if n is None or n < 0:
        raise ValueError("give a non-negative integer")
    return n


def _latency(value: Any) -> int:
    latency = _count(value)
    if latency > MAX_LATENCY:
        raise ValueError(f"above the ceiling of {MAX_LATENCY} ({LATENCY_WHY})")
    return latency


def _loop_bound(value: Any) -> int:
    bound = _count(value)
    if bound > MAX_LOOP_BOUND:
        raise ValueError(f"above the ceiling of {MAX_LOOP_BOUND}: {LOOP_BOUND_WHY}")
    return bound


def _latencies(latency: Any) -> dict[str, int]:
    """Class latencies by class name (``int``, ``mem``, ``shared``, ...), each a non-negative integer."""
    out = values.assignments("latency", latency, _latency)
    for name in out:
        if name not in CLASSES_WITH_LATENCY:
            near = difflib.get_close_matches(name, CLASSES_WITH_LATENCY, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise OptionError("latency", latency, f"the class {name!r} is not one of "
                                                  f"{', '.join(CLASSES_WITH_LATENCY)}{hint}")
    return out
