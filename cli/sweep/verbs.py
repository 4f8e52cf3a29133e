"""The ``sweep`` and ``plot`` verbs: a grid of runs of any verb into a results store, and the papers' figures from it."""
from __future__ import annotations

import argparse
import contextlib
import json
import signal
import os
import sys
import time
from typing import Any, Iterator

from warpcheck._guard import RunTimeout, stopped_by
from warpcheck.cli.options import INPUT, OUTPUT_FILE, at_most, positive_seconds
from warpcheck.cli.sweep.grid import Run, Sweep, load_sweep
from warpcheck.cli.sweep.point import failed
from warpcheck.cli.sweep.progress import Progress
from warpcheck.models.errors import ConfigError
from warpcheck.models.files import check_writable

SWEEP_EPILOG = """examples:
  warpcheck sweep examples/sweeps/swas-table2.toml                 # resumable: run it again to finish
  warpcheck sweep examples/sweeps/makespan-fig6.toml --jobs 2
  warpcheck sweep examples/sweeps/swas-table2.toml --scheduler tcp://10.0.0.5:8786
  warpcheck sweep --store warpcheck-out/sweeps/swas-table2.duckdb --csv table2-runs.csv

A sweep file (TOML) names a verb, its positional arguments (\"{axis}\" takes a run's value), fixed
[options] and [axes] whose product is the grid ([[grid]] tables add sub-grids); each run is
`warpcheck VERB ... --json`, kept in the store under a key made of its parameters.  A run already
in the store is not run again; a failed run (bad input, a crash) is tried again.
exit codes: 0 every run has a result, 1 some run failed (listed), 2 bad input, 130 interrupted (Ctrl-C)
or 143 terminated: the finished runs are kept"""
MAX_JOBS = 256
WEEK = 7 * 86_400.0


def register(sub: Any) -> None:
    """Add the ``sweep`` and ``plot`` verbs."""
    p = sub.add_parser("sweep", help="run a grid of runs of any verb (a sweep file) into a resumable results store",
                       description="Run every point of a sweep file's grid through the command line, on local "
                                   "processes or a Dask cluster, into a DuckDB results store.",
                       epilog=SWEEP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", type=INPUT, nargs="?", metavar="SWEEP.toml", help="sweep file (leave out with --csv to export a store)")
    p.add_argument("--store", metavar="FILE", type=OUTPUT_FILE, help="results store (default: the file's `store`, else "
                   "warpcheck-out/sweeps/NAME.duckdb)")
    p.add_argument("--jobs", "-j", type=at_most(MAX_JOBS), default=2, metavar="N", help="local worker processes "
                   "(default 2)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster of this scheduler "
                   "(tcp://HOST:PORT) instead of local processes")
    p.add_argument("--csv", metavar="FILE", type=OUTPUT_FILE, help="write every run of the store as CSV (after the sweep, if one is given)")
    p.add_argument("--timeout", type=positive_seconds, default=WEEK, metavar="S",
                   help=f"seconds for the whole sweep (default {WEEK:g}); a run's own budget is its verb's "
                        "--timeout: set it in the file's [options]")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_sweep)
    from warpcheck.cli.sweep.plot import register_plot
    register_plot(sub)


def _store_path(a: argparse.Namespace, sweep: Sweep | None) -> str:
    if a.store is not None:
        return str(a.store)
    if sweep is None:
        raise ConfigError("no sweep file and no --store: give a sweep file, or --store FILE --csv OUT to export")
    return sweep.store or f"warpcheck-out/sweeps/{sweep.name}.duckdb"


def _sweep(a: argparse.Namespace) -> int:
    sweep = load_sweep(a.sweep) if a.sweep else None
    if sweep is None and a.csv is None:
        raise ConfigError("no sweep file given: name one (see examples/sweeps/), or give --store FILE --csv OUT")
    path = _store_path(a, sweep)
    _check_outputs(a, path)
    from warpcheck.cli.sweep import execute
    from warpcheck.cli.sweep.store import Store
    client = execute.connect(a.scheduler) if a.scheduler and sweep else None  # bad address: nothing written
    try:
        with Store(path, read_only=sweep is None) as store:
            report = _run_sweep(a, sweep, store, client) if sweep else {"store": path}
            if a.csv:
                from warpcheck.cli.sweep.export import write_csv
                report["csv"], report["csv_rows"] = a.csv, write_csv(store, a.csv)
    finally:
        if client is not None:
            client.close()
    _say(a, report)
    return 1 if report.get("failed") else 0


