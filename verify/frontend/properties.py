"""Named properties of the front end: the design's issue record equals an independent reference's.

Each property pairs the design with a reference written apart from it
(``spec/frontend/issue_reference.py``) and states, in every cycle, that the
issue records agree.  The reference never calls the design's functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from warpcheck.models.frontend.checked import Checked, Reference
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.spec.frontend.issue_reference import REFERENCES


@dataclass(frozen=True)
class Property:
    """A property: the reference to run beside the design, and which designs it is defined for."""

    name: str
    summary: str
    reference: Callable[[SMConfig], Reference]
    designs: tuple[str, ...] = ("baseline", "swas")

    def checked(self, fe: FrontEnd) -> Checked:
        """The design and this property's reference in lockstep; its ``agree`` is the property."""
        if fe.c.design not in self.designs:
            others = [p for p, prop in PROPERTIES.items() if fe.c.design in prop.designs]
            raise OptionError("property", self.name, f"defined for design {' or '.join(self.designs)}, not "
                                                     f"{fe.c.design!r}; use {' or '.join(others)}")
        return Checked(fe, self.reference(fe.c))


PROPERTIES: dict[str, Property] = {p.name: p for p in [
    Property("exact", "every cycle the design issues the same warp and the same instruction (or NOP) as the "
             "static analysis machine: the schedule is predicted exactly",
             REFERENCES["exact"], ("swas",)),
    Property("oracle", "every cycle the issued warp equals the oracle scheduler osched2's (no scheduling error)",
             REFERENCES["oracle"]),
    Property("ideal", "every cycle the issued warp equals the idealised machine's (instructions always there)",
             REFERENCES["ideal"]),
]}


def default_property(design: str) -> str:
    """``exact`` for SWaS (the paper's theorem), ``oracle`` for the baseline."""
    return "exact" if design == "swas" else "oracle"


def get_property(name: str) -> Property:
    """The property called ``name``, or a ConfigError listing the known ones."""
    if name not in PROPERTIES:
        raise ConfigError(f"unknown property {name!r}; choose one of: {', '.join(PROPERTIES)}")
    return PROPERTIES[name]
