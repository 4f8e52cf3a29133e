"""Check a worst-case makespan certificate without searching: a run that reaches M, and a potential proving <= M.

A certificate (JSON, written by ``warpcheck makespan --certificate``) holds

- the instance: kernel string, sigmas, W, and the claimed worst case M;
- a schedule of the W warps (issue cycle of every instruction), replayed by
  ``spec/makespan/replay.py``: a work-conserving run of makespan M exists;
- the upper-bound evidence: a table of *count entries* (warps per non-done
  phase, the count of phase p capped at K_p: ``cap`` is one K for every
  phase or a list of one K_p per phase; a count equal to its cap means "that
  many or more") with a rational *potential* g, and optionally a *linear*
  part c (one rational per phase): Psi(s) = sum_p c_p n_p + g(capped s).

A bound may also carry linear *invariants* (``spec/makespan/lininv.py``:
sum_p a_p n_p <= b in every reachable state, proved here from the table's own
moves); a next entry that some invariant excludes may then be absent.

The checker verifies, one entry at a time, that for every concrete state the
entry stands for and every work-conserving move out of it, the next state's
entry is in the table and Psi drops by at least the state's weight:
``g(a) + sum_p m_p (c_p - c_{p+1}) >= weight(a) + g(next)`` with m_p the warps
leaving phase p.  Summed along any run, the weights then total at most
Psi(initial) - g(done).  With weight "cycles" (1 per unfinished cycle) that is
the makespan itself; with weight "deficit" on unit u (slots of u left unused
in a cycle) it bounds D_u, and sigma_u * T = W * w_u + D_u bounds T.

The concrete states of an entry are infinitely many; ``spec/makespan/capped.py``
steps the entry symbolically instead, and its docstring argues that its moves
are exactly the concrete ones (the least drop for each next entry), so the
check is neither weaker nor stronger than checking every concrete state.  A
busy phase, which all its warps leave, needs c_p >= c_{p+1} (checked): more
warps then drop Psi more.  An entry with a wait phase at a cap below its
unit's sigma is refused (its issue count is open); an entry whose slot
holders cannot fit their unit stands for no state and is skipped.  An
uncapped table (every cap above W) is the plain state graph, checked exactly.
The potential and the linear part are scaled by a common denominator, so the
check runs on integers and stays exact.

This module shares no code with any search, down to the kernel transform:
the instance is read and transformed by ``reference.py`` (the paper's rule
written again), the phases, moves and weights are written here again from
the rules, and the schedule goes to the replay.  Its functions take any
kernel with ``instrs`` and ``sigma`` (tests hand them the design's), but
``check`` builds its own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from warpcheck.models.errors import WarpcheckError
from warpcheck.spec.makespan.block_bound_check import BlocksRefused, blocks_upper, check_blocks, read_blocks
from warpcheck.spec.makespan.block_bound_check import formula as blocks_formula
from warpcheck.spec.makespan.block_bound_check import slope as blocks_slope
from warpcheck.spec.makespan.capped import CappedRules, Counts, TooManyNext
from warpcheck.spec.makespan.lininv import InvariantRefused, LinearInvariant, check_invariants, excluded, read_invariants
from warpcheck.spec.makespan.numbers import read_number
from warpcheck.spec.makespan.pump_check import PumpRefused, check_pump
from warpcheck.spec.makespan.reference import RefKernel, check_warps, reference_kernel
from warpcheck.spec.makespan.replay import replay_issue

FORMAT = "warpcheck-makespan-certificate"
VERSION = 1


class CertificateRefused(WarpcheckError):
    """The certificate does not prove what it claims."""


@dataclass
class CheckResult:
    """A certificate that holds: M is the exact worst case; ``every_w_from`` says where the bound's formula holds."""

    kernel: str
    warps: int
    makespan: int
    upper: int
    weight: str
    unit: str | None
    states: int
    every_w_from: int | None  # the same table bounds every W >= this (deficit, or a linear part)
    formula: str = ""  # the bound as a function of W, when it holds for every W >= every_w_from
    exact_from: int | None = None  # with a pump: the worst case is known exactly for every W = exact_from + m period
    period: int = 1
    exact_formula: str = ""  # the worst case as a function of W on that class


