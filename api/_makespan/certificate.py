"""Write a makespan certificate from a search's proof, and check one with the independent checker."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from warpcheck._makespan.methods import Outcome
from warpcheck.models.errors import OptionError
from warpcheck.models.files import atomic_write_text
from warpcheck.models.makespan.schedule import Schedule, from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.spec.makespan.certificate_check import FORMAT, VERSION, CertificateRefused, check
from warpcheck.spec.makespan.interval_check import check_interval

CLOSED_FORMS = ("pessimistic", "alternation", "critical-warp", "pairs")  # the checker computes these bounds again


def _bound(kind: str, result: Any, warps: int) -> dict[str, Any]:
    if kind in CLOSED_FORMS:
        return {"method": kind}
    if kind == "backlog":  # the backlog LP's exact duals (verify/makespan/backlog.py)
        return result.certificate()
    if kind == "enumerate":  # every reached count state, uncapped (cap W + 1), with its worst case to go
        states = [list(k[:-1]) + [v] for k, v in result.value.items()]
        return {"method": "enumerate", "cap": warps + 1, "weight": "cycles", "unit": None, "states": states}
    if kind == "ranking":  # capped count states, rational potential, and the linear part
        states = [list(a) + [str(v)] for a, v in result.potential.items()]
        return _with_invariants({"method": "ranking", "cap": list(result.caps), "weight": "cycles", "unit": None,
                                 "linear": [str(v) for v in result.linear], "states": states}, result)
    if kind == "blocks":  # deficit over blocks of phases (verify/makespan/phases.py)
        from warpcheck.verify.makespan.phases import certificate_bound
        return certificate_bound(result)
    if kind == "block-ranking":  # a ranking function over blocks (verify/makespan/block_ranking.py)
        from warpcheck.verify.makespan import block_ranking
        return block_ranking.certificate_bound(result)
    states = [list(a) + [v] for a, v in result.potential.items()]
    return _with_invariants({"method": "deficit", "cap": list(result.caps), "weight": "deficit", "unit": result.unit,
                             "states": states}, result)


def _with_invariants(bound: dict[str, Any], result: Any) -> dict[str, Any]:
    """Add the search's linear invariants (verify/makespan/cegar.py): the table leaves out the entries they exclude."""
    invariants = getattr(result, "invariants", None)
    if invariants:
        bound["invariants"] = [{"coef": list(coef), "bound": b} for coef, b in invariants]
    return bound


def certificate(kernel: str, sigma: dict[str, str], warps: int, schedule: Schedule,
                proof: tuple[str, Any]) -> dict[str, Any]:
    """The certificate of an exact answer: the instance, the schedule reaching it, the potential bounding it.

    With a pump (the run was pumped from a smaller W0), also the W0 run and
    its repeated cycles: the checker then proves the worst case for every
    W0 + m d.
    """
    cert = {"certificate": FORMAT, "version": VERSION, "kernel": kernel, "sigma": sigma, "warps": warps,
            "makespan": schedule.makespan, "schedule": [list(r) for r in schedule.issue],
            "bound": _bound(proof[0], proof[1], warps)}
    pump = getattr(proof[1], "pump", None)
    if pump is not None:
        base = from_counts(CountSM(schedule.kernel, pump.warps), list(pump.run))
        cert["pump"] = {"warps": pump.warps, "schedule": [list(r) for r in base.issue],
                        "repeat": [[i + 1, j] for i, j in pump.stretches], "period": pump.period}
    return cert


def interval_certificate(kernel: str, sigma: dict[str, str], warps: int, schedule: Schedule, upper: int,
                         proof: tuple[str, Any]) -> dict[str, Any]:
    """The certificate of an interval: the run reaching the lower bound, and the proof of the upper bound."""
    return {"certificate": FORMAT, "version": VERSION, "interval": True, "kernel": kernel, "sigma": sigma,
            "warps": warps, "makespan": schedule.makespan, "upper": upper,
            "schedule": [list(r) for r in schedule.issue], "bound": _bound(proof[0], proof[1], warps)}


