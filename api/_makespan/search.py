"""The one orchestration of a makespan question: the chosen method, its run replayed, its proof checked.

Both :func:`warpcheck.makespan` and ``warpcheck makespan`` run :func:`solve`: the paper's two estimates,
then the method (``auto``: see ``auto.py``), then the run replayed on the checker's own reading of the
kernel (``spec/makespan/replay.py``), and, for every exact answer (whatever the method: those that keep no
proof of their bound, smt, optimize and ilp, are given one by :func:`with_proof`) and every interval, the
certificate built and checked by the independent checker (``spec/makespan/certificate_check.py``,
``interval_check.py``) before the answer is returned, written only when a file is asked for.
"""
from __future__ import annotations

import signal
import time
from dataclasses import replace
from typing import Any

from warpcheck import _guard as guard
from warpcheck._guard import RunTimeout
from warpcheck._makespan.auto import auto_exact
from warpcheck._makespan.certificate import answer_certificate, write
from warpcheck._makespan.interval import LONG_PHASES, closed_uppers, interval_only, kept
from warpcheck._makespan.methods import Outcome, Progress, enumerate_counts, exact
from warpcheck._makespan.options import AUTO_BUDGET, ESTIMATES, MakespanOptions
from warpcheck._makespan.result import APPROX_SHARE, MakespanResult
from warpcheck.models.errors import ConfigError, KitError
from warpcheck.models.makespan.kernel import MkKernel, approximation, parse_kernel, parse_sigmas, pessimistic, transform
from warpcheck.models.makespan.schedule import Schedule
from warpcheck.sim.makespan.enum import SearchBudgetExceeded, worst_case
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.replay import replay_issue

AUTO_RESERVE = 0.9  # the searches end at 90 % of the budget: the rest replays, checks and reports the run


def solve(o: MakespanOptions, progress: Progress = None) -> MakespanResult:
    """Answer ``o`` (not a check): the estimates, the method's answer, its run replayed and its proof checked."""
    pk = None
    if o.ptx is not None:
        from warpcheck._makespan.ptx import ptx_kernel  # the PTX reader and IPET take seconds to import

        pk = ptx_kernel(o.ptx, o.sm, o.entry, o.bounds, o.loop_bound, o.max_loop_bound)
    text, sigma = (pk.text, dict(pk.sigma)) if pk is not None else (o.kernel, dict(o.sigma))
    assert text is not None and o.warps is not None  # the record requires them without a check
    kernel, warps = _kernel(text, sigma), o.warps
    started = time.monotonic()
    x = o.x or min(warps, 4)
    r = MakespanResult(kernel=text, transformed=kernel.text(), warps=warps, sigma=sigma, method=o.method,
                       ptx=pk, pessimistic=pessimistic(kernel, warps))
    budget = o.timeout or AUTO_BUDGET
    deadline = _deadline(started, budget)
    t0 = time.monotonic()
    r.timings["pessimistic"] = t0 - started
    try:
        estimate = _approx(kernel, warps, x, APPROX_SHARE * budget)
    except RunTimeout:  # the alarm came during the estimate: the method still gives what it finds at once
        estimate = None
    r.timings["approx"] = time.monotonic() - t0
    r.approximation = {"value": estimate[0], "x": x, "y": estimate[1]} if estimate else None
    t0 = time.monotonic()
    out = _method(o, r, kernel, deadline, progress, t0)
    r.timings[r.method] = out.seconds
    if out.exact and out.proof is None:  # smt, optimize, ilp: their bound is the solver's word
        t1 = time.monotonic()
        out = with_proof(kernel, r.warps, out, deadline)
        r.timings["proof"] = time.monotonic() - t1
    r.take(out)
    if out.schedule is not None:
        _replayed(r, out.schedule)
    if out.proof is not None and out.schedule is not None and (out.exact or out.upper is not None):
        _certify(o, r, out, kernel)
    elif o.certificate:
        r.certificate_file, r.certificate_asked = None, True
    return r


def _method(o: MakespanOptions, r: MakespanResult, kernel: MkKernel, deadline: float, progress: Progress,
            t0: float) -> Outcome:
    """Run the chosen method; when the alarm stops it, what it had kept (the bounds known for sure)."""
    keep: list[Any] = []  # the interval's longest run so far, for when the alarm stops the search
    try:
        if o.method == "auto":
            r.method, out = auto_exact(kernel, r.warps, deadline, progress, keep)
            out.seconds = time.monotonic() - t0
            return out
        if o.method == "interval":
            return interval_only(kernel, r.warps, deadline, progress, keep)
        if o.method in ESTIMATES:
            return _estimate(o.method, r)
        budget = None if o.timeout is None else max(0.1, deadline - time.monotonic())
        return exact(o.method, kernel, r.warps, budget, progress)
    except RunTimeout:  # the alarm ended the search before it returned its run
        return kept(kernel, r.warps, keep, time.monotonic() - t0)