def _refuse(msg: str) -> CertificateRefused:
    return CertificateRefused(f"certificate refused: {msg}")


def _field(cert: dict[str, Any], key: str, kind: type) -> Any:
    if key not in cert or not isinstance(cert[key], kind) or isinstance(cert[key], bool) != (kind is bool):
        raise _refuse(f"field {key!r} is missing or not a {kind.__name__}")
    return cert[key]


def _caps(bound: dict[str, Any], phases: int) -> Counts:
    """One cap per phase, from an int (the same for every phase) or a list of one positive int per phase."""
    raw = bound.get("cap")
    if type(raw) is int and raw >= 1:
        return (raw,) * phases
    if isinstance(raw, list) and len(raw) == phases and all(type(v) is int and v >= 1 for v in raw):
        return tuple(raw)
    raise _refuse(f"the cap {raw!r} is not a positive integer nor a list of {phases} positive integers "
                  "(one per phase)")


def _table(bound: dict[str, Any], caps: Counts) -> dict[Counts, Fraction]:
    table: dict[Counts, Fraction] = {}
    within = f"from 0 to {caps[0]}" if len(set(caps)) == 1 else "each from 0 to its phase's cap"
    for row in _field(bound, "states", list):
        ok = isinstance(row, list) and len(row) == len(caps) + 1 and all(type(v) is int for v in row[:-1])
        if not ok or not all(0 <= v <= k for v, k in zip(row, caps)) or read_number(row[-1]) is None:
            raise _refuse(f"state row {row!r} is not {len(caps)} counts {within} and a potential")
        if tuple(row[:-1]) in table:
            raise _refuse(f"state {row[:-1]} is listed twice")
        table[tuple(row[:-1])] = read_number(row[-1]) or Fraction(0)
    return table


def _wait_phases(kernel: RefKernel) -> list[bool]:
    return [stage == 0 for ins in kernel.instrs for stage in range(ins.latency)]


def _linear(wait: list[bool], bound: dict[str, Any]) -> list[Fraction]:
    """The linear part c (zero if absent) and c_P = 0 for done, with c_p >= c_{p+1} on every busy phase."""
    raw = bound.get("linear") or [0] * len(wait)
    c = [read_number(v) for v in raw] if isinstance(raw, list) and len(raw) == len(wait) else [None]
    if any(v is None for v in c):
        raise _refuse(f"the linear part must be {len(wait)} numbers (integers or 'p/q' strings)")
    out = [v or Fraction(0) for v in c] + [Fraction(0)]
    for p, is_wait in enumerate(wait):
        if not is_wait and out[p] < out[p + 1]:
            raise _refuse(f"the linear part grows after busy phase {p}: {out[p]} < {out[p + 1]}")
    return out


@dataclass
class Bound:
    """The upper-bound evidence of a certificate, read and validated (not yet checked)."""

    caps: Counts
    weight: str
    unit: str | None
    table: dict[Counts, Fraction]
    linear: list[Fraction]  # c_0 .. c_{P-1}, then 0 for done
    invariants: list[LinearInvariant] = field(default_factory=list)  # entries they exclude may be left out


def read_bound(kernel: RefKernel, bound: Any) -> Bound:
    """Validate the ``bound`` object of a certificate against its (transformed) kernel."""
    if not isinstance(bound, dict):
        raise _refuse("field 'bound' is missing or not a dict")
    wait = _wait_phases(kernel)
    caps = _caps(bound, len(wait))
    if bound.get("weight") not in ("cycles", "deficit"):
        raise _refuse(f"the bound's weight {bound.get('weight')!r} is not 'cycles' or 'deficit'")
    unit = bound.get("unit") if bound["weight"] == "deficit" else None
    if bound["weight"] == "deficit" and unit not in dict(kernel.sigma):
        raise _refuse(f"the deficit unit {unit!r} is not a unit of the kernel")
    table, c = _table(bound, caps), _linear(wait, bound)
    if bound["weight"] == "deficit" and any(c):
        raise _refuse("a deficit bound takes no linear part")
    try:
        invs = read_invariants(bound.get("invariants"), wait)
    except InvariantRefused as e:
        raise _refuse(str(e)) from None
    return Bound(caps, bound["weight"], unit, table, c, invs)


