"""The ``run`` verb: a TOML job file of named proof tasks with expected outcomes, run as one batch."""
from __future__ import annotations

import argparse
from typing import Any

from warpcheck._frontend import RunOptions, run_options
from warpcheck.cli.frontend.verbs import progress, show
from warpcheck.cli.options import INPUT, output_folder, positive_seconds, record_from_args


def _run(a: argparse.Namespace) -> int:
    r = run_options(record_from_args(RunOptions, a), None if a.json else progress)
    show(r, a.json)
    return r.code


def register(sub: Any) -> None:
    """Add the run verb."""
    R = RunOptions
    r = sub.add_parser("run", help="run a TOML job file of named proof tasks with expected outcomes",
                       description="Run every [[task]] of a job file (keys: name, expect = \"pass\"|\"fail\", "
                                   "design, policy | fetch + issue, warps, property, engine, depth, timeout, "
                                   "and any SM configuration key; a [defaults] table applies to all tasks). "
                                   "Exit 0 when every task ends as expected, 1 otherwise.",
                       epilog="example:\n  warpcheck run examples/jobs/swas-vs-baseline.toml",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("job", type=INPUT, help="job file (TOML)")
    r.add_argument("--only", metavar="NAME", help="run only this task")
    r.add_argument("--out", type=output_folder(R.out), help=f"folder for witnesses (default {R.out}; files of the same names are replaced)")
    r.add_argument("--timeout", type=positive_seconds, default=R.timeout, metavar="S",
                   help=f"seconds for the whole run before it stops with TIMEOUT, exit 4 (default {R.timeout:g})")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_run)
