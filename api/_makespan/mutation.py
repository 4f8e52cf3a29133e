"""The makespan mutation suite as the harness runs it: each mutant's search judged by code it shares nothing with.

A kill (status FAIL) is a search answer that an independent side refuses or
contradicts:

- the certificate of the mutant's exact answer (schedule + potential) is
  refused by ``spec/makespan/certificate_check.py``, which reads and transforms the
  instance itself (``spec/makespan/reference.py``); for the methods that keep no
  proof (smt, optimize, ilp) the proof is the one the verb finds for them
  (``search.with_proof``), and for ``auto`` the closed form it answers with; or
- the mutant's run does not replay to its makespan on the reference replay
  (``replay_issue`` on the reference kernel): the run it claims is not a run;
- or the bound it claims (its exact makespan, or the upper bound of an answer
  that is not exact) is below the reference enumeration's worst case
  (``spec/makespan/reference_enum.py``, written from the cycle rules), or its
  exact makespan differs from it.

``replayed`` is True when the independent side reproduced the disagreement:
the checker refused (it replays the schedule and steps every move itself),
the reference replay refused the mutant's run, or the reference's worst run
replays to a makespan above the mutant's bound.  An exact answer above the
reference's worst case is always refused by the replay (no real run is that
long), so "differs" alone is never the only evidence.  The ILP of
``encodings/makespan/ilp.py`` is no oracle here: it takes the design's
transformed kernel.

A mutant of the PTX roles (method ``ptx-roles``) runs no search: the kernel
of its example PTX entry is built as ``makespan --ptx`` builds it, with the
mutant in place, and compared with the reference's reading of the same
entry (``api/_makespan/ptx_check.py``): the role of every static instruction,
and the unit of every letter of the kernel string.  A kill is a disagreement
that the unmutated design does not have and that the mutant shows again
when checked a second time.
"""
from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from warpcheck._makespan.auto import auto_exact
from warpcheck._makespan.certificate import answer_certificate, interval_certificate
from warpcheck._makespan.interval import widen
from warpcheck._makespan.methods import Outcome, exact
from warpcheck._makespan.search import with_proof
from warpcheck._makespan.ptx_check import Disagreement, first_disagreement, first_kernel_disagreement
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.makespan.mutants import MUTANTS as MODEL_MUTANTS
from warpcheck.models.makespan.mutants import Mutant
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.reference_enum import reference_worst_case
from warpcheck.spec.makespan.replay import replay_issue
from warpcheck.verify.makespan.backlog import _allowed as backlog_allowed  # kept apart from the names swapped
from warpcheck.verify.makespan.backlog import _declare_rows as backlog_rows
from warpcheck.verify.makespan.worst_runs import PolicySim
from warpcheck.verify.mutation import Kill, checkout

__all__ = ["MUTANTS", "kill", "applied"]

BUDGET = 30.0  # seconds a bound method may search (enumerate, the default, is bounded by the instance's size)
INTERVAL_RUNS = 40  # policy runs of the interval's local search on a mutant's instance (work, not seconds)


class PolicyIgnoresHolders(PolicySim):
    """The policy simulation forgets that a busy non-pipelined instruction holds its unit: every slot looks free."""

    def __init__(self, kernel: Any, warps: int) -> None:
        super().__init__(kernel, warps)
        none: list[int] = []
        self.units = [(kernel.sigma_of(u), self.sm.waits_on(u), none) for u in kernel.units]


def _tail_rows_of_c(lp: Any) -> None:
    """The backlog LP's rows with its tail rows capped at C (not 2C): tail cycles misread as U <= C."""
    backlog_rows(lp)
    for key, i in lp.rows.items():
        if key[0] == "tail":
            lp.hi[i] = lp.hi[i] / 2


def _body_keeps_its_set(a: str, b: str) -> bool:
    """The backlog LP's moves with a body cycle followed only by a body cycle of the same backlogged set."""
    if a[0] == "b" and b[0] == "b":
        return a == b
    return backlog_allowed(a, b)


