"""Job files (TOML): named proof tasks with expected outcomes, run as one batch on a process pool."""
from __future__ import annotations

import time
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from warpcheck._frontend.options import ProveOptions, RunOptions
from warpcheck._frontend.proof import Progress, ProveOutcome, prove_run_bounded
from warpcheck._guard import worker_pool
from warpcheck.models.errors import InputFileError, OptionError
from warpcheck.models.file_schemas import JobTask, validated
from warpcheck.models.files import load_toml
from warpcheck.models.frontend.config import config_from_mapping
from warpcheck.verify.engines import engine
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.result import Status

EXPECT = {"pass": Status.PASS, "fail": Status.FAIL}
MAX_TASK_NAME = 100  # it names a file; most file systems end at 255 bytes, with room for the suffix
Task = tuple[str, ProveOptions, Status]


def _task(raw: dict[str, Any], defaults: dict[str, Any], where: str, out: str) -> Task:
    task = validated(JobTask, {**defaults, **raw}, f"{where}: task {raw.get('name', '(no name)')!r}")
    name = task.name
    if name is None:
        raise InputFileError(f"{where}: every [[task]] needs a name (a non-empty string)")
    if (Path(name).name != name or name.startswith(".") or "\\" in name or len(name) > MAX_TASK_NAME
            or any(ord(ch) < 32 for ch in name)):
        raise InputFileError(f"{where}: task name {name!r} is not allowed; it names the witness file in the out folder, "
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
    given = {"property": task.property, "engine": task.engine, "depth": task.depth or None,
             "timeout": None if task.timeout is None else float(task.timeout)}
    try:
        job = ProveOptions(config=config, witness=str(Path(out) / f"{name}.json"),
                           **{k: v for k, v in given.items() if v is not None})
    except OptionError as e:
        raise InputFileError(f"{where}: task {name!r}: {e.option} = {e.value!r}: {e.problem}") from None
    return name, job, EXPECT[task.expect]


def load_job(path: str, out: str = RunOptions.out) -> list[Task]:
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


@dataclass
class RunResult:
    """Every task of a job file with its outcome, and whether each ended as expected."""

    tasks: list[Task]
    outcomes: list[ProveOutcome]
    seconds: float

    @property
    def ok(self) -> list[bool]:
        """Per task: it ended as expected."""
        return [o.result.status is e for (_, _, e), o in zip(self.tasks, self.outcomes)]

    @property
    def code(self) -> int:
        """The exit code of ``warpcheck run``: 0 when every task ends as expected, 1 otherwise."""
        return 0 if all(self.ok) else 1

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck run --json`` prints."""
        return {"as_expected": all(self.ok), "seconds": round(self.seconds, 2),
                "tasks": [{"task": n, "expected": e.value, **o.to_json()}
                          for (n, _, e), o in zip(self.tasks, self.outcomes)]}

    def report(self) -> str:
        """The table ``warpcheck run`` prints."""
        rows = [[n, o.result.label, e.value, "yes" if k else "NO", f"{o.result.seconds:.1f}", o.witness_path or ""]
                for (n, _, e), o, k in zip(self.tasks, self.outcomes, self.ok)]
        return (tabulate(rows, headers=["task", "status", "expected", "as expected", "s", "witness"])
                + f"\n\n{sum(self.ok)}/{len(self.ok)} tasks as expected")


def run_jobs(o: RunOptions, progress: Progress = None) -> RunResult:
    """Run the job file's tasks (or ``o.only``) on two processes."""
    tasks = load_job(o.job, o.out)
    if o.only:
        known = [n for n, _, _ in tasks]
        if o.only not in known:
            raise OptionError("only", o.only, f"no such task; tasks: {', '.join(known)}")
        tasks = [t for t in tasks if t[0] == o.only]
    start, say = time.monotonic(), progress or (lambda msg: None)
    say(f"{len(tasks)} task(s) on 2 processes")
    done: dict[int, ProveOutcome] = {}
    with worker_pool(2) as pool:
        futures = {pool.submit(prove_run_bounded, j): k for k, (_, j, _) in enumerate(tasks)}
        for fut in as_completed(futures):
            k = futures[fut]
            done[k] = fut.result()
            say(f"{len(done)}/{len(tasks)} {tasks[k][0]}: {done[k].result.label} ({done[k].result.seconds:.1f} s)")
    return RunResult(tasks, [done[k] for k in range(len(tasks))], time.monotonic() - start)
