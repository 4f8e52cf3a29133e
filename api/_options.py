"""Keyword arguments of the API read as the command line reads its options, so both give the same one-line errors.

The QAWS and reordering functions run the verbs' own code on an option record;
these helpers turn Python values (tuples, dicts, lists) into the options' text
and check them with the verbs' argument types.
"""
from __future__ import annotations

import argparse
from typing import Any, Callable, Mapping, Sequence, TypeVar

from warpcheck.models.errors import ConfigError

T = TypeVar("T")


def checked(flag: str, value: Any, parse: Callable[[str], T]) -> T:
    """``value`` through the verb's argument type for ``flag`` (None stays None); a refusal is a ConfigError."""
    if value is None:
        return None  # type: ignore[return-value]
    if isinstance(value, bool):
        raise ConfigError(f"argument {flag}: {value!r} is not a number")
    try:
        return parse(str(value))
    except argparse.ArgumentTypeError as e:
        raise ConfigError(f"argument {flag}: {e}") from None


def integer(text: str) -> int:
    """argparse's ``type=int``, with its message, for an option the verb reads as a plain integer."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None


def choice(flag: str, value: Any, allowed: Sequence[str]) -> Any:
    """``value`` if it is one of ``allowed`` (None stays None), in argparse's words otherwise."""
    if value is not None and value not in allowed:
        raise ConfigError(f"argument {flag}: invalid choice: {value!r} (choose from {', '.join(map(repr, allowed))})")
    return value


def joined(value: Any) -> str | None:
    """A comma list as the command line writes it: ``(1, 2, 1)`` -> ``"1,2,1"``; a string or None as given."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return ",".join(str(v) for v in value)


def assignments(value: Mapping[str, Any] | Sequence[str] | None) -> list[str]:
    """``{"K2": 4}`` -> ``["K2=4"]`` (a value that is a list joins with commas); a list of ``"K=V"`` as given."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [f"{k}={joined(v)}" for k, v in value.items()]
    return [str(v) for v in value]


def namespace(**options: Any) -> argparse.Namespace:
    """The option record a verb's parser would have built."""
    return argparse.Namespace(**options)
