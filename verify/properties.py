"""Named properties of the front end: equivalence of the issue choice with a reference scheduler."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend import FrontEnd
from warpcheck.models.oracles import REFERENCE
from warpcheck.models.ts import State


@dataclass(frozen=True)
class Property:
    """A property: a reference choice that the issued warp must equal in every reachable state."""

    name: str
    summary: str
    reference: Callable[[FrontEnd, Any, State], Any]

    def predicate(self, fe: FrontEnd) -> Callable[[Any, State], Any]:
        """The state predicate 'issued warp == reference warp' for this front end."""
        return lambda A, s: A.eq(fe.issue_choice(A, s), self.reference(fe, A, s))


PROPERTIES: dict[str, Property] = {p.name: p for p in [
    Property("oracle", "every cycle the issued warp equals osched2's choice (no scheduling error)",
             REFERENCE["oracle"]),
    Property("ideal", "every cycle the issued warp equals the idealised machine's (instructions always there)",
             REFERENCE["ideal"]),
]}


def get_property(name: str) -> Property:
    """The property called ``name``, or a ConfigError listing the known ones."""
    if name not in PROPERTIES:
        raise ConfigError(f"unknown property {name!r}; choose one of: {', '.join(PROPERTIES)}")
    return PROPERTIES[name]