def _check_outputs(a: argparse.Namespace, store: str) -> None:
    for option, value in (("--store", store), ("--csv", a.csv)):
        if value is None:
            continue
        if not str(value).strip():
            raise ConfigError(f"{option} is empty; give a file path")
        if a.sweep and os.path.realpath(value) == os.path.realpath(a.sweep):
            raise ConfigError(f"{option} {value} is the sweep file; give another path, it would be overwritten")
        if option == "--store" and a.sweep is None:
            continue
        check_writable(value, option)
    if a.csv and os.path.realpath(a.csv) == os.path.realpath(store):
        raise ConfigError(f"--csv {a.csv} is the store; give another path")


def _run_sweep(a: argparse.Namespace, sweep: Sweep, store: Any, client: Any) -> dict[str, Any]:
    done = store.done()
    todo = [r for r in sweep.runs if r.key not in done]
    progress = Progress(len(todo), len(sweep.runs) - len(todo), a.quiet or a.json)
    bad: list[dict[str, Any]] = []
    start = time.monotonic()
    try:
        for run, outcome in _execute(a, todo, client):
            lost = failed(outcome)
            store.put(sweep.name, sweep.verb, run.key, run.params, list(run.argv), outcome, lost)
            if lost:
                bad.append({"key": run.key, "params": run.params, "exit_code": outcome["code"],
                            "error": outcome["error"]})
            progress.step(_label(run, outcome), lost)
    except BaseException as e:  # a signal inside DuckDB surfaces as its InterruptException
        if not isinstance(e, (KeyboardInterrupt, RunTimeout)) and stopped_by() is None:
            raise
        with _signals_held():  # the guard may deliver a signal again (after a stop inside a finaliser): say this first
            print(f"warpcheck sweep: {progress.done} run(s) finished and kept in {store.path} "
                  f"({len(done) + progress.done - len(bad)} with a result in all); run the same command again to "
                  "do the rest", file=sys.stderr, flush=True)
            progress.close()
        raise
    progress.close()
    return {"sweep": sweep.name, "store": store.path, "runs": len(sweep.runs), "already": len(sweep.runs) - len(todo),
            "ran": len(todo), "failed": bad, "seconds": round(time.monotonic() - start, 2),
            "where": a.scheduler or f"{a.jobs} local process(es)"}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGALRM for the body (they are delivered after it, as before)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGALRM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _execute(a: argparse.Namespace, todo: list[Run], client: Any) -> Any:
    from warpcheck.cli.sweep import execute
    if not todo:
        return iter(())
    return execute.run_dask(todo, client) if client is not None else execute.run_local(todo, a.jobs)


def _label(run: Run, outcome: dict[str, Any]) -> str:
    point = " ".join(f"{k}={v}" for k, v in run.params.items())
    status = outcome["result"].get("status") if isinstance(outcome["result"], dict) else None
    return f"{point}: exit {outcome['code']}" + (f" {status}" if status else "") + \
        (f" ({outcome['error']})" if failed(outcome) and outcome["error"] else "")


def _say(a: argparse.Namespace, report: dict[str, Any]) -> None:
    if a.json:
        print(json.dumps(report))
        return
    if "runs" in report:
        print(f"{report['runs']} run(s): {report['already']} already in the store, {report['ran']} run now "
              f"({report['where']}, {report['seconds']:g} s), {len(report['failed'])} failed; store {report['store']}")
        for f in report["failed"]:
            print(f"  failed: {' '.join(f'{k}={v}' for k, v in f['params'].items())}: exit {f['exit_code']}: "
                  f"{f['error']}")
    if "csv" in report:
        print(f"{report['csv_rows']} row(s) written to {report['csv']}")

