"""Job files (TOML): named proof tasks with expected outcomes, run as one batch."""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import as_completed
from pathlib import Path
from typing import Any

from tabulate import tabulate

from warpcheck.cli.options import INPUT, OUTPUT_FOLDER
from warpcheck._guard import worker_pool
from warpcheck.cli.frontend.run import ProveJob, ProveOutcome, prove_job_bounded
from warpcheck.models.frontend.config import config_from_mapping
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.file_schemas import JobTask, validated
from warpcheck.models.files import load_toml
from warpcheck.verify.engines import engine
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.result import Status

EXPECT = {"pass": Status.PASS, "fail": Status.FAIL}


MAX_TASK_NAME = 100  # it names a file; most file systems end at 255 bytes, with room for the suffix


def _task(raw: dict[str, Any], defaults: dict[str, Any], where: str, out: str) -> tuple[str, ProveJob, Status]:
    task = validated(JobTask, {**defaults, **raw}, f"{where}: task {raw.get('name', '(no name)')!r}")
    name = task.name
    if name is None:
        raise InputFileError(f"{where}: every [[task]] needs a name (a non-empty string)")
    if (Path(name).name != name or name.startswith(".") or "\\" in name or len(name) > MAX_TASK_NAME
            or any(ord(ch) < 32 for ch in name)):
        raise InputFileError(f"{where}: task name {name!r} is not allowed; it names the witness file in --out, "
                             "so use letters, digits, '-' and '_' (no '/', no leading '.')")
    if task.expect not in EXPECT:
        raise InputFileError(f"{where}: task {name!r}: expect = {task.expect!r}; allowed: \"pass\" or \"fail\"")
    sm = dict(task.model_extra or {})
    pol = {"fetch_policy": task.fetch, "issue_policy": task.issue or task.policy}
    sm.update({k: v for k, v in pol.items() if v is not None})
    config = config_from_mapping(sm, where=f"{where}: task {name!r}")
    if task.property:
        get_property(task.property)
    engine(task.engine or "auto")
    job = ProveJob(config, task.property or "", task.engine or "auto", task.depth or 0,
                   300.0 if task.timeout is None else float(task.timeout), witness_path=str(Path(out) / f"{name}.json"))
    return name, job, EXPECT[task.expect]


def load_job(path: str, out: str = "warpcheck-out") -> list[tuple[str, ProveJob, Status]]:
    """Parse and validate every task before anything runs."""
    data = load_toml(path, "job file")
    tasks = data.get("task")
    if not isinstance(tasks, list) or not tasks:
        raise InputFileError(f"{path}: no [[task]] tables; a job file lists its tasks as [[task]]")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict) or not all(isinstance(x, dict) for x in tasks):
        raise InputFileError(f"{path}: [defaults] and every [[task]] must be tables of keys")
    extra = sorted(set(data) - {"task", "defaults"})
    if extra:
        raise InputFileError(f"{path}: unknown table {extra[0]!r}; a job file has [defaults] and [[task]] tables")
    parsed = [_task(t, defaults, path, out) for t in tasks]
    names = [n for n, _, _ in parsed]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise InputFileError(f"{path}: task name {dup!r} is used twice; names must be unique")
    return parsed


def _run(a: argparse.Namespace) -> int:
    tasks = load_job(a.job, a.out)
    if a.only:
        known = [n for n, _, _ in tasks]
        if a.only not in known:
            raise ConfigError(f"--only {a.only!r}: no such task; tasks: {', '.join(known)}")
        tasks = [t for t in tasks if t[0] == a.only]
    start = time.monotonic()
    say = (lambda msg: None) if a.json else (lambda msg: print(f"  .. {msg}", file=sys.stderr, flush=True))
    say(f"{len(tasks)} task(s) on 2 processes")
    done: dict[int, ProveOutcome] = {}
    with worker_pool(2) as pool:
        futures = {pool.submit(prove_job_bounded, j): k for k, (_, j, _) in enumerate(tasks)}
        for fut in as_completed(futures):
            k = futures[fut]
            done[k] = fut.result()
            say(f"{len(done)}/{len(tasks)} {tasks[k][0]}: {done[k].result.label} ({done[k].result.seconds:.1f} s)")
    outcomes = [done[k] for k in range(len(tasks))]
    ok = [o.result.status is e for (_, _, e), o in zip(tasks, outcomes)]
    if a.json:
        print(json.dumps({"as_expected": all(ok), "seconds": round(time.monotonic() - start, 2),
                          "tasks": [{"task": n, "expected": e.value, **o.to_json()}
                                    for (n, _, e), o in zip(tasks, outcomes)]}))
    else:
        rows = [[n, o.result.label, e.value, "yes" if k else "NO", f"{o.result.seconds:.1f}", o.witness_path or ""]
                for (n, _, e), o, k in zip(tasks, outcomes, ok)]
        print(tabulate(rows, headers=["task", "status", "expected", "as expected", "s", "witness"]))
        print(f"\n{sum(ok)}/{len(ok)} tasks as expected")
    return 0 if all(ok) else 1


def register(sub: Any) -> None:
    """Add the run verb."""
    r = sub.add_parser("run", help="run a TOML job file of named proof tasks with expected outcomes",
                       description="Run every [[task]] of a job file (keys: name, expect = \"pass\"|\"fail\", "
                                   "design, policy | fetch + issue, warps, property, engine, depth, timeout, "
                                   "and any SM configuration key; a [defaults] table applies to all tasks). "
                                   "Exit 0 when every task ends as expected, 1 otherwise.",
                       epilog="example:\n  warpcheck run examples/jobs/swas-vs-baseline.toml",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("job", type=INPUT, help="job file (TOML)")
    r.add_argument("--only", metavar="NAME", help="run only this task")
    r.add_argument("--out", default="warpcheck-out", type=OUTPUT_FOLDER, help="folder for witnesses (default warpcheck-out)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_run)