MUTANTS: dict[str, Mutant] = {**MODEL_MUTANTS, **{m.name: m for m in [
    Mutant("policy-ignores-holders", "interval: the policy runs issue on a unit whose slot a busy instruction holds",
           {"verify.makespan.worst_runs.PolicySim": PolicyIgnoresHolders}, "C2 L", {"C": "1", "L": "1"},
           method="interval"),
    Mutant("backlog-tail-of-c", "backlog LP: the tail rows allow C issues per phase instead of 2C",
           {"verify.makespan.backlog._declare_rows": _tail_rows_of_c}, "CCLL", {"L": "1", "C": "2"}, warps=12,
           method="interval"),
    Mutant("backlog-body-keeps-its-set", "backlog LP: a body cycle is followed only by one of the same backlogged set",
           {"verify.makespan.backlog._allowed": _body_keeps_its_set}, "CMLL", {"C": "1", "M": "1", "L": "1"}, warps=16,
           method="interval"),
]}}


def _loaded() -> list[Any]:
    return [v for k, v in list(sys.modules.items()) if k.startswith("warpcheck.") and v is not None
            and k != "warpcheck.models.makespan.mutants"]  # the mutants build on the originals


def _swap(name: str, old: Any, new: Any) -> None:
    """Rebind ``name`` from ``old`` to ``new`` in every loaded warpcheck module that holds ``old``."""
    for mod in _loaded():
        if getattr(mod, name, None) is old:
            setattr(mod, name, new)


@contextlib.contextmanager
def applied(m: Mutant) -> Iterator[None]:
    """Put the mutant's replacements wherever a warpcheck module holds the original object, then put them back.

    Modules imported inside the block take the replacement too; the way back
    scans every loaded module again, so they get the original.
    """
    pairs = []
    for key, new in m.patches.items():
        mod, _, name = key.rpartition(".")
        where = f"warpcheck.{mod}" if "." in mod else f"warpcheck.models.makespan.{mod}"  # short: models/makespan
        pairs.append((name, getattr(sys.modules[where], name), new))
    for name, old, new in pairs:
        _swap(name, old, new)
    try:
        yield
    finally:
        for name, old, new in pairs:
            _swap(name, new, old)


def _search(m: Mutant, warps: int, method: str) -> tuple[Outcome, dict[str, Any] | None]:
    """Run the mutant's search and write the certificate of its answer (when it is exact and certified)."""
    from warpcheck.models.makespan.kernel import make_kernel

    with applied(m):
        kernel = make_kernel(m.kernel, dict(m.sigma))
        if method == "interval":
            o = widen(kernel, warps, Outcome(None, False, None, 0.0, "no run yet"), float("inf"), None,
                      runs=INTERVAL_RUNS)
            cert = interval_certificate(m.kernel, dict(m.sigma), warps, o.schedule, o.upper[0], o.proof) \
                if o.schedule and o.upper and o.proof else None
            return o, cert
        deadline = time.monotonic() + BUDGET
        o = auto_exact(kernel, warps, deadline, None)[1] if method == "auto" else \
            exact(method, kernel, warps, BUDGET, None)
        if o.exact and o.proof is None and o.schedule is not None:  # smt, optimize, ilp: as the verb proves them
            o = with_proof(kernel, warps, o, deadline)
        cert = answer_certificate(m.kernel, dict(m.sigma), warps, o) if o.exact and o.proof and o.schedule else None
    return o, cert


def _judge(m: Mutant, warps: int, o: Outcome, cert: dict[str, Any] | None) -> tuple[str, str, bool]:
    """(status, evidence, replayed) from the checker, the reference replay and the reference enumeration."""
    refused = ""
    if cert is not None:
        try:
            check_interval(cert) if cert.get("interval") else check(cert)
        except CertificateRefused as e:
            refused = str(e).removeprefix("certificate refused: ")
    rk = reference_kernel(m.kernel, dict(m.sigma))
    ref = reference_worst_case(rk, warps)
    real = replay_issue(rk, ref.issue)
    real_ok = real.ok and real.makespan == ref.makespan
    mine = replay_issue(rk, o.schedule.issue) if o.schedule else None
    run_refused = mine is not None and (not mine.ok or mine.makespan != o.makespan)
    upper = o.upper[0] if o.upper else o.makespan if o.exact else None
    below = upper is not None and upper < ref.makespan  # a bound the reference's run breaks
    differs = o.exact and o.makespan != ref.makespan
    said = f"search {o.makespan}{'' if o.exact else f' (not exact, bound {upper})'}, reference {ref.makespan}"
    if mine is not None:
        said += f"; its schedule replays to {mine.makespan}" if mine.ok else f"; its schedule: {mine.problem}"
    if refused:
        said += "; certificate refused" + ("" if mine is not None and mine.problem and mine.problem in refused
                                           else f": {refused}")
    status = "FAIL" if refused or run_refused or below or differs else "PASS"
    return status, said, bool(refused) or run_refused or (below and real_ok)


