"""Checks of one option's value, shared by every verb's options record: one wording for one mistake.

Each check takes the option's name as the record calls it (the keyword of the
function) and raises :class:`OptionError` naming it; the command line, which
builds the same record from argv, re-spells the name as the flag the user typed.
A record is a frozen dataclass whose ``__post_init__`` runs these checks once,
so that a script, a sweep row and the command line are refused alike.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import numbers
import operator
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, TypeVar

from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.files import not_a_file

T = TypeVar("T")

DEFAULT_MEMORY_GIB = 4.0  # what a run and its workers may hold together, unless told otherwise


def integer(option: str, value: Any, low: int | None = None, high: int | None = None, why: str = "") -> int:
    """``value`` as an int within ``low .. high`` (a bool or a float is not an integer; a digit string is)."""
    n = whole(value)
    if n is None:
        problem = "not an integer" + (f"; give one >= {low}" if low is not None else "")
        if isinstance(value, str) and value.strip().lstrip("+-").isdecimal():
            problem = f"more digits than an integer option takes ({_DIGITS})"
        raise OptionError(option, value, problem)
    if low is not None and n < low:
        raise OptionError(option, value, f"not allowed; it must be >= {low}")
    if high is not None and n > high:
        raise OptionError(option, value, f"above the ceiling of {high}" + (f" ({why})" if why else ""))
    return n


_DIGITS = 4000  # Python converts at most 4300 digits; no option of the kit needs more than a few


def whole(value: Any) -> int | None:
    """An integer (numpy's too) or a string of decimal digits (the command line's) as an int; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        body = text[1:] if text[:1] in "+-" else text
        return int(text) if body.isdecimal() and len(body) <= _DIGITS else None  # not isdigit: "²" is no int
    try:
        return operator.index(value)
    except TypeError:
        return None


def optional_integer(option: str, value: Any, low: int | None = None, high: int | None = None, why: str = "") -> int | None:
    """:func:`integer`, with None meaning "not given"."""
    return None if value is None else integer(option, value, low, high, why)


def number(option: str, value: Any, positive: bool = True, unit: str = "") -> float:
    """A finite real number (> 0 when ``positive``); a number too large for a float is refused too."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise OptionError(option, value, f"not a number{' of ' + unit if unit else ''}")
    try:
        x = float(value)
    except ValueError:
        raise OptionError(option, value, f"not a number{' of ' + unit if unit else ''}") from None
    except OverflowError:  # an int past 1.8e308
        x = math.inf
    if math.isnan(x):
        raise OptionError(option, value, f"not a number{' of ' + unit if unit else ''}")
    if not math.isfinite(x):
        raise OptionError(option, value, "not allowed; give a finite number")
    if positive and x <= 0:
        raise OptionError(option, value, f"not allowed; it must be > 0{' ' + unit if unit else ''}")
    return x


def seconds(option: str, value: Any) -> float | None:
    """A time budget in seconds (> 0, finite), or None for no limit."""
    if value is None:
        return None
    return number(option, value, unit="seconds")  # a budget past what the alarm holds bounds nothing: no alarm


def gib(option: str, value: Any) -> float | None:
    """A memory budget in GiB (> 0, finite), or None for no budget."""
    if value is None:
        return None
    g = number(option, value, unit="GiB")
    if g > 2**20:
        raise OptionError(option, value, "above the ceiling of 1048576 GiB")
    return g


def flag(option: str, value: Any) -> bool:
    """A yes/no option: True or False only (a string such as "no" is refused, not taken as true)."""
    if not isinstance(value, bool):
        raise OptionError(option, value, "not a bool; give True or False")
    return value


def one_of(option: str, value: Any, allowed: Iterable[str], optional: bool = False) -> Any:
    """``value`` if it is one of ``allowed`` (None too, when ``optional``), naming the closest otherwise."""
    allowed = list(allowed)
    if value is None and optional:
        return None
    if not isinstance(value, str) or value not in allowed:
        near = difflib.get_close_matches(str(value), allowed, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise OptionError(option, value, f"not one of {', '.join(allowed)}{hint}")
    return value


def text(option: str, value: Any, optional: bool = True) -> str | None:
    """A non-empty string (a name, a label), or None when ``optional``."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise OptionError(option, value, "not a non-empty string")
    return value


