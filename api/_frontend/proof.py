"""A proof run of the SM front end: the engine, the witness of a FAIL and its replays, the second solver's re-check."""
from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from warpcheck._frontend.certificate import proved_system, why_none, write_certificate
from warpcheck._frontend.options import ProveOptions
from warpcheck._guard import RunTimeout, guarded, in_child
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.files import write_files
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES, Policy
from warpcheck.models.ts import Prologue
from warpcheck.sim.frontend.replay import Replay, changes_only, replay, side_by_side
from warpcheck.sim.frontend.vcd import vcd_text
from warpcheck.verify import bmc_bitwuzla
from warpcheck.verify.engines import Deadline, engine
from warpcheck.verify.frontend import witness as wit
from warpcheck.verify.frontend.lift import SMALL, lift_violation
from warpcheck.models.frontend.mutants import WIDE_MUTANTS
from warpcheck.verify.frontend.every_warp_proof import prove_every_warp
from warpcheck.verify.frontend.parametric import policy_disagreement, prove_parametric
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.result import Result, Status

Progress = Callable[[str], None] | None
PROJECTED = 4  # the W up to which the compositional proof checks its projection (and the policy)
LIFT_BUDGET = 15.0  # seconds for the small-W search before the full-size engine runs

# SM settings that change a run, with the tag they get in its name when they differ from the default.
_TAGS = {"t_fetch": "tf", "t_decode": "td", "ibuffer": "ib", "miss_latency": "miss", "threads_per_warp": "thr"}


def run_name(o: ProveOptions) -> str:
    """The run's name (and its witness file's): design, policies, W, what else differs from the defaults, property.

    Two runs that can end differently get different names, so that a witness never silently replaces
    another run's (e.g. ``prologue=12`` adds ``-prologue12``).
    """
    c, default = o.sm, SMConfig()
    base = FrontEnd(c).name.rsplit("-W", 1)[0] + "-all-W" if o.all_warps else FrontEnd(c).name
    parts = [f"{tag}{getattr(c, f)}" for f, tag in _TAGS.items() if getattr(c, f) != getattr(default, f)]
    if dict(c.latency) != dict(default.latency) or c.unpipelined != default.unpipelined:
        changed = sorted(k for k in c.latency if c.latency[k] != default.latency.get(k))
        parts.append("lat-" + "-".join(f"{k}{c.latency[k]}" for k in changed) if changed else "unpipelined")
    if c.kernel_of_warp:
        parts.append("k" + "".join(map(str, c.kernel_of_warp)) + "-b" + ".".join(map(str, c.budgets)))
    if any(c.launches):
        parts.append("launch" + ".".join(map(str, c.launches)))
    if o.prologue:
        parts.append(f"prologue{o.prologue}")
    return "-".join([base, *parts, o.prop])


