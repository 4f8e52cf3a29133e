"""``warpcheck qaws``: searches over every stall pattern of two kernels on one SWaS SM (Singh et al.).

``qaws wcrt``: the worst-case response time of K2 under each policy, proved
maximal by the solver and replayed on the simulator (``--exhaustive``: also by
enumeration).  ``qaws inversion``: a run in which K2, the kernel of higher QoS,
finishes after K1.  ``qaws switches``: K1's warp switches between K2 issues
bounded by its budget.  The work is the library's (``warpcheck._qaws``): each
verb builds its options record from argv, calls it and prints the result.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from warpcheck._qaws import (QawsInversionOptions, QawsResult, QawsSwitchesOptions, QawsWcrtOptions, inversion_of,
                             switches_of, wcrt_of)
from warpcheck._qaws.options import (DEFAULT_BUDGETS, DEFAULT_LAUNCHES, DEFAULT_PROGRAMS, SEARCH_POLICIES,
                                     SWITCH_BUDGETS, SWITCH_POLICIES, shown)
from warpcheck.cli.options import output_file, positive_seconds, record_from_args

EXAMPLES = """examples:
  warpcheck qaws wcrt                                   # K1: 1 warp, K2: 2 warps, budgets 1 and 2
  warpcheck qaws wcrt --program K2=mem,fadd,int --budget K2=4 --exhaustive
  warpcheck qaws inversion --policy gto --json

The default SM is small (t_F 1, decode 1, ibuffer 2, miss latency 2, mem 3, fp 2) so that the
search finishes in seconds; every option of the SM can be changed."""
SM_OPTIONS = {"t_fetch": "fetch latency on a hit", "t_decode": "decode latency", "ibuffer": "ibuffer entries per warp",
              "miss_latency": "extra cycles of an I-cache miss"}


def _show(a: argparse.Namespace, r: QawsResult) -> int:
    """Print the library's result as the verb does (one JSON object with --json) and give its exit code."""
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return r.code


def _wcrt(a: argparse.Namespace) -> int:
    r = wcrt_of(record_from_args(QawsWcrtOptions, a), None if a.json or a.quiet else _progress)
    code = _show(a, r)
    if r.problem:
        print(f"error: {r.problem}", file=sys.stderr)
    return code


def _inversion(a: argparse.Namespace) -> int:
    return _show(a, inversion_of(record_from_args(QawsInversionOptions, a)))


def _switches(a: argparse.Namespace) -> int:
    return _show(a, switches_of(record_from_args(QawsSwitchesOptions, a)))


def _progress(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def _common(p: argparse.ArgumentParser, R: type[QawsWcrtOptions] | type[QawsInversionOptions]) -> None:
    p.add_argument("--policy", help=f"comma-separated, of {', '.join(SEARCH_POLICIES)} (default {R.policy})")
    p.add_argument("--program", action="append", metavar="Kn=CLASS,...",
                   help=f"the program of each warp of Kn (exit appended); default {shown(DEFAULT_PROGRAMS)}")
    p.add_argument("--warps", metavar="N1,N2", help=f"warps of K1 and of K2 (default {','.join(map(str, R.warps))})")
    p.add_argument("--budget", action="append", metavar="Kn=B", help=f"QAWS budget (default {shown(DEFAULT_BUDGETS)})")
    p.add_argument("--launch", action="append", metavar="Kn=C", help=f"launch cycle (default {shown(DEFAULT_LAUNCHES)})")
    p.add_argument("--latency", action="append", metavar="CLASS=N", help="latency of a class")
    for name, what in SM_OPTIONS.items():
        p.add_argument("--" + name.replace("_", "-"), metavar="N", help=f"{what} (default {getattr(R, name)})")
    p.add_argument("--no-misses", action="store_true", default=None, help="every fetch hits the I-cache")
    p.add_argument("--no-deps", action="store_true", default=None, help="no instruction depends on the previous result")
    p.add_argument("--no-branches", action="store_true", default=None, help="no branch is taken")
    p.add_argument("--timeout", type=positive_seconds, default=R.timeout,
                   help=f"seconds for the run, each policy's search included (default {R.timeout:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def register(sub: Any) -> None:
    """Add ``qaws wcrt``, ``qaws inversion`` and ``qaws switches``."""
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
    _common(w, QawsWcrtOptions)
    w.add_argument("--horizon", metavar="N", help=f"give up beyond this cycle (default {QawsWcrtOptions.horizon})")
    w.add_argument("--exhaustive", action="store_true", default=None,
                   help="also enumerate every stall pattern (small instances)")
    w.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    w.set_defaults(func=_wcrt)
    i = qs.add_parser("inversion", help="a run in which K2 (higher QoS) finishes after K1",
                      description="Cover search (BMC) for a state in which every warp of K1 has exited and some "
                                  "warp of K2 has not: a FAIL of 'K2 never finishes after K1', replayed.",
                      epilog=EXAMPLES + "\n\nexit codes: 1 inversion found (FAIL), 0 none up to --depth "
                                        "(bounded PASS), 2 bad input, 4 TIMEOUT, 5 ERROR",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(i, QawsInversionOptions)
    i.add_argument("--depth", metavar="N", help=f"cycles searched (default {QawsInversionOptions.depth})")
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
    S = QawsSwitchesOptions
    b.add_argument("--policy", metavar="P", help=f"one of {', '.join(SWITCH_POLICIES)} (default {S.policy}; gto and "
                                                 "gtlo name the same policy)")
    b.add_argument("--warps", metavar="N1,N2", help=f"warps of K1 and of K2 (default {','.join(map(str, S.warps))})")
    b.add_argument("--budget", action="append", metavar="Kn=B", help=f"QAWS budget (default {shown(SWITCH_BUDGETS)})")
    b.add_argument("--depth", metavar="N", help=f"BMC depth if induction does not close (default {S.depth})")
    b.add_argument("--timeout", type=positive_seconds, default=S.timeout, help=f"seconds (default {S.timeout:g})")
    b.add_argument("--certificate", metavar="FILE", type=output_file("warpcheck-out/certificate.smt2"),
                   help="where an unbounded PASS's certificate goes (default warpcheck-out/qaws-switches-POLICY-N1-N2-"
                        "bB1.B2.smt2; SMT-LIB2: the system, the invariant inv, the obligations); check it with: "
                        "warpcheck check FILE (an existing file is replaced)")
    b.add_argument("--no-certificate", action="store_true", default=None, help="write no certificate")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(func=_switches)
