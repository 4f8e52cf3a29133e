"""Proof runs, witness replay and workload simulation of the SM front end, as functions returning results.

The ``prove``, ``replay`` and ``simulate`` verbs call these same functions;
they only add option parsing and printing.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TypeAlias, Union

from warpcheck._policy import UserPolicy, policy_name
from warpcheck.cli.frontend.run import ProveJob, ProveOutcome, ReplayOutcome, prove_job, replay_witness
from warpcheck.models.errors import ConfigError, KitError
from warpcheck.models.frontend.config import SMConfig, config_from_mapping
from warpcheck.sim.frontend.metrics import DEFAULT_MAX_CYCLES, Metrics, compare, configurations
from warpcheck.sim.frontend.suite import resolve
from warpcheck.verify.result import EXIT_CODES, Status

__all__ = ["prove", "prove_config", "replay", "simulate", "run_workloads", "ProofResult", "ReplayResult", "SimulationResult",
           "sm_config"]

Policyish: TypeAlias = Union[str, UserPolicy, None]


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


def sm_config(design: str | None = None, policy: Policyish = None, warps: int | None = None,
              fetch: Policyish = None, config: SMConfig | None = None, **sm: Any) -> SMConfig:
    """The SM configuration named by keywords (``t_fetch``, ``ibuffer``, ... as in a ``[sm]`` table).

    ``policy`` is SWaS's one policy, or the baseline's issue policy; ``fetch``
    the baseline's fetch policy.  A :class:`UserPolicy` is checked and
    registered under its name first.  ``config`` starts from an existing
    configuration (then design, policy, warps and fetch override it).
    """
    base = config.to_json() if config is not None else {}
    W = warps if warps is not None else base.get("warps", 4)
    if not isinstance(W, int) or isinstance(W, bool):
        raise ConfigError(f"warps = {W!r} is not an integer; give e.g. warps=4")
    given = {"design": design, "warps": warps, "issue_policy": policy_name(policy, W, None),
             "fetch_policy": policy_name(fetch, W, None)}
    return config_from_mapping({**base, **sm, **{k: v for k, v in given.items() if v is not None}},
                               where="warpcheck configuration")


def prove(design: str | None = None, policy: Policyish = None, warps: int | None = None,
          property: str | None = None, engine: str = "auto", timeout: float | None = 300.0, *,
          depth: int = 0, fetch: Policyish = None, witness: str | Path | None = None, vcd: str | None = None,
          recheck: bool = False, all_warps: bool = False, prologue: int = 0, config: SMConfig | None = None,
          progress: Callable[[str], None] | None = None, **sm: Any) -> ProofResult:
    """Prove (or refute) a front-end property of a design for every program, cache and branch behaviour.

    ``design`` is ``"swas"`` (default) or ``"baseline"``; ``policy`` a policy
    name (``"gtlrr"`` by default) or a :class:`UserPolicy`; ``property`` one
    of ``exact``, ``oracle``, ``ideal`` (default: exact for SWaS, oracle for
    the baseline); ``engine`` one of ``auto``, ``kind``, ``bmc``, ``random``;
    other keywords are SM settings (``t_fetch=3``, ``ibuffer=4``, ...).  A
    FAIL's witness is written to ``witness`` (default: a new temporary
    folder).  Bad input raises :class:`ConfigError` (``code`` 2).
    """
    cfg = sm_config(design, policy, warps, fetch, config, **sm)
    where = str(witness) if witness else str(Path(tempfile.mkdtemp(prefix="warpcheck-")) / "witness.json")
    return prove_config(cfg, property, engine, timeout, depth=depth, witness=where, vcd=vcd, recheck=recheck,
                        all_warps=all_warps, prologue=prologue, progress=progress)


def prove_config(config: SMConfig, property: str | None = None, engine: str = "auto",
                 timeout: float | None = 300.0, *, depth: int = 0, witness: str | None = None,
                 vcd: str | None = None, recheck: bool = False, all_warps: bool = False, prologue: int = 0,
                 progress: Callable[[str], None] | None = None) -> ProofResult:
    """:func:`prove` for a configuration already built (``witness=None``: ``warpcheck-out/NAME.json``)."""
    if timeout is not None and not timeout > 0:
        raise ConfigError(f"timeout = {timeout!r} must be a positive number of seconds (or None: no limit)")
    job = ProveJob(config, property or "", engine, depth, timeout, witness, vcd, recheck, all_warps, prologue)
    return proof_result(prove_job(job, progress))


def proof_result(out: ProveOutcome) -> ProofResult:
    """A prove outcome as the API's result."""
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


