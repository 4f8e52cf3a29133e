"""``warpcheck check CERT``: a proof's certificate checked by a solver other than the one that proved it.

A certificate (``prove --certificate FILE``, :mod:`warpcheck.encodings.certificate`)
holds four parts: a header naming what it covers, the system (``init``,
``trans``, ``prop``), the invariant ``inv`` and the obligations.  The check

1. rebuilds the system the header names and the obligations, and refuses a
   file whose system or obligations differ from them (a changed transition,
   a dropped obligation), or whose invariant part is more than one
   ``(define-fun inv ...)`` of the state; a k-inductive certificate (its
   header line ``; induction: k = K``) is compared with the kit's k-step
   obligations;
2. runs the whole file through bitwuzla (or cvc5) and refuses it unless every
   obligation answers as it must (unsat for initiation or base, consecution
   or step, and safety; sat for the existence of an initial state and for non-vacuity).

Statuses: PASS (the certificate holds), FAIL (refused, with the reason),
UNKNOWN (the solver gave up), TIMEOUT; a file that is no certificate is bad input.
"""
from __future__ import annotations

import importlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from warpcheck._certificate.options import CheckOptions
from warpcheck._guard import bounded
from warpcheck._values import build
from warpcheck.encodings import certificate as cert
from warpcheck.models.errors import ConfigError, InputFileError, OptionError
from warpcheck.models.files import read_text
from warpcheck.verify.result import EXIT_CODES, Status
from warpcheck.verify.smt2_run import answers, commands, version

__all__ = ["CheckOptions", "CheckResult", "check", "check_options"]

# the verbs that write certificates -> the module whose system_of(covers, where) rebuilds their system
SYSTEMS = {"prove": "warpcheck._frontend.certificate", "qaws switches": "warpcheck._qaws.certificate",
           "reorder prove": "warpcheck._reorder.certificate"}


@dataclass
class CheckResult:
    """A certificate checked: ``status`` PASS (it holds), FAIL (refused), UNKNOWN or TIMEOUT, and why."""

    status: str
    certificate: str
    solver: str
    covers: dict[str, Any]
    message: str
    k: int = 1  # the induction depth the certificate states
    answers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def code(self) -> int:
        """The exit code of ``warpcheck check``: 0 holds, 1 refused, 3 unknown, 4 timeout."""
        return EXIT_CODES[Status(self.status)]

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck check --json`` prints."""
        return {"status": self.status, "certificate": self.certificate, "solver": self.solver,
                "covers": self.covers, "k": self.k, "message": self.message, "answers": self.answers,
                "seconds": round(self.seconds, 3)}

    def report(self) -> str:
        """What ``warpcheck check`` prints."""
        word = {"PASS": "holds", "FAIL": "REFUSED"}.get(self.status, self.status)
        lines = [f"{self.status}  certificate {self.certificate} {word}: {self.message}",
                 f"  checked by {self.solver} ({self.seconds:.2f} s); the proof was found by z3"
                 + (f" ({self.k}-inductive)" if self.k > 1 else "") if self.answers else
                 f"  refused before {self.solver} ran: the file is not the certificate of the system it names "
                 f"({self.seconds:.2f} s)"]
        lines += [f"  {name}: {said}" for name, said in self.answers.items()]
        return "\n".join(lines)


def check(certificate: str, solver: str | None = None, **options: Any) -> CheckResult:
    """Check a certificate file (``prove``, ``qaws switches``, ``reorder prove --certificate``); keywords are
    :class:`CheckOptions`'s."""
    return check_options(build(CheckOptions, "check", {"certificate": certificate, "solver": solver, **options}))


def check_options(o: CheckOptions, progress: Callable[[str], None] | None = None) -> CheckResult:
    """:func:`check` on a record already built (the verb's path)."""
    with bounded(o.timeout, o.memory):
        return _check(o, progress)


def _check(o: CheckOptions, progress: Callable[[str], None] | None) -> CheckResult:
    t0 = time.monotonic()
    text = read_text(o.certificate, "certificate")
    covered, k = _covers(text, o.certificate), _induction(text, o.certificate)
    want = _expected(covered, k, o.certificate)
    solver = o.solver or ("bitwuzla" if want.logic == "QF_BV" else "cvc5")
    if solver == "bitwuzla" and want.logic != "QF_BV":
        raise OptionError("solver", solver, f"does not read this certificate's logic ({want.logic}: quantifiers over "
                                            "a sort of warps); choose cvc5")
    refusal = _refusal(text, want)
    done = CheckResult("FAIL", o.certificate, version(solver), covered, refusal or "", k)
    if refusal is None:
        if progress:
            progress(f"check: running the obligations through {done.solver}")
        _solve(done, text, o.timeout, want)
    done.seconds = time.monotonic() - t0
    return done


def _covers(text: str, where: str) -> dict[str, Any]:
    """The header's ``covers`` (bad input when the file is no certificate)."""
    lines = text.splitlines()
    if not lines or lines[0] != f"; {cert.FORMAT}":
        raise InputFileError(f"{where}: not a warpcheck certificate (its first line is not '; {cert.FORMAT}'); "
                             "give a file written by prove, qaws switches or reorder prove --certificate")
    got = next((ln[len("; covers: "):] for ln in lines if ln.startswith("; covers: ")), None)
    try:
        covered = json.loads(got) if got is not None else None
    except json.JSONDecodeError as e:
        raise InputFileError(f"{where}: its covers line is not JSON ({e.msg})") from None
    if not isinstance(covered, dict):
        raise InputFileError(f"{where}: has no covers line naming the system it covers")
    return covered