def path(option: str, value: Any, optional: bool = True) -> str | None:
    """A file or folder path (str or path-like), as a string; None when ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise OptionError(option, value, "not a path; give a file name")
    if "\0" in value:
        raise OptionError(option, value, "holds a NUL character, which no file name can; give a file name")
    return value


def callback(option: str, value: Any) -> Any:
    """A function the run calls (``progress=print``), or None."""
    if value is not None and not callable(value):
        raise OptionError(option, value, "not a function; give one that takes a line of text, e.g. print")
    return value


def certificate_or_none(record: Any) -> None:
    """Refuse a record that names its certificate's file and also asks for no certificate."""
    if record.certificate is not None and record.no_certificate:
        raise OptionError("certificate", record.certificate, "given with no_certificate; give one of them")


def distinct_paths(record: Any, inputs: Iterable[str] = (), outputs: Iterable[str] = (),
                   folders: Iterable[str] = ()) -> None:
    """Refuse an output field whose path is an input field's, or another output's, or holds no regular file.

    ``outputs`` are files (an existing device, FIFO, socket, folder or symbolic link there is refused: the
    kit replaces regular files only); ``folders`` are output folders (a file is written in them, so they
    must not be an input file either).  Fields that are not paths (None, True, an SMConfig) are skipped.
    """
    taken: dict[str, str] = {}
    for name in inputs:
        for value in _paths(getattr(record, name)):
            taken.setdefault(os.path.realpath(value), f"the input {name} ({value})")
    for name in [*outputs, *folders]:
        for value in _paths(getattr(record, name)):
            real = os.path.realpath(value)
            if real in taken:
                raise OptionError(name, value, f"it is {taken[real]}; give another path, it would be overwritten")
            if name in folders and os.path.exists(value) and not os.path.isdir(value):
                raise OptionError(name, value, "it is a file; give a folder")
            kind = not_a_file(value) if name not in folders else None
            if kind is not None:
                raise OptionError(name, value, f"it is {kind}; the kit writes only regular files and replaces nothing "
                                               "else: give the path of a file")
            taken[real] = f"the output {name}"


def _paths(value: Any) -> list[str]:
    """The paths in a field's value: a str or Path, or a list of them; nothing for anything else."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return [str(v) for v in items if isinstance(v, (str, Path)) and str(v).strip()]


def assignments(option: str, value: Any, convert: Any = int) -> dict[str, Any]:
    """``{"K2": 4}`` or ``["K2=4"]`` (the command line's repeated ``NAME=VALUE``) as a dict of converted values."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = []
        for v in value:
            name, eq, val = v.partition("=")
            if not eq or not name.strip():
                raise OptionError(option, value, f"{v!r} is not NAME=VALUE")
            items.append((name.strip(), val.strip()))
    else:
        raise OptionError(option, value, "not a mapping; give e.g. {'NAME': 4} (or a list of 'NAME=VALUE')")
    out = {}
    for name, val in items:
        if not isinstance(name, str) or not name:
            raise OptionError(option, value, f"the name {name!r} is not a non-empty string")
        try:
            out[name] = convert(val)
        except (TypeError, ValueError) as e:
            raise OptionError(option, value, f"the value of {name!r} is not allowed ({e})") from None
    return out


R = TypeVar("R")


def build(record: type[R], where: str, keywords: Mapping[str, Any]) -> R:
    """``record(**keywords)``, with an unknown keyword refused by name (and the closest known one)."""
    known = [f.name for f in dataclasses.fields(record)]  # type: ignore[arg-type]
    for key in keywords:
        if key not in known:
            near = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else f"; known: {', '.join(known)}"
            raise ConfigError(f"{where}: unknown keyword {key!r}{hint}")
    return record(**keywords)


def settle(record: Any, **values: Any) -> None:
    """Store checked values on a frozen record (from its ``__post_init__``)."""
    for name, value in values.items():
        object.__setattr__(record, name, value)
