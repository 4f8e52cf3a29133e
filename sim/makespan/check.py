"""Check a worst-case makespan certificate without searching: a run that reaches M, and a potential proving <= M.

A certificate (JSON, written by ``warpcheck makespan --certificate``) holds

- the instance: kernel string, sigmas, W, and the claimed worst case M;
- a schedule of the W warps (issue cycle of every instruction), replayed by
  ``sim/makespan/replay.py``: a work-conserving run of makespan M exists;
- the upper-bound evidence: a table of *count states* (warps per non-done
  phase, each count capped at K) with a rational *potential* g, and
  optionally a *linear* part c (one rational per phase): Psi(s) =
  sum_p c_p n_p + g(capped s).

The checker verifies, one state at a time, that for every concrete state the
entry stands for and every work-conserving move out of it, the next state's
entry is in the table and Psi drops by at least the state's weight:
``g(a) + sum_p m_p (c_p - c_{p+1}) >= weight(a) + g(next)`` with m_p the warps
leaving phase p.  Summed along any run, the weights then total at most
Psi(initial) - g(done).  With weight "cycles" (1 per unfinished cycle) that is
the makespan itself; with weight "deficit" on unit u (slots of u left unused
in a cycle) it bounds D_u, and sigma_u * T = W * w_u + D_u bounds T.

Why the representatives suffice: an entry with count K stands for every count
n >= K; the checker tries n = K .. K + max sigma.  A larger n issues at most
sigma warps, so it has the same moves as K + max sigma and its next count stays
>= K (capped to K again); its weight is 0 as ready warps fill every free slot.  A busy phase, which all
its warps leave, needs c_p >= c_{p+1} (checked): more warps then drop Psi more.
States where a unit's busy warps hold more slots than sigma never occur (the
held slots never exceed sigma from the first cycle on) and are skipped.  An
uncapped table (K > W) is the plain state graph, checked exactly.

This module shares no code with any search: the phases, moves and weights
are written here again from the rules, and the schedule goes to the replay.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator

from warpcheck.models.errors import WarpcheckError
from warpcheck.models.makespan.kernel import MkKernel, check_warps, parse_kernel, parse_sigmas, transform
from warpcheck.models.makespan.schedule import Schedule
from warpcheck.sim.makespan.replay import replay

FORMAT = "warpcheck-makespan-certificate"
VERSION = 1
Counts = tuple[int, ...]


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


class _Rules:
    """Phases, moves and weights of the transformed kernel, written from the cycle rules."""

    def __init__(self, kernel: MkKernel) -> None:
        self.sigma = dict(kernel.sigma)
        self.unit: list[str] = []
        self.wait: list[bool] = []
        self.holds: list[bool] = []  # a busy stage of a non-pipelined instruction keeps its slot
        for ins in kernel.instrs:
            for stage in range(ins.latency):
                self.unit.append(ins.unit)
                self.wait.append(stage == 0)
                self.holds.append(stage > 0 and not ins.pipelined)
        self.work = {u: sum(1 if i.pipelined else i.latency for i in kernel.instrs if i.unit == u) for u in self.sigma}

    def _free_ready(self, s: Counts, u: str) -> tuple[int, int]:
        held = sum(n for p, n in enumerate(s) if self.holds[p] and self.unit[p] == u)
        ready = sum(n for p, n in enumerate(s) if self.wait[p] and self.unit[p] == u)
        return self.sigma[u] - held, ready

    def possible(self, s: Counts) -> bool:
        """No unit has more slots held than it has."""
        return all(self._free_ready(s, u)[0] >= 0 for u in self.sigma)

    def deficit(self, s: Counts, u: str) -> int:
        free, ready = self._free_ready(s, u)
        return max(0, free - ready)

    def _issues(self, s: Counts, u: str) -> Iterator[dict[int, int]]:
        free, ready = self._free_ready(s, u)
        waits = [p for p in range(len(s)) if self.wait[p] and self.unit[p] == u and s[p]]
        for parts in itertools.product(*[range(min(s[p], free) + 1) for p in waits]):
            if sum(parts) == min(free, ready):
                yield dict(zip(waits, parts))

    def moves(self, s: Counts) -> Iterator[tuple[Counts, Counts]]:
        """Every next state (warps that reach done leave the vector) with the warps leaving each phase."""
        for combo in itertools.product(*[list(self._issues(s, u)) for u in self.sigma]):
            issued = {p: a for part in combo for p, a in part.items()}
            nxt, left = [0] * (len(s) + 1), []
            for p, n in enumerate(s):
                go = issued.get(p, 0) if self.wait[p] else n
                nxt[p] += n - go
                nxt[p + 1] += go
                left.append(go)
            yield tuple(nxt[:-1]), tuple(left)


def _refuse(msg: str) -> CertificateRefused:
    return CertificateRefused(f"certificate refused: {msg}")


def _field(cert: dict[str, Any], key: str, kind: type) -> Any:
    if key not in cert or not isinstance(cert[key], kind) or isinstance(cert[key], bool) != (kind is bool):
        raise _refuse(f"field {key!r} is missing or not a {kind.__name__}")
    return cert[key]


def _number(v: Any) -> Fraction | None:
    if type(v) is int:
        return Fraction(v)
    if isinstance(v, str) and re.fullmatch(r"-?\d+(/[1-9]\d*)?", v):
        return Fraction(v)
    return None


def _table(bound: dict[str, Any], phases: int, cap: int) -> dict[Counts, Fraction]:
    table: dict[Counts, Fraction] = {}
    for row in _field(bound, "states", list):
        ok = isinstance(row, list) and len(row) == phases + 1 and all(type(v) is int for v in row[:-1])
        if not ok or not all(0 <= v <= cap for v in row[:-1]) or _number(row[-1]) is None:
            raise _refuse(f"state row {row!r} is not {phases} counts from 0 to {cap} and a potential")
        if tuple(row[:-1]) in table:
            raise _refuse(f"state {row[:-1]} is listed twice")
        table[tuple(row[:-1])] = _number(row[-1]) or Fraction(0)
    return table


def _linear(rules: _Rules, bound: dict[str, Any]) -> list[Fraction]:
    """The linear part c (zero if absent), with c_p >= c_{p+1} on every busy phase."""
    raw = bound.get("linear") or [0] * len(rules.unit)
    c = [_number(v) for v in raw] if isinstance(raw, list) and len(raw) == len(rules.unit) else [None]
    if any(v is None for v in c):
        raise _refuse(f"the linear part must be {len(rules.unit)} numbers (integers or 'p/q' strings)")
    out = [v or Fraction(0) for v in c] + [Fraction(0)]
    for p, wait in enumerate(rules.wait):
        if not wait and out[p] < out[p + 1]:
            raise _refuse(f"the linear part grows after busy phase {p}: {out[p]} < {out[p + 1]}")
    return out


def _representatives(a: Counts, cap: int, spread: int) -> Iterator[Counts]:
    return itertools.product(*[range(cap, cap + spread + 1) if v == cap else (v,) for v in a])


def _check_potential(rules: _Rules, table: dict[Counts, Fraction], c: list[Fraction], cap: int, weight: str,
                     unit: str | None) -> None:
    spread = max(rules.sigma.values())
    done = tuple(0 for _ in rules.unit)
    at_done = table.get(done, Fraction(0))
    for a, pot in table.items():
        if a == done:
            continue
        for s in _representatives(a, cap, spread):
            if rules.possible(s):
                w = 1 if weight == "cycles" else rules.deficit(s, unit or "")
                _check_moves(rules, table, c, cap, a, s, pot - w, at_done)


def _check_moves(rules: _Rules, table: dict[Counts, Fraction], c: list[Fraction], cap: int, a: Counts, s: Counts,
                 room: Fraction, at_done: Fraction) -> None:
    """Every move out of concrete state s (standing for entry a) lands in the table and drops Psi enough."""
    done, moved = tuple(0 for _ in s), False
    for t, left in rules.moves(s):
        moved = True
        b = tuple(min(v, cap) for v in t)
        if b != done and b not in table:
            raise _refuse(f"state {list(b)}, reached from {list(a)}, is not in the table")
        drop = sum((m * (c[p] - c[p + 1]) for p, m in enumerate(left) if m), Fraction(0))
        if room + drop < table.get(b, at_done):
            raise _refuse(f"the potential does not drop enough from {list(a)} (as {list(s)}) to {list(b)}")
    if not moved:
        raise _refuse(f"state {list(s)} has no move")


def _instance(cert: dict[str, Any]) -> tuple[MkKernel, int]:
    if cert.get("certificate") != FORMAT or cert.get("version") != VERSION:
        raise _refuse(f"not a {FORMAT} of version {VERSION}")
    sig = _field(cert, "sigma", dict)
    try:
        kernel = transform(parse_kernel(_field(cert, "kernel", str)), parse_sigmas(f"{u}={v}" for u, v in sig.items()))
        return kernel, check_warps(_field(cert, "warps", int))
    except WarpcheckError as e:
        raise _refuse(f"bad instance: {e}") from None


def _run(cert: dict[str, Any], kernel: MkKernel, warps: int, claimed: int) -> None:
    rows = _field(cert, "schedule", list)
    if len(rows) != warps or not all(isinstance(r, list) and all(type(v) is int for v in r) for r in rows):
        raise _refuse(f"the schedule must give {warps} lists of issue cycles")
    r = replay(Schedule(kernel, tuple(tuple(row) for row in rows)))
    if not r.ok:
        raise _refuse(f"the schedule does not replay: {r.problem}")
    if r.makespan != claimed:
        raise _refuse(f"the schedule replays to makespan {r.makespan}, not the {claimed} claimed")


def _upper(rules: _Rules, bound: dict[str, Any], warps: int, table: dict[Counts, Fraction], c: list[Fraction],
           cap: int) -> int:
    init = tuple(min(warps, cap) if p == 0 else 0 for p in range(len(rules.unit)))
    if init not in table:
        raise _refuse(f"the initial state {list(init)} is not in the table")
    total = c[0] * warps + table[init] - table.get(tuple(0 for _ in init), Fraction(0))
    if bound["weight"] == "cycles":
        return math.floor(total)
    u = bound["unit"]
    return math.floor((warps * rules.work[u] + total) / rules.sigma[u])


def check(cert: Any) -> CheckResult:
    """Verify a certificate (parsed JSON); raise CertificateRefused with the first fault found."""
    if not isinstance(cert, dict):
        raise _refuse("not a JSON object")
    kernel, warps = _instance(cert)
    claimed = _field(cert, "makespan", int)
    _run(cert, kernel, warps, claimed)
    rules, bound = _Rules(kernel), _field(cert, "bound", dict)
    cap = _field(bound, "cap", int)
    if cap < 1 or bound.get("weight") not in ("cycles", "deficit"):
        raise _refuse("the bound needs a cap >= 1 and a weight 'cycles' or 'deficit'")
    unit = bound.get("unit") if bound["weight"] == "deficit" else None
    if bound["weight"] == "deficit" and unit not in rules.sigma:
        raise _refuse(f"the deficit unit {unit!r} is not a unit of the kernel")
    table, c = _table(bound, len(rules.unit), cap), _linear(rules, bound)
    if bound["weight"] == "deficit" and any(c):
        raise _refuse("a deficit bound takes no linear part")
    upper = _upper(rules, bound, warps, table, c, cap)
    if upper != claimed:
        raise _refuse(f"the potential proves makespan <= {upper}, not {claimed}")
    _check_potential(rules, table, c, cap, bound["weight"], unit)
    every = cap if (bound["weight"] == "deficit" or any(c)) and warps >= cap else None
    return CheckResult(cert["kernel"], warps, claimed, upper, bound["weight"], unit, len(table), every,
                       _formula(rules, table, c, cap, unit) if every else "")


def _formula(rules: _Rules, table: dict[Counts, Fraction], c: list[Fraction], cap: int, unit: str | None) -> str:
    """The bound as a function of W (for W >= cap, where the initial entry is the same)."""
    init = tuple(cap if p == 0 else 0 for p in range(len(rules.unit)))
    d = table[init] - table.get(tuple(0 for _ in init), Fraction(0))
    if unit is None:
        return f"makespan <= floor({c[0]} W + {d})"
    return f"makespan <= floor(({rules.work[unit]} W + {d}) / {rules.sigma[unit]})"
