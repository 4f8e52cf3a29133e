"""The options records of the front-end verbs: one frozen, validated record per verb, every default stated here.

``prove``, ``replay``, ``simulate``, ``demo``, ``run`` and ``export`` each
read one record; the command line builds it from argv (``cli.options.record_from_args``),
a script from keywords (``warpcheck.prove(...)``), a job file from a task.  The
fields are named like the verbs' options (``t_fetch`` is ``--t-fetch``), so a
refused value names the keyword in a script and the flag on the command line.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence, Union

from warpcheck._policy import UserPolicy, policy_name
from warpcheck._values import (DEFAULT_MEMORY_GIB, certificate_or_none, distinct_paths, flag, gib, integer, number,
                               one_of, optional_integer, path, seconds, settle, text, whole)
from warpcheck.models.errors import OptionError
from warpcheck.models.limits import (MAX_BLOCKS, MAX_LATENCY, MAX_REPLAY_CYCLES, MAX_STAGE, MAX_THREADS_PER_BLOCK,
                                     MAX_WARPS)
from warpcheck.models.frontend.config import DESIGNS, SMConfig, canonical_policy, config_from_mapping, load_config
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.sim.frontend.limits import DEFAULT_MAX_CYCLES, ENGINES
from warpcheck.verify.frontend.properties import PROPERTIES, default_property, get_property

if TYPE_CHECKING:
    from warpcheck._reorder.options import LaunchOptions

__all__ = ["ProveOptions", "ReplayOptions", "SimulateOptions", "DemoOptions", "RunOptions", "ExportOptions",
           "ENGINES_OF_PROVE", "EXPORT_FORMATS", "default_depth"]

Policyish = Union[str, UserPolicy, None]
ENGINES_OF_PROVE = ("auto", "kind", "bmc", "random", "abc-pdr", "abc-bmc")
EXPORT_FORMATS = ("smt2", "btor2", "aiger", "sby", "verilog")
WHOLE_RUN = 600.0  # seconds: the budget of a verb that runs one bounded step (replay, simulate, export)
SM_SETTINGS = ("t_fetch", "t_decode", "ibuffer", "miss_latency")
SM_LISTS = ("kernel_of_warp", "budgets", "launches")
# The SM's ceilings, as a configuration file has them (models/limits.py): past them no run ends.
CEILINGS = {"warps": MAX_WARPS, "t_fetch": MAX_STAGE, "t_decode": MAX_STAGE, "ibuffer": MAX_STAGE,
            "miss_latency": MAX_LATENCY}
CEILING_WHY = "larger sizes do not finish on one machine"
MAX_DEPTH = MAX_REPLAY_CYCLES  # cycles a proof or an export unrolls: a witness holds at most this many
DEPTH_WHY = f"a witness holds at most {MAX_DEPTH} cycles; a deeper counterexample could not be replayed"


def default_depth(config: SMConfig) -> int:
    """Cycles that any single-point bug needs to show: the longest predictable window plus the pipeline.

    A miss window lasts 1 + miss_latency + t_fetch + t_decode cycles (README, oracles);
    one more pipeline length lets the instruction fetched at its end reach the issue stage.
    """
    return 1 + config.miss_latency + 2 * config.pipe


def integers(option: str, value: Any, low: int = 0, high: int | None = None) -> tuple[int, ...] | None:
    """A list of integers (``(0, 0, 1, 1)``, ``[1, 4]`` or ``"1,4"``), as a tuple; None: not given."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, (list, tuple)) or len(value) > MAX_WARPS:
        raise OptionError(option, value, f"not a list of at most {MAX_WARPS} integers; give e.g. (0, 0, 1, 1)")
    return tuple(integer(option, v, low, high) for v in value)


def sm_setting(name: str, value: Any) -> int | None:
    """An SM setting (``warps``, ``t_fetch``, ...): an integer from 1 to its ceiling, or None for not given."""
    return optional_integer(name, value, 1, CEILINGS[name], CEILING_WHY)


def _policy(option: str, value: Any, warps: int) -> str | None:
    """A policy name (or a UserPolicy, checked and registered) as the configuration's name for it."""
    if value is None or isinstance(value, UserPolicy):
        return policy_name(value, warps, None)
    if not isinstance(value, str):
        raise OptionError(option, value, "not a policy name or a warpcheck.UserPolicy")
    return _known(option, value, canonical_policy(value))


