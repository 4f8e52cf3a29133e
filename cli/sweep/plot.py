"""The ``plot`` verb: argv into :class:`PlotOptions`, the library draws the figure, the files are listed."""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck._sweep import PlotOptions, run_plot
from warpcheck._sweep.figures import FIGURES
from warpcheck.cli.options import INPUT, output_folder, positive_seconds, record_from_args

PLOT_EPILOG = """figures (and the sweep file that produces what each needs):
  swas-ipc        IPC per fetch x issue configuration, per benchmark (swas-table2.toml; SWaS Fig. 4)
  error-rate      scheduling error rate per benchmark, baseline vs SWaS (swas-table2.toml; Fig. 5)
  table2          IPC SWaS/baseline and the baseline's errors per benchmark, CSV + Markdown (swas-table2.toml)
  ipc-ratio       SWaS/baseline IPC ratio over W and over t_F (swas-ratio.toml; Fig. 6-8)
  makespan-vs-w   pessimistic bound, approximation and exact worst case against W (makespan-fig6.toml)
  qaws-reduction  K2's response-time reduction by QAWS against LRR and GTO, per pair (qaws-pairs.toml)
  proof-time      proof time against W per policy and design (proof-time.toml)

examples:
  warpcheck plot warpcheck-out/sweeps/swas-table2.duckdb --figure error-rate
  warpcheck plot warpcheck-out/sweeps/makespan-fig6.duckdb --figure makespan-vs-w --out docs/figures

exit codes: 0 written, 2 bad input (no such store, or it holds none of the runs the figure needs)"""


def register_plot(sub: Any) -> None:
    """Add the ``plot`` verb."""
    p = sub.add_parser("plot", help="draw a paper's figure (PNG + SVG) or table from a sweep's results store",
                       description="Rebuild a figure of the papers from the runs in a results store (matplotlib).",
                       epilog=PLOT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("store", type=INPUT, metavar="STORE", help="results store written by warpcheck sweep (.duckdb)")
    p.add_argument("--figure", required=True, metavar="NAME",
                   help=f"one of: {', '.join(FIGURES)}")
    p.add_argument("--out", metavar="DIR", type=output_folder(PlotOptions.out),
                   help=f"folder for NAME.png and NAME.svg (table2: .csv and .md), both written or neither, files of the "
                        f"same names replaced; default {PlotOptions.out}")
    p.add_argument("--timeout", type=positive_seconds, default=PlotOptions.timeout, metavar="S",
                   help=f"seconds for the whole run before it stops with TIMEOUT, exit 4 (default {PlotOptions.timeout:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object (the files and the plotted values)")
    p.set_defaults(func=_plot)


def _plot(a: argparse.Namespace) -> int:
    result = run_plot(record_from_args(PlotOptions, a))
    print(json.dumps(result.to_dict()) if a.json else result.report())
    return result.code
