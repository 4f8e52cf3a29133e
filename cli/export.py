"""The ``export`` verb: a prove configuration's proof problem as SMT-LIB2 scripts, a BTOR2 or AIGER model, Verilog."""
from __future__ import annotations

import argparse
from typing import Any

from warpcheck._frontend import ExportOptions, export_options
from warpcheck._frontend.options import EXPORT_FORMATS
from warpcheck.cli.frontend.verbs import add_config_options, note_qaws, show
from warpcheck.cli.options import output_folder, positive_seconds, record_from_args
from warpcheck.verify.frontend.properties import PROPERTIES

EPILOG = """examples:
  warpcheck export --format btor2 --design swas --policy gtlrr --warps 4
  warpcheck export --format smt2 --design baseline --policy gtlrr --warps 2 --depth 6 --out problems
  warpcheck export --format sby --design swas --warps 2 --out sby

btor2: one model (state, input, init, next, constraint, bad) for hardware model checkers;
bad is reachable exactly when prove finds a FAIL.  aiger: the same model bit-blasted, binary AIGER 1.9
(NAME.aig: one bad state, constraints, latches reset 0/1 or to themselves for free initial values) and
NAME.aig.map.json (the kit's variable and bit of each input and latch); e.g. berkeley-abc -c "read_aiger
NAME.aig; fold; pdr"; unless --no-lemmas also NAME.lemmas.aig (the kit's proved lemmas assumed: pdr proves
SWaS from it) with NAME.lemmas-init/-step.smt2 (unsat: the lemmas are inductive).  smt2 (QF_BV): NAME.bmcD.smt2 is sat exactly when
the property fails within D cycles; NAME.lemmas-init, NAME.lemmas-step and NAME.stepK.smt2 are all
unsat when the property is K-inductive with the lemmas the kit proves first; the two induction
scripts first ask a non-vacuity check-sat that must be sat (their assumptions have a model).
sby: NAME.sv (one Verilog module: registers, the step's logic, under `ifdef FORMAL the ranges and the
model's assumption as assume, the property as assert, the initial parameters as anyconst) and NAME.sby
(SymbiYosys tasks: prove with abc pdr, bmc with abc bmc3 to --depth, smtbmc z3/yices/bitwuzla, rIC3,
Pono; run in DIR: sby -f NAME.sby [TASK]); the assertion fails at step D exactly when prove finds a FAIL
at depth D.  verilog: NAME.sv alone.
exit codes: 0 written, 2 bad input"""


def register(sub: Any) -> None:
    """Add the ``export`` verb."""
    E = ExportOptions
    p = sub.add_parser("export", help="write a proof problem as SMT-LIB2, BTOR2, AIGER, Verilog or a SymbiYosys project",
                       description="Write the proof problem of a prove configuration for other checkers.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", required=True, choices=EXPORT_FORMATS)
    add_config_options(p)
    p.add_argument("--property", choices=list(PROPERTIES), help="default: exact for swas, oracle for the baseline")
    p.add_argument("--depth", type=int, metavar="D", help="smt2, sby: the BMC depth (default: prove's horizon)")
    p.add_argument("--k", type=int, metavar="K", help=f"smt2: the induction depth (default {E.k})")
    p.add_argument("--no-lemmas", action="store_true", default=None,
                   help="smt2: no proved lemmas in the induction scripts; aiger: no NAME.lemmas.aig")
    p.add_argument("--out", metavar="DIR", type=output_folder(E.out), help=f"folder for the files (default {E.out}); all "
                   "are written or none, and files of the same names are replaced")
    p.add_argument("--timeout", type=positive_seconds, default=E.timeout, metavar="S",
                   help=f"seconds for the whole run before it stops with TIMEOUT, exit 4 (default {E.timeout:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_export)


def _export(a: argparse.Namespace) -> int:
    options = record_from_args(ExportOptions, a)
    note_qaws(options.sm)
    r = export_options(options)
    show(r, a.json)
    return r.code
