"""``warpcheck qaws``: searches over every stall pattern of two kernels on one SWaS SM (Singh et al.).

``qaws wcrt``: the worst-case response time of K2 under each policy, proved
maximal by the solver and replayed on the simulator (``--exhaustive``: also by
enumeration).  ``qaws inversion``: a run in which K2, the kernel of higher QoS,
finishes after K1.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from warpcheck.cli.options import at_least, positive_seconds
from warpcheck.cli.qaws.kernels_sim import _assignments
from warpcheck.models.frontend.config import DEFAULT_LATENCY, SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.qaws.response import StallSpace
from warpcheck.sim.qaws.kernels_run import POLICY_OF
from warpcheck.sim.qaws.worst import StallRun, exhaustive_worst, replay
from warpcheck.verify.qaws.switches import prove_switch_bound
from warpcheck.verify.qaws.wcrt import inversion, worst_response
from warpcheck.verify.result import EXIT_CODES, Status

NAMES = ("K1", "K2")
SWITCH_PROPERTY = "while K2 has an eligible warp, K1 switches warps at most {b} time(s) between K2 issues"
SMALL = {"t_fetch": 1, "t_decode": 1, "ibuffer": 2, "miss_latency": 2}
SMALL_LATENCY = {"fadd": 2, "fmul": 2, "fmadd": 2, "fcvt": 2, "fdiv": 4, "fsqrt": 4, "mem": 3}
EXAMPLES = """examples:
  warpcheck qaws wcrt                                   # K1: 1 warp, K2: 2 warps, budgets 1 and 2
  warpcheck qaws wcrt --program K2=mem,fadd,int --budget K2=4 --exhaustive
  warpcheck qaws inversion --policy gto --json