def replay(witness: str | Path | ProofResult, design: str = "both", cycles: int | None = None,
           vcd: str | None = None, policy: UserPolicy | None = None) -> ReplayResult:
    """Replay a witness cycle by cycle on ``design`` (``"baseline"``, ``"swas"`` or ``"both"``).

    ``witness`` is a witness file or the :class:`ProofResult` of a FAIL.  A
    witness found with a :class:`UserPolicy` needs that ``policy`` again.
    """
    if isinstance(witness, ProofResult):
        if witness.witness is None:
            raise ConfigError(f"the proof {witness.name} ended {witness.status}: it has no witness to replay")
        witness = witness.witness
    if design not in ("baseline", "swas", "both"):
        raise ConfigError(f"design = {design!r} is not one of baseline, swas, both")
    if cycles is not None and (not isinstance(cycles, int) or cycles < 1):
        raise ConfigError(f"cycles = {cycles!r} must be a positive integer (or None: the witness's cycle + 4)")
    if policy is not None:
        policy_name(policy, 2, None)
    out = replay_witness(str(witness), design, cycles, vcd)
    mine = next((r for r in out.replays if r.design == out.witness.config.design), out.replays[0])
    return ReplayResult(out.reproduced, mine.first_violation, {r.design: r.first_violation for r in out.replays}, out)


@dataclass
class SimulationResult:
    """Workloads run on front ends: one row of metrics per workload and configuration."""

    runs: list[Metrics]

    @property
    def finished(self) -> bool:
        """Every run ended before its cycle limit."""
        return all(r.finished for r in self.runs)

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the runs' metrics."""
        return {"runs": [r.to_json() for r in self.runs]}


def simulate(workloads: str | Sequence[str], design: str = "both", policy: Policyish | Sequence[Policyish] = None,
             warps: int = 8, *, fetch: Policyish | Sequence[Policyish] = None,
             issue: Policyish | Sequence[Policyish] = None, max_cycles: int = DEFAULT_MAX_CYCLES,
             icache: tuple[int, int] = (16, 4), scale: float = 1.0, engine: str = "compiled",
             **sm: Any) -> SimulationResult:
    """Run workloads (built-in names or TOML files) cycle by cycle and measure IPC and scheduling errors.

    The baseline runs every ``fetch`` x ``issue`` pair (default lrr x gtlrr),
    SWaS every ``policy`` (default: the issue policies); each may be a name,
    a :class:`UserPolicy` or a list of them.
    """
    names = [workloads] if isinstance(workloads, str) else list(workloads)
    if not names:
        raise ConfigError("no workload given; name one (e.g. 'psort'), or a workload TOML file")
    if max_cycles < 1 or not scale > 0:
        raise ConfigError(f"max_cycles = {max_cycles!r} / scale = {scale!r}: both must be positive")
    base = sm_config("baseline", None, warps, None, None, **sm)
    issues = _names(issue, warps, [base.issue_policy])
    designs = ("baseline", "swas") if design == "both" else (design,)
    configs = configurations(base, _names(fetch, warps, [base.fetch_policy]), issues, _names(policy, warps, issues),
                             designs)
    return SimulationResult(run_workloads(names, configs, max_cycles, icache, scale, engine))


def _names(given: Any, warps: int, default: list[str]) -> list[str]:
    if given is None:
        return default
    items = [given] if isinstance(given, (str, UserPolicy)) else list(given)
    return [str(policy_name(p, warps, None)) for p in items]


def run_workloads(names: Sequence[str], configs: Sequence[SMConfig], max_cycles: int, icache: tuple[int, int],
                  scale: float = 1.0, engine: str = "compiled",
                  progress: Callable[[str], None] | None = None) -> list[Metrics]:
    """Every workload on every configuration (``simulate``'s work, shared with the verb)."""
    rows: list[Metrics] = []
    for w in [resolve(n) for n in names]:
        w = w.scaled(scale) if scale != 1.0 else w
        if progress:
            progress(f"{w.name}: {len(configs)} run(s)")
        rows += compare(w, configs, max_cycles, icache, engine)
    return rows
