"""Statuses and results: plain data, no solver objects, so they cross process boundaries."""
from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a result names traces; reading one loads no solver
    from warpcheck.encodings.unroll import Trace


class Status(str, enum.Enum):
    """How a proof run ended.  A TIMEOUT or UNKNOWN is never a PASS."""

    PASS = "PASS"
    FAIL = "FAIL"
    UNKNOWN = "UNKNOWN"
    TIMEOUT = "TIMEOUT"
    ERROR = "ERROR"


# Exit codes of every command that ends in a status (2 is kept for bad input).
EXIT_CODES = {Status.PASS: 0, Status.FAIL: 1, Status.UNKNOWN: 3, Status.TIMEOUT: 4, Status.ERROR: 5}


@dataclass
class Result:
    """The outcome of one engine on one property."""

    status: Status
    engine: str
    depth: int
    bounded: bool = False
    seconds: float = 0.0
    trace: Trace | None = None
    message: str = ""
    lemmas: list[str] = field(default_factory=list)
    rejected_lemmas: list[str] = field(default_factory=list)
    warps: tuple[int, int | None] | None = None  # a PASS that covers only these numbers of warps (None: no upper end)

    @property
    def label(self) -> str:
        """The status as a user reads it, e.g. 'PASS (unbounded)'."""
        if self.status is Status.PASS:
            if self.bounded:
                return f"PASS (up to depth {self.depth})"
            if self.warps is not None and self.warps[1] is None:
                return f"PASS (unbounded, every W >= {self.warps[0]})"
            if self.warps is not None:
                return f"PASS (unbounded, W = {self.warps[0]}..{self.warps[1]} only)"
            return "PASS (unbounded)"
        return self.status.value

    def to_json(self) -> dict[str, Any]:
        out = {"status": self.status.value, "engine": self.engine, "depth": self.depth,
               "bounded": self.bounded, "seconds": round(self.seconds, 3), "message": self.message,
               "lemmas": self.lemmas, "rejected_lemmas": self.rejected_lemmas,
               "warps_covered": list(self.warps) if self.warps else None}
        return out


def trace_to_json(trace: Trace) -> dict[str, Any]:
    return asdict(trace)