def _known(option: str, value: Any, name: Any) -> str:
    """``name`` if it is a registered policy, else a refusal listing the known ones."""
    if not isinstance(name, str) or name not in POLICIES:
        which = "not" if name == value else f"{name!r} is not"
        raise OptionError(option, value, f"{which} a known policy; choose one of: {', '.join(POLICIES)} (gto is gtlo)")
    return str(name)


@dataclass(frozen=True)
class SMOptions:
    """The options that name an SM configuration (shared by prove and export).

    ``config`` is a TOML file (its ``[sm]`` table) or an :class:`SMConfig`; the
    other options override it.  ``policy`` is SWaS's one policy; for the
    baseline it is another name of ``issue`` (give one, or both alike);
    ``fetch`` is the baseline's fetch policy.
    """

    config: str | SMConfig | None = None
    design: str | None = None
    policy: Policyish = None
    fetch: Policyish = None
    issue: Policyish = None
    warps: int | None = None
    t_fetch: int | None = None
    t_decode: int | None = None
    ibuffer: int | None = None
    miss_latency: int | None = None
    kernel_of_warp: Sequence[int] | None = None
    budgets: Sequence[int] | None = None
    launches: Sequence[int] | None = None

    def _check_sm(self) -> None:
        if isinstance(self.config, SMConfig):
            for name, high in CEILINGS.items():  # a record made in a script has no file schema to check it
                if getattr(self.config, name) > high:
                    raise OptionError("config", self.config, f"its {name} = {getattr(self.config, name)} is above "
                                                             f"the ceiling of {high} ({CEILING_WHY})")
        else:
            settle(self, config=path("config", self.config))
        one_of("design", self.design, DESIGNS, optional=True)
        settle(self, warps=sm_setting("warps", self.warps), **{f: sm_setting(f, getattr(self, f)) for f in SM_SETTINGS},
               kernel_of_warp=integers("kernel_of_warp", self.kernel_of_warp, 0, MAX_WARPS - 1),
               budgets=integers("budgets", self.budgets, 1, MAX_REPLAY_CYCLES),
               launches=integers("launches", self.launches, 0, MAX_REPLAY_CYCLES))
        W = self.warps or 4
        settle(self, policy=_policy("policy", self.policy, W), fetch=_policy("fetch", self.fetch, W),
               issue=_policy("issue", self.issue, W))
        if self.policy is not None and self.issue is not None and self.policy != self.issue:
            raise OptionError("issue", self.issue, f"disagrees with the policy {self.policy!r}: both name the issue "
                                                   "policy; give one of them")

    @cached_property
    def sm(self) -> SMConfig:
        """The SM configuration: the file or record of ``config``, with the other options over it."""
        given = {"design": self.design, "warps": self.warps, "fetch_policy": self.fetch,
                 "issue_policy": self.issue if self.issue is not None else self.policy,
                 **{f: getattr(self, f) for f in SM_SETTINGS + SM_LISTS}}
        changes = {k: v for k, v in given.items() if v is not None}
        if isinstance(self.config, SMConfig):
            return self.config.with_(**changes) if changes else self.config
        base = load_config(self.config).to_json() if self.config else {}
        return config_from_mapping({**base, **changes}, where=self.config or "the SM configuration")


LEMMA_CACHE = "warpcheck-out/.lemmas"  # lemmas proved, per exact model (verify/lemma_cache.py)


