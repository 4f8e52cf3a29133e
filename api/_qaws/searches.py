"""The QAWS searches on their options records (Singh et al.): worst-case response, priority inversion, switch bound.

Every answer of the solver is replayed on the simulator: a worst case the
simulator does not reach, or an inversion it does not show, is an ERROR of
the kit (exit 5), never a verdict.
"""
from __future__ import annotations

from typing import Callable

from warpcheck._qaws.certificate import write_certificate
from warpcheck._qaws.options import NAMES, QawsInversionOptions, QawsSearchOptions, QawsSwitchesOptions, QawsWcrtOptions
from warpcheck._qaws.results import (ExhaustiveCheck, InversionRow, QawsInversionResult, QawsRun, QawsSwitchesResult,
                                     QawsWcrtResult, WcrtRow)
from warpcheck.encodings.certificate import not_certifiable
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.qaws.response import StallSpace
from warpcheck.models.qaws.policies import POLICY_OF
from warpcheck.sim.qaws.worst import exhaustive_worst, replay
from warpcheck.verify.qaws.switches import prove_switch_bound
from warpcheck.verify.qaws.wcrt import inversion, worst_response
from warpcheck.verify.result import EXIT_CODES, Status

__all__ = ["stall_space", "run_wcrt", "run_inversion", "run_switches"]

SWITCH_PROPERTY = "while K2 has an eligible warp, K1 switches warps at most {b} time(s) between K2 issues"
INVERSION_PROPERTY = "K2 never finishes after K1"
Progress = Callable[[str], None]


def stall_space(o: QawsSearchOptions, policy: str) -> StallSpace:
    """The two kernels' stall space under ``policy``, from the search's options."""
    kow = (0,) * o.warps[0] + (1,) * o.warps[1]
    config = SMConfig(warps=len(kow), design="swas", issue_policy=POLICY_OF[policy], latency=o.latency,
                      unpipelined=(), kernel_of_warp=kow, budgets=tuple(o.budget[n] for n in NAMES),
                      launches=tuple(o.launch[n] for n in NAMES), t_fetch=o.t_fetch, t_decode=o.t_decode,
                      ibuffer=o.ibuffer, miss_latency=o.miss_latency)
    return StallSpace(config, [o.program[n] for n in NAMES], misses=not o.no_misses, deps=not o.no_deps,
                      branches=not o.no_branches)


def _wcrt_row(o: QawsWcrtOptions, policy: str, progress: Progress | None) -> WcrtRow:
    ts = stall_space(o, policy)
    r = worst_response(ts, 1, o.horizon, o.timeout, progress=progress)
    run = replay(ts, r.params, r.inputs)
    exhaustive = None
    if o.exhaustive:
        ex = exhaustive_worst(ts, 1)
        exhaustive = ExhaustiveCheck(ex.finish[1], ex.response(ts, 1), ex.finish[1] == r.finish)
    d = r.to_json()
    return WcrtRow(policy, d["status"], d["finish"], d["response"], d["exact"], d["seconds"], d["message"],
                   tuple(d["queries"]), run.finish[1] == r.finish, QawsRun.of(run.to_json(ts)), exhaustive, d["kernel"])


def run_wcrt(o: QawsWcrtOptions, progress: Progress | None = None) -> QawsWcrtResult:
    """``qaws wcrt`` on its record: every policy's row, the worst status and the exit code."""
    rows = tuple(_wcrt_row(o, p, progress) for p in o.policy)
    bad = [r.policy for r in rows if not r.replayed or (r.exhaustive is not None and not r.exhaustive.agrees)]
    if bad:
        return QawsWcrtResult(Status.ERROR.value, EXIT_CODES[Status.ERROR],
                              f"the search and the simulator disagree for {', '.join(bad)}", rows)
    worst = max((Status(r.status) for r in rows), key=lambda s: EXIT_CODES[s])
    return QawsWcrtResult(worst.value, EXIT_CODES[worst], None, rows)


def _inversion_row(o: QawsInversionOptions, policy: str) -> tuple[InversionRow, Status]:
    ts = stall_space(o, policy)
    r = inversion(ts, o.depth, o.timeout)
    row = InversionRow(policy, r.status.value, r.label, r.depth, round(r.seconds, 3), r.status is Status.FAIL)
    if r.trace is None:
        return row, r.status
    run = replay(ts, r.trace.params, r.trace.inputs)
    replayed = run.finish[0] < run.finish[1]
    row = InversionRow(row.policy, row.status, row.label, row.depth, row.seconds, row.found,
                       QawsRun.of(run.to_json(ts)), replayed)
    return row, Status.FAIL if replayed else Status.ERROR


def run_inversion(o: QawsInversionOptions) -> QawsInversionResult:
    """``qaws inversion`` on its record: a priority inversion per policy, replayed, or none up to the depth."""
    found = [_inversion_row(o, p) for p in o.policy]
    codes = [EXIT_CODES[s] for _, s in found]
    # an inversion found (FAIL) outranks a search stopped elsewhere: it answers the question
    code = next((c for c in (5, 1, 4, 3) if c in codes), 0)
    status = next((s for _, s in found if EXIT_CODES[s] == code), Status.PASS)
    problem = "an inversion found does not replay on the simulator" if status is Status.ERROR else None
    return QawsInversionResult(status.value, code, problem, INVERSION_PROPERTY, tuple(r for r, _ in found))


def run_switches(o: QawsSwitchesOptions) -> QawsSwitchesResult:
    """``qaws switches`` on its record: the switch bound proved (or refuted with its schedule)."""
    kow = (0,) * o.warps[0] + (1,) * o.warps[1]
    config = SMConfig(warps=len(kow), design="swas", issue_policy=POLICY_OF[o.policy], kernel_of_warp=kow,
                      budgets=(o.budget["K1"], o.budget["K2"]))
    r = prove_switch_bound(FrontEnd(config), timeout=o.timeout, depth=o.depth)
    d = r.to_json()
    order = tuple(s["o.w"] for s in r.trace.states[1:]) if r.trace else None
    claim = SWITCH_PROPERTY.format(b=o.budget["K1"])
    written, message = None, d["message"]
    if r.status is Status.PASS and not o.no_certificate:  # every PASS has one (a bounded one says why not)
        why = not_certifiable(r.status.value, r.bounded, r.depth)
        path = o.certificate or f"warpcheck-out/qaws-switches-{o.policy}-{o.warps[0]}-{o.warps[1]}-" \
                                f"b{o.budget['K1']}.{o.budget['K2']}.smt2"
        written = None if why else write_certificate(path, config, r, claim)
        message += f"; no certificate: {why}" if why else ""
    return QawsSwitchesResult(r.status.value, EXIT_CODES[r.status], None, claim,
                              o.policy, d["engine"], d["depth"], d["bounded"], d["seconds"], message,
                              tuple(d["lemmas"]), tuple(d["rejected_lemmas"]),
                              None if d["warps_covered"] is None else tuple(d["warps_covered"]), r.label, order,
                              written)