def _induction(text: str, where: str) -> int:
    """The induction depth k the header states (1 without a ``; induction: k = K`` line)."""
    said = [ln[len(cert.K_LINE):].split(" ", 1)[0] for ln in text.splitlines() if ln.startswith(cert.K_LINE)]
    if not said:
        return 1
    if len(said) > 1 or not said[0].isdigit() or not 2 <= int(said[0]) <= cert.MAX_K:
        raise InputFileError(f"{where}: its induction line is not one '{cert.K_LINE}K' with K in 2..{cert.MAX_K}")
    return int(said[0])


def _expected(covered: dict[str, Any], k: int, where: str) -> cert.Sections:
    """What the kit builds for the system the header names (bad input when it names none)."""
    home = SYSTEMS.get(str(covered.get("verb")))
    if home is None:
        raise InputFileError(f"{where}: covers the verb {covered.get('verb')!r}; certificates come from "
                             f"{', '.join(SYSTEMS)}")
    module = importlib.import_module(home)  # only the domain the certificate names loads
    try:
        if hasattr(module, "sections_of"):  # a domain with certificates of its own shape (the front end's every W)
            return module.sections_of(covered, where, k)  # type: ignore[no-any-return]
        ts, prop = module.system_of(covered, where)
    except ConfigError as e:
        raise InputFileError(f"{where}: its covers line names no system the kit can rebuild: {e}") from None
    from warpcheck.encodings.unroll import _width  # z3: loaded when a certificate is checked, not to parse options
    return cert.sections_of(ts, prop, _width(ts), k)


def _refusal(text: str, want: cert.Sections) -> str | None:
    """Why the file is not the certificate of the system it names (None: its parts are in place)."""
    parts = _parts(text)
    if parts is None:
        return "its sections (system, invariant, obligations) are not all there, in that order"
    head = text[:text.find(cert.SYSTEM)].splitlines()
    if any(line.strip() and not line.startswith(";") for line in head):
        return "its header holds more than comments (a command before the system)"
    if parts[0] != want.system:
        return f"its system differs from the one it says it covers{_first_difference(parts[0], want.system)}"
    if parts[2] != want.obligations:
        return f"its obligations differ from the kit's{_first_difference(parts[2], want.obligations)}"
    if want.exact_invariant:
        return None if parts[1] == want.invariant else \
            f"its invariant differs from the kit's{_first_difference(parts[1], want.invariant)}"
    try:
        defined = commands(parts[1])
    except ValueError as e:
        return f"its invariant is not one SMT-LIB2 command: {e}"
    if len(defined) != 1 or not defined[0].startswith(want.invariant):
        return "its invariant part is not exactly one (define-fun inv ...) over the state"
    return None


def _parts(text: str) -> tuple[str, str, str] | None:
    """The system, invariant and obligations sections of the text, each without its trailing newline."""
    marks = [text.find(m) for m in (cert.SYSTEM, cert.INVARIANT, cert.OBLIGATIONS)]
    if -1 in marks or marks != sorted(marks):
        return None
    a, b, c = marks
    return text[a:b].rstrip("\n"), text[b + len(cert.INVARIANT):c].strip("\n"), text[c:].rstrip("\n")


def _first_difference(got: str, want: str) -> str:
    for n, (x, y) in enumerate(zip(got.splitlines(), want.splitlines())):
        if x != y:
            return f" (first at line {n + 1} of the section)"
    return " (one is longer)"


def _solve(done: CheckResult, text: str, timeout: float | None, want: cert.Sections) -> None:
    """Run the obligations through the solver and judge the answers."""
    said = answers(text, done.solver.split()[0], timeout)
    names = want.names
    if len(said) != len(names):
        done.message = f"{len(said)} answers for {len(names)} obligations"
        return
    must = dict(zip(names, want.answers))
    done.answers = {n: f"{a} (must be {must[n]})" for n, a in zip(names, said)}
    wrong = [f"{n} answered {a}" for n, a in zip(names, said) if a in ("sat", "unsat") and a != must[n]]
    undecided = [n for n, a in zip(names, said) if a not in ("sat", "unsat")]
    if wrong:
        done.message = "obligation " + ", ".join(wrong) + " (refused)"
    elif undecided:
        done.status = "TIMEOUT" if any("TIMEOUT" in a.upper() for a in said) else "UNKNOWN"
        done.message = f"the solver did not decide {', '.join(undecided)}"
    else:
        done.status = "PASS"
        done.message = ("every obligation answers as it must: inv holds initially, is preserved by every step and "
                        "implies the property, and initial states and steps from inv exist") if done.k == 1 else (
            f"every obligation answers as it must: inv holds in the first {done.k} states of every run, {done.k} "
            "states of inv on a path without repeats are followed by one of inv, inv implies the property, and "
            "initial states and such paths exist")
