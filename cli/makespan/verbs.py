"""``warpcheck makespan``: the exact worst-case makespan of W warps, with the paper's bounds beside it."""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Any

from warpcheck import _guard as guard
from warpcheck.cli.options import INPUT, OUTPUT_FILE
from warpcheck._guard import RunTimeout
from warpcheck.cli.makespan.auto import auto_exact
from warpcheck.cli.makespan.interval import LONG_PHASES, closed_uppers, interval_only, kept
from warpcheck.cli.makespan.cert import CERTIFYING, CLOSED_FORMS, certificate, interval_certificate, run_check, write
from warpcheck.cli.makespan.methods import BOUND_BUDGET, SMT_BUDGET, Outcome, exact, to_stderr
from warpcheck.models.errors import ConfigError
from warpcheck.models.makespan.kernel import (MkKernel, approximation, check_warps, parse_kernel, parse_sigmas,
                                              pessimistic, transform)
from warpcheck.models.makespan.schedule import Schedule, render
from warpcheck.sim.makespan.enum import SearchBudgetExceeded, worst_case
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.replay import replay_issue

METHODS = ("auto", "interval", "blocks", "block-ranking", "deficit", "ranking", "smt", "optimize", "ilp", "enumerate", "approx", "pessimistic")
AUTO_BUDGET = 120.0  # seconds auto spends when --timeout is not given: every search in it is bounded
AUTO_RESERVE = 0.9  # the searches end at 90 % of --timeout: the rest replays and prints the schedule

EPILOG = """\
examples:
  warpcheck makespan LLCLL --warps 8 --sigma L=1 --sigma C=1
  warpcheck makespan LCLCL --warps 6 --sigma L=1/2 --sigma C=1 --method smt --json
  warpcheck makespan "L C4 L C4p" --warps 4 --sigma L=1 --sigma C=2

kernel: one upper-case letter per instruction, the unit type it runs on; a suffix gives a
latency (C4: four cycles holding the unit; C4p: pipelined, the unit is taken for one cycle).
cycles: a warp may issue its next instruction in the cycle after the previous one ends; at
every cycle each unit u issues min(free slots, ready warps) instructions (work conservation).
exit codes: 0 done (exact, or the estimate asked for), 2 bad input, 4 the exact search timed out
(the makespan shown is then a lower bound), or the answer is exact but --timeout ran out while its
certificate was checked (nothing written), 5 internal error (a schedule that does not replay)"""


def register(sub: Any) -> None:
    """Add the ``makespan`` verb."""
    p = sub.add_parser("makespan", help="worst-case makespan of W identical warps on one SM",
                       description="Compute the exact worst-case makespan of W warps running one kernel on a "
                                   "work-conserving SM, next to the paper's pessimistic bound and approximation.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernel", nargs="?", help="kernel instruction string, e.g. LLCLL")
    p.add_argument("--warps", "-W", type=int, help="number of warps W (at least 1; required with a kernel)")
    p.add_argument("--sigma", action="append", default=[], metavar="U=n|U=1/n",
                   help="warps per cycle on unit type U (repeat for every unit of the kernel)")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="auto (default): first 5 to 25 policy runs against the closed bounds below (exact at "
                        "once when a run meets one), then enumerate for 2 s (0.25 s above 32 warps), then three "
                        "worker processes side by side (blocks then block-ranking; deficit; ranking; the first exact answer stops the "
                        "others; two, block-ranking and ranking, on a steep kernel, whose cheap runs outgrow every "
                        "unit's work), then, up to 32 warps, enumerate on with the last third (all within --timeout, "
                        "default 120 s); when none is exact, the certified interval lower .. upper (kernels above 40 "
                        "phases go straight to it); interval: only that (policy runs below; the critical-warp, "
                        "alternation and pair bounds, Eq. 5-7 where every sigma is 1, and the backlog LP above; "
                        "docs/makespan-interval.md); "
                        "blocks: deficit accounting over runs of same-unit phases (one-cycle kernels); "
                        "block-ranking: a ranking function over those blocks, found by LP; "
                        "deficit: deficit accounting over capped counts, refined by caps and linear invariants; "
                        "ranking: a bound linear in W proved by a ranking function found by LP; "
                        "each met by a searched run; "
                        "smt: Z3 bound search with an UNSAT proof; optimize: z3 Optimize; ilp: the paper's "
                        "Fig. 3 ILP on HiGHS; enumerate: exhaustive search; approx, pessimistic: the paper's "
                        "estimates")
    p.add_argument("--x", type=int, default=None, help="x of the approximation T^(W,x) (default min(W, 4))")
    p.add_argument("--timeout", type=float, default=None, help="seconds for the exact search (default: auto 120, "
                   "smt/optimize/ilp 300, "
                   "blocks, block-ranking, deficit and ranking 60, enumerate 3600; the whole run stops with TIMEOUT "
                   "shortly after)")
    p.add_argument("--certificate", metavar="FILE", type=OUTPUT_FILE, help="write a certificate of the exact answer (JSON: the "
                   "schedule and the upper-bound potential), or of the interval (the run and the upper bound's proof); "
                   "methods auto, interval, enumerate, blocks, block-ranking, deficit and ranking")
    p.add_argument("--check", metavar="FILE", type=INPUT, help="check a certificate instead of searching: exit 0 if it "
                   "holds, 1 if it is refused")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    g = p.add_argument_group("kernel from PTX (instead of a kernel string; docs/makespan-interval.md)")
    g.add_argument("--ptx", metavar="FILE", type=INPUT, help="build the kernel from a PTX entry: its worst path (as wcet takes "
                   "it, loops unrolled by their bounds), each instruction on the unit of its role")
    g.add_argument("--entry", metavar="NAME", help="the PTX entry (needed when the file holds several)")
    g.add_argument("--sm", metavar="FILE", type=INPUT, help="SM file: lanes per unit and the unit of each role "
                   "(examples/sm/fermi-makespan.toml, examples/sm/ampere-makespan.toml)")
    g.add_argument("--bounds", metavar="FILE.toml", type=INPUT, help="loop bounds ([loops] LABEL = N), as wcet reads them")
    g.add_argument("--loop-bound", action="append", metavar="LABEL=N", help="bound of the loop headed by LABEL")
    g.add_argument("--max-loop-bound", type=int, metavar="N", help="bound of every loop not named")
    p.set_defaults(func=run, budget_of=whole_run_budget)


