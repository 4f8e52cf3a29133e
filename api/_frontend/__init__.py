"""Proof runs, witness replay, workload simulation and exports of the SM front end, as functions returning results.

The ``prove``, ``replay``, ``simulate``, ``demo``, ``run`` and ``export`` verbs
build the same options records (:mod:`warpcheck._frontend.options`) from argv
and call the same ``*_options`` functions; they only add parsing and printing.

- ``options``: one frozen, validated record per verb, every default stated once;
- ``proof``: the proof run, its witness and replays, the second solver's re-check;
- ``witness_replay``: a witness replayed on one design or both;
- ``main_job`` (the demo), ``jobs``: batches of proof runs on a process pool;
- ``problem_files``: the proof problem as SMT-LIB2, BTOR2, Verilog or a SymbiYosys project; ``mutation``: the mutation suite's harness.
"""
from __future__ import annotations

import importlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from warpcheck._frontend.options import (DemoOptions, ExportOptions, Policyish, ProveOptions, ReplayOptions,
                                         RunOptions, SimulateOptions)
from warpcheck._guard import bounded
from warpcheck._values import build, callback, flag
from warpcheck.models.errors import ConfigError, KitError, OptionError
from warpcheck.verify.result import EXIT_CODES, Status

if TYPE_CHECKING:  # the workflows load when a verb runs, so that parsing a command line stays quick
    from warpcheck._frontend.jobs import RunResult
    from warpcheck._frontend.main_job import DemoResult
    from warpcheck._frontend.problem_files import ExportResult
    from warpcheck._frontend.proof import ProveOutcome
    from warpcheck._frontend.witness_replay import ReplayOutcome
    from warpcheck.models.frontend.config import SMConfig
    from warpcheck.sim.frontend.metrics import Metrics

# result classes defined with their workflow, re-exported on first use
_LAZY = {"DemoResult": "main_job", "ExportResult": "problem_files", "RunResult": "jobs"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["prove", "replay", "simulate", "demo", "run_job", "export", "ProofResult", "ReplayResult",
           "SimulationResult", "DemoResult", "RunResult", "ExportResult", "ProveOptions", "ReplayOptions",
           "SimulateOptions", "DemoOptions", "RunOptions", "ExportOptions", "prove_options", "replay_options",
           "simulate_options", "demo_options", "run_options", "export_options", "Policyish"]

Progress = Callable[[str], None] | None


def _given(**named: Any) -> dict[str, Any]:
    """The positional parameters the caller gave (None: left to the record's default)."""
    return {k: v for k, v in named.items() if v is not None}


@dataclass
class ProofResult:
    """How a proof run ended: ``status`` (PASS, FAIL, UNKNOWN, TIMEOUT, ERROR) and what backs it.

    ``bounded`` is true for a PASS that holds only up to ``depth`` cycles;
    ``lemmas`` are the invariants proved (and then used) by k-induction;
    ``witness`` is the path of a FAIL's witness file (replay it with
    :func:`replay`); ``code`` is the command line's exit code for it.
    """

    status: str
    bounded: bool
    depth: int
    seconds: float
    lemmas: list[str]
    witness: str | None
    engine: str
    message: str
    name: str
    outcome: ProveOutcome = field(repr=False)

    @property
    def code(self) -> int:
        """The exit code ``warpcheck prove`` gives for this result (0 PASS, 1 FAIL, 3, 4, 5)."""
        return EXIT_CODES[Status(self.status)]

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (what ``warpcheck prove --json`` prints)."""
        return self.outcome.to_json()

    def report(self) -> str:
        """The text report ``warpcheck prove`` prints."""
        return self.outcome.report()


def prove(design: str | None = None, policy: Policyish = None, warps: int | None = None,
          property: str | None = None, *, progress: Progress = None, **options: Any) -> ProofResult:
    """Prove (or refute) a front-end property of a design for every program, cache and branch behaviour.

    The keywords are ``warpcheck prove``'s options (:class:`ProveOptions`):
    ``design`` ``"swas"`` (default) or ``"baseline"``; ``policy`` SWaS's one
    policy (``"gtlrr"`` by default) or a :class:`UserPolicy`; for the baseline
    ``fetch`` and ``issue`` (``policy`` is another name of ``issue``: give one,
    or both alike); ``property`` one of ``exact``, ``oracle``, ``ideal``
    (default: exact for SWaS, oracle for the baseline); ``engine`` one of
    ``auto``, ``kind``, ``bmc``, ``random``; ``timeout`` (300 s) and
    ``memory`` (GiB) bound the run as the flags do; the SM settings
    ``t_fetch``, ``t_decode``, ``ibuffer``, ``miss_latency``,
    ``kernel_of_warp``, ``budgets``, ``launches`` and ``config`` (a TOML file or
    an :class:`SMConfig`).  A FAIL's witness is written to ``witness``
    (default for a script: a new temporary folder; the verb's is
    ``warpcheck-out/NAME.json``); an unbounded PASS's certificate beside it (``certificate``,
    ``.smt2``; ``no_certificate=True``: none).  The lemmas proved are kept in ``lemma_cache`` (default for a script:
    the user's cache folder, ``$XDG_CACHE_HOME/warpcheck/lemmas`` or ``~/.cache/warpcheck/lemmas``, so a
    script writes nothing into its working folder; ``None``: not kept).  Bad input raises
    :class:`ConfigError` naming the keyword.
    """
    keywords = {**_given(design=design, policy=policy, warps=warps, property=property), **options}
    callback("progress", progress)
    if keywords.get("witness") is None:
        keywords["witness"] = str(Path(tempfile.mkdtemp(prefix="warpcheck-")) / "witness.json")
    if "lemma_cache" not in keywords:
        keywords["lemma_cache"] = str(_user_cache() / "lemmas")
    return prove_options(build(ProveOptions, "prove", keywords), progress)


def _user_cache() -> Path:
    """The user's cache folder for warpcheck (XDG's, as most Linux tools keep theirs)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "warpcheck"


