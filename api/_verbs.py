"""Every verb as the library knows it: its options record and the function that runs one.

The command line parses argv into a verb's record, a script passes keywords, and a sweep a TOML row:
all three end here, so the same record gives the same run whoever built it.  The table names each
verb's home lazily (a module path), so that ``import warpcheck`` stays quick.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping, Sequence

from warpcheck._guard import bounded
from warpcheck._values import build
from warpcheck.models.errors import ConfigError


@dataclass(frozen=True)
class Verb:
    """A verb: where its record and runner live, and which record fields its positional arguments fill."""

    name: str
    home: str  # the module holding both, e.g. "warpcheck._makespan"
    record: str
    runner: str  # runner(options, progress=None) -> a result with to_dict() and code
    positional: tuple[str, ...] = ()  # fields filled, in order, by the sweep file's `arguments`
    many: bool = False  # the one positional field takes a list (simulate's WORKLOAD ...)

    def options_type(self) -> type:
        """The verb's options record (a frozen dataclass)."""
        return getattr(importlib.import_module(self.home), self.record)  # type: ignore[no-any-return]

    def run(self, options: Any, progress: Callable[[str], None] | None = None) -> Any:
        """Run one record within its ``timeout`` and ``memory``; the result's ``to_dict()`` is the verb's ``--json``."""
        runner = getattr(importlib.import_module(self.home), self.runner)
        with bounded(getattr(options, "timeout", None), getattr(options, "memory", None)):
            return runner(options, progress=progress)


VERBS: dict[str, Verb] = {}


def verb(name: str) -> Verb:
    """The verb named ``name`` (two words for the verbs with actions: ``"reorder prove"``)."""
    if name not in VERBS:
        raise ConfigError(f"verb {name!r} is not one of {', '.join(VERBS)}")
    return VERBS[name]


def options_of(name: str, arguments: Sequence[str], params: Mapping[str, Any]) -> Any:
    """The record of verb ``name`` from positional ``arguments`` and named ``params`` (dashes as underscores)."""
    v = verb(name)
    given = {k.replace("-", "_"): value for k, value in params.items()}
    if v.many:
        given[v.positional[0]] = list(arguments)
    else:
        if len(arguments) > len(v.positional):
            raise ConfigError(f"{name}: {len(arguments)} positional argument(s) given, it takes "
                              f"{len(v.positional)} ({', '.join(v.positional) or 'none'})")
        given.update(zip(v.positional, arguments))
    return build(v.options_type(), name, given)


def field_names(name: str) -> list[str]:
    """The option names verb ``name`` takes (its record's fields)."""
    return [f.name for f in fields(verb(name).options_type())]
