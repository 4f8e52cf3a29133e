"""A sweep on a Dask cluster (a LocalCluster of 2 worker processes) with one worker killed mid-sweep.

The killed worker's runs are redone elsewhere, and the store holds every run exactly once.  This is
the one default test that starts a cluster (it costs seconds); the rest of the sweep tests run locally.
"""
from __future__ import annotations

import os
import signal
import threading
import time
import warnings

import pytest

from warpcheck.cli.main import main
from warpcheck._sweep.grid import load_sweep
from warpcheck._sweep.store import Store

distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is a dependency of warpcheck: pip install .")

# Tiny runs: a worker's first run also imports the kit (about a second), long enough to be caught
# running when its worker is killed.
SWEEP = """verb = "makespan"
arguments = ["LLCLL"]
[options]
sigma = ["L=1", "C=1"]
method = "enumerate"
[axes]
warps = [4, 5, 6]
"""


def _kill_a_busy_worker(cluster, killed: dict) -> None:
    """Wait until a worker runs a task, then SIGKILL its process; note its pid and the keys it held."""
    with distributed.Client(cluster, set_as_default=False) as client:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = {addr: keys for addr, keys in client.processing().items() if keys}
            if busy:
                addr, keys = next(iter(busy.items()))
                pid = client.run(os.getpid, workers=[addr])[addr]
                os.kill(pid, signal.SIGKILL)
                killed.update(pid=pid, keys=[str(k).removeprefix("warpcheck-run-") for k in keys])
                return
            time.sleep(0.02)


def test_a_worker_killed_mid_sweep_loses_no_run_and_doubles_none(tmp_path, capsys):
    sweep_file = tmp_path / "mk.toml"
    sweep_file.write_text(SWEEP)
    store = str(tmp_path / "runs.duckdb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster warns, in its own threads, about the worker it lost
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                      silence_logs=50) as cluster:
            for nanny in cluster.workers.values():  # the killed worker stays dead: the live one must redo its run
                nanny.auto_restart = False
            killed: dict = {}
            killer = threading.Thread(target=_kill_a_busy_worker, args=(cluster, killed))
            killer.start()
            code = main(["sweep", str(sweep_file), "--store", store, "--scheduler", cluster.scheduler_address,
                         "--quiet"])
            killer.join()
    assert code == 0, capsys.readouterr().err
    assert killed.get("keys"), "no worker was seen running a task"
    expected = {r.key for r in load_sweep(str(sweep_file)).runs}
    with Store(store, read_only=True) as s:
        rows = list(s.rows())
    assert sorted(r["key"] for r in rows) == sorted(expected)  # each run once: none lost, none twice
    assert all(not r["failed"] and r["result"]["exact"] for r in rows)
    by_key = {r["key"]: r for r in rows}
    for key in killed["keys"]:  # the runs of the killed worker were redone by a live one
        assert not by_key[key]["worker"].endswith(f":{killed['pid']}")
    assert {r["result"]["makespan"] for r in rows} == {4 * w + 1 for w in (4, 5, 6)}  # LLCLL: 4W + 1