def with_proof(kernel: MkKernel, warps: int, out: Outcome, deadline: float) -> Outcome:
    """An exact answer of a method that keeps no proof (smt, optimize, ilp), given one the checker can check.

    The least closed bound when it meets the answer (it costs nothing), else the enumeration's table of the
    count states (``certificate.py`` writes it, the checker steps every move of it).  The certificate then
    pairs the method's run with that bound: an answer below the worst case (a horizon that cut the longest run
    off) or above it is refused by the checker.  When the enumeration does not end by ``deadline`` the answer
    is not proved: it is returned as a lower bound, with the least closed bound above it.
    """
    assert out.makespan is not None
    upper, by, proof = min(closed_uppers(kernel, warps), key=lambda u: u[0])
    if upper == out.makespan:
        return replace(out, proof=proof, upper=(upper, by), note=f"{out.note}; met by the {by} bound")
    found = enumerate_counts(kernel, warps, max(0.1, deadline - time.monotonic()), None)
    if found.exact:
        return replace(out, proof=found.proof, upper=(found.makespan or 0, "enumerate"),
                       note=f"{out.note}; bound checked over {found.note}")
    return replace(out, exact=False, proof=proof, upper=(upper, by),
                   note=f"{out.note}, but no proof the checker can check was found in time ({found.note}): "
                        "a lower bound")


def _deadline(started: float, budget: float) -> float:
    """When the searches end: 90 % of the budget, and before the guard's alarm with room to report."""
    deadline = started + AUTO_RESERVE * budget
    alarm = signal.getitimer(signal.ITIMER_REAL)[0]  # the guard's backstop counts the set-up before this point
    if alarm > 0:  # under load the imports take seconds: end the searches before the alarm, with room to report
        deadline = min(deadline, time.monotonic() + alarm - max(0.5, 0.05 * budget))
    return deadline


def _kernel(text: str, sigma: dict[str, str]) -> MkKernel:
    """The design's transformed kernel; a sigma for a unit the kernel does not use is refused by name."""
    instrs, sigmas = parse_kernel(text), parse_sigmas(f"{u}={v}" for u, v in sigma.items())
    units = sorted({ins.unit for ins in instrs})
    stray = sorted(set(sigmas) - set(units))
    if stray:
        raise ConfigError(f"sigma {stray[0]}=...: unit {stray[0]!r} is not in the kernel; its units: "
                          f"{', '.join(units)}")
    return transform(instrs, sigmas)


def _approx(kernel: MkKernel, warps: int, x: int, budget: float) -> tuple[int, int] | None:
    """Eq. 42-43, or None when its exact worst cases of up to x warps (by enumeration) do not fit ``budget``
    seconds or the kernel is long: the interval must not wait for an estimate."""
    if sum(i.latency for i in kernel.instrs) > LONG_PHASES:
        return None
    deadline = time.monotonic() + budget
    try:
        return approximation(warps, x, lambda y: worst_case(kernel, y, max(0.01, deadline - time.monotonic())).makespan)
    except SearchBudgetExceeded:
        return None


def _estimate(method: str, r: MakespanResult) -> Outcome:
    approx = r.approximation["value"] if r.approximation else None
    if approx is None and method == "approx":
        raise ConfigError(f"method 'approx' enumerates up to x warps exactly, and the kernel has more than "
                          f"{LONG_PHASES} phases or that took more than {APPROX_SHARE:.0%} of the budget; "
                          "use method 'interval' (or 'auto'), or a longer timeout")
    value = approx if method == "approx" else r.pessimistic
    return Outcome(value, False, None, 0.0, "an upper estimate, not the exact worst case")


def _replayed(r: MakespanResult, schedule: Schedule) -> None:
    """Replay on the kernel as the checker's side transforms it (not the search's own): a transform bug shows."""
    rep = replay_issue(reference_kernel(r.kernel, r.sigma), schedule.issue)
    r.replay = {"ok": rep.ok and rep.makespan == r.makespan, "makespan": rep.makespan, "problem": rep.problem}
    if not r.replay["ok"]:
        raise KitError(f"the schedule found does not replay: {rep.problem or rep.makespan}; a bug of warpcheck")


def _certify(o: MakespanOptions, r: MakespanResult, out: Outcome, kernel: MkKernel) -> None:
    """Build the certificate of the answer and check it independently; write it when a file is asked for.

    A closed form met by the run is an interval of one.  A large table (an enumeration's, 161k entries at
    W = 32) may take longer to check than the search left of the budget: no exact answer is printed unchecked,
    so the answer is then reported as what is established without the checker, its run (replayed) as a lower
    bound and the least closed bound above it (exit 4), rather than lost to a TIMEOUT.
    """
    t0 = time.monotonic()
    try:
        cert = answer_certificate(r.kernel, r.sigma, r.warps, out)
        check_interval(cert) if cert.get("interval") else check(cert)
        r.timings["check"] = time.monotonic() - t0
    except CertificateRefused as e:
        raise KitError(f"the certificate of the answer does not hold: {e}; a bug of warpcheck") from None
    except RunTimeout:
        r.unchecked = f"{guard.stop_cause()} while it was checked"
        r.note += f"; {guard.stop_cause()} while the certificate was checked" + \
            (f": {o.certificate} not written" if isinstance(o.certificate, str) else "") + \
            ("; the search's answer is not printed as exact before the independent checker has checked it: a lower "
             "bound; run again with a longer --timeout to have it checked" if out.exact else "")
        if out.exact:
            r.exact = False
            r.upper, r.upper_by, _ = min(closed_uppers(kernel, r.warps), key=lambda u: u[0])
        r.certificate_asked = bool(o.certificate)
        return
    r.certificate = cert
    r.certificate_asked = bool(o.certificate)
    if isinstance(o.certificate, str):
        write(o.certificate, cert)
        r.certificate_file = o.certificate
