"""The ``sweep`` verb: argv into :class:`SweepOptions`, the library's sweep, its report printed."""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck._sweep import SweepOptions, run_sweep
from warpcheck.cli.options import INPUT, OUTPUT_FILE, positive_seconds, record_from_args
from warpcheck.cli.sweep.plot import register_plot

SWEEP_EPILOG = """examples:
  warpcheck sweep examples/sweeps/swas-table2.toml                 # resumable: run it again to finish
  warpcheck sweep examples/sweeps/makespan-fig6.toml --jobs 2
  warpcheck sweep examples/sweeps/swas-table2.toml --scheduler tcp://10.0.0.5:8786
  warpcheck sweep --store warpcheck-out/sweeps/swas-table2.duckdb --csv table2-runs.csv

A sweep file (TOML) names a verb, its positional arguments (\"{axis}\" takes a run's value), fixed
[options] and [axes] whose product is the grid ([[grid]] tables add sub-grids); each run is
the verb's options record run by the library (the same answer as
`warpcheck VERB ... --json`), kept in the store under a key made of its parameters.  A run already
in the store is not run again; a failed run (bad input, a crash) is tried again.
exit codes: 0 every run has a result, 1 some run failed (listed), 2 bad input, 130 interrupted (Ctrl-C)
or 143 terminated: the finished runs are kept"""


def register(sub: Any) -> None:
    """Add the ``sweep`` and ``plot`` verbs."""
    p = sub.add_parser("sweep", help="run a grid of runs of any verb (a sweep file) into a resumable results store",
                       description="Run every point of a sweep file's grid (each run the verb's options record), on local "
                                   "processes or a Dask cluster, into a DuckDB results store.",
                       epilog=SWEEP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", type=INPUT, nargs="?", metavar="SWEEP.toml", help="sweep file (leave out with --csv to export a store)")
    p.add_argument("--store", metavar="FILE", type=OUTPUT_FILE, help="results store (default: the file's `store`, else "
                   "warpcheck-out/sweeps/NAME.duckdb); an existing store is added to, never replaced")
    p.add_argument("--jobs", "-j", type=int, metavar="N", help="local worker processes "
                   f"(default {SweepOptions.jobs})")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster of this scheduler "
                   "(tcp://HOST:PORT) instead of local processes")
    p.add_argument("--csv", metavar="FILE", type=OUTPUT_FILE, help="write every run of the store as CSV (after the sweep, if one "
                   "is given; an existing file there is replaced)")
    p.add_argument("--timeout", type=positive_seconds, default=SweepOptions.timeout, metavar="S",
                   help=f"seconds for the whole sweep (default {SweepOptions.timeout:g}); a run's own budget is its verb's "
                        "--timeout: set it in the file's [options]")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_sweep)
    register_plot(sub)


def _sweep(a: argparse.Namespace) -> int:
    result = run_sweep(record_from_args(SweepOptions, a), quiet=a.quiet or a.json)
    print(json.dumps(result.to_dict()) if a.json else result.report())
    return result.code
