"""What the front-end verbs do, as functions returning plain outcomes (shared by CLI, demo and jobs)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import Prologue
from warpcheck.sim.frontend.replay import Replay, changes_only, replay, side_by_side
from warpcheck.sim.frontend.vcd import write_vcd
from warpcheck.verify.frontend import witness as wit
from warpcheck.verify.engines import engine
from warpcheck.verify.frontend.lift import SMALL, lift_violation
from warpcheck.verify.frontend.parametric import prove_parametric
from warpcheck.verify.frontend.properties import default_property, get_property
from warpcheck.verify.result import Result, Status

Progress = Callable[[str], None] | None
LIFT_BUDGET = 15.0  # seconds for the small-W search before the full-size engine runs


@dataclass
class ProveJob:
    """One proof run: a configuration and a property, with engine settings."""

    config: SMConfig
    prop: str = ""  # empty: the design's default property (exact for swas, oracle for the baseline)
    engine: str = "auto"
    depth: int = 0  # 0: the configuration's horizon (see default_depth)
    timeout: float | None = 300.0
    witness_path: str | None = None
    vcd_path: str | None = None
    recheck: bool = False
    all_warps: bool = False  # the parametric proof, for every number of warps
    prologue: int = 0  # violations in the first cycles do not count
    design: FrontEnd | None = None  # a model other than FrontEnd(config): the mutation suite's

    def __post_init__(self) -> None:
        if self.all_warps and self.recheck:
            raise ConfigError("--recheck re-checks a proof for one W; it is not available with --all-warps")
        if self.all_warps and any(self.config.launches):
            raise ConfigError(f"launches = {list(self.config.launches)!r}: --all-warps proves SMs whose warps all start "
                              "at cycle 0; prove a concrete --warps W for late launches")
        self.prop = self.prop or ("oracle" if self.all_warps else default_property(self.config.design))
        get_property(self.prop).checked(FrontEnd(self.config))  # a property the design lacks is bad input
        if self.depth and self.prologue >= self.depth:
            raise ConfigError(f"--prologue {self.prologue} leaves no cycle to check within --depth {self.depth}; "
                              "give a depth larger than the prologue, or leave --depth out")
        self.depth = self.depth or default_depth(self.config) + self.prologue  # cycles checked after the prologue


# SM settings that change a run, with the tag they get in its name when they differ from the default.
_TAGS = {"t_fetch": "tf", "t_decode": "td", "ibuffer": "ib", "miss_latency": "miss", "threads_per_warp": "thr"}


def run_name(job: ProveJob) -> str:
    """The run's name (and its witness file's): design, policies, W, what else differs from the defaults, property.

    Two runs that can end differently get different names, so that a witness never silently replaces
    another run's (e.g. ``--prologue 12`` adds ``-prologue12``).
    """
    c, default = job.config, SMConfig()
    base = FrontEnd(c).name.rsplit("-W", 1)[0] + "-all-W" if job.all_warps else FrontEnd(c).name
    parts = [f"{tag}{getattr(c, f)}" for f, tag in _TAGS.items() if getattr(c, f) != getattr(default, f)]
    if dict(c.latency) != dict(default.latency) or c.unpipelined != default.unpipelined:
        changed = sorted(k for k in c.latency if c.latency[k] != default.latency.get(k))
        parts.append("lat-" + "-".join(f"{k}{c.latency[k]}" for k in changed) if changed else "unpipelined")
    if c.kernel_of_warp:
        parts.append("k" + "".join(map(str, c.kernel_of_warp)) + "-b" + ".".join(map(str, c.budgets)))
    if any(c.launches):
        parts.append("launch" + ".".join(map(str, c.launches)))
    if job.prologue:
        parts.append(f"prologue{job.prologue}")
    return "-".join([base, *parts, job.prop])


def default_depth(config: SMConfig) -> int:
    """Cycles that any single-point bug needs to show: the longest predictable window plus the pipeline.

    A miss window lasts 1 + miss_latency + t_fetch + t_decode cycles (README, oracles);
    one more pipeline length lets the instruction fetched at its end reach the issue stage.
    """
    return 1 + config.miss_latency + 2 * config.pipe


@dataclass
class ProveOutcome:
    """A proof result with its witness and the replays that check it."""

    job: ProveJob
    result: Result
    witness_path: str | None = None
    replays: list[Replay] = field(default_factory=list)
    recheck: str | None = None
    not_replayed: dict[str, str] = field(default_factory=dict)  # design -> why it does not accept the witness
    replaced: bool = False  # the witness file existed before this run wrote it

    @property
    def reference(self) -> str:
        """The name of the reference the property compares the design with."""
        if self.job.all_warps:
            return f"{self.job.prop} eligibility view (spec/frontend/issue_reference.py)"
        return get_property(self.job.prop).checked(self.job.design or FrontEnd(self.job.config)).reference.name

    @property
    def name(self) -> str:
        return run_name(self.job)

    def to_json(self) -> dict[str, Any]:
        out = self.result.to_json()
        out.update(name=self.name, property=self.job.prop, config=self.job.config.to_json(),
                   witness=self.witness_path, recheck=self.recheck,
                   cycle=self.replays[0].first_violation if self.replays else None, reference=self.reference)
        if self.replays:
            out["replay"] = {r.design: r.first_violation for r in self.replays}
        if self.not_replayed:
            out["not_replayed"] = self.not_replayed
        return out

    def report(self) -> str:
        r = self.result
        lines = [f"{r.label}  {self.name}: {get_property(self.job.prop).summary}",
                 f"  engine {r.engine}, depth {r.depth}, {r.seconds:.2f} s" + (f"; {r.message}" if r.message else "")]
        if r.lemmas:
            ranges = sum(n.startswith("range:") for n in r.lemmas)
            lines.append(f"  rests on: the reference {self.reference}; {len(r.lemmas)} lemmas proved before use "
                         f"({ranges} of them variable ranges; names in --json), {len(r.rejected_lemmas)} "
                         "candidates rejected")
        if self.recheck:
            lines.append(f"  second solver: {self.recheck}")
        if self.witness_path:
            cycle = self.replays[0].first_violation
            lines += [f"  witness: {self.witness_path} (violation at cycle {cycle})"
                      + (" (replaced the file of an earlier run)" if self.replaced else "")]
            lines += [f"  not replayed on {d}: {why}" for d, why in self.not_replayed.items()]
            lines += ["", changes_only(self.replays[0]), "", side_by_side(self.replays)]
        return "\n".join(lines)


def _engine_run(job: ProveJob, progress: Progress) -> Result:
    if job.all_warps:
        return prove_parametric(job.config, job.prop, timeout=job.timeout)
    t0 = time.monotonic()
    lifted = _lifted(job, progress)
    if lifted is not None:
        return lifted
    timeout = None if job.timeout is None else max(job.timeout - (time.monotonic() - t0), 0.001)
    ts = get_property(job.prop).checked(job.design or FrontEnd(job.config))
    if job.prologue:  # the record of cycle t is in state t + 1: skip states 0 .. prologue
        pts = Prologue(ts, job.prologue + 1)
        r = engine(job.engine)(pts, pts.guard(ts.agree), job.depth, timeout, progress=progress)
        r.message = "; ".join(filter(None, [r.message, f"cycles 0 .. {job.prologue - 1} not checked (--prologue)"]))
        return r
    return engine(job.engine)(ts, ts.agree, job.depth, timeout, progress=progress)


def _lifted(job: ProveJob, progress: Progress) -> Result | None:
    """For the baseline at many warps: a violation found at a few warps and confirmed at all of them."""
    if (job.engine not in ("auto", "bmc") or job.design is not None or job.prologue
            or job.config.design != "baseline" or job.config.warps <= SMALL):
        return None
    t0 = time.monotonic()
    if progress:
        progress(f"lift: searching at {SMALL} warps first, then confirming at {job.config.warps}")
    cap = LIFT_BUDGET if job.timeout is None else min(LIFT_BUDGET, job.timeout / 2)
    got = lift_violation(job.config, get_property(job.prop).checked, job.depth, cap)
    if got is None:
        if progress:
            progress(f"lift: nothing confirmed ({time.monotonic() - t0:.1f} s); searching at full size")
        return None
    trace, frame = got
    return Result(Status.FAIL, f"{job.engine}:lift", frame, seconds=time.monotonic() - t0, trace=trace,
                  message=f"violation found at {SMALL} warps and confirmed by a concrete run at "
                          f"{job.config.warps}; shorter ones not excluded")


def prove_job(job: ProveJob, progress: Progress = None) -> ProveOutcome:
    """Run the engine; for a FAIL, write the witness and check that it replays."""
    result = _engine_run(job, progress)
    out = ProveOutcome(job, result)
    if result.status is Status.FAIL and result.trace is not None:
        _attach_witness(out)
    if result.status is Status.PASS and job.recheck and not job.all_warps:
        from warpcheck._guard import in_child
        from warpcheck.verify.recheck import recheck_pass
        checked = get_property(job.prop).checked(job.design or FrontEnd(job.config))
        out.recheck = in_child(recheck_pass, checked, result)  # cvc5 does not see Ctrl-C: a child can be killed
        if out.recheck.startswith("REFUTED"):  # two solvers disagree: a bug to chase, never a PASS
            result.status, result.message = Status.ERROR, out.recheck
    return out


def prove_job_bounded(job: ProveJob) -> ProveOutcome:
    """``prove_job`` in a worker process, with its timeout bounding model construction too."""
    from warpcheck._guard import RunTimeout, guarded
    start = time.monotonic()
    try:
        with guarded(job.timeout, start):
            return prove_job(job)
    except RunTimeout:
        return ProveOutcome(job, Result(Status.TIMEOUT, job.engine, 0, seconds=time.monotonic() - start,
                                        message=f"did not finish within {job.timeout:g} s (set-up included)"))


def _attach_witness(out: ProveOutcome) -> None:
    fe, res = out.job.design or FrontEnd(out.job.config), out.result
    w = wit.from_trace(fe, res.trace, out.job.prop, out.job.prologue)
    cycles = res.depth + 4
    mine = replay(w.config, w.initial_ibuffer, w.streams, w.property, cycles, w.prologue, fe)
    out.replays = [mine]
    for d in wit.other_designs(w):
        try:
            other = wit.on_design(w, d)
        except ConfigError as e:  # e.g. an ibuffer too short for SWaS: the witness stands on its own design
            out.not_replayed[d] = str(e)
            continue
        out.replays.append(replay(other, w.initial_ibuffer, w.streams, w.property, cycles, w.prologue))
    if mine.first_violation != w.cycle:  # the kit's own bug, never the design's
        res.status = Status.ERROR
        res.message = (f"witness does not reproduce: the solver's violation is at cycle {w.cycle}, "
                       f"the replay's at {mine.first_violation}")
        return
    path = Path(out.job.witness_path or Path("warpcheck-out") / f"{out.name}.json")
    out.replaced = path.exists()
    w.save(path)
    out.witness_path = str(path)
    if out.job.vcd_path:
        write_vcd(out.replays, out.job.vcd_path)


@dataclass
class ReplayOutcome:
    """A witness replayed on one or two designs."""

    witness: wit.Witness
    replays: list[Replay]
    not_replayed: dict[str, str] = field(default_factory=dict)  # --design both: designs that refuse the witness

    @property
    def reproduced(self) -> bool:
        """The witness's own design leaves the policy at the witness's cycle."""
        mine = next((r for r in self.replays if r.design == self.witness.config.design), None)
        return mine is None or self.witness.cycle is None or mine.first_violation == self.witness.cycle

    def to_json(self) -> dict[str, Any]:
        mine = next((r for r in self.replays if r.design == self.witness.config.design), self.replays[0])
        return {"reproduced": self.reproduced, "cycle": mine.first_violation, "design": mine.design,
                "expected_cycle": self.witness.cycle,
                "designs": {r.design: {"first_violation": r.first_violation,
                                       "issued": [c.issued for c in r.cycles],
                                       "reference": [c.reference for c in r.cycles]} for r in self.replays},
                "not_replayed": self.not_replayed}

    def report(self) -> str:
        lines = []
        for r in self.replays:
            fv = r.first_violation
            verdict = (f"leaves the policy at cycle {fv}" if fv is not None
                       else f"stays on the policy for all {len(r.cycles)} cycles")
            lines.append(f"{r.design}: {verdict}")
        lines += [f"{d}: not replayed: {why}" for d, why in self.not_replayed.items()]
        status = "reproduced" if self.reproduced else "NOT reproduced (a bug of warpcheck: please report it)"
        lines.append(f"witness {status} (expected cycle {self.witness.cycle})")
        return "\n".join(lines) + "\n\n" + side_by_side(self.replays)


def replay_witness(path: str, design: str, cycles: int | None, vcd: str | None) -> ReplayOutcome:
    """Load a witness and replay it on ``design`` ('baseline', 'swas' or 'both')."""
    w = wit.load(path)
    n = cycles if cycles is not None else (w.cycle or 0) + 4
    configs, skipped = [wit.on_design(w, design if design != "both" else w.config.design)], {}
    for d in wit.other_designs(w) if design == "both" else []:
        try:
            configs.append(wit.on_design(w, d))
        except ConfigError as e:  # "both" means every design that accepts the configuration
            skipped[d] = str(e)
    replays = [replay(c, w.initial_ibuffer, w.streams, w.property, n, w.prologue) for c in configs]
    if vcd:
        write_vcd(replays, vcd)
    return ReplayOutcome(w, replays, skipped)
