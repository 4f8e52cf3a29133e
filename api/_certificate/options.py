"""The options record of ``warpcheck check``: a certificate file and the solver that checks it."""
from __future__ import annotations

from dataclasses import dataclass

from warpcheck._values import DEFAULT_MEMORY_GIB, gib, one_of, path, seconds, settle
from warpcheck.verify.smt2_run import SOLVERS

__all__ = ["CheckOptions"]


@dataclass(frozen=True)
class CheckOptions:
    """``warpcheck check CERT``: a proof's certificate checked by a solver other than the one that proved it.

    ``solver`` is ``bitwuzla`` or ``cvc5`` (the kit proves with Z3); None (the
    default) picks bitwuzla for a QF_BV certificate and cvc5 for a quantified
    one (the proof for every W), which bitwuzla does not read;
    ``timeout`` bounds the whole check, ``memory`` its memory (GiB).
    """

    certificate: str = ""
    solver: str | None = None
    timeout: float | None = 600.0
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        settle(self, certificate=path("certificate", self.certificate, optional=False),
               timeout=seconds("timeout", self.timeout), memory=gib("memory", self.memory))
        one_of("solver", self.solver, SOLVERS, optional=True)
