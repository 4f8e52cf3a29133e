"""The mutation harness shared by every domain: what a kill is, and the kill table.

A mutant is one single-point bug in a design (a model, a transform, a parser).
A domain's checks kill it when they end FAIL with evidence that reproduces
(a witness the simulator replays, a refused certificate, a concrete input whose
answer differs); a mutant that changes nothing observable must instead be
proved equivalent (its check PASSes unbounded).  Anything else survived, and a
survivor means the domain's checks cannot see that point of the design.

Each domain ``D`` provides ``warpcheck._D.mutation`` with ``MUTANTS`` (name ->
an object with ``name``, ``breaks`` and ``equivalent``) and
``kill(name, out) -> Kill``; ``benchmarks/mutants.py --domain D`` prints the table.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from warpcheck.models.errors import ConfigError

DOMAINS = ("frontend", "reorder", "qaws", "makespan", "kernels")


def checkout(suite: str) -> Path:
    """The warpcheck checkout whose ``examples/`` hold a suite's kernels (an installed kit has none)."""
    for root in (Path(__file__).resolve().parents[1], Path.cwd(), *Path.cwd().parents):
        if (root / "examples" / "kernels").is_dir():
            return root
    raise ConfigError(f"the {suite} reads the kernels of examples/ in a warpcheck checkout; "
                      "run it from the repository's folder")


@dataclass(frozen=True)
class Kill:
    """What one domain check made of one mutant."""

    mutant: str
    breaks: str  # the single point it breaks, in the paper's words
    check: str  # the check that was run (property, command), as a user would rerun it
    status: str  # the check's status: PASS, FAIL, TIMEOUT, UNKNOWN, ERROR
    equivalent: bool  # the mutant is declared equivalent: it must PASS
    evidence: str = ""  # witness path and cycle, or the statement that failed
    replayed: bool = False  # the evidence was reproduced independently of the solver
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        """killed, equivalent, or SURVIVED (a FAIL without reproduced evidence is not a kill)."""
        if self.equivalent:
            return "equivalent" if self.status == "PASS" else "SURVIVED"
        return "killed" if self.status == "FAIL" and self.replayed else "SURVIVED"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "verdict": self.verdict}


def table_rows(kills: Iterable[Kill]) -> list[list[Any]]:
    """One row per mutant, as the kill table prints it."""
    return [[k.mutant, k.breaks, k.status, k.evidence, round(k.seconds, 2), k.verdict] for k in kills]


TABLE_HEADERS = ["mutant", "breaks", "status", "evidence", "s", "verdict"]


def summary(domain: str, kills: list[Kill]) -> str:
    """The table's last line: how many were killed, proved equivalent, survived."""
    n = {v: sum(k.verdict == v for k in kills) for v in ("killed", "equivalent", "SURVIVED")}
    return (f"{domain}: {n['killed']} of {len(kills) - sum(k.equivalent for k in kills)} non-equivalent "
            f"mutants killed; {n['equivalent']} proved equivalent; {n['SURVIVED']} survived")