The default SM is small (t_F 1, decode 1, ibuffer 2, miss latency 2, mem 3, fp 2) so that the
search finishes in seconds; every option of the SM can be changed."""


def _stall_space(a: argparse.Namespace, policy: str) -> StallSpace:
    programs = {"K1": ("int", "mem", "int"), "K2": ("mem", "int", "int"), **_programs(a.program)}
    budgets = {"K1": 1, "K2": 2, **_assignments(a.budget, NAMES, "--budget", 1)}
    launches = {"K1": 0, "K2": 1, **_assignments(a.launch, NAMES, "--launch", 0)}
    warps = a.warps or (1, 2)
    if len(warps) != 2 or min(warps) < 1:
        raise ConfigError(f"--warps {','.join(map(str, warps))} is not two counts >= 1 (K1's, K2's); write e.g. --warps 1,2")
    latency = {**DEFAULT_LATENCY, **SMALL_LATENCY, **_latencies(a.latency)}
    timing = {k: getattr(a, k) if getattr(a, k) is not None else v for k, v in SMALL.items()}
    kow = (0,) * warps[0] + (1,) * warps[1]
    config = SMConfig(warps=len(kow), design="swas", issue_policy=POLICY_OF[policy], latency=latency,
                      unpipelined=(), kernel_of_warp=kow, budgets=(budgets["K1"], budgets["K2"]),
                      launches=(launches["K1"], launches["K2"]), **timing)
    return StallSpace(config, [programs[n] for n in NAMES], misses=not a.no_misses, deps=not a.no_deps, branches=not a.no_branches)


def _programs(items: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        if name not in NAMES or not sep or not text.strip():
            raise ConfigError(f"--program {item!r} is not Kn=CLASS,CLASS,... for K1 or K2; write e.g. --program K2=mem,int")
        out[name] = tuple(c.strip() for c in text.split(","))
    return out


def _latencies(items: Sequence[str]) -> dict[str, int]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in DEFAULT_LATENCY or not value.isdigit() or int(value) < 1:
            raise ConfigError(f"--latency {item!r} is not CLASS=N with N >= 1 and CLASS one of {', '.join(DEFAULT_LATENCY)}")
        out[name] = int(value)
    return out


def _policies(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise ConfigError(f"--policy {text!r} names no policy; give one or more of {', '.join(POLICY_OF)}")
    for n in names:
        if n not in POLICY_OF:
            raise ConfigError(f"--policy {n!r} is not one of {', '.join(POLICY_OF)}")
    return names


def _wcrt_one(a: argparse.Namespace, policy: str) -> dict[str, Any]:
    ts = _stall_space(a, policy)
    r = worst_response(ts, 1, a.horizon, a.timeout, progress=None if a.json or a.quiet else _progress)
    run = replay(ts, r.params, r.inputs)
    out = {"policy": policy, **r.to_json(), "replayed": run.finish[1] == r.finish, "run": run.to_json(ts)}
    if a.exhaustive:
        ex = exhaustive_worst(ts, 1)
        out["exhaustive"] = {"finish": ex.finish[1], "response": ex.response(ts, 1), "agrees": ex.finish[1] == r.finish}
    return out


def _wcrt(a: argparse.Namespace) -> int:
    rows = [_wcrt_one(a, p) for p in _policies(a.policy)]
    statuses = [Status(r["status"]) for r in rows]
    bad = [r for r in rows if not r["replayed"] or not r.get("exhaustive", {}).get("agrees", True)]
    if a.json:
        print(json.dumps({"kernel": "K2", "policies": rows}))
    else:
        _print_wcrt(rows)
    if bad:
        print(f"error: the search and the simulator disagree for {', '.join(r['policy'] for r in bad)}", file=sys.stderr)
        return EXIT_CODES[Status.ERROR]
    worst = max(statuses, key=lambda s: EXIT_CODES[s])
    return EXIT_CODES[worst]


def _print_wcrt(rows: list[dict[str, Any]]) -> None:
    from tabulate import tabulate
    table = [[r["policy"], r["response"], r["finish"], "proved" if r["status"] == "PASS" else r["status"],
              r["run"]["finish"][0], r.get("exhaustive", {}).get("response", "-"), f"{r['seconds']:.1f}"] for r in rows]
    print(tabulate(table, headers=["policy", "K2 worst response", "K2 finish", "maximal?", "K1 finish (same run)",
                                   "exhaustive", "seconds"], tablefmt="github"))
    for r in rows:
        print(f"\n{r['policy']}: {r['message']}\n  schedule (warp issued per cycle, . = none): {_schedule(r['run']['order'])}")
        print("  stalls: " + ("; ".join(r["run"]["stalls"]) or "none"))


def _schedule(order: Sequence[int]) -> str:
    return "".join("." if w < 0 else str(w) if w < 10 else f"({w})" for w in order)


def _inversion(a: argparse.Namespace) -> int:
    out, codes = [], []
    for p in _policies(a.policy):
        ts = _stall_space(a, p)
        r = inversion(ts, a.depth, a.timeout)
        row: dict[str, Any] = {"policy": p, "status": r.status.value, "label": r.label, "depth": r.depth,
                               "seconds": round(r.seconds, 3), "found": r.status is Status.FAIL}
        if r.trace is not None:
            run = replay(ts, r.trace.params, r.trace.inputs)
            row.update(run=run.to_json(ts), replayed=run.finish[0] < run.finish[1])
            codes.append(EXIT_CODES[Status.FAIL] if row["replayed"] else EXIT_CODES[Status.ERROR])
        else:
            codes.append(EXIT_CODES[r.status])
        out.append(row)
    if a.json:
        print(json.dumps({"property": "K2 never finishes after K1", "policies": out}))
    else:
        _print_inversion(out)
    return next((c for c in (5, 1, 4, 3) if c in codes), 0)


def _print_inversion(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        if r["found"]:
            run = r["run"]
            print(f"{r['policy']}: priority inversion found (FAIL of 'K2 never finishes after K1'): K1 finishes at cycle "
                  f"{run['finish'][0]}, K2 at {run['finish'][1]}; replayed on the simulator: {r['replayed']}")
            print(f"  schedule: {_schedule(run['order'])}\n  stalls: " + ("; ".join(run["stalls"]) or "none"))
        else:
            print(f"{r['policy']}: no priority inversion found: {r['label']}")


def _switches(a: argparse.Namespace) -> int:
    budgets = {"K1": 1, "K2": 4, **_assignments(a.budget, NAMES, "--budget", 1)}
    warps = a.warps or (2, 2)
    if len(warps) != 2 or min(warps) < 1:
        raise ConfigError(f"--warps {','.join(map(str, warps))} is not two counts >= 1 (K1's, K2's); write e.g. --warps 2,2")
    if budgets["K1"] >= budgets["K2"]:
        raise ConfigError(f"--budget K1={budgets['K1']} K2={budgets['K2']}: the bound is about K2 having the larger budget; "
                          "give K2 the larger one")
    kow = (0,) * warps[0] + (1,) * warps[1]
    config = SMConfig(warps=len(kow), design="swas", issue_policy=POLICY_OF[a.policy], kernel_of_warp=kow,
                      budgets=(budgets["K1"], budgets["K2"]))
    r = prove_switch_bound(FrontEnd(config), timeout=a.timeout, depth=a.depth)
    order = [s["o.w"] for s in r.trace.states[1:]] if r.trace else None
    if a.json:
        print(json.dumps({"property": SWITCH_PROPERTY.format(b=budgets["K1"]), "policy": a.policy, **r.to_json(),
                          "label": r.label, "schedule": order}))
    else:
        print(f"{a.policy}: {SWITCH_PROPERTY.format(b=budgets['K1'])}: {r.label} ({r.message})")
        if order is not None:
            print(f"  schedule (warp issued per cycle, . = none): {_schedule(order)}")
    return EXIT_CODES[r.status]


def _progress(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--policy", default="lrr,gto,qaws", help="comma-separated, of lrr, gto, qaws (default all three)")
    p.add_argument("--program", action="append", default=[], metavar="Kn=CLASS,...",
                   help="the program of each warp of Kn (exit appended); default K1=int,mem,int, K2=mem,int,int")
    p.add_argument("--warps", type=_pair, metavar="N1,N2", help="warps of K1 and of K2 (default 1,2)")
    p.add_argument("--budget", action="append", default=[], metavar="Kn=B", help="QAWS budget (default K1=1, K2=2)")
    p.add_argument("--launch", action="append", default=[], metavar="Kn=C", help="launch cycle (default K1=0, K2=1)")
    p.add_argument("--latency", action="append", default=[], metavar="CLASS=N", help="latency of a class")
    for name, v in SMALL.items():
        p.add_argument("--" + name.replace("_", "-"), type=at_least(1), help=f"default {v}")
    p.add_argument("--no-misses", action="store_true", help="every fetch hits the I-cache")
    p.add_argument("--no-deps", action="store_true", help="no instruction depends on the previous result")
    p.add_argument("--no-branches", action="store_true", help="no branch is taken")
    p.add_argument("--timeout", type=positive_seconds, default=300.0, help="seconds per policy (default 300)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


MAX_KERNEL_WARPS = 16  # warps per kernel: the searches unroll every warp's stalls; 16 + 16 already takes hours


def _pair(text: str) -> tuple[int, ...]:
    try:
        pair = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not two comma-separated integers") from None
    if len(pair) != 2 or not all(1 <= n <= MAX_KERNEL_WARPS for n in pair):
        raise argparse.ArgumentTypeError(f"{text!r} is not two warp counts N1,N2, each from 1 to {MAX_KERNEL_WARPS}")
    return pair


def register(sub: Any) -> None:
    """Add ``qaws wcrt`` and ``qaws inversion``."""
    q = sub.add_parser("qaws", help="worst-case searches for two kernels under LRR, GTO and QAWS",
                       description="Searches over every stall pattern (I-cache misses, dependences, taken "
                                   "branches) of two kernels, each running a fixed program, on one SWaS SM.")
    qs = q.add_subparsers(dest="qaws_verb", metavar="SEARCH", parser_class=type(q))
    qs.required = True
    w = qs.add_parser("wcrt", help="K2's worst-case response time per policy, proved and replayed",
                      description="The largest response time of K2 (launch to the cycle after its last exit) over "
                                  "every stall pattern, found by bound search on the transition system: the last "
                                  "answer UNSAT proves that no run finishes later (status PASS). A search stopped "
                                  "by --horizon is a lower bound (UNKNOWN), one stopped by --timeout a TIMEOUT.",
                      epilog=EXAMPLES + "\n\nexit codes: 0 every maximum proved, 2 bad input, 3 horizon reached, "
                                        "4 TIMEOUT, 5 ERROR (search and simulator disagree)",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(w)
    w.add_argument("--horizon", type=at_least(1), default=400, help="give up beyond this cycle (default 400)")
    w.add_argument("--exhaustive", action="store_true", help="also enumerate every stall pattern (small instances)")
    w.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    w.set_defaults(func=_wcrt)
    i = qs.add_parser("inversion", help="a run in which K2 (higher QoS) finishes after K1",
                      description="Cover search (BMC) for a state in which every warp of K1 has exited and some "
                                  "warp of K2 has not: a FAIL of 'K2 never finishes after K1', replayed.",
                      epilog=EXAMPLES + "\n\nexit codes: 1 inversion found (FAIL), 0 none up to --depth "
                                        "(bounded PASS), 2 bad input, 4 TIMEOUT, 5 ERROR",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(i)
    i.add_argument("--depth", type=at_least(1), default=40, help="cycles searched (default 40)")
    i.set_defaults(func=_inversion)
    b = qs.add_parser("switches", help="prove K2's wait bound in context switches (k-induction)",
                      description="Prove, for every program and stall pattern, that while some K2 warp is eligible "
                                  "K1 switches warps (issues a warp other than the K1 warp issued last) at most "
                                  "b(K1) times before K2 issues again; the SM is the full SWaS front end (defaults "
                                  "of prove). Under a policy that ignores the budgets (gto) the bound FAILs.",
                      epilog="examples:\n  warpcheck qaws switches                  # PASS (unbounded)\n"
                             "  warpcheck qaws switches --policy gto     # FAIL, with the schedule\n\n"
                             "exit codes: 0 PASS, 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT, 5 ERROR",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--policy", default="qaws", choices=["qaws", "gto", "gtlo", "lrr"],
                   help="default qaws (gto and gtlo name the same policy)")
    b.add_argument("--warps", type=_pair, metavar="N1,N2", help="warps of K1 and of K2 (default 2,2)")
    b.add_argument("--budget", action="append", default=[], metavar="Kn=B", help="QAWS budget (default K1=1, K2=4)")
    b.add_argument("--depth", type=at_least(1), default=24, help="BMC depth if induction does not close (default 24)")
    b.add_argument("--timeout", type=positive_seconds, default=600.0, help="seconds (default 600)")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(func=_switches)
