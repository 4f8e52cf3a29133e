"""``prove --all-warps --property exact`` on SWaS: the proof for every W, its encoding check, or the W where it breaks.

1. Encoding: for W = 1..:data:`ENCODED` the quantified design and machine
   are the kit's per-W ones (``every_warp_encoding.py``); a kit design that
   differs is not the design proved, and is refused as such.
2. Proof: initiation and consecution of the universally quantified invariant
   unsat, and its hypotheses satisfiable (``every_warp.py``): PASS for every
   W >= 1, ``warps`` = (1, None).
3. Otherwise a bounded run from the initial state over the warp sort: a model
   is a run at some W (its program and inputs), replayed concretely on the
   kit's design at that W beside the kit's analysis machine, then shrunk warp
   by warp while the replay still breaks: FAIL with that trace (the library
   turns it into a witness and replays it on both designs).

Fixed, not symbolic: t_fetch, t_decode, the ibuffer size, the miss latency,
the latencies and which units are unpipelined (each proof is for one
configuration of them); every number of warps and every program are covered.
"""
from __future__ import annotations

from typing import Any, Callable

from warpcheck.encodings.unroll import Trace
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.swas_every_warp import SortPolicy
from warpcheck.verify.engines import Deadline
from warpcheck.verify.frontend.every_warp import (POLICIES_EVERY_W, Pair, Run, bmc_every_warp, consecution,
                                                  consistency, initiation)
from warpcheck.verify.frontend.every_warp_encoding import encoding_agrees
from warpcheck.verify.frontend.lift import replay_to_disagreement
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.result import Result, Status

ENCODED = 6  # the W up to which the quantified step is checked equal to the kit's
SLICE_MS = 30_000  # consecution's share when a bounded search may follow
BMC_DEPTH = 6  # cycles the bounded search over the sort looks at, for every W
Make = Callable[[SMConfig], FrontEnd]
Progress = Callable[[str], None] | None


def check_covered(config: SMConfig) -> None:
    """Refuse, by name, what the every-W proof does not cover."""
    if config.design != "swas" or config.issue_policy not in POLICIES_EVERY_W:
        raise ConfigError(f"the proof of 'exact' for every W is for design 'swas' with policy "
                          f"{', '.join(POLICIES_EVERY_W)} (got {config.design!r}, {config.issue_policy!r}); "
                          "prove a given number of warps")
    if config.kernel_of_warp or config.budgets or any(config.launches):
        raise ConfigError("the proof of 'exact' for every W is for one kernel launched at cycle 0 (no "
                          "kernel_of_warp, budgets or launches); prove a given number of warps")


def prove_every_warp(config: SMConfig, make: Make = FrontEnd, policy: SortPolicy | None = None,
                     timeout: float | None = None, progress: Progress = None) -> tuple[Result, FrontEnd | None]:
    """The every-W proof of ``exact`` for the design ``make`` builds; the model at the W of a FAIL."""
    check_covered(config)
    dl, pair = Deadline(timeout), Pair.of(config, policy)
    say = progress or (lambda _: None)
    for w in range(1, ENCODED + 1):
        say(f"every W: the quantified step against the kit's at W = {w}")
        same, why = encoding_agrees(pair, make(config.with_(warps=w)), dl.left_ms())
        if same is None or dl.expired():
            return _unfinished(dl, f"encoding check: {why}"), None
        if not same:
            return Result(Status.UNKNOWN, "every-W", 0, seconds=dl.elapsed(),
                          message=f"the design is not the quantified model ({why}): prove it for a given number "
                                  "of warps"), None
    say("every W: initiation and consecution (EPR)")
    slice_ms = min(SLICE_MS, dl.left_ms() or SLICE_MS)
    init, step = initiation(pair, slice_ms), consecution(pair, slice_ms, explain=False)
    if init.answer == "unsat" and step.answer == "unsat":
        say("every W: the hypotheses of consecution are satisfiable (not vacuous)")
        cons = consistency(pair, dl.left_ms())
        if cons.answer == "sat":
            return _passed(pair, dl, init.seconds + cons.seconds + step.seconds), None
        return Result(Status.ERROR if cons.answer == "unsat" else Status.UNKNOWN, "every-W", 0, seconds=dl.elapsed(),
                      message=f"the hypotheses of consecution are {cons.answer} (sat expected): a vacuous proof is "
                              "no proof (a kit bug if unsat)"), None
    if init.answer == "sat":
        return Result(Status.ERROR, "every-W", 0, seconds=dl.elapsed(),
                      message=f"an initial state of {init.warps} warps breaks the invariant: a kit bug"), None
    return _refute(config, make, pair, dl, step, say)


