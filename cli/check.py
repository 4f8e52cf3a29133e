"""The ``check`` verb: a proof's certificate run through a solver other than the one that proved it."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from warpcheck._certificate import CheckOptions, check_options
from warpcheck.cli.options import INPUT, positive_seconds, record_from_args
from warpcheck.verify.smt2_run import SOLVERS

EPILOG = """examples:
  warpcheck prove --design swas --warps 2 --certificate swas-W2.smt2
  warpcheck check swas-W2.smt2

The certificate states the system (init, trans, prop), the inductive invariant inv and five
obligations, each a check-sat: initiation, consecution and safety must answer unsat, an initial
state and a step from inv must exist (sat).  The check first rebuilds the system the file says it
covers and refuses a file whose system or obligations differ; then the solver answers.
A k-inductive proof's certificate (header line "; induction: k = K") states the obligations over
k steps instead: base, step (through distinct states), safety, initial-states, non-vacuity.
exit codes: 0 the certificate holds, 1 refused (why is printed), 2 bad input (no certificate),
3 the solver gave up, 4 TIMEOUT"""


def register(sub: Any) -> None:
    """Add the ``check`` verb."""
    C = CheckOptions
    p = sub.add_parser("check", help="check a proof's certificate with a solver other than the one that proved it",
                       description="Check a certificate written by prove, qaws switches or reorder prove --certificate: the "
                                   "kit proves with Z3, the "
                                   "check runs bitwuzla or cvc5.", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("certificate", type=INPUT, help="certificate file (SMT-LIB2) written by a verb's --certificate")
    p.add_argument("--solver", choices=SOLVERS, help="the solver that checks it (default: bitwuzla, or cvc5 for a "
                                                     "quantified certificate: the proof for every W)")
    p.add_argument("--timeout", type=positive_seconds, default=C.timeout, metavar="S",
                   help=f"seconds for the whole check before it stops with TIMEOUT, exit 4 (default {C.timeout:g})")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_check)


def _check(a: argparse.Namespace) -> int:
    progress = None if a.quiet else (lambda line: print(f"  .. {line}", file=sys.stderr, flush=True))
    r = check_options(record_from_args(CheckOptions, a), progress)
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return r.code
