"""Program-level instruction streams: what each fetched instruction of a warp is.

A witness or a workload is expressed per warp, independent of the design:
the warp's initial ibuffer contents and the stream of its correct-path
instructions in fetch order, each with its class, whether it depends on an
in-flight result, whether it is a taken branch, and whether its first fetch
misses in the I-cache.  :class:`StreamBook` is the bookkeeping shared by the
simulator (which feeds streams into the step function) and the witness
extraction (which reads them back off a solver trace).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from warpcheck.models.errors import InputFileError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES


@dataclass(frozen=True)
class Instr:
    """One instruction as the front end sees it."""

    cls: str = "int"
    dep: bool = False
    taken: bool = False
    miss: bool = False
    refetch_misses: int = 0  # misses of its refetches too (only a broken design lets a refetch miss)

    @property
    def misses(self) -> int:
        """How many fetches of this instruction miss before one hits."""
        return int(self.miss) + self.refetch_misses

    def to_json(self) -> dict[str, Any]:
        out = {"cls": self.cls, "dep": self.dep, "taken": self.taken, "miss": self.miss}
        return {**out, "refetch_misses": self.refetch_misses} if self.refetch_misses else out

    @staticmethod
    def from_json(d: Mapping[str, Any], where: str) -> "Instr":
        if not isinstance(d, Mapping) or d.get("cls") not in CLASS_INDEX:
            raise InputFileError(f"{where}: instruction {d!r} needs a 'cls' among {', '.join(CLASSES)}")
        again = d.get("refetch_misses", 0)
        if not isinstance(again, int) or isinstance(again, bool) or again < 0:
            raise InputFileError(f"{where}: refetch_misses = {again!r}; it must be an integer >= 0")
        return Instr(d["cls"], bool(d.get("dep", False)), bool(d.get("taken", False)), bool(d.get("miss", False)),
                     again)

    def short(self) -> str:
        """Compact text, e.g. 'fadd^' (dependent), 'branch>' (taken), 'mem!' (missed)."""
        return self.cls + ("^" if self.dep else "") + (">" if self.taken else "") + ("!" if self.miss else "")

    def fields(self) -> dict[str, Any]:
        """The values of the model's instruction record."""
        return {"cls": CLASS_INDEX[self.cls], "dep": self.dep, "tk": self.taken}


FILLER = Instr("int")  # what a warp fetches once its stream is exhausted


def instr_of(values: Mapping[str, Any], prefix: str, miss: bool = False) -> Instr:
    """An Instr from a concrete record ``prefix.cls/dep/tk``."""
    return Instr(CLASSES[values[f"{prefix}.cls"]], values[f"{prefix}.dep"], values[f"{prefix}.tk"], miss)


class StreamBook:
    """Which stream element each fetch request of a warp stands for."""

    def __init__(self, fe: FrontEnd, fetch_choice: Callable[[Mapping[str, Any]], int] | None = None,
                 hits: Callable[[Mapping[str, Any], int, bool], bool] | None = None) -> None:
        self.fe = fe
        self.missed = [0] * fe.W  # how many fetches of the pending element have missed
        self._choice = fetch_choice  # another interpretation of fe.fetch_choice (e.g. compiled)
        self._hits = hits  # another interpretation of fe.hits for a concrete warp: (state, warp, asked)

    def fetcher(self, s: Mapping[str, Any], A: Any) -> int | None:
        """The warp fetching on the correct path in concrete state ``s`` (None: no such fetch)."""
        fw = self._choice(s) if self._choice else self.fe.fetch_choice(A, dict(s))
        if fw < 0 or s[f"w{fw}.pend"]:
            return None
        return fw

    def hits(self, s: Mapping[str, Any], fw: int, asked: bool, A: Any) -> bool:
        """Whether the design's fetch hits when the I-cache answers ``asked`` (a refetch may be forced to hit)."""
        if self._hits is not None:
            return bool(self._hits(s, fw, asked))
        return bool(self.fe.hits(A, dict(s), {"f.hit": asked}, fw))