def prove_options(o: ProveOptions, progress: Progress = None) -> ProofResult:
    """:func:`prove` on a record already built (the verb's path)."""
    from warpcheck._frontend.proof import prove_run
    with bounded(o.timeout, o.memory):
        out = prove_run(o, progress)
    r = out.result
    return ProofResult(r.status.value, r.bounded, r.depth, r.seconds, list(r.lemmas), out.witness_path, r.engine,
                       r.message, out.name, out)


@dataclass
class ReplayResult:
    """A witness replayed: whether its own design reproduces it, and each design's first violation."""

    reproduced: bool
    cycle: int | None
    designs: dict[str, int | None]
    outcome: ReplayOutcome = field(repr=False)

    @property
    def code(self) -> int:
        """The exit code ``warpcheck replay`` gives (0 reproduced, 5 not: a bug of the kit)."""
        return 0 if self.reproduced else KitError.code

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck replay --json`` prints)."""
        return self.outcome.to_json()

    def report(self) -> str:
        """The text report ``warpcheck replay`` prints: verdicts and the side-by-side cycles."""
        return self.outcome.report()


def replay(witness: str | Path | ProofResult, design: str | None = None, cycles: int | None = None,
           vcd: str | None = None, policy: Any = None, **options: Any) -> ReplayResult:
    """Replay a witness cycle by cycle on ``design`` (``"baseline"``, ``"swas"`` or ``"both"``, the default).

    ``witness`` is a witness file or the :class:`ProofResult` of a FAIL;
    ``cycles`` defaults to the witness's cycle + 4; ``vcd`` also writes VCD
    waveforms.  A witness found with a :class:`UserPolicy` needs that ``policy`` again.
    """
    if isinstance(witness, ProofResult):
        if witness.witness is None:
            raise ConfigError(f"the proof {witness.name} ended {witness.status}: it has no witness to replay")
        witness = witness.witness
    keywords = {"witness": witness, **_given(design=design, cycles=cycles, vcd=vcd, policy=policy), **options}
    return replay_options(build(ReplayOptions, "replay", keywords))


def replay_options(o: ReplayOptions) -> ReplayResult:
    """:func:`replay` on a record already built (the verb's path)."""
    from warpcheck._frontend.witness_replay import replay_run
    with bounded(o.timeout, o.memory):
        out = replay_run(o)
    mine = next((r for r in out.replays if r.design == out.witness.config.design), out.replays[0])
    return ReplayResult(out.reproduced, mine.first_violation, {r.design: r.first_violation for r in out.replays}, out)


@dataclass
class SimulationResult:
    """Workloads run on front ends: one row of metrics per workload and configuration."""

    runs: list[Metrics]
    config: SMConfig | None = None
    icache: tuple[int, int] = (16, 4)
    max_cycles: int = 0

    @property
    def finished(self) -> bool:
        """Every run ended before its cycle limit."""
        return all(r.finished for r in self.runs)

    @property
    def code(self) -> int:
        """The exit code of ``warpcheck simulate``: 0 when every run finished, 1 when one hit ``max_cycles``."""
        return 0 if self.finished else 1

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck simulate --json`` prints: the base configuration, the I-cache and each run's metrics."""
        return {"config": self.config.to_json() if self.config else None,
                "icache": {"lines": self.icache[0], "line_size": self.icache[1]},
                "max_cycles": self.max_cycles, "runs": [r.to_json() for r in self.runs]}

    def report(self) -> str:
        """The table ``warpcheck simulate`` prints."""
        from warpcheck.sim.frontend.metrics import table
        stuck = [f"{r.workload}/{r.design}/{r.policies}" for r in self.runs if getattr(r, "deadlock", False)]
        unfinished = [f"{r.workload}/{r.design}/{r.policies}" for r in self.runs
                      if not r.finished and not getattr(r, "deadlock", False)]
        tail = f"\nnot finished within {self.max_cycles} cycles: {', '.join(unfinished)}" if unfinished else ""
        if stuck:
            tail += f"\ndeadlocked (nothing moved while work was left): {', '.join(stuck)}"
        return table(self.runs) + tail


def simulate(workloads: str | Sequence[str] = (), design: str | None = None, policy: Any = None,
             warps: int | None = None, *, progress: Progress = None, **options: Any) -> SimulationResult:
    """Run workloads (built-in names, ``"all"``, or TOML files) cycle by cycle; measure IPC and scheduling errors.

    The keywords are ``warpcheck simulate``'s options (:class:`SimulateOptions`):
    the baseline runs every ``fetch`` x ``issue`` pair (default lrr x gtlrr),
    SWaS every ``policy`` (default: the issue policies); each may be a name,
    a comma list, ``"all"``, a :class:`UserPolicy` or a list of them;
    ``warps`` (default 8), ``max_cycles``, ``scale``, ``icache`` (``"16x4"``),
    ``engine``, ``config`` and the SM settings ``t_fetch``, ``ibuffer``, ...
    With ``ptx`` (and ``entry``, ``grid``, ``block``, ``param``) it runs a real
    kernel's warps instead, their global accesses through the L1 ``dcache``
    (``"16K:4"``, or ``"off"``), behind the reordering unit with ``unit=True``.
    """
    keywords = {"workloads": workloads, **_given(design=design, policy=policy, warps=warps), **options}
    callback("progress", progress)
    return simulate_options(build(SimulateOptions, "simulate", keywords), progress)


def simulate_options(o: SimulateOptions, progress: Progress = None) -> SimulationResult:
    """:func:`simulate` on a record already built (the verb's path)."""
    from warpcheck.sim.frontend.metrics import compare
    from warpcheck.sim.frontend.suite import BUILTIN, resolve
    if o.ptx is not None:
        return _simulate_ptx(o, progress)
    names = list(o.workloads)
    if not names:
        raise ConfigError("no workload given; name a built-in one (e.g. 'psort'; the command line lists them with "
                          "--list), 'all', or a workload TOML file")
    if "all" in names:
        names = [n for n in names if n != "all"] + list(BUILTIN)
    base, configs = o.sm, _configurations(o)
    rows: list[Metrics] = []
    with bounded(o.timeout, o.memory):
        for w in [resolve(n) for n in names]:
            w = w.scaled(o.scale) if o.scale != 1.0 else w
            if progress:
                progress(f"{w.name}: {len(configs)} run(s)")
            rows += compare(w, configs, o.max_cycles, o.icache, o.engine)
    return SimulationResult(rows, base, o.icache, o.max_cycles)  # type: ignore[arg-type]


def _configurations(o: SimulateOptions) -> list[SMConfig]:
    """The baseline for each fetch x issue pair and SWaS for each policy, as the options name them."""
    from warpcheck.sim.frontend.metrics import configurations
    base = o.sm
    issue = list(o.issue or [base.issue_policy])
    designs = ("baseline", "swas") if o.design == "both" else (o.design,)
    return configurations(base, list(o.fetch or [base.fetch_policy]), issue, list(o.policy or issue), designs)


def _simulate_ptx(o: SimulateOptions, progress: Progress) -> SimulationResult:
    from warpcheck._frontend.ptx_simulate import run_ptx
    with bounded(o.timeout, o.memory):
        rows: list[Metrics] = list(run_ptx(o, _configurations(o), progress))
    return SimulationResult(rows, o.sm, o.icache, o.max_cycles)  # type: ignore[arg-type]


def demo(*, progress: Progress = None, **options: Any) -> DemoResult:
    """The main job: prove SWaS for GTLRR, GTLO and LRR, refute the nine baseline pairs, replay every witness.

    The keywords are ``warpcheck demo``'s (:class:`DemoOptions`): ``warps``
    (4), ``timeout`` per proof (120 s), ``out`` the witnesses' folder.
    """
    callback("progress", progress)
    return demo_options(build(DemoOptions, "demo", options), progress)


def demo_options(o: DemoOptions, progress: Progress = None) -> DemoResult:
    """:func:`demo` on a record already built (the verb's path); its timeout is per proof."""
    from warpcheck._frontend.main_job import demo_run
    with bounded(None, o.memory):
        return demo_run(o, progress)


def run_job(job: str | Path, *, progress: Progress = None, **options: Any) -> RunResult:
    """Run a TOML job file's tasks (``warpcheck run``): ``only`` one task, witnesses in ``out`` (:class:`RunOptions`)."""
    callback("progress", progress)
    return run_options(build(RunOptions, "run_job", {"job": job, **options}), progress)


def run_options(o: RunOptions, progress: Progress = None) -> RunResult:
    """:func:`run_job` on a record already built (the verb's path)."""
    from warpcheck._frontend.jobs import run_jobs
    with bounded(o.timeout, o.memory):
        return run_jobs(o, progress)


def export(format: str, design: str | None = None, policy: Policyish = None, warps: int | None = None,
           property: str | None = None, depth: int | None = None, k: int | None = None, *,
           lemmas: bool | None = None, **options: Any) -> ExportResult:
    """The proof problem of a ``prove`` configuration as files for other checkers: ``{file name: text}``.

    ``format="btor2"``: one BTOR2 model (states, inputs, init, next,
    constraints, one ``bad``: the property's violation), for hardware model
    checkers.  ``format="aiger"``: the same model bit-blasted, binary AIGER
    1.9 (``NAME.aig``: bytes, one bad state, constraints) and its map
    (``NAME.aig.map.json``: the kit's variable and bit of every input and
    latch), for ABC, rIC3 or AVR; unless ``no_lemmas``, also ``NAME.lemmas.aig`` (the
    kit's proved lemmas assumed) and the two scripts that show them inductive
    (``NAME.lemmas-init.smt2``, ``NAME.lemmas-step.smt2``).  ``format="smt2"``: SMT-LIB2 scripts, each with one
    ``check-sat``: ``bmc`` (sat exactly when the property fails within
    ``depth`` cycles; default the prove horizon), and the ``k``-induction
    obligations ``lemmas-init``, ``lemmas-step`` and ``step`` (all unsat: the
    property holds for every depth), strengthened by the lemmas the kit
    proves first (``no_lemmas=True``, or ``lemmas=False``: none).
    ``format="sby"``: a Verilog module (the property as an assertion, the
    ranges and the model's assumption as assumptions, the initial parameters
    ``anyconst``) and a SymbiYosys project over it (ABC's ``pdr`` and
    ``bmc3`` to ``depth``, smtbmc, rIC3, Pono); ``format="verilog"``: the
    module alone.  The other
    keywords are :func:`prove`'s SM options (:class:`ExportOptions`).  The
    files are written only when ``out`` (a folder) is given.
    """
    keywords = {"format": format, **_given(design=design, policy=policy, warps=warps, property=property,
                                           depth=depth, k=k), **options}
    if lemmas is not None:
        if "no_lemmas" in options:
            raise OptionError("lemmas", lemmas, "given with no_lemmas, its negation; give one of them")
        keywords["no_lemmas"] = not flag("lemmas", lemmas)
    from warpcheck._frontend.problem_files import export_run, export_texts
    write = "out" in options
    o = build(ExportOptions, "export", keywords)
    with bounded(o.timeout, o.memory):
        return export_run(o) if write else export_texts(o)


def export_options(o: ExportOptions) -> ExportResult:
    """The files of ``warpcheck export``, written to ``o.out`` (the verb's path)."""
    from warpcheck._frontend.problem_files import export_run
    with bounded(o.timeout, o.memory):
        return export_run(o)