def _passed(pair: Pair, dl: Deadline, solving: float) -> Result:
    lemmas = _lemma_names(pair)
    return Result(Status.PASS, "every-W", 1, seconds=dl.elapsed(), lemmas=lemmas, warps=(1, None),
                  message=(f"for every W >= 1: a universally quantified invariant of {len(lemmas)} lemmas, "
                           f"initiation and consecution unsat in EPR ({solving:.1f} s); the quantified step "
                           f"equals the kit's at W = 1..{ENCODED}; fixed: t_fetch, t_decode, ibuffer, "
                           "miss_latency, latencies"))


def _lemma_names(pair: Pair) -> list[str]:
    from warpcheck.encodings.warp_sort import WarpSort
    from warpcheck.verify.frontend.every_warp import design_state, machine_state, shared_lemmas, warp_lemmas
    A = WarpSort()
    s, r = design_state(A, pair, "n"), machine_state(A, pair, "n")
    return [f"{n} [every warp]" for n in warp_lemmas(A, pair, s, r, A.warp("w"))] + list(shared_lemmas(A, pair, s, r))


def _refute(config: SMConfig, make: Make, pair: Pair, dl: Deadline, step: Any,
            say: Callable[[str], None]) -> tuple[Result, FrontEnd | None]:
    """Consecution did not hold: a run from the initial state that breaks, at the fewest warps found, or UNKNOWN."""
    say(f"every W: consecution {step.answer}; bounded search over the warp sort, {BMC_DEPTH} cycles")
    run = bmc_every_warp(pair, BMC_DEPTH, dl.left_ms())
    if isinstance(run, str) or run is None:
        why = run or f"no run breaks within {BMC_DEPTH} cycles for any W"
        cti = f"a model of {step.warps} warps breaks the invariant's next state (verify.frontend.every_warp." \
              "consecution names the lemmas)" if step.answer == "sat" else "undecided"
        return _unfinished(dl, f"consecution: {cti}; {why}"), None
    say(f"every W: a run of {run.warps} warps breaks at cycle {run.frame - 1}; replaying on the kit's design")
    got = shrink(config, make, run)
    if got is None:
        return Result(Status.ERROR, "every-W", run.frame, seconds=dl.elapsed(),
                      message=f"the run of {run.warps} warps found over the sort does not replay on the kit's "
                              "design (a kit bug)"), None
    warps, trace, frame = got
    return Result(Status.FAIL, "every-W:bmc", frame, seconds=dl.elapsed(), trace=trace,
                  message=f"breaks at W = {warps}: a run over the warp sort ({run.warps} warps, found in EPR), "
                          f"replayed on the kit's design and shrunk to {warps} warps"), make(config.with_(warps=warps))


def replay_run(fe: FrontEnd, params: dict[str, Any], inputs: list[dict[str, Any]]) -> tuple[Trace, int] | None:
    """The kit's design beside its analysis machine on this program and these inputs; up to the first disagreement."""
    return replay_to_disagreement(get_property("exact").checked(fe), params, inputs)


def _without(params: dict[str, Any], gone: int, warps: int) -> dict[str, Any]:
    """The program with warp ``gone`` left out (the warps after it numbered one lower)."""
    out = {}
    for name, v in params.items():
        w, rest = name[1:].split(".", 1)
        k = int(w)
        if k != gone:
            out[f"w{k - (k > gone)}.{rest}"] = v
    return out


def shrink(config: SMConfig, make: Make, run: Run) -> tuple[int, Trace, int] | None:
    """Replay the run at its W, then leave out warps (last first) while the replay still breaks."""
    warps, params = run.warps, run.params
    got = replay_run(make(config.with_(warps=warps)), params, run.inputs)
    if got is None:
        return None
    for gone in reversed(range(warps)):
        if warps == 1:
            break
        fewer = _without(params, gone, warps)
        again = replay_run(make(config.with_(warps=warps - 1)), fewer, run.inputs)
        if again is not None:
            warps, params, got = warps - 1, fewer, again
    return warps, got[0], got[1]


def _unfinished(dl: Deadline, why: str) -> Result:
    return Result(Status.TIMEOUT if dl.expired() else Status.UNKNOWN, "every-W", 0, seconds=dl.elapsed(),
                  message=why)