def check_bound(kernel: RefKernel, b: Bound) -> None:
    """Check that Psi drops by the weight on every move of every entry (any W); raise CertificateRefused if not."""
    scale = math.lcm(*(v.denominator for v in b.table.values()), *(v.denominator for v in b.linear))
    slopes = [int((b.linear[p] - b.linear[p + 1]) * scale) for p in range(len(b.caps))]
    rules = CappedRules(kernel, b.caps, slopes, b.unit)
    g = {a: int(v * scale) for a, v in b.table.items()}
    done = tuple(0 for _ in b.caps)
    at_done = g.get(done, 0)
    try:
        check_invariants(kernel, b.caps, list(g), b.invariants)
    except InvariantRefused as e:
        raise _refuse(str(e)) from None
    for a, pot in g.items():
        views = rules.views(a) if a != done else []
        low = rules.low_wait_cap(a) if views else None
        if low is not None:
            raise _refuse(f"state {list(a)} has wait phase {low} at its cap {b.caps[low]}, below the sigma of its "
                          "unit: its issue count is not determined; raise that phase's cap to sigma")
        for view in views:
            _check_moves(rules, g, a, view, pot, scale, at_done, b.invariants)


def _check_moves(rules: CappedRules, g: dict[Counts, int], a: Counts, view: Counts, pot: int, scale: int,
                 at_done: int, invs: list[LinearInvariant]) -> None:
    """Every symbolic move of entry ``a`` (in one view) lands in the table, and the potential drops enough."""
    done = tuple(0 for _ in a)
    try:
        for w, nxt, drop in rules.moves(a, view):
            after = g.get(nxt)
            if after is None:
                if nxt != done and excluded(nxt, rules.caps, invs):
                    continue  # no reachable state lies there (the invariants are checked above)
                if nxt != done:
                    raise _refuse(f"state {list(nxt)}, reached from {list(a)}, is not in the table")
                after = at_done
            if pot + drop < w * scale + after:
                raise _refuse(f"the potential does not drop enough from {list(a)} to {list(nxt)}")
    except TooManyNext as e:
        raise _refuse(str(e)) from None


def _instance(cert: dict[str, Any]) -> tuple[RefKernel, int]:
    if cert.get("certificate") != FORMAT or cert.get("version") != VERSION:
        raise _refuse(f"not a {FORMAT} of version {VERSION}")
    sig = _field(cert, "sigma", dict)
    try:
        kernel = reference_kernel(_field(cert, "kernel", str), sig)
        return kernel, check_warps(_field(cert, "warps", int))
    except WarpcheckError as e:
        raise _refuse(f"bad instance: {e}") from None


def _run(cert: dict[str, Any], kernel: RefKernel, warps: int, claimed: int) -> None:
    rows = _field(cert, "schedule", list)
    if len(rows) != warps or not all(isinstance(r, list) and all(type(v) is int for v in r) for r in rows):
        raise _refuse(f"the schedule must give {warps} lists of issue cycles")
    r = replay_issue(kernel, rows)
    if not r.ok:
        raise _refuse(f"the schedule does not replay: {r.problem}")
    if r.makespan != claimed:
        raise _refuse(f"the schedule replays to makespan {r.makespan}, not the {claimed} claimed")


def _upper(kernel: RefKernel, b: Bound, warps: int) -> int:
    init = tuple(min(warps, b.caps[0]) if p == 0 else 0 for p in range(len(b.caps)))
    if init not in b.table:
        raise _refuse(f"the initial state {list(init)} is not in the table")
    total = b.linear[0] * warps + b.table[init] - b.table.get(tuple(0 for _ in init), Fraction(0))
    if b.unit is None:
        return math.floor(total)
    return math.floor((warps * _work(kernel, b.unit) + total) / kernel.sigma_of(b.unit))


def _work(kernel: RefKernel, unit: str) -> int:
    """Slot-cycles one warp needs on ``unit``."""
    return sum(1 if i.pipelined else i.latency for i in kernel.instrs if i.unit == unit)


