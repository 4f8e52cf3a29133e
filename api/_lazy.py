"""Names a package re-exports from its workflow modules, imported on first use.

A verb's options record is checked before any work; the workflows (solvers,
graph libraries, schemas) load only when a run needs them, so that the command
line answers ``--help`` and refuses a bad option at once.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_names(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name of ``homes`` from its submodule, imported when first read."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{homes[name]}"), name)
        namespace[name] = value
        return value

    return __getattr__