def answer_certificate(kernel: str, sigma: dict[str, str], warps: int, out: Outcome) -> dict[str, Any]:
    """The certificate of an answer that has a proof: exact (a table the run meets), else an interval (a closed
    form met by the run is an interval of one)."""
    assert out.proof is not None and out.schedule is not None
    if out.exact and out.proof[0] not in CLOSED_FORMS:
        return certificate(kernel, sigma, warps, out.schedule, out.proof)
    assert out.upper is not None
    return interval_certificate(kernel, sigma, warps, out.schedule, out.upper[0], out.proof)


def write(path: str, cert: dict[str, Any]) -> None:
    """Write the certificate whole or not at all."""
    atomic_write_text(path, json.dumps(cert, separators=(",", ":")), "certificate")


def load(path: str) -> Any:
    """Read a certificate file; a missing or non-JSON file is bad input."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise OptionError("check", path, f"cannot read it ({e.strerror})") from None
    except ValueError as e:
        raise OptionError("check", path, f"not JSON ({e})") from None
    except RecursionError:
        raise OptionError("check", path, "nested too deeply to be a certificate") from None


@dataclass
class CertificateCheck:
    """A certificate checked by the independent checker: ``valid``, or the ``problem`` that refused it.

    ``verdict`` is the checker's own result (``spec/makespan/certificate_check.py`` for an exact answer,
    ``interval_check.py`` for an interval): the makespan or the interval it proves, and how.  ``code`` is the
    command line's exit code (0 holds, 1 refused).
    """

    file: str | None
    valid: bool
    problem: str | None = None
    interval: bool = False
    verdict: Any = field(repr=False, default=None)
    bound: Any = field(repr=False, default=None)  # the certificate's "bound" object, for the report's wording

    @property
    def code(self) -> int:
        """0 when the certificate holds, 1 when it is refused."""
        return 0 if self.valid else 1

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck makespan --check FILE --json`` prints."""
        if not self.valid:
            return {"file": self.file, "valid": False, "problem": self.problem}
        return {"file": self.file, "valid": True, **({"interval": True} if self.interval else {}),
                **self.verdict.__dict__}

    def report(self) -> str:
        """The verb's text: the refusal, or what the certificate proves."""
        if not self.valid:
            return str(self.problem)
        return _interval_report(self.verdict) if self.interval else _exact_report(self.verdict, self.bound)


def check_certificate(cert: Any, file: str | None = None) -> CertificateCheck:
    """Check a certificate (its JSON object, or a path to read it from) with the independent checker."""
    if isinstance(cert, str):
        file, cert = cert, load(cert)
    interval = isinstance(cert, dict) and cert.get("interval") is True
    try:
        verdict = check_interval(cert) if interval else check(cert)
    except CertificateRefused as e:
        return CertificateCheck(file, False, str(e))
    bound = cert.get("bound") if isinstance(cert, dict) else None
    return CertificateCheck(file, True, None, interval, verdict, bound)


def _exact_report(r: Any, bound: Any) -> str:
    what = "block states" if isinstance(bound, dict) and "blocks" in bound else \
        "abstract states" if r.unit else "count states"
    how = f"{what}, deficit of unit {r.unit}" if r.unit else f"{what}, cycles"
    lines = [f"certificate holds: the worst-case makespan of {r.kernel}, W = {r.warps}, is exactly {r.makespan} "
             f"(schedule replayed; upper bound {r.upper} checked over {r.states} {how})"]
    if r.every_w_from is not None:
        lines.append(f"the same table bounds every W >= {r.every_w_from}: {r.formula}")
    if r.exact_from is not None:
        which = "every W" if r.period == 1 else f"every W = {r.exact_from} + {r.period} m"
        lines.append(f"and the pumped run of {r.exact_from} warps meets it for {which} >= {r.exact_from}: "
                     f"{r.exact_formula} (exact for every such W)")
    elif r.every_w_from is not None:
        lines.append("(upper bound only for other W: each W's lower bound is its own run)")
    return "\n".join(lines)


def _interval_report(r: Any) -> str:
    name = r.kernel if len(r.kernel) <= 64 else f"{r.kernel[:32]}...{r.kernel[-8:]} ({len(r.kernel)} instructions)"
    how = "computed again by the checker" if r.method in CLOSED_FORMS else \
        "its duals checked column by column, exactly" if r.method == "backlog" else "its table checked move by move"
    return (f"certificate holds: the worst-case makespan of {name}, W = {r.warps}, lies in {r.lower} .. {r.upper} "
            f"(schedule replayed to {r.lower}; upper bound by {r.method}, {how})")