def check(cert: Any) -> CheckResult:
    """Verify a certificate (parsed JSON); raise CertificateRefused with the first fault found."""
    if not isinstance(cert, dict):
        raise _refuse("not a JSON object")
    kernel, warps = _instance(cert)
    claimed = _field(cert, "makespan", int)
    _run(cert, kernel, warps, claimed)
    if _field(cert, "bound", dict).get("method") == "blocks":
        return _check_blocks(cert, kernel, warps, claimed)
    b = read_bound(kernel, _field(cert, "bound", dict))
    upper = _upper(kernel, b, warps)
    if upper != claimed:
        raise _refuse(f"the potential proves makespan <= {upper}, not {claimed}")
    check_bound(kernel, b)
    # the initial entry, hence the bound's formula, is the same for every W >= the cap of phase 0
    every = b.caps[0] if (b.unit is not None or any(b.linear)) and warps >= b.caps[0] else None
    out = CheckResult(cert["kernel"], warps, claimed, upper, b.weight, b.unit, len(b.table), every,
                      _formula(kernel, b) if every else "")
    if "pump" in cert:
        _closed_form(kernel, b, cert["pump"], out)
    return out


def _check_blocks(cert: dict[str, Any], kernel: RefKernel, warps: int, claimed: int) -> CheckResult:
    """A bound over blocks of phases (``spec/makespan/block_bound_check.py``), and its pump if any."""
    try:
        bb = read_blocks(kernel, cert["bound"])
        upper = blocks_upper(kernel, bb, warps)
        if upper != claimed:
            raise _refuse(f"the potential proves makespan <= {upper}, not {claimed}")
        check_blocks(kernel, bb)
        every = bb.cuts[0][2] if warps >= bb.cuts[0][2] else None
        out = CheckResult(cert["kernel"], warps, claimed, upper, bb.weight, bb.unit, len(bb.table), every,
                          blocks_formula(kernel, bb) if every else "")
        if "pump" in cert:
            pc = check_pump(kernel, cert["pump"])
            slope = blocks_slope(kernel, bb)
            if every is None or pc.warps < every or blocks_upper(kernel, bb, pc.warps) != pc.makespan \
                    or slope * pc.period != pc.cycles:
                raise _refuse(f"the pump's run ({pc.makespan} cycles at W0 = {pc.warps}, {pc.cycles} more per "
                              f"{pc.period} warps) does not meet the bound growing by {slope} per warp")
            out.exact_from, out.period = pc.warps, pc.period
            offset = pc.makespan - slope * pc.warps
            out.exact_formula = f"makespan = {slope} W {'-' if offset < 0 else '+'} {abs(offset)}"
        return out
    except (BlocksRefused, PumpRefused) as e:
        raise _refuse(str(e)) from None


def _closed_form(kernel: RefKernel, b: Bound, pump: Any, out: CheckResult) -> None:
    """A pump whose base run meets the bound and grows as fast: the worst case on the pump's whole class."""
    try:
        pc = check_pump(kernel, pump)
    except PumpRefused as e:
        raise _refuse(f"pump: {e}") from None
    if out.every_w_from is None or pc.warps < out.every_w_from:
        raise _refuse(f"the pump's W0 = {pc.warps} is not where the table bounds every W (W >= {out.every_w_from})")
    slope = b.linear[0] if b.unit is None else Fraction(_work(kernel, b.unit), kernel.sigma_of(b.unit))
    if _upper(kernel, b, pc.warps) != pc.makespan or slope * pc.period != pc.cycles:
        raise _refuse(f"the pump's run ({pc.makespan} cycles at W0 = {pc.warps}, {pc.cycles} more per {pc.period} "
                      f"warps) does not meet the bound {_upper(kernel, b, pc.warps)} growing by {slope} per warp")
    out.exact_from, out.period = pc.warps, pc.period
    offset = pc.makespan - slope * pc.warps
    out.exact_formula = f"makespan = {slope} W {'-' if offset < 0 else '+'} {abs(offset)}"


def _formula(kernel: RefKernel, b: Bound) -> str:
    """The bound as a function of W (for W >= the cap of phase 0, where the initial entry is the same)."""
    init = tuple(b.caps[0] if p == 0 else 0 for p in range(len(b.caps)))
    d = b.table[init] - b.table.get(tuple(0 for _ in init), Fraction(0))
    if b.unit is None:
        return f"makespan <= floor({b.linear[0]} W + {d})"
    return f"makespan <= floor(({_work(kernel, b.unit)} W + {d}) / {kernel.sigma_of(b.unit)})"