def ptx_options(m: Mutant) -> dict[str, Any]:
    """The mutant's PTX options (``ptx``, ``sm``, ``bounds``, ...), its example paths taken in the checkout."""
    root = checkout("makespan suite (its PTX mutants)")
    return {k: str(root / v) if isinstance(v, str) and v.startswith("examples/") else v for k, v in m.ptx.items()}


def _ptx_found(m: Mutant) -> tuple[Disagreement | None, Disagreement | None, int]:
    """(first role disagreement, first kernel-letter disagreement, letters checked) on the mutant's entry."""
    a = ptx_options(m)
    kernel, checked = first_kernel_disagreement(**a)
    return first_disagreement(a["ptx"], a.get("entry")), kernel, checked


def _kill_ptx(m: Mutant) -> Kill:
    """Judge a PTX-roles mutant: the reference finds a disagreement the unmutated design does not have."""
    t = time.monotonic()
    try:
        with applied(m):
            found = _ptx_found(m)
        clean = _ptx_found(m)
        with applied(m):
            again = _ptx_found(m)
    except WarpcheckError as e:
        return Kill(m.name, m.breaks, _ptx_check(m), "ERROR", m.equivalent, str(e), False, time.monotonic() - t)
    static, kernel, checked = found
    where = Path(m.ptx["ptx"]).name
    if clean[:2] != (None, None):
        status, said = "ERROR", f"the unmutated design disagrees too: {clean[0] or clean[1]}"
    elif static is None and kernel is None:
        status, said = "PASS", f"{where}: every role and all {checked} letters agree"
    else:
        status, said = "FAIL", f"{where} {static or kernel}; kernel string: " + _letters(static, kernel, checked)
    return Kill(m.name, m.breaks, _ptx_check(m), status, m.equivalent, said, status == "FAIL" and again == found,
                time.monotonic() - t)


def _letters(static: Disagreement | None, kernel: Disagreement | None, checked: int) -> str:
    """What the kernel string shows of a role disagreement: the first letter off, or that all agree."""
    if kernel is None:
        return f"its {checked} letters agree (both roles on one unit)"
    if static is None:
        return "the first letter off above"
    same = (kernel.line, kernel.opcode) == (static.line, static.opcode)
    at = "" if same else f"line {kernel.line}: {kernel.opcode}: "
    return f"{at}unit {kernel.design}, reference {kernel.reference}"


def _ptx_check(m: Mutant) -> str:
    given = " ".join(f"{k}={v}" for k, v in m.ptx.items())
    return f"makespan {given}: roles and kernel string against spec/makespan/ptx_roles.py"


def kill(name: str, out: Path, warps: int | None = None, method: str | None = None) -> Kill:
    """Search the mutant's instance with ``method`` (default: the mutant's own) and judge the answer independently.

    See the module's docstring; the interval mutants' certificates are interval certificates
    (``spec/makespan/interval_check.py``).
    """
    m = MUTANTS[name]
    if m.method == "ptx-roles":
        return _kill_ptx(m)
    w = warps or m.warps
    method = method or m.method
    t = time.monotonic()
    o, cert = _search(m, w, method)
    if cert is not None:  # kept for a rerun: warpcheck makespan --check NAME.json
        (out / f"{m.name}.json").write_text(json.dumps(cert))
    status, evidence, replayed = _judge(m, w, o, cert)
    sig = " ".join(f"--sigma {u}={v}" for u, v in m.sigma.items())
    return Kill(m.name, m.breaks, f"makespan '{m.kernel}' -W {w} {sig} --method {method} --certificate",
                status, m.equivalent, evidence, replayed, time.monotonic() - t)
