"""Job files (TOML): named proof tasks with expected outcomes, run as one batch."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from tabulate import tabulate

from warpcheck.cli.contract_guard import worker_pool
from warpcheck.cli.frontend_run import ProveJob, ProveOutcome, prove_job
from warpcheck.models.config import config_from_mapping
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.files import load_toml
from warpcheck.verify.properties import get_property
from warpcheck.verify.result import Status

TASK_KEYS = {"name", "expect", "property", "engine", "depth", "timeout", "policy", "fetch", "issue"}
EXPECT = {"pass": Status.PASS, "fail": Status.FAIL}


def _task(raw: dict[str, Any], defaults: dict[str, Any], where: str, out: str) -> tuple[str, ProveJob, Status]:
    merged = {**defaults, **raw}
    name = merged.get("name")
    if not isinstance(name, str) or not name:
        raise InputFileError(f"{where}: every [[task]] needs a name (a non-empty string)")
    expect = merged.get("expect")
    if expect not in EXPECT:
        raise InputFileError(f"{where}: task {name!r}: expect = {expect!r}; allowed: \"pass\" or \"fail\"")
    sm = {k: v for k, v in merged.items() if k not in TASK_KEYS}
    pol = {"fetch_policy": merged.get("fetch"), "issue_policy": merged.get("issue") or merged.get("policy")}
    sm.update({k: v for k, v in pol.items() if v is not None})
    config = config_from_mapping(sm, where=f"{where}: task {name!r}")
    prop = merged.get("property", "")
    if prop:
        get_property(prop)
    job = ProveJob(config, prop, merged.get("engine", "auto"), int(merged.get("depth", 0)),
                   float(merged.get("timeout", 300)), witness_path=str(Path(out) / f"{name}.json"))
    return name, job, EXPECT[expect]


def load_job(path: str, out: str = "warpcheck-out") -> list[tuple[str, ProveJob, Status]]:
    """Parse and validate every task before anything runs."""
    data = load_toml(path, "job file")
    tasks = data.get("task")
    if not isinstance(tasks, list) or not tasks:
        raise InputFileError(f"{path}: no [[task]] tables; a job file lists its tasks as [[task]]")
    defaults = data.get("defaults", {})
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
    with worker_pool(2) as pool:
        outcomes: list[ProveOutcome] = list(pool.map(prove_job, [j for _, j, _ in tasks]))
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
    r.add_argument("job", help="job file (TOML)")
    r.add_argument("--only", metavar="NAME", help="run only this task")
    r.add_argument("--out", default="warpcheck-out", help="folder for witnesses (default warpcheck-out)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_run)
