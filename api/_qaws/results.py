"""The QAWS verbs' answers as typed results: ``to_dict()`` is the verb's ``--json``, ``report()`` its text, ``code`` its exit code."""
from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["QawsResult", "QawsRun", "WcrtRow", "InversionRow", "QawsWcrtResult", "QawsInversionResult",
           "QawsSwitchesResult"]


class _Row:
    """A row read as the dict it was (``row["response"]``), for scripts written before the rows were typed."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


@dataclass(frozen=True)
class QawsRun(_Row):
    """One concrete run of the two kernels, replayed on the simulator: per kernel finish and response, the schedule."""

    finish: tuple[int, ...]  # per kernel: the cycle after its last warp's exit, from cycle 0
    response: tuple[int, ...]  # per kernel: finish - launch
    order: tuple[int, ...]  # the warp issued at each cycle (-1: none)
    params: Mapping[str, Any]  # the free bits of the warm ibuffers (dependences, taken branches)
    stalls: tuple[str, ...]  # the stall events of the run, in words

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> "QawsRun":
        """From the simulator's run as plain data."""
        return cls(tuple(data["finish"]), tuple(data["response"]), tuple(data["order"]), dict(data["params"]),
                   tuple(data["stalls"]))

    def to_dict(self) -> dict[str, Any]:
        return {"finish": list(self.finish), "response": list(self.response), "order": list(self.order),
                "params": dict(self.params), "stalls": list(self.stalls)}


@dataclass(frozen=True)
class ExhaustiveCheck(_Row):
    """K2's worst case by enumerating every stall pattern, and whether it is the search's."""

    finish: int
    response: int
    agrees: bool

    def to_dict(self) -> dict[str, Any]:
        return {"finish": self.finish, "response": self.response, "agrees": self.agrees}


@dataclass(frozen=True)
class WcrtRow(_Row):
    """One policy's worst case of K2: ``response`` (launch to finish) and ``finish``, proved maximal when ``exact``.

    ``status``: PASS (proved maximal), UNKNOWN (the horizon: a lower bound),
    TIMEOUT; ``run`` reaches the worst case and ``replayed`` says the
    simulator finishes K2 at the same cycle; ``queries`` are the bound
    search's questions (finish after cycle N? sat/unsat).
    """

    policy: str
    status: str
    finish: int
    response: int
    exact: bool
    seconds: float
    message: str
    queries: tuple[Mapping[str, Any], ...]
    replayed: bool
    run: QawsRun
    exhaustive: ExhaustiveCheck | None = None
    kernel: int = 1  # the kernel searched (0-based: K2)

    def to_dict(self) -> dict[str, Any]:
        out = {"policy": self.policy, "status": self.status, "kernel": self.kernel, "finish": self.finish,
               "response": self.response, "exact": self.exact, "seconds": self.seconds, "message": self.message,
               "queries": [dict(q) for q in self.queries], "replayed": self.replayed, "run": self.run.to_dict()}
        if self.exhaustive is not None:
            out["exhaustive"] = self.exhaustive.to_dict()
        return out


@dataclass(frozen=True)
class InversionRow(_Row):
    """One policy's priority-inversion search: ``found`` (FAIL, with the ``run``, ``replayed``) or none to ``depth``."""

    policy: str
    status: str
    label: str
    depth: int
    seconds: float
    found: bool
    run: QawsRun | None = None
    replayed: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"policy": self.policy, "status": self.status, "label": self.label, "depth": self.depth,
               "seconds": self.seconds, "found": self.found}
        if self.run is not None:
            out.update(run=self.run.to_dict(), replayed=self.replayed)
        return out


@dataclass(frozen=True)
class QawsResult:
    """A QAWS search's answer: ``status`` the worst over the policies, ``code`` the verb's exit code.

    ``problem`` says why an ERROR is one (the search and the simulator
    disagree: a bug of the kit).  ``policies`` maps each policy to its row.
    """

    status: str
    code: int
    problem: str | None

    @property
    def search(self) -> str:
        """Which search: wcrt, inversion or switches."""
        raise NotImplementedError

    @property
    def policies(self) -> dict[str, Any]:
        """Each policy's row."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck qaws SEARCH --json`` prints)."""
        raise NotImplementedError

    def report(self) -> str:
        """The text report the verb prints."""
        raise NotImplementedError


