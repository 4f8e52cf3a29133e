"""What every verb's parser shares: the budgets' types, the marks of file options, and records from argv.

Counts and other values are checked by the verb's options record (``warpcheck._values``), not here.
"""
from __future__ import annotations

import argparse
import dataclasses
from typing import Any, TypeVar

R = TypeVar("R")


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value <= 0:  # NaN and infinities pass here: main refuses them for every option at once
        raise argparse.ArgumentTypeError(f"{value:g} is not allowed; a timeout must be > 0 seconds")
    return value


def positive_gib(text: str) -> float:
    """An argparse type: a memory budget in GiB, > 0 and within the records' ceiling (``warpcheck._values.gib``).

    Checked here, not only by the record: ``main`` sets the budget before the verb builds its record.
    """
    from warpcheck._values import gib
    from warpcheck.models.errors import OptionError
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of GiB") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value:g} is not allowed; a memory budget must be > 0 GiB")
    try:
        return float(gib("memory", value) or value)
    except OptionError as e:
        raise argparse.ArgumentTypeError(f"{value:g}: {e.problem}") from None


class PathOption:
    """An argparse type that marks an option as a file the verb reads or writes, where the verb defines it.

    ``main`` finds these on the verb's parser and checks, before any work,
    that every output can be written and that no output is an input or
    another output of the same run: a verb declares its files by defining
    its options, and no central table can miss one.
    """

    def __init__(self, role: str, fallback: str | None = None) -> None:
        self.role, self.fallback = role, fallback  # role: input, file or folder; fallback: written when not given
        self.__name__ = f"{role} path"

    def __call__(self, text: str) -> str:
        return text


INPUT = PathOption("input")  # a file the run reads (a name that is no file, such as a workload, is let through)
OUTPUT_FILE = PathOption("file")
OUTPUT_FOLDER = PathOption("folder")


def output_file(fallback: str) -> PathOption:
    """An output file with the path the verb writes when the option is left out (checked as if given)."""
    return PathOption("file", fallback)


def output_folder(fallback: str) -> PathOption:
    """An output folder with its default path."""
    return PathOption("folder", fallback)


def record_from_args(record: type[R], args: argparse.Namespace, **given: Any) -> R:
    """The verb's options record from its parsed arguments: only what the user gave, so the record's defaults hold.

    An option left out is None in ``args`` (give every record field ``default=None`` on the parser, and
    take the help's "(default ...)" from the record); ``given`` sets fields the verb computes itself.
    A value the record refuses raises ``OptionError``, which ``main`` re-spells with the flag.
    """
    names = {f.name for f in dataclasses.fields(record)}  # type: ignore[arg-type]
    values = {k: v for k, v in vars(args).items() if k in names and v is not None}
    return record(**{**values, **given})
