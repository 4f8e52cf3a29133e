"""A sweep and a figure as library calls: the options records, the run over the grid, and the results.

``warpcheck sweep`` and ``warpcheck plot`` parse argv into :class:`SweepOptions` and
:class:`PlotOptions` and call :func:`run_sweep` and :func:`run_plot`; a script calls
:func:`warpcheck.sweep` and :func:`warpcheck.plot` with the same names as keywords.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from warpcheck import _values as v
from warpcheck._guard import RunTimeout, bounded, stopped_by
from warpcheck._sweep.point import failed
from warpcheck._sweep.progress import Progress
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.files import check_writable

if TYPE_CHECKING:  # the sweep file's schema (pydantic) loads when a sweep runs
    from warpcheck._sweep.grid import Run, Sweep

MAX_JOBS = 256
WEEK = 7 * 86_400.0
Say = Callable[[str], None] | None


@dataclass(frozen=True)
class SweepOptions:
    """A sweep: its file, the store, where the runs go, and the budget of the whole sweep."""

    sweep: str | None = None  # the sweep file; None with ``csv`` only exports a store
    store: str | None = None  # default: the file's `store`, else warpcheck-out/sweeps/NAME.duckdb
    jobs: int = 2
    scheduler: str | None = None  # tcp://HOST:PORT of a Dask scheduler, instead of local processes
    csv: str | None = None
    timeout: float | None = WEEK
    memory: float | None = v.DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        v.settle(self, sweep=v.path("sweep", self.sweep), store=v.path("store", self.store),
                 jobs=v.integer("jobs", self.jobs, 1, MAX_JOBS), scheduler=v.text("scheduler", self.scheduler),
                 csv=v.path("csv", self.csv), timeout=v.seconds("timeout", self.timeout),
                 memory=v.gib("memory", self.memory))
        if self.sweep is None:  # a store exported as CSV: the store is read
            v.distinct_paths(self, inputs=("store",), outputs=("csv",))
        else:
            v.distinct_paths(self, inputs=("sweep",), outputs=("store", "csv"))
        if self.sweep is None and self.csv is None:
            raise ConfigError("no sweep file given: name one (see examples/sweeps/), or give a store and a csv "
                              "file to export it")


@dataclass
class SweepResult:
    """How a sweep ended: runs in the file, already stored, run now, failed (each with its error); the CSV."""

    store: str
    sweep: str | None = None
    runs: int = 0
    already: int = 0
    ran: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    where: str = ""
    csv: str | None = None
    csv_rows: int | None = None

    @property
    def code(self) -> int:
        """The exit code of ``warpcheck sweep``: 0 every run has a result, 1 some failed."""
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck sweep --json`` prints."""
        out: dict[str, Any] = {"store": self.store}
        if self.sweep is not None:
            out.update(sweep=self.sweep, runs=self.runs, already=self.already, ran=self.ran, failed=self.failed,
                       seconds=self.seconds, where=self.where)
        if self.csv is not None:
            out.update(csv=self.csv, csv_rows=self.csv_rows)
        return out

    def report(self) -> str:
        """What ``warpcheck sweep`` prints."""
        lines = []
        if self.sweep is not None:
            lines.append(f"{self.runs} run(s): {self.already} already in the store, {self.ran} run now "
                         f"({self.where}, {self.seconds:g} s), {len(self.failed)} failed; store {self.store}")
            lines += [f"  failed: {' '.join(f'{k}={x}' for k, x in f['params'].items())}: exit {f['exit_code']}: "
                      f"{f['error']}" for f in self.failed]
        if self.csv is not None:
            lines.append(f"{self.csv_rows} row(s) written to {self.csv}")
        return "\n".join(lines)


def run_sweep(o: SweepOptions, quiet: bool = True) -> SweepResult:
    """Run every run of the sweep not yet in the store (a rerun resumes); export the store as CSV if asked.

    Ctrl-C, SIGTERM and the timeout keep every finished run in the store (said on stderr).
    """
    from warpcheck._sweep import execute
    from warpcheck._sweep.grid import load_sweep
    from warpcheck._sweep.store import Store
    with bounded(o.timeout, o.memory):
        sweep = load_sweep(o.sweep) if o.sweep else None
        path = _store_path(o, sweep)
        _check_outputs(o, path)
        client = execute.connect(o.scheduler) if o.scheduler and sweep else None  # bad address: nothing written
        try:
            with Store(path, read_only=sweep is None) as store:
                result = _over_grid(o, sweep, store, client, quiet) if sweep else SweepResult(path)
                if o.csv:
                    from warpcheck._sweep.csv_export import write_csv
                    result.csv, result.csv_rows = o.csv, write_csv(store, o.csv)
        finally:
            if client is not None:
                client.close()
    return result