@dataclass(frozen=True)
class QawsWcrtResult(QawsResult):
    """``qaws_wcrt``: one :class:`WcrtRow` per policy; ``response`` maps each policy to K2's worst response time."""

    rows: tuple[WcrtRow, ...] = ()

    search = "wcrt"  # type: ignore[assignment]

    @property
    def policies(self) -> dict[str, WcrtRow]:
        return {r.policy: r for r in self.rows}

    @property
    def response(self) -> dict[str, int]:
        """K2's worst-case response time per policy."""
        return {r.policy: r.response for r in self.rows}

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": "K2", "policies": [r.to_dict() for r in self.rows]}

    def report(self) -> str:
        from tabulate import tabulate
        table = [[r.policy, r.response, r.finish, "proved" if r.status == "PASS" else r.status, r.run.finish[0],
                  r.exhaustive.response if r.exhaustive else "-", f"{r.seconds:.1f}"] for r in self.rows]
        lines = [tabulate(table, headers=["policy", "K2 worst response", "K2 finish", "maximal?", "K1 finish (same run)",
                                          "exhaustive", "seconds"], tablefmt="github")]
        for r in self.rows:
            lines.append(f"\n{r.policy}: {r.message}\n  schedule (warp issued per cycle, . = none): "
                         f"{schedule_text(r.run.order)}")
            lines.append("  stalls: " + ("; ".join(r.run.stalls) or "none"))
        return "\n".join(lines)


@dataclass(frozen=True)
class QawsInversionResult(QawsResult):
    """``qaws_inversion``: one :class:`InversionRow` per policy; ``code`` 1 when an inversion is found."""

    property: str = ""
    rows: tuple[InversionRow, ...] = ()

    search = "inversion"  # type: ignore[assignment]

    @builtins.property  # the field 'property' shadows the builtin here
    def policies(self) -> dict[str, InversionRow]:
        return {r.policy: r for r in self.rows}

    @builtins.property  # the field 'property' shadows the builtin here
    def found(self) -> dict[str, bool]:
        """Per policy: an inversion found."""
        return {r.policy: r.found for r in self.rows}

    def to_dict(self) -> dict[str, Any]:
        return {"property": self.property, "policies": [r.to_dict() for r in self.rows]}

    def report(self) -> str:
        lines = []
        for r in self.rows:
            if r.found and r.run is not None:
                lines.append(f"{r.policy}: priority inversion found (FAIL of 'K2 never finishes after K1'): K1 "
                             f"finishes at cycle {r.run.finish[0]}, K2 at {r.run.finish[1]}; replayed on the simulator: "
                             f"{r.replayed}")
                lines.append(f"  schedule: {schedule_text(r.run.order)}\n  stalls: " + ("; ".join(r.run.stalls) or "none"))
            else:
                lines.append(f"{r.policy}: no priority inversion found: {r.label}")
        return "\n".join(lines)


@dataclass(frozen=True)
class QawsSwitchesResult(QawsResult, _Row):
    """``qaws_switches``: the switch bound proved (PASS, ``bounded`` if only to ``depth``) or refuted (``schedule``)."""

    property: str = ""
    policy: str = ""
    engine: str = ""
    depth: int = 0
    bounded: bool = False
    seconds: float = 0.0
    message: str = ""
    lemmas: tuple[str, ...] = ()
    rejected_lemmas: tuple[str, ...] = ()
    warps_covered: tuple[int, int] | None = None
    label: str = ""
    schedule: tuple[int, ...] | None = None  # a FAIL's run: the warp issued per cycle (-1: none)
    certificate: str | None = None  # the certificate file written (``certificate=``)

    search = "switches"  # type: ignore[assignment]

    @builtins.property  # the field 'property' shadows the builtin here
    def policies(self) -> dict[str, "QawsSwitchesResult"]:
        return {self.policy: self}

    def to_dict(self) -> dict[str, Any]:
        return {"property": self.property, "policy": self.policy, "status": self.status, "engine": self.engine,
                "depth": self.depth, "bounded": self.bounded, "seconds": self.seconds, "message": self.message,
                "lemmas": list(self.lemmas), "rejected_lemmas": list(self.rejected_lemmas),
                "warps_covered": None if self.warps_covered is None else list(self.warps_covered),
                "label": self.label, "schedule": None if self.schedule is None else list(self.schedule),
                **({"certificate": self.certificate} if self.certificate else {})}

    def report(self) -> str:
        lines = [f"{self.policy}: {self.property}: {self.label} ({self.message})"]
        if self.certificate:
            lines.append(f"  certificate: {self.certificate} (check it with: warpcheck check {self.certificate})")
        if self.schedule is not None:
            lines.append(f"  schedule (warp issued per cycle, . = none): {schedule_text(self.schedule)}")
        return "\n".join(lines)


def schedule_text(order: Sequence[int]) -> str:
    """A schedule, one character per cycle: the warp issued, ``.`` for none."""
    return "".join("." if w < 0 else str(w) if w < 10 else f"({w})" for w in order)