@dataclass(frozen=True)
class ProveOptions(SMOptions):
    """``warpcheck prove``: a property of a design, proved (or refuted, with a witness) for every input.

    ``property`` defaults to exact for SWaS, oracle for the baseline and for
    ``all_warps``; ``depth`` to the configuration's horizon (:func:`default_depth`,
    plus the prologue); ``witness`` to ``warpcheck-out/NAME.json``; ``lemma_cache``
    is the folder where proved lemmas are kept for the next run of the same proof
    (``warpcheck-out/.lemmas``; None: keep nothing).  An unbounded PASS writes its
    certificate to ``certificate``, by default beside the witness (``warpcheck-out/NAME.smt2``);
    ``no_certificate`` writes none.
    """

    property: str | None = None
    engine: str = "auto"
    depth: int | None = None
    timeout: float | None = 300.0
    memory: float | None = DEFAULT_MEMORY_GIB
    witness: str | None = None
    vcd: str | None = None
    recheck: bool = False
    all_warps: bool = False
    prologue: int = 0
    lemma_cache: str | None = LEMMA_CACHE
    certificate: str | None = None
    no_certificate: bool = False

    def __post_init__(self) -> None:
        self._check_sm()
        one_of("property", self.property, PROPERTIES, optional=True)
        one_of("engine", self.engine, ENGINES_OF_PROVE)
        if self.engine.startswith("abc-"):
            from warpcheck.verify import abc  # the ABC driver loads only when its engine is chosen
            if abc.missing():
                raise OptionError("engine", self.engine, f"needs ABC, which cannot run here: {abc.missing()}")
        if self.engine.startswith("abc-") and self.recheck:
            raise OptionError("recheck", True, f"re-checks the kit's lemma proofs with cvc5; engine {self.engine}'s "
                                               "answers are checked already (a PASS's invariant by Z3, a FAIL by replay)")
        settle(self, depth=optional_integer("depth", self.depth, 1, MAX_DEPTH, DEPTH_WHY),
               timeout=seconds("timeout", self.timeout), memory=gib("memory", self.memory),
               witness=path("witness", self.witness), vcd=path("vcd", self.vcd), recheck=flag("recheck", self.recheck),
               all_warps=flag("all_warps", self.all_warps),
               prologue=integer("prologue", self.prologue, 0, MAX_DEPTH, DEPTH_WHY),
               lemma_cache=path("lemma_cache", self.lemma_cache), certificate=path("certificate", self.certificate),
               no_certificate=flag("no_certificate", self.no_certificate))
        distinct_paths(self, inputs=("config",), outputs=("witness", "vcd", "certificate"))
        self._check_certificate()
        if self.all_warps and self.recheck:
            raise OptionError("recheck", True, "re-checks a proof for one number of warps; it is not available "
                                               "with all_warps")
        if self.all_warps and any(self.sm.launches):
            raise OptionError("launches", list(self.sm.launches), "all_warps proves SMs whose warps all start at "
                                                                  "cycle 0; prove a given number of warps for late launches")
        get_property(self.prop).checked(FrontEnd(self.sm))  # a property the design lacks is bad input
        if self.all_warps and self.prop == "exact":
            from warpcheck.verify.frontend.every_warp_proof import check_covered  # z3: loaded for this check only
            check_covered(self.sm)
        if self.depth and self.prologue >= self.depth:
            raise OptionError("prologue", self.prologue, f"leaves no cycle to check within depth {self.depth}; give a "
                                                         "depth larger than the prologue, or leave depth out")

    def _check_certificate(self) -> None:
        if self.certificate is None:
            return
        certificate_or_none(self)
        if self.all_warps and self.prop != "exact":
            raise OptionError("certificate", self.certificate, f"the proof for every W of {self.prop!r} (W = 1..4, "
                                                               "compositional) writes no certificate; prove 'exact'")
        if self.engine in ("bmc", "random", "abc-bmc"):
            raise OptionError("certificate", self.certificate, f"engine {self.engine} never proves for every depth; "
                                                               "a certificate needs engine kind or auto")
        if self.engine == "abc-pdr":
            raise OptionError("certificate", self.certificate, "engine abc-pdr's invariant is over the bits of the "
                                                               "AIGER model, not the kit's lemmas: no certificate yet; "
                                                               "use engine kind or auto")

    @cached_property
    def prop(self) -> str:
        """The property proved: the one given, or the design's default."""
        return self.property or ("oracle" if self.all_warps else default_property(self.sm.design))

    def certificate_path(self, name: str) -> str | None:
        """Where a PASS's certificate goes: the one given, else beside the witness (None: ``no_certificate``)."""
        if self.no_certificate:
            return None
        if self.certificate:
            return self.certificate
        return str(Path(self.witness).with_suffix(".smt2") if self.witness else Path("warpcheck-out") / f"{name}.smt2")

    @cached_property
    def horizon(self) -> int:
        """The depth checked: the one given, or the configuration's horizon after the prologue."""
        return self.depth or default_depth(self.sm) + self.prologue


