"""Argument types shared by every verb: counts with a floor and a ceiling, seconds; one-line errors."""
from __future__ import annotations

import argparse
from typing import Callable


def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= low, with a one-line error otherwise."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is not allowed; it must be >= {low}")
        return value
    return parse


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
    """An argparse type: a memory budget in GiB, > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of GiB") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value:g} is not allowed; a memory budget must be > 0 GiB")
    return value


def at_most(high: int, low: int = 1, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high`` (a ceiling keeps every run bounded; ``why`` says why)."""
    floor = at_least(low)

    def parse(text: str) -> int:
        value = floor(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{value} is above the ceiling of {high}" + (f" ({why})" if why else ""))
        return value
    return parse
