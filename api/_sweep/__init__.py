"""Sweeps: a grid of runs of any verb into a resumable results store; the papers' figures drawn from it."""
from __future__ import annotations

from typing import Any

from warpcheck._sweep.run import (PlotOptions, PlotResult, SweepOptions, SweepResult, run_plot, run_sweep)
from warpcheck._values import build

__all__ = ["sweep", "plot", "SweepOptions", "SweepResult", "PlotOptions", "PlotResult", "run_sweep", "run_plot"]


def sweep(sweep: str | None = None, **options: Any) -> SweepResult:
    """Run a sweep file's grid into its results store (``store=``, ``jobs=``, ``scheduler=``, ``csv=``, ``timeout=``).

    Runs already in the store are not run again, so the same call resumes an interrupted sweep; each
    run is the verb's options record built from the file's row, run by the library. Progress is quiet.
    """
    return run_sweep(build(SweepOptions, "sweep", {"sweep": sweep, **options}))


def plot(store: str, figure: str, **options: Any) -> PlotResult:
    """Draw a paper's figure (``figure=`` one of the names of ``warpcheck plot --help``) from a results store."""
    return run_plot(build(PlotOptions, "plot", {"store": store, "figure": figure, **options}))