@dataclass(frozen=True)
class ReplayOptions:
    """``warpcheck replay``: a witness replayed cycle by cycle on its design, the other, or both.

    ``cycles`` defaults to the witness's cycle + 4; ``policy`` is the
    :class:`UserPolicy` a witness was found with (scripts only).
    """

    witness: str
    design: str = "both"
    cycles: int | None = None
    vcd: str | None = None
    policy: UserPolicy | None = None
    timeout: float | None = WHOLE_RUN
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        settle(self, witness=path("witness", self.witness, optional=False), vcd=path("vcd", self.vcd),
               cycles=optional_integer("cycles", self.cycles, 1, MAX_REPLAY_CYCLES,
                                       "a witness violates within its first cycles; a replay runs about 400 cycles/s"),
               timeout=seconds("timeout", self.timeout), memory=gib("memory", self.memory))
        distinct_paths(self, inputs=("witness",), outputs=("vcd",))
        one_of("design", self.design, [*DESIGNS, "both"])
        if self.policy is not None and not isinstance(self.policy, UserPolicy):
            raise OptionError("policy", self.policy, "not a warpcheck.UserPolicy (a witness names the kit's policies "
                                                     "itself)")
        if self.policy is not None:
            policy_name(self.policy, 2, None)


SIMULATE_WARPS = 8  # warps of a simulate run when neither warps nor a configuration file says
MAX_SIMULATE_WARPS = 64
MAX_ICACHE_LINES, MAX_ICACHE_LINE = 4096, 64


def _icache(value: Any) -> tuple[int, int]:
    """``"16x4"`` or ``(16, 4)``: lines x instructions per line."""
    parts = value.lower().split("x") if isinstance(value, str) else value
    sizes = [whole(x) for x in parts] if isinstance(parts, (list, tuple)) and len(parts) == 2 else [None]
    if not all(n is not None and n >= 1 for n in sizes):
        raise OptionError("icache", value, "not LINESxSIZE with both >= 1; write e.g. 16x4")
    lines, size = sizes[0] or 0, sizes[1] or 0
    if lines > MAX_ICACHE_LINES or size > MAX_ICACHE_LINE:
        raise OptionError("icache", value, f"above the ceiling of {MAX_ICACHE_LINES}x{MAX_ICACHE_LINE} (lines x "
                                           "instructions per line); an SM's I-cache is a few KiB")
    return lines, size


def _policy_list(option: str, value: Any, warps: int) -> tuple[str, ...] | None:
    """A comma list (``"lrr,gtlrr"``), ``"all"``, a list of names or UserPolicies; None: the default."""
    if value is None:
        return None
    if value == "all":
        return tuple(POLICIES)
    items = [x.strip() for x in value.split(",") if x.strip()] if isinstance(value, str) else \
        [value] if isinstance(value, UserPolicy) else list(value) if isinstance(value, (list, tuple)) else [value]
    if not items:
        raise OptionError(option, value, "names no policy; give e.g. lrr,gtlrr or all")
    names = [policy_name(p, warps, None) if isinstance(p, UserPolicy) else p for p in items]
    return tuple(_known(option, value, canonical_policy(n) if isinstance(n, str) else n) for n in names)


