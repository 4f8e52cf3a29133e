"""The ``export`` verb: a prove configuration's proof problem as SMT-LIB2 scripts or a BTOR2 model."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from warpcheck._export import FORMATS, export
from warpcheck.cli.frontend.verbs import add_config_options, config_from_args
from warpcheck.cli.options import OUTPUT_FOLDER, at_least
from warpcheck.models.files import atomic_write_text
from warpcheck.verify.frontend.properties import PROPERTIES

EPILOG = """examples:
  warpcheck export --format btor2 --design swas --policy gtlrr --warps 4
  warpcheck export --format smt2 --design baseline --policy gtlrr --warps 2 --depth 6 --out problems

btor2: one model (state, input, init, next, constraint, bad) for hardware model checkers;
bad is reachable exactly when prove finds a FAIL.  smt2 (QF_BV): NAME.bmcD.smt2 is sat exactly when
the property fails within D cycles; NAME.lemmas-init, NAME.lemmas-step and NAME.stepK.smt2 are all
unsat when the property is K-inductive with the lemmas the kit proves first.
exit codes: 0 written, 2 bad input"""


def register(sub: Any) -> None:
    """Add the ``export`` verb."""
    p = sub.add_parser("export", help="write a proof problem as SMT-LIB2 scripts or a BTOR2 model",
                       description="Write the proof problem of a prove configuration for other checkers.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", required=True, choices=FORMATS)
    add_config_options(p)
    p.add_argument("--property", choices=list(PROPERTIES), help="default: exact for swas, oracle for the baseline")
    p.add_argument("--depth", type=at_least(1), metavar="D", help="smt2: the BMC depth (default: prove's horizon)")
    p.add_argument("--k", type=at_least(1), default=1, metavar="K", help="smt2: the induction depth (default 1)")
    p.add_argument("--no-lemmas", action="store_true", help="smt2: no proved lemmas in the induction scripts")
    p.add_argument("--out", default="warpcheck-out", metavar="DIR", type=OUTPUT_FOLDER, help="folder for the files (default warpcheck-out)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_export)


def _export(a: argparse.Namespace) -> int:
    files = export(a.format, property=a.property, depth=a.depth or 0, k=a.k, lemmas=not a.no_lemmas,
                   config=config_from_args(a))
    paths = []
    for name, text in files.items():
        path = Path(a.out) / name
        atomic_write_text(str(path), text, "--out")
        paths.append(str(path))
    print(json.dumps({"status": "OK", "files": paths}) if a.json else "\n".join(paths))
    return 0
