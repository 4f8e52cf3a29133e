"""What a makespan question answers: the typed result, its ``--json`` object, its text report, its exit code."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpcheck._makespan.interval import LONG_PHASES
from warpcheck._makespan.methods import Outcome
from warpcheck._makespan.options import ESTIMATES
from warpcheck.models.makespan.schedule import Schedule, render

APPROX_SHARE = 0.2  # of the budget that the approximation's enumerations may take (search.py)


@dataclass
class MakespanResult:
    """The worst-case makespan found: ``makespan`` (cycles), ``exact`` (proved the worst), the bounds and the run.

    ``upper`` is the least upper bound proved (the makespan itself when exact; ``upper_by`` the method that
    proved it); ``schedule`` a work-conserving run that reaches ``makespan`` (replayed by an independent
    checker before it is returned, ``replay``); ``certificate`` the certificate of the answer, checked by the
    independent checker whenever the method gives a proof (written to ``certificate_file`` when a file was
    asked for); ``pessimistic`` and ``approximation`` the paper's estimates (Eq. 5-7, Eq. 42-43); ``code`` the
    command line's exit code (0 exact or an estimate asked for, 4 not proved exact in time).
    """

    kernel: str
    transformed: str
    warps: int
    sigma: dict[str, str]
    method: str
    pessimistic: int
    ptx: Any = field(repr=False, default=None)  # the PtxKernel the kernel was built from, with --ptx
    approximation: dict[str, int] | None = None
    makespan: int | None = None
    exact: bool = False
    seconds: float = 0.0
    note: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    upper: int | None = None
    upper_by: str | None = None
    closed_form: dict[str, Any] | None = None
    tried: list[dict[str, Any]] | None = None
    schedule: Schedule | None = field(repr=False, default=None)
    replay: dict[str, Any] | None = None
    certificate: dict[str, Any] | None = field(repr=False, default=None)
    certificate_file: str | None = None
    certificate_asked: bool = False
    unchecked: str | None = None  # why the proof was not checked (the budget ran out while it was)

    def take(self, out: Outcome) -> None:
        """Record a method's outcome."""
        self.makespan, self.exact, self.seconds, self.note = out.makespan, out.exact, out.seconds, out.note
        if out.exact and out.makespan is not None:
            self.upper, self.upper_by = out.makespan, "exact"
        elif out.upper is not None:
            self.upper, self.upper_by = out.upper
        self.closed_form, self.tried, self.schedule = out.closed_form, out.tried or None, out.schedule

    @property
    def code(self) -> int:
        """The exit code: 0 done (exact, or the estimate asked for), 4 not proved exact in time.

        An answer is exact only once the independent checker has checked its certificate: when the time ran out
        while it was built or checked, the answer is a lower bound (exit 4) and the report says why.
        """
        return 0 if self.exact or self.method in ESTIMATES else 4

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck makespan --json`` prints."""
        out: dict[str, Any] = {"kernel": self.kernel, "transformed": self.transformed, "warps": self.warps,
                               "sigma": dict(self.sigma), "method": self.method}
        if self.ptx is not None:
            out["ptx"] = self.ptx.to_json()
        out.update(pessimistic=self.pessimistic, approximation=self.approximation, makespan=self.makespan,
                   exact=self.exact, seconds=round(self.seconds, 3), note=self.note,
                   timings={k: round(v, 3) for k, v in self.timings.items()},
                   upper={"value": self.upper, "method": self.upper_by} if self.upper is not None else None,
                   closed_form=self.closed_form, tried=self.tried,
                   schedule=self.schedule.to_json() if self.schedule else None)
        if self.replay is not None:
            out["replay"] = self.replay
        if self.certificate_asked:
            out["certificate"] = self.certificate_file
            if self.unchecked:
                out["certificate_missing"] = self.unchecked
        return out

    def report(self) -> str:
        """The verb's text report."""
        lines = self._ptx_lines() + self._answer_lines() + self._estimate_lines()
        if self.certificate_asked:
            lines.append(f"certificate: {self._certificate_line()}")
        return "\n".join(lines + self._schedule_lines())

    def _certificate_line(self) -> str:
        if self.certificate_file:
            return self.certificate_file
        if self.certificate:
            return "built and checked, not written"
        return f"none written ({self.unchecked or 'no proof to write'})"

    def _ptx_lines(self) -> list[str]:
        if self.ptx is None:
            return []
        from warpcheck._makespan.ptx import mapping_lines

        return mapping_lines(self.ptx)

    def _answer_lines(self) -> list[str]:
        t = self.timings
        lines = [f"kernel {_short(self.kernel)} (transformed: {_short(self.transformed)}), W = {self.warps}, "
                 f"sigma {', '.join(f'{u}={v}' for u, v in self.sigma.items())}"]
        label = "exact worst-case makespan" if self.exact else "makespan (not proved exact)"
        lines.append(f"{label}: {self.makespan}   [{self.method}, {t[self.method]:.3f} s; {self.note}]")
        if not self.exact and self.upper is not None and not self.makespan:
            lines.append(f"the worst case is at most {self.upper}: the bound proved by {self.upper_by} (no run was "
                         "replayed in time: no lower bound but the trivial)")
        if not self.exact and self.upper is not None and self.makespan:
            below = "the run above" if self.schedule is not None else "the lower bound above"
            lines.append(f"the worst case lies in {self.makespan} .. {self.upper}: {below}, and the bound proved by "
                         f"{self.upper_by} ({100 * (self.upper - self.makespan) / self.makespan:.1f} % above)")
        cf = self.closed_form
        if cf:
            cycles = ", ".join(f"{a}..{b}" if a < b else f"{a}" for a, b in cf["repeated_cycles"])
            lines.append(f"for {cf['for']}: makespan = {cf['formula']} (the bound holds for every W; a run of "
                         f"{cf['base_warps']} warps, cycles {cycles} repeated per {cf['period']} more "
                         f"warp{'s' if cf['period'] > 1 else ''}, meets it)")
        return lines

    def _estimate_lines(self) -> list[str]:
        t = self.timings
        over = (self.makespan or 0) > self.pessimistic
        lines = [f"pessimistic bound (Eq. 5-7): {self.pessimistic}   [{t['pessimistic']:.3f} s]"
                 + ("  (below the run above: the paper's count is no bound with a unit of sigma 2 or more)"
                    if over else "")]
        a = self.approximation
        if a is None:
            lines.append(f"approximation T^(W,x) (Eq. 42-43): not computed (it enumerates up to x warps exactly: "
                         f"the kernel has more than {LONG_PHASES} phases, or that took more than "
                         f"{APPROX_SHARE:.0%} of the time)")
        else:
            lines.append(f"approximation T^(W,x={a['x']}) (Eq. 42-43): {a['value']} (y = {a['y']})   "
                         f"[{t['approx']:.3f} s]")
        return lines

    def _schedule_lines(self) -> list[str]:
        s = self.schedule
        if s is None or self.replay is None:
            return []
        lines = [f"schedule reaching it (replayed: work-conserving, makespan {self.replay['makespan']}):"]
        if s.warps <= 32 and s.makespan <= 300:
            lines.append(render(s))
        else:
            lines.append(f"  {s.makespan} cycles x {s.warps} warps: too large to print; use --json")
        return lines


def _short(text: str, room: int = 64) -> str:
    """A kernel string as printed: whole up to ``room`` characters, else its ends and its length."""
    return text if len(text) <= room else f"{text[:room // 2]}...{text[-8:]} ({len(text)} instructions)"