def _held_policies(option: str, value: Any, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The issue policies of a PTX run: ``all`` leaves out those whose update reads eligibility, a name is refused."""
    if names is None:
        return None
    reading = [n for n in names if n in POLICIES and POLICIES[n].reads_elig]
    if reading and value != "all":
        raise OptionError(option, value, f"names {reading[0]!r}, whose update reads eligibility; a PTX run holds warps "
                                         "for their loads and takes the other policies")
    return tuple(n for n in names if n not in reading)


@dataclass(frozen=True)
class SimulateOptions:
    """``warpcheck simulate``: workloads run cycle by cycle on the front ends, with IPC and scheduling errors.

    ``workloads``: built-in names, ``"all"``, or workload TOML files.  The
    baseline runs every ``fetch`` x ``issue`` pair (default lrr x gtlrr, or the
    configuration file's), SWaS every ``policy`` (default: the issue list);
    each is a comma list, ``"all"``, or a list of names and UserPolicies.
    ``warps`` defaults to 8 (or the configuration file's).

    ``ptx`` runs a real kernel instead of workloads: the PTX file, its
    ``entry``, the launch as ``analyze`` takes it (``grid``, default 1;
    ``block``, default 32 x ``warps`` threads; every ``param``; ``line_bytes``),
    all its warps on one SM (W = the launch's warps).  Global accesses go
    through the L1 ``dcache`` (``SIZE:WAYS``, or ``"off"``: every access takes
    ``dcache_miss`` cycles), a request completing ``dcache_hit`` or
    ``dcache_miss`` cycles after it reaches it; ``unit`` puts the load/store
    reordering unit in front of the L1.
    """

    workloads: Sequence[str] = ()
    design: str = "both"
    fetch: Any = None
    issue: Any = None
    policy: Any = None
    warps: int | None = None
    config: str | None = None
    max_cycles: int = DEFAULT_MAX_CYCLES
    scale: float = 1.0
    icache: str | tuple[int, int] = "16x4"
    engine: str = "compiled"
    t_fetch: int | None = None
    t_decode: int | None = None
    ibuffer: int | None = None
    miss_latency: int | None = None
    ptx: str | None = None
    entry: str | None = None
    grid: Any = None
    block: Any = None
    param: Any = None
    line_bytes: int = 128
    dcache: str = "16K:4"
    dcache_hit: int = 20
    dcache_miss: int = 200
    unit: bool = False
    timeout: float | None = WHOLE_RUN
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        names = [self.workloads] if isinstance(self.workloads, str) else self.workloads
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) and n for n in names):
            raise OptionError("workloads", self.workloads, "not a list of workload names or files")
        one_of("design", self.design, [*DESIGNS, "both"])
        one_of("engine", self.engine, ENGINES)
        settle(self, workloads=tuple(names), config=path("config", self.config),
               warps=optional_integer("warps", self.warps, 1, MAX_SIMULATE_WARPS,
                                      "an SM holds at most 64 warps; a run at W = 64 already takes about a minute"),
               max_cycles=integer("max_cycles", self.max_cycles, 1), icache=_icache(self.icache),
               **{f: sm_setting(f, getattr(self, f)) for f in SM_SETTINGS},
               scale=number("scale", self.scale), timeout=seconds("timeout", self.timeout),
               memory=gib("memory", self.memory))
        self._check_ptx()
        W = self.sm.warps
        raw = {"issue": self.issue, "policy": self.policy}
        settle(self, fetch=_policy_list("fetch", self.fetch, W), issue=_policy_list("issue", self.issue, W),
               policy=_policy_list("policy", self.policy, W))
        if self.ptx is not None:
            settle(self, **{f: _held_policies(f, raw[f], getattr(self, f)) for f in raw})

    def _check_ptx(self) -> None:
        """The PTX launch and data-cache fields: each checked, and the launch's only with ``ptx``."""
        from warpcheck._reorder.options import MAX_LINE_BYTES, dims, params  # the PTX side loads when simulate runs
        launch = ("entry", "grid", "block", "param")
        if self.ptx is None:
            given = next((f for f in launch if getattr(self, f) is not None), None)
            if given is not None:
                raise OptionError(given, getattr(self, given), "given without ptx; it belongs to a PTX kernel's launch")
        elif self.workloads:
            raise OptionError("ptx", self.ptx, "given with workloads; run either a PTX kernel or workloads")
        line_bytes = integer("line_bytes", self.line_bytes, 1, MAX_LINE_BYTES)
        if line_bytes & (line_bytes - 1):
            raise OptionError("line_bytes", self.line_bytes, "not a power of two; use e.g. 128")
        hit = integer("dcache_hit", self.dcache_hit, 1, MAX_LATENCY)
        settle(self, ptx=path("ptx", self.ptx), entry=text("entry", self.entry), line_bytes=line_bytes,
               grid=dims("grid", self.grid, MAX_BLOCKS), block=dims("block", self.block, MAX_THREADS_PER_BLOCK),
               param=None if self.param is None else params("param", self.param), dcache_hit=hit,
               dcache_miss=integer("dcache_miss", self.dcache_miss, hit, MAX_LATENCY,
                                   "a miss takes at least as long as a hit"),
               unit=flag("unit", self.unit))
        if text("dcache", self.dcache, optional=False) != "off":
            parse_cache(self.dcache, line_bytes, "evict", "dcache")
        if self.ptx is not None:
            from warpcheck.sim.frontend.ptx_stream import ENGINES as PTX_ENGINES
            self._check_launch()
            if self.engine not in PTX_ENGINES:
                raise OptionError("engine", self.engine, f"not an engine of PTX kernels; use {' or '.join(PTX_ENGINES)}")

    def _check_launch(self) -> None:
        if self.block is None and self.warps is None:
            raise OptionError("block", None, "not given; give the block's threads (or warps: 32 threads each)")
        warps = self.launch_warps
        if not 1 <= warps <= MAX_SIMULATE_WARPS:
            raise OptionError("block", self.block, f"makes {warps} warps; one SM holds 1 to {MAX_SIMULATE_WARPS}")
        if self.warps is not None and self.warps != warps:
            raise OptionError("warps", self.warps, f"not the launch's {warps} warps; drop it or give a block of "
                                                   f"{32 * self.warps} threads")

    @property
    def launch_warps(self) -> int:
        """The warps of the PTX launch: every block's threads in warps of 32, over the grid."""
        grid, block = self.grid or (1, 1, 1), self.block or (32 * (self.warps or 1), 1, 1)
        return grid[0] * grid[1] * grid[2] * -(-(block[0] * block[1] * block[2]) // 32)

    @cached_property
    def launch(self) -> LaunchOptions:
        """The PTX launch as ``analyze`` takes it."""
        from warpcheck._reorder.options import LaunchOptions
        return LaunchOptions(kernel=self.ptx, entry=self.entry, grid=self.grid or 1,
                             block=self.block or 32 * (self.warps or 1), param=self.param or {},
                             line_bytes=self.line_bytes)

    @cached_property
    def sm(self) -> SMConfig:
        """The baseline configuration the runs start from (the file's, the SM settings over it)."""
        data = load_config(self.config).to_json() if self.config else {"warps": SIMULATE_WARPS}
        if self.ptx is not None:
            data["warps"] = self.launch_warps
        data.update({f: getattr(self, f) for f in ("warps", *SM_SETTINGS) if getattr(self, f) is not None})
        data["design"] = "baseline"
        return config_from_mapping(data, where=self.config or "the SM configuration")


@dataclass(frozen=True)
class DemoOptions:
    """``warpcheck demo``: SWaS proved for three policies, the nine baseline pairs refuted, all replayed.

    ``timeout`` is per proof, and only a backstop: each proof is bounded by work (k-induction and BMC up
    to the configuration's horizon), so the default gives a busy machine room; witnesses go to ``out``.
    """

    warps: int = 4
    timeout: float | None = 3600.0
    out: str = "warpcheck-out"
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        settle(self, warps=integer("warps", self.warps, 1, 64, "the demo proves each design at W warps; past 64 a "
                                                                "proof needs hours and gigabytes"),
               timeout=seconds("timeout", self.timeout), out=path("out", self.out, optional=False),
               memory=gib("memory", self.memory))


@dataclass(frozen=True)
class RunOptions:
    """``warpcheck run``: a TOML job file of named proof tasks with expected outcomes.

    ``only`` runs one task; witnesses go to ``out/TASK.json``; ``timeout`` is
    the whole run's budget (each task has its own, 300 s by default).
    """

    job: str
    only: str | None = None
    out: str = "warpcheck-out"
    timeout: float | None = 86_400.0
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        settle(self, job=path("job", self.job, optional=False), only=text("only", self.only),
               out=path("out", self.out, optional=False), timeout=seconds("timeout", self.timeout),
               memory=gib("memory", self.memory))
        distinct_paths(self, inputs=("job",), folders=("out",))


@dataclass(frozen=True)
class ExportOptions(SMOptions):
    """``warpcheck export``: a prove configuration's proof problem as SMT-LIB2 scripts, a BTOR2 or AIGER model, Verilog.

    ``depth``: the BMC depth of ``smt2`` and ``sby`` (default: prove's horizon); ``k``: the
    induction depth; ``no_lemmas``: no proved lemmas in the induction scripts.
    """

    format: str = ""
    property: str | None = None
    depth: int | None = None
    k: int = 1
    no_lemmas: bool = False
    out: str = "warpcheck-out"
    timeout: float | None = WHOLE_RUN
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        one_of("format", self.format, EXPORT_FORMATS)
        self._check_sm()
        one_of("property", self.property, PROPERTIES, optional=True)
        settle(self, depth=optional_integer("depth", self.depth, 1, MAX_DEPTH, DEPTH_WHY),
               k=integer("k", self.k, 1, MAX_DEPTH, "the induction unrolls k cycles, as a BMC run does depth"),
               no_lemmas=flag("no_lemmas", self.no_lemmas), out=path("out", self.out, optional=False),
               timeout=seconds("timeout", self.timeout), memory=gib("memory", self.memory))
        distinct_paths(self, inputs=("config",), folders=("out",))
        get_property(self.prop).checked(FrontEnd(self.sm))

    @cached_property
    def prop(self) -> str:
        """The property exported: the one given, or the design's default."""
        return self.property or default_property(self.sm.design)

    @cached_property
    def horizon(self) -> int:
        """The BMC depth: the one given, or prove's horizon."""
        return self.depth or default_depth(self.sm)