@dataclass
class ProveOutcome:
    """A proof result with its witness and the replays that check it."""

    options: ProveOptions
    result: Result
    model: FrontEnd | None = None  # a model other than FrontEnd(options.sm): the mutation suite's
    witness_path: str | None = None
    replays: list[Replay] = field(default_factory=list)
    recheck: str | None = None
    not_replayed: dict[str, str] = field(default_factory=dict)  # design -> why it does not accept the witness
    replaced: bool = False  # the witness file existed before this run wrote it
    certificate: str | None = None  # the certificate file written (prove --certificate)
    no_certificate: str | None = None  # why none was written although one was asked for

    @property
    def reference(self) -> str:
        """The name of the reference the property compares the design with."""
        if self.options.all_warps and self.options.prop == "exact":
            return "analysis machine over a sort of warps (spec/frontend/analysis_every_warp.py)"
        if self.options.all_warps:
            return f"{self.options.prop} eligibility view (spec/frontend/issue_reference.py)"
        return get_property(self.options.prop).checked(self.model or FrontEnd(self.options.sm)).reference.name

    @property
    def name(self) -> str:
        """The run's name (:func:`run_name`)."""
        return run_name(self.options)

    def to_json(self) -> dict[str, Any]:
        """What ``warpcheck prove --json`` prints."""
        out = self.result.to_json()
        out.update(name=self.name, property=self.options.prop, config=self.options.sm.to_json(),
                   witness=self.witness_path, recheck=self.recheck,
                   cycle=self.replays[0].first_violation if self.replays else None, reference=self.reference)
        if self.replays:
            out["replay"] = {r.design: r.first_violation for r in self.replays}
        if self.not_replayed:
            out["not_replayed"] = self.not_replayed
        if self.certificate or self.no_certificate:
            out.update(certificate=self.certificate, no_certificate=self.no_certificate)
        return out

    def _cycles(self) -> str:
        """Depths in cycles, said once: the issue record of cycle t is checked at depth t + 1."""
        r = self.result
        if self.options.all_warps or r.depth < 1 or (r.status is Status.PASS and not r.bounded):
            return ""  # an unbounded PASS: its depth is the induction's k, not cycles checked
        if self.replays:
            return f" (violation at cycle {self.replays[0].first_violation}; cycle t is checked at depth t + 1)"
        cycles = "cycle 0" if r.depth == 1 else f"cycles 0 .. {r.depth - 1}"
        return f" ({cycles} checked: cycle t is checked at depth t + 1)"

    def report(self) -> str:
        """What ``warpcheck prove`` prints."""
        r = self.result
        lines = [f"{r.label}  {self.name}: {get_property(self.options.prop).summary}",
                 f"  engine {r.engine}, depth {r.depth}{self._cycles()}, {r.seconds:.2f} s"
                 + (f"; {r.message}" if r.message else "")]
        if r.lemmas:
            ranges = sum(n.startswith("range:") for n in r.lemmas)
            lines.append(f"  rests on: the reference {self.reference}; {len(r.lemmas)} lemmas proved before use "
                         f"({ranges} of them variable ranges; names in --json), {len(r.rejected_lemmas)} "
                         "candidates rejected")
        if self.recheck:
            lines.append(f"  second solver: {self.recheck}")
        if self.certificate:
            lines.append(f"  certificate: {self.certificate} (check it with: warpcheck check {self.certificate})")
        elif self.no_certificate:
            lines.append(f"  no certificate: {self.no_certificate}")
        if self.witness_path:
            cycle = self.replays[0].first_violation
            lines += [f"  witness: {self.witness_path} (violation at cycle {cycle})"
                      + (" (replaced the file of an earlier run)" if self.replaced else "")]
            lines += [f"  not replayed on {d}: {why}" for d, why in self.not_replayed.items()]
            lines += ["", changes_only(self.replays[0]), "", side_by_side(self.replays)]
        return "\n".join(lines)


def _all_warps(o: ProveOptions, model: FrontEnd | None, progress: Progress) -> tuple[Result, FrontEnd | None]:
    """The proof for every W; first the design's policy against the reference policy, W = 1..PROJECTED.

    Where they choose apart, the proof at that W (with its witness) is the answer: ``--all-warps`` never
    passes what a proof at one W refutes.
    """
    policy = _model_policy(model)
    dl = Deadline(o.timeout)
    if progress:
        progress(f"all warps: the design's policy against the reference policy, W = 1..{PROJECTED}")
    bad = policy_disagreement(o.sm, policy or POLICIES[o.sm.issue_policy], PROJECTED, dl)
    if isinstance(bad, str):
        return Result(Status.TIMEOUT if dl.expired() else Status.UNKNOWN, "parametric", 0, seconds=dl.elapsed(),
                      message=bad), model
    if bad is not None:
        return _at_warps(o, policy, bad, dl, progress)
    if o.prop == "exact":
        return _every_warp(o, policy, dl, progress)
    return prove_parametric(o.sm, o.prop, max_proj=PROJECTED, timeout=_left(dl)), model


def _every_warp(o: ProveOptions, policy: Policy | None, dl: Deadline,
                progress: Progress) -> tuple[Result, FrontEnd | None]:
    """``exact`` for every W (verify/frontend/every_warp_proof.py), for the kit's policy or a wide mutant of it."""
    wide = next((m for m in WIDE_MUTANTS.values() if m.kit is policy), None)
    if policy is not None and wide is None:
        return Result(Status.UNKNOWN, "every-W", 0, seconds=dl.elapsed(),
                      message="the design's policy agrees with the reference at W = 1..4 but has no form over the "
                              "warp sort: prove it for a given number of warps"), None
    if wide is None:
        return prove_every_warp(o.sm, timeout=_left(dl), progress=progress)
    return prove_every_warp(o.sm, wide.make, wide.every_warp, _left(dl), progress)


