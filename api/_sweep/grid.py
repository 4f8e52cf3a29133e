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
import re
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
    wheres = [f"{path}: grid[{k}]" if spec.grid else path for k in range(len(grids))]
    total = sum(_size(spec, g, where) for g, where in zip(grids, wheres))
    if total > MAX_SWEEP_RUNS:
        raise InputFileError(f"{path}: the {len(grids)} grids make {total} runs in all, above the ceiling of "
                             f"{MAX_SWEEP_RUNS}; split the sweep into several files")
    used = _fields(spec.arguments, path)
    runs: dict[str, Run] = {}
    for g, where in zip(grids, wheres):
        for run in _expand(spec, g, used, where):
            runs.setdefault(run.key, run)
    sweep = Sweep(Path(path).stem, path, spec.verb, spec.store, tuple(runs.values()))
    check_runs(sweep.runs, path)
    return sweep


def _size(spec: SweepFile, g: SweepGrid, where: str) -> int:
    """How many runs the grid ``g`` makes (the product of its axes), checked before any is built."""
    options, axes = {**spec.options, **g.options}, {**spec.axes, **g.axes}
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
    return size


FIELD = re.compile(r"[a-z][a-z0-9_-]{0,63}")  # an axis or option name, as the file's keys are


def _fields(arguments: list[str], where: str) -> set[str]:
    """The names that ``arguments`` take in braces ({warps}); any other format field is refused by name."""
    used = set()
    for k, text in enumerate(arguments):
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as e:
            raise InputFileError(f"{where}: arguments[{k}] = {text!r}: {e}; write {{name}} for an axis or option, "
                                 "{{ and }} for a brace") from None
        for _, name, spec, conversion in parts:
            if name is None:
                continue
            field = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            if not FIELD.fullmatch(name) or spec or conversion:
                raise InputFileError(f"{where}: arguments[{k}] = {text!r}: {field} is not an axis or option name in "
                                     "braces; write {name}, and {{ and }} for a brace")
            used.add(name)
    return used


def _expand(spec: SweepFile, g: SweepGrid, used: set[str], where: str) -> list[Run]:
    options = {**spec.options, **g.options}
    names = list({**spec.axes, **g.axes})
    return [_run(spec, {**options, **dict(zip(names, combo))}, used, where)
            for combo in itertools.product(*{**spec.axes, **g.axes}.values())]


def _run(spec: SweepFile, params: dict[str, Any], used: set[str], where: str) -> Run:
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