def _store_path(o: SweepOptions, sweep: Sweep | None) -> str:
    if o.store is not None:
        return o.store
    if sweep is None:
        raise OptionError("store", None, "no sweep file and no store: give a sweep file, or a store and a csv file")
    return sweep.store or f"warpcheck-out/sweeps/{sweep.name}.duckdb"


def _check_outputs(o: SweepOptions, store: str) -> None:
    for option, value in (("store", store), ("csv", o.csv)):
        if value is None:
            continue
        if o.sweep and os.path.realpath(value) == os.path.realpath(o.sweep):
            raise OptionError(option, value, "it is the sweep file; give another path, it would be overwritten")
        if option == "store" and o.sweep is None:
            continue
        check_writable(value, option)
    if o.csv and os.path.realpath(o.csv) == os.path.realpath(store):
        raise OptionError("csv", o.csv, "it is the store; give another path")


def _over_grid(o: SweepOptions, sweep: Sweep, store: Any, client: Any, quiet: bool) -> SweepResult:
    done = store.done()
    todo = [r for r in sweep.runs if r.key not in done]
    progress = Progress(len(todo), len(sweep.runs) - len(todo), quiet)
    bad: list[dict[str, Any]] = []
    start = time.monotonic()
    try:
        for run, outcome in _execute(o, todo, client):
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
    return SweepResult(store.path, sweep.name, len(sweep.runs), len(sweep.runs) - len(todo), len(todo), bad,
                       round(time.monotonic() - start, 2), o.scheduler or f"{o.jobs} local process(es)")


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGALRM for the body (they are delivered after it, as before)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGALRM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _execute(o: SweepOptions, todo: list[Run], client: Any) -> Any:
    from warpcheck._sweep import execute
    if not todo:
        return iter(())
    return execute.run_dask(todo, client) if client is not None else execute.run_local(todo, o.jobs)


def _label(run: Run, outcome: dict[str, Any]) -> str:
    point = " ".join(f"{k}={x}" for k, x in run.params.items())
    status = outcome["result"].get("status") if isinstance(outcome["result"], dict) else None
    return f"{point}: exit {outcome['code']}" + (f" {status}" if status else "") + \
        (f" ({outcome['error']})" if failed(outcome) and outcome["error"] else "")


@dataclass(frozen=True)
class PlotOptions:
    """A figure of the papers from a results store: which, and where its files go."""

    store: str = ""
    figure: str = ""
    out: str = "warpcheck-out/figures"
    timeout: float | None = 600.0
    memory: float | None = v.DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        from warpcheck._sweep.figures import FIGURES
        v.settle(self, store=v.path("store", self.store, optional=False),
                 figure=v.one_of("figure", self.figure, FIGURES), out=v.path("out", self.out, optional=False),
                 timeout=v.seconds("timeout", self.timeout), memory=v.gib("memory", self.memory))
        v.distinct_paths(self, inputs=("store",), folders=("out",))


@dataclass
class PlotResult:
    """The files written (PNG and SVG, or CSV and Markdown for table2) and the values plotted."""

    figure: str
    store: str
    files: list[str]
    values: list[dict[str, Any]]
    code: int = 0

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck plot --json`` prints."""
        return {"figure": self.figure, "store": self.store, "files": self.files, "values": self.values}

    def report(self) -> str:
        """What ``warpcheck plot`` prints."""
        return "\n".join(f"wrote {f}" for f in self.files)


def run_plot(o: PlotOptions, progress: Say = None) -> PlotResult:
    """Draw one figure from the store into ``o.out``."""
    from warpcheck._sweep.figures import FIGURES
    from warpcheck._sweep.store import Store
    with bounded(o.timeout, o.memory):
        check_writable(o.out, "out", folder=True)
        with Store(o.store, read_only=True) as store:
            files, values = FIGURES[o.figure](store, o.out)
    return PlotResult(o.figure, o.store, files, values)