def _model_policy(model: FrontEnd | None) -> Policy | None:
    """The policy of a model handed in (a mutant of a policy), or a refusal for a model changed elsewhere."""
    if model is None:
        return None
    if type(model) is not FrontEnd or model.issue_policy is not model.fetch_policy:
        raise OptionError("all_warps", True, f"proves the kit's front end with a policy; model {model.name!r} "
                                             "changes the design itself: prove it for a given number of warps")
    return model.issue_policy


def _left(dl: Deadline) -> float | None:
    return None if dl.end is None else max(0.001, dl.end - time.monotonic())


def _at_warps(o: ProveOptions, policy: Policy | None, warps: int, dl: Deadline,
              progress: Progress) -> tuple[Result, FrontEnd | None]:
    """The proof at ``warps`` warps, where the design's policy was seen to choose unlike the reference."""
    at = replace(o, warps=warps, all_warps=False, timeout=_left(dl))
    model = FrontEnd(at.sm)
    if policy is not None:
        model.issue_policy = model.fetch_policy = policy
    r = _engine_run(at, model if policy is not None else None, progress)
    why = f"the design's policy chooses unlike the reference policy at W = {warps}"
    if r.status is Status.FAIL:
        r.message = "; ".join(filter(None, [f"{why}; the proof at W = {warps} refutes it", r.message]))
        return r, model
    status = r.status if r.status in (Status.TIMEOUT, Status.ERROR) else Status.UNKNOWN
    return Result(status, "parametric", 0, seconds=dl.elapsed(),
                  message=f"{why}; the proof at W = {warps} ended {r.label} ({r.message}): not every W is proved"), None


def _engine_run(o: ProveOptions, model: FrontEnd | None, progress: Progress) -> Result:
    t0 = time.monotonic()
    lifted = None if model is not None else _lifted(o, progress)
    if lifted is not None:
        return lifted
    timeout = _time_left(o.timeout, t0)
    if progress:
        progress(f"engine {o.engine}: building the model at {o.sm.warps} warps")
    ts, prop = proved_system(o, model)
    kept = {"lemma_cache": o.lemma_cache} if o.engine in ("auto", "kind") and model is None and o.lemma_cache else {}
    r = engine(o.engine)(ts, prop, o.horizon, timeout, progress=progress, **kept)
    if o.prologue:
        r.message = "; ".join(filter(None, [r.message, f"cycles 0 .. {o.prologue - 1} not checked (prologue)"]))
    return _kept(r, kept)


def _time_left(timeout: float | None, t0: float) -> float | None:
    """The engine's time: the timeout less what this run spent, ending before the run guard's alarm with room
    to report what the engine established (the alarm counts the set-up before this point)."""
    if timeout is None:
        return None
    left = timeout - (time.monotonic() - t0)
    alarm = signal.getitimer(signal.ITIMER_REAL)[0]
    if alarm > 0:
        left = min(left, alarm - max(0.6, 0.02 * timeout))
    return max(left, 0.001)


def _kept(r: Result, kept: dict[str, str]) -> Result:
    """A stopped run says where its proved lemmas wait for the next run."""
    if r.status is Status.TIMEOUT and kept:
        r.message += (f"; the lemma work done so far is kept in {kept['lemma_cache']}/: the same proof run again "
                      "(with a longer timeout, say) resumes from it")
    return r


def _lifted(o: ProveOptions, progress: Progress) -> Result | None:
    """For the baseline at many warps: a violation found at a few warps and confirmed at all of them,
    then shown the shortest by bitwuzla's BMC at full size within the time left (or replaced by a shorter)."""
    if o.engine not in ("auto", "bmc") or o.prologue or o.sm.design != "baseline" or o.sm.warps <= SMALL:
        return None
    t0 = time.monotonic()
    if progress:
        progress(f"lift: searching at {SMALL} warps first, then confirming at {o.sm.warps}")
    cap = LIFT_BUDGET if o.timeout is None else min(LIFT_BUDGET, o.timeout / 2)
    got = lift_violation(o.sm, get_property(o.prop).checked, o.horizon, cap)
    if got is None:
        if progress:
            progress(f"lift: nothing confirmed ({time.monotonic() - t0:.1f} s); searching at full size")
        return None
    trace, frame = got
    lifted = Result(Status.FAIL, f"{o.engine}:lift", frame, seconds=time.monotonic() - t0, trace=trace,
                    message=f"violation found at {SMALL} warps and confirmed by a concrete run at "
                            f"{o.sm.warps}; shorter ones not excluded")
    return _shortest(o, lifted, t0, progress) if bmc_bitwuzla.available() and frame > 0 else lifted


