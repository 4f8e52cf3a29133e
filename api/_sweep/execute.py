"""Where a sweep's runs go: local worker processes (``--jobs N``) or a Dask cluster (``--scheduler ADDRESS``).

Both yield each run with its outcome as it finishes, to the one process that writes the store.  Dask
redoes the task of a worker that dies; the store's key keeps a run delivered twice stored once.
"""
from __future__ import annotations

from concurrent.futures import as_completed
from typing import Any, Iterator

from warpcheck._guard import worker_pool
from warpcheck._sweep.grid import Run
from warpcheck._sweep.point import run_point
from warpcheck.models.errors import ConfigError

Done = tuple[Run, dict[str, Any]]
CONNECT_SECONDS = 10.0


def run_local(runs: list[Run], jobs: int) -> Iterator[Done]:
    """Run on ``jobs`` local processes (killed at once on Ctrl-C, SIGTERM or the sweep's timeout)."""
    with worker_pool(jobs) as pool:
        futures = {pool.submit(run_point, r.verb, list(r.arguments), dict(r.options)): r for r in runs}
        for fut in as_completed(futures):
            yield futures[fut], _outcome(fut.result)


def connect(address: str) -> Any:
    """A client of the Dask scheduler at ``address``, or bad input in one line (before anything is written)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    try:
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise ConfigError(f"--scheduler {address!r}: no Dask scheduler answered within {CONNECT_SECONDS:g} s "
                          f"({str(e).splitlines()[0][:120] if str(e) else type(e).__name__}); give tcp://HOST:PORT "
                          "of a running `dask scheduler`") from None


def run_dask(runs: list[Run], client: Any) -> Iterator[Done]:
    """Run on a Dask cluster through ``client``; its workers need only the installed kit."""
    from dask.distributed import as_completed as dask_completed
    futures = [client.submit(run_point, r.verb, list(r.arguments), dict(r.options), key=f"warpcheck-run-{r.key}", pure=False) for r in runs]
    by_key = {f.key: r for f, r in zip(futures, runs)}
    try:
        for fut in dask_completed(futures, loop=client.loop):
            yield by_key[fut.key], _outcome(fut.result)
    finally:
        client.cancel(futures)  # after Ctrl-C: the cluster drops what is left


def _outcome(result: Any) -> dict[str, Any]:
    """The worker's outcome, or a failed one when the task itself could not finish (its workers kept dying)."""
    try:
        return dict(result())
    except Exception as e:  # noqa: BLE001 - the worker's failure is this run's, not the sweep's
        first = str(e).splitlines()[0][:300] if str(e) else ""
        return {"code": 5, "result": None, "error": f"the run did not finish: {type(e).__name__}: {first}",
                "seconds": None, "worker": ""}
