"""A sweep file as a list of runs: the product of named axes, each run one verb's options record.

A sweep needs no code of its own per verb: an axis or option called ``warps`` is the field ``warps``
of the verb's options record (the verb's ``--warps``), and the positional ``arguments`` take
``{axis}`` from the run.  Every run's record is built, and so checked, before any run starts; the
argv of the same run on the command line is kept with it, for the reader of the store.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpcheck._verbs import options_of, verb
from warpcheck.models.errors import ConfigError, InputFileError, WarpcheckError
from warpcheck.models.file_schemas import MAX_SWEEP_RUNS, SweepFile, SweepGrid, validated
from warpcheck.models.files import load_toml

NOT_SWEPT = ("json", "quiet", "csv", "store", "scheduler", "jobs")  # set by the sweep itself, or output modes


@dataclass(frozen=True)
class Run:
    """One grid point: the verb's words, the run's parameters, its positional arguments and options, its argv."""

    verb: str
    params: dict[str, Any]
    argv: tuple[str, ...]  # the same run on the command line (without --json)
    arguments: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()  # the params that are not positional arguments

    @property
    def key(self) -> str:
        """The run's identity in the store: a hash of the verb and its parameters (order does not matter)."""
        text = json.dumps({"verb": self.verb, "params": self.params}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Sweep:
    """A sweep file's runs, in file order, each once."""

    name: str
    path: str
    verb: str
    store: str | None
    runs: tuple[Run, ...]


def load_sweep(path: str) -> Sweep:
    """Read, expand and check a sweep file: every run's argv is parsed before any run starts."""
    spec = validated(SweepFile, load_toml(path, "sweep file"), path)
    try:
        verb(spec.verb)
    except ConfigError as e:
        raise InputFileError(f"{path}: {e}") from None
    grids = spec.grid or [SweepGrid()]
    runs: dict[str, Run] = {}
    for k, g in enumerate(grids):
        where = f"{path}: grid[{k}]" if spec.grid else path
        for run in _expand(spec, g, where):
            runs.setdefault(run.key, run)
    sweep = Sweep(Path(path).stem, path, spec.verb, spec.store, tuple(runs.values()))
    check_runs(sweep.runs, path)
    return sweep


def _expand(spec: SweepFile, g: SweepGrid, where: str) -> list[Run]:
    options = {**spec.options, **g.options}
    axes = {**spec.axes, **g.axes}
    clash = sorted(set(options) & set(axes))
    if clash:
        raise InputFileError(f"{where}: {clash[0]!r} is both an option and an axis; keep it in one of them")
    bad = sorted(n for n in (*options, *axes) if n.replace("-", "_") in NOT_SWEPT)
    if bad:
        raise InputFileError(f"{where}: option {bad[0]!r} is set by the sweep itself; leave it out of the file")
    size = 1
    for values in axes.values():
        size *= len(values)
    if size > MAX_SWEEP_RUNS:
        raise InputFileError(f"{where}: the axes make {size} runs, above the ceiling of {MAX_SWEEP_RUNS}; "
                             "split the sweep into several files")
    names = list(axes)
    return [_run(spec, {**options, **dict(zip(names, combo))}, where)
            for combo in itertools.product(*axes.values())]


def _run(spec: SweepFile, params: dict[str, Any], where: str) -> Run:
    used = {f for a in spec.arguments for _, f, _, _ in string.Formatter().parse(a) if f}
    missing = sorted(used - set(params))
    if missing:
        raise InputFileError(f"{where}: arguments name {{{missing[0]}}}, which is no axis or option; "
                             f"known: {', '.join(params) or '(none)'}")
    positional = [a.format(**{k: _text(v) for k, v in params.items()}) for a in spec.arguments]
    argv = [*spec.verb.split(), *positional]
    for name, value in params.items():
        if name not in used:
            argv += _option(name, value)
    options = tuple((k, value) for k, value in params.items() if k not in used)
    return Run(spec.verb, params, tuple(argv), tuple(positional), options)


def _text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value).lower() if isinstance(value, bool) \
        else str(value)


def _option(name: str, value: Any) -> list[str]:
    flag = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        return [flag] if value else []
    if isinstance(value, list):
        return [x for v in value for x in (flag, str(v))]
    return [flag, str(value)]


def check_runs(runs: tuple[Run, ...], path: str) -> None:
    """Refuse, before anything runs, a run whose options record the verb refuses (an unknown option, a bad value)."""
    for run in runs:
        try:
            options_of(run.verb, run.arguments, dict(run.options))
        except WarpcheckError as e:
            point = ", ".join(f"{k} = {v!r}" for k, v in run.params.items())
            why = str(e) if str(e).startswith(f"{run.verb}: ") else f"{run.verb}: {e}"
            raise InputFileError(f"{path}: the run {{{point}}} is refused: {why}") from None