def _shortest(o: ProveOptions, lifted: Result, t0: float, progress: Progress) -> Result:
    """The lifted violation, or a shorter one: bitwuzla's BMC at full size up to one depth less."""
    if progress:
        progress(f"lift: violation at depth {lifted.depth}; bitwuzla looks for a shorter one at {o.sm.warps} warps")
    ts, prop = proved_system(o)
    below = bmc_bitwuzla.bmc_bitwuzla(ts, prop, lifted.depth - 1, _time_left(o.timeout, t0), progress=progress)
    if below.status is Status.FAIL:
        below.engine, below.seconds = f"{o.engine}:bmc", time.monotonic() - t0
        return below
    lifted.seconds = time.monotonic() - t0
    if below.status is Status.PASS:
        lifted.message = (f"shortest violation: found at {SMALL} warps and confirmed by a concrete run at "
                          f"{o.sm.warps}; none at a smaller depth (bitwuzla)")
    elif below.depth > 0:
        lifted.message += f" (bitwuzla: none up to depth {below.depth - 1} before the timeout)"
    return lifted


def prove_run(o: ProveOptions, progress: Progress = None, model: FrontEnd | None = None) -> ProveOutcome:
    """Run the engine; for a FAIL, write the witness and check that it replays; re-check a PASS if asked.

    ``model`` replaces the design built from the options (the mutation suites prove broken copies).
    """
    if o.all_warps:
        result, model = _all_warps(o, model, progress)
    else:
        result = _engine_run(o, model, progress)
    out = ProveOutcome(o, result, model)
    if result.status is Status.FAIL and result.trace is not None:
        _attach_witness(out)
    if result.status is Status.PASS and o.recheck and not o.all_warps:
        from warpcheck.verify.recheck import recheck_pass  # pySMT loads only for a re-check
        checked = get_property(o.prop).checked(model or FrontEnd(o.sm))
        out.recheck = in_child(recheck_pass, checked, result)  # cvc5 does not see Ctrl-C: a child can be killed
        if out.recheck.startswith("REFUTED"):  # two solvers disagree: a bug to chase, never a PASS
            result.status, result.message = Status.ERROR, out.recheck
    path = o.certificate_path(out.name)
    if path and (o.certificate or result.status is Status.PASS):  # asked for, or a PASS's by default
        out.no_certificate = why_none(o, result, model)
        out.certificate = None if out.no_certificate else write_certificate(o, result, path)
    return out


def prove_run_bounded(o: ProveOptions) -> ProveOutcome:
    """:func:`prove_run` in a worker process, with its timeout bounding model construction too."""
    start = time.monotonic()
    try:
        with guarded(o.timeout, start):
            return prove_run(o)
    except RunTimeout:
        kept = f"; lemmas proved so far are kept in {o.lemma_cache}/ for the next run" if o.lemma_cache else ""
        return ProveOutcome(o, Result(Status.TIMEOUT, o.engine, 0, seconds=time.monotonic() - start,
                                      message=f"did not finish within {o.timeout:g} s (set-up included){kept}"))


def _attach_witness(out: ProveOutcome) -> None:
    o = out.options
    fe, res = out.model or FrontEnd(o.sm), out.result
    w = wit.from_trace(fe, res.trace, o.prop, o.prologue)
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
    broken = mine.cycles[w.cycle].broken
    if broken:  # the policy's own fault, not the design's: say so first
        res.message = "; ".join(filter(None, [f"at cycle {w.cycle} {'; '.join(broken)}: the policy's fault, not the design's", res.message]))
    path = Path(o.witness or Path("warpcheck-out") / f"{out.name}.json")
    out.replaced = path.exists()
    files = {str(path): w.text(), **({o.vcd: vcd_text(out.replays)} if o.vcd else {})}
    write_files(files, "witness")  # the witness and its waveforms together, or neither
    out.witness_path = str(path)