def _from_ptx(args: argparse.Namespace) -> Any:
    """Build the kernel string and sigmas from ``--ptx`` (they replace the kernel argument and --sigma).

    Imported here: the PTX reader, the warp-level CFG and IPET take seconds to import, which a kernel string
    does not need.
    """
    from warpcheck.cli.makespan.ptx import ptx_kernel

    if args.kernel is not None or args.sigma:
        raise ConfigError("give either a kernel string with --sigma, or --ptx FILE with --sm FILE, not both")
    pk = ptx_kernel(args)
    args.kernel, args.sigma = pk.text, [f"{u}={v}" for u, v in pk.sigma.items()]
    return pk


def _kernel(args: argparse.Namespace) -> MkKernel:
    if args.kernel is None or args.warps is None:
        raise ConfigError("give a kernel and --warps W (e.g. makespan LLCLL --warps 8 --sigma L=1 --sigma C=1), "
                          "or --check FILE")
    if args.certificate and args.method not in CERTIFYING:
        raise ConfigError(f"--certificate comes from the methods {', '.join(CERTIFYING)}, not {args.method!r}")
    check_warps(args.warps)
    if args.x is not None and args.x < 1:
        raise ConfigError(f"--x {args.x!r} must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        raise ConfigError(f"--timeout {args.timeout!r} must be positive")
    instrs, sigmas = parse_kernel(args.kernel), parse_sigmas(args.sigma)
    units = sorted({ins.unit for ins in instrs})
    stray = sorted(set(sigmas) - set(units))
    if stray:
        raise ConfigError(f"--sigma {stray[0]}=...: unit {stray[0]!r} is not in the kernel; its units: {', '.join(units)}")
    return transform(instrs, sigmas)


APPROX_SHARE = 0.2  # of --timeout (or of auto's budget) that the approximation's enumerations may take


def _approx(kernel: MkKernel, warps: int, x: int, budget: float) -> tuple[int, int] | None:
    """Eq. 42-43, or None when its exact worst cases of up to x warps (by enumeration) do not fit ``budget`` seconds
    or the kernel is long: the interval must not wait for an estimate."""
    if sum(i.latency for i in kernel.instrs) > LONG_PHASES:
        return None
    deadline = time.monotonic() + budget
    try:
        return approximation(warps, x, lambda y: worst_case(kernel, y, max(0.01, deadline - time.monotonic())).makespan)
    except SearchBudgetExceeded:
        return None


def run(args: argparse.Namespace) -> int:
    """Run the chosen method, check its schedule by replay, and print the report."""
    if args.check:
        return run_check(args.check, args.json)
    pk = _from_ptx(args) if args.ptx else None
    kernel = _kernel(args)
    warps, x = args.warps, args.x or min(args.warps, 4)
    progress = to_stderr if not args.json else None
    method = args.method
    report: dict[str, Any] = {"kernel": args.kernel, "transformed": kernel.text(), "warps": warps,
                              "sigma": {s.partition("=")[0].strip(): s.partition("=")[2].strip() for s in args.sigma},
                              "method": method}
    if pk is not None:
        from warpcheck.cli.makespan.ptx import mapping_lines

        report["ptx"] = pk.to_json()
        if progress:
            print("\n".join(mapping_lines(pk)))
    timings: dict[str, float] = {}
    t0 = started = time.monotonic()
    deadline = started + AUTO_RESERVE * (args.timeout or AUTO_BUDGET)  # the searches end here: replay and print fit
    alarm = signal.getitimer(signal.ITIMER_REAL)[0]  # the guard's backstop counts the set-up before this point too
    if alarm > 0:  # under load the imports take seconds: end the searches before the alarm, with room to print
        deadline = min(deadline, started + alarm - max(0.5, 0.05 * (args.timeout or AUTO_BUDGET)))
    report["pessimistic"] = pessimistic(kernel, warps)
    timings["pessimistic"] = time.monotonic() - t0
    t0 = time.monotonic()
    estimate = _approx(kernel, warps, x, APPROX_SHARE * (args.timeout or AUTO_BUDGET))
    timings["approx"] = time.monotonic() - t0
    approx = estimate[0] if estimate else None
    report["approximation"] = {"value": approx, "x": x, "y": estimate[1]} if estimate else None
    t0 = time.monotonic()
    keep: list[Any] = []  # the interval's longest run so far, for when the alarm stops the search
    try:
        if method == "auto":
            method, out = auto_exact(kernel, warps, deadline, progress, keep)
            out.seconds, report["method"] = time.monotonic() - t0, method
        elif method == "interval":
            out = interval_only(kernel, warps, deadline, progress, keep)
        elif method in ("approx", "pessimistic"):
            out = _estimate(method, report, approx)
        else:
            budget = None if args.timeout is None else max(0.1, deadline - time.monotonic())
            out = exact(method, kernel, warps, budget, progress)
    except RunTimeout:  # the alarm ended the search before it returned its run: keep the bounds known for sure
        out = kept(kernel, warps, keep, time.monotonic() - t0)
    timings[method] = out.seconds
    report.update(makespan=out.makespan, exact=out.exact, seconds=round(out.seconds, 3), note=out.note,
                  timings={k: round(v, 3) for k, v in timings.items()},
                  upper=_upper(out), closed_form=out.closed_form, tried=out.tried or None,
                  schedule=out.schedule.to_json() if out.schedule else None)
    if out.schedule is not None and not _check_replay(out.schedule, out.makespan, report):
        print(f"warpcheck makespan: error: internal error, the schedule found does not replay: "
              f"{report['replay']['problem'] or report['replay']['makespan']}", file=sys.stderr)
        return 5
    certified = _certify(args, report, out) if args.certificate else "ok"
    if certified == "refused":
        return 5
    _print(report, out.schedule, args.json)
    return 0 if (out.exact and certified == "ok") or method in ("approx", "pessimistic") else 4


def _certify(args: argparse.Namespace, report: dict[str, Any], out: Outcome) -> str:
    """Write the certificate of an exact answer after checking it: "ok", or "refused" / "timeout" (nothing written).

    A large table (an enumeration's, 161k entries at W = 32) may take longer to
    check than the search left of --timeout: the exact answer is then still
    reported (exit 4), without the certificate, rather than lost to a TIMEOUT.
    """
    report["certificate"] = None
    if out.proof is None or out.schedule is None or (not out.exact and out.upper is None):
        return "ok"
    try:
        if out.exact and out.proof[0] not in CLOSED_FORMS:  # a closed form meeting the run: an interval of one
            cert = certificate(args.kernel, report["sigma"], args.warps, out.schedule, out.proof)
            check(cert)
        else:
            assert out.upper is not None
            cert = interval_certificate(args.kernel, report["sigma"], args.warps, out.schedule, out.upper[0],
                                        out.proof)
            check_interval(cert)
    except CertificateRefused as e:
        print(f"warpcheck makespan: error: internal error, the certificate written does not hold: {e}",
              file=sys.stderr)
        return "refused"
    except RunTimeout:
        report["note"] += f"; {guard.stop_cause()} while the certificate was checked: {args.certificate} not written"
        report["certificate_missing"] = f"{guard.stop_cause()} while it was checked"
        return "timeout"
    write(args.certificate, cert)
    report["certificate"] = args.certificate
    return "ok"


def _upper(out: Outcome) -> dict[str, Any] | None:
    """The least upper bound proved: the makespan itself when exact, else the best bound of deficit or ranking."""
    if out.exact and out.makespan is not None:
        return {"value": out.makespan, "method": "exact"}
    return {"value": out.upper[0], "method": out.upper[1]} if out.upper else None


def _estimate(method: str, report: dict[str, Any], approx: int | None) -> Outcome:
    if approx is None and method == "approx":
        raise ConfigError(f"--method approx enumerates up to x warps exactly, and the kernel has more than "
                          f"{LONG_PHASES} phases or that took more than {APPROX_SHARE:.0%} of --timeout; "
                          "use --method interval (or auto), or a longer --timeout")
    value = approx if method == "approx" else report["pessimistic"]
    return Outcome(value, False, None, 0.0, "an upper estimate, not the exact worst case")


def _check_replay(schedule: Schedule, makespan: int | None, report: dict[str, Any]) -> bool:
    """Replay on the kernel as the checker's side transforms it (not the search's own): a transform bug shows."""
    r = replay_issue(reference_kernel(report["kernel"], report["sigma"]), schedule.issue)
    report["replay"] = {"ok": r.ok and r.makespan == makespan, "makespan": r.makespan, "problem": r.problem}
    return report["replay"]["ok"]


def _short(text: str, room: int = 64) -> str:
    """A kernel string as printed: whole up to ``room`` characters, else its ends and its length."""
    return text if len(text) <= room else f"{text[:room // 2]}...{text[-8:]} ({len(text)} instructions)"


def _print(report: dict[str, Any], schedule: Schedule | None, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report))
        return
    t = report["timings"]
    print(f"kernel {_short(report['kernel'])} (transformed: {_short(report['transformed'])}), W = {report['warps']}, "
          f"sigma {', '.join(f'{u}={v}' for u, v in report['sigma'].items())}")
    label = "exact worst-case makespan" if report["exact"] else "makespan (not proved exact)"
    print(f"{label}: {report['makespan']}   [{report['method']}, {t[report['method']]:.3f} s; {report['note']}]")
    up = report["upper"]
    if not report["exact"] and up and report["makespan"]:
        below = "the run above" if schedule is not None else "the lower bound above"
        print(f"the worst case lies in {report['makespan']} .. {up['value']}: {below}, and the bound "
              f"proved by {up['method']} ({100 * (up['value'] - report['makespan']) / report['makespan']:.1f} % above)")
    cf = report["closed_form"]
    if cf:
        print(f"for {cf['for']}: makespan = {cf['formula']} (the bound holds for every W; a run of "
              f"{cf['base_warps']} warps, cycles {', '.join(f'{a}..{b}' if a < b else f'{a}' for a, b in cf['repeated_cycles'])} "
              f"repeated per {cf['period']} more warp{'s' if cf['period'] > 1 else ''}, meets it)")
    over = (report["makespan"] or 0) > report["pessimistic"]
    print(f"pessimistic bound (Eq. 5-7): {report['pessimistic']}   [{t['pessimistic']:.3f} s]"
          + ("  (below the run above: the paper's count is no bound with a unit of sigma 2 or more)" if over else ""))
    a = report["approximation"]
    if a is None:
        print(f"approximation T^(W,x) (Eq. 42-43): not computed (it enumerates up to x warps exactly: the kernel "
              f"has more than {LONG_PHASES} phases, or that took more than {APPROX_SHARE:.0%} of the time)")
    else:
        print(f"approximation T^(W,x={a['x']}) (Eq. 42-43): {a['value']} (y = {a['y']})   [{t['approx']:.3f} s]")
    if "certificate" in report:
        why = report.get("certificate_missing", "no proof to write")
        print(f"certificate: {report['certificate'] or f'none written ({why})'}")
    if schedule is None:
        return
    print(f"schedule reaching it (replayed: work-conserving, makespan {report['replay']['makespan']}):")
    if schedule.warps <= 32 and schedule.makespan <= 300:
        print(render(schedule))
    else:
        print(f"  {schedule.makespan} cycles x {schedule.warps} warps: too large to print; use --json")


ENUMERATE_BUDGET = 3600.0  # the exhaustive search has no budget of its own: the run's backstop


def whole_run_budget(args: argparse.Namespace) -> float:
    """The run's budget when --timeout is not given: the method's own, so that every run ends."""
    if args.timeout:
        return float(args.timeout)
    own = {"auto": AUTO_BUDGET, "smt": SMT_BUDGET, "optimize": SMT_BUDGET, "ilp": SMT_BUDGET,
           "enumerate": ENUMERATE_BUDGET}
    return own.get(getattr(args, "method", "auto") or "auto", BOUND_BUDGET)
