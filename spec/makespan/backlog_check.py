"""The checker's backlog LP bound of one-cycle kernels: dual values that prove makespan <= floor(their objective).

Written again from the LP's definition, importing nothing of the search that
solves it (``models/makespan``, ``verify``, ``encodings``): the kernel is the
one ``reference.py`` transforms, phases p = 0 .. P-1 on units u(p) of capacity
c_u (the integer sigma).  A *state* names the set of backlogged units of a
cycle, ``b:S`` (a body cycle, S not empty) or ``t:S`` (a tail cycle); the
allowed moves are body -> body when the two sets share a unit, body -> tail,
and tail -> tail, and a tail state may also move to ``end``.

The LP's columns are N[start, b], N[a, b] (objective 1), Y[p, a, b] and
Z[u, a, b] (objective 0); its rows start, end, flow, cap, issue, pass,
persist, zsum, work and tail.  A certificate lists dual values of rows (the
others are 0).  The check is dual feasibility, column by column and exact:
the sum of each column's coefficients times the duals of the rows that
contain it is at least the column's objective.  Then every work-conserving
run of W warps ends within sum(rhs * dual) cycles, by LP duality.

No matrix is built: each column's sum is computed from the rules that say
which rows contain it (``_n_sum``, ``_y_sums``, ``_check_z``), on the duals
scaled to integers by their common denominator.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

from warpcheck.spec.makespan.reference import RefKernel

MAX_UNITS = 6  # 2^6 - 1 body states: the columns grow with the square of the states
END = "end"
_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?")
_KINDS = ("start", "end", "flow", "cap", "issue", "pass", "persist", "zsum", "work", "tail")

Key = tuple[Any, ...]


class BacklogRefused(ValueError):
    """The backlog certificate does not prove its bound, or the bound does not apply to the kernel."""


@dataclass(frozen=True)
class _Instance:
    """The LP's index sets: the phases' units, the capacities, the states and the allowed moves."""

    unit_of: tuple[str, ...]
    units: tuple[str, ...]
    cap: dict[str, int]
    warps: int
    states: tuple[str, ...]
    post: dict[str, tuple[str, ...]]
    pred: dict[str, tuple[str, ...]]

    @property
    def phases(self) -> int:
        """P, the phases of a warp."""
        return len(self.unit_of)

    def pairs(self) -> list[tuple[str, str]]:
        """Every allowed (a, b), ``end`` included, states in order."""
        return [(a, b) for a in self.states for b in self.post[a]]


def members(state: str) -> str:
    """The set of a state: its unit letters, in order."""
    return state[2:]


def is_tail(state: str) -> bool:
    """A tail state (``t:S``)."""
    return state.startswith("t:")


def _allowed(a: str, b: str) -> bool:
    """Body -> body when the sets share a unit; body -> tail; tail -> tail; never tail -> body."""
    if is_tail(a):
        return is_tail(b)
    return is_tail(b) or bool(set(members(a)) & set(members(b)))


def _instance(kernel: RefKernel, warps: int) -> _Instance:
    """The index sets of ``kernel`` (one-cycle, at most MAX_UNITS units) and ``warps``."""
    units = tuple(sorted(kernel.units))
    if len(units) > MAX_UNITS:
        raise BacklogRefused(f"the backlog bound is checked for kernels of at most {MAX_UNITS} units, "
                             f"not {len(units)}")
    sets = sorted("".join(c) for k in range(len(units) + 1) for c in combinations(units, k))
    states = tuple([f"b:{s}" for s in sets if s] + [f"t:{s}" for s in sets])
    post = {a: tuple([b for b in states if _allowed(a, b)] + ([END] if is_tail(a) else [])) for a in states}
    pred = {b: tuple(a for a in states if _allowed(a, b)) for b in states}
    return _Instance(tuple(i.unit for i in kernel.instrs), units, {u: kernel.sigma_of(u) for u in units}, warps,
                     states, post, pred)


def _show(key: object) -> str:
    """A key as the certificate writes it (JSON), or its repr when it is not JSON."""
    try:
        return json.dumps(list(key) if isinstance(key, tuple) else key)
    except (TypeError, ValueError):
        return repr(key)


def _phase(inst: _Instance, p: object, low: int = 0) -> bool:
    """``p`` is an int phase in low .. P-1."""
    return type(p) is int and low <= p < inst.phases


def _row_kind(inst: _Instance, key: Key) -> str:
    """``eq`` or ``le``, the kind of the row ``key`` names; BacklogRefused when it names no row of the instance."""
    head, args = key[0], key[1:]
    shape = {"start": 0, "end": 0, "flow": 1, "cap": 3, "issue": 2, "pass": 2, "persist": 3, "zsum": 2, "work": 1,
             "tail": 1}
    if head not in shape:
        raise BacklogRefused(f"duals: row key {_show(key)} has an unknown row kind (one of {', '.join(_KINDS)})")
    if len(args) != shape[head]:
        raise BacklogRefused(f"duals: row key {_show(key)} is malformed: a {head} row takes {shape[head]} arguments")
    states, units = inst.post, inst.cap
    if head in ("start", "end", "flow"):
        ok = head != "flow" or args[0] in states
    elif head in ("cap", "issue"):
        ok = args[0] in states and args[1] in states[args[0]] and (head == "issue" or args[2] in units)
    elif head == "pass":
        ok = args[0] in states and _phase(inst, args[1], 1) and inst.unit_of[args[1]] not in members(args[0])
    elif head == "persist":
        ok = (args[1] in states and args[2] in states[args[1]] and args[2] != END and args[0] in units
              and args[0] in members(args[1]))
    elif head == "zsum":
        ok = args[0] in units and args[1] in states and any(args[0] in members(a) for a in inst.pred[args[1]])
    else:
        ok = _phase(inst, args[0])
    if not ok:
        raise BacklogRefused(f"duals: row key {_show(key)} names no {head} row of this instance "
                             f"({inst.phases} phases, units {''.join(inst.units)})")
    le = head in ("issue", "pass", "persist", "zsum", "tail") or (head == "cap" and args[2] not in members(args[0]))
    return "le" if le else "eq"


def _value(key: Key, value: object) -> Fraction:
    """Read a dual: an integer, or a string ``n/d`` (d > 0) or ``n``."""
    if type(value) is int:
        return Fraction(value)
    if isinstance(value, str) and _RATIONAL.fullmatch(value):
        num, _, den = value.partition("/")
        try:
            if not den or int(den) > 0:
                return Fraction(int(num), int(den) if den else 1)
        except ValueError:  # more digits than int() reads
            pass
    raise BacklogRefused(f"duals: the value {value!r} of {_show(key)} is not an integer or a string \"n/d\" with d > 0")


def _read_duals(inst: _Instance, bound: object) -> dict[Key, Fraction]:
    """The listed duals by row key; BacklogRefused at the first malformed, unknown, repeated or ill-signed one."""
    if not isinstance(bound, dict):
        raise BacklogRefused("the backlog bound is not an object {\"method\": \"backlog\", \"duals\": [...]}")
    if bound.get("method", "backlog") != "backlog":
        raise BacklogRefused(f"the bound's method is {bound.get('method')!r}, not \"backlog\"")
    entries = bound.get("duals")
    if not isinstance(entries, list):
        raise BacklogRefused("the backlog bound has no list \"duals\" of [KEY, VALUE] pairs")
    out: dict[Key, Fraction] = {}
    for n, entry in enumerate(entries):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise BacklogRefused(f"duals: entry {n} ({_show(entry)}) is not a [KEY, VALUE] pair")
        raw, value = entry
        if (not isinstance(raw, (list, tuple)) or not raw
                or not all(type(x) is int or isinstance(x, str) for x in raw)):
            raise BacklogRefused(f"duals: entry {n} has the key {_show(raw)}, not a list of a row kind and "
                                 f"its strings and integers")
        key = tuple(raw)
        if key in out:
            raise BacklogRefused(f"duals: row key {_show(key)} is listed twice")
        kind = _row_kind(inst, key)
        dual = _value(key, value)
        if kind == "le" and dual < 0:
            raise BacklogRefused(f"duals: the le row {_show(key)} has the negative dual {dual}")
        out[key] = dual
    return out


def _scaled(duals: dict[Key, Fraction]) -> tuple[dict[Key, int], int]:
    """The duals times their common denominator D, as integers, and D."""
    den = math.lcm(*(d.denominator for d in duals.values())) if duals else 1
    return {k: d.numerator * (den // d.denominator) for k, d in duals.items()}, den


def _refuse_column(name: str, total: int, den: int, objective: int) -> BacklogRefused:
    """The refusal of a column whose dual sum falls below its objective."""
    return BacklogRefused(f"column {name}: the sum of its coefficients times the duals = {Fraction(total, den)} "
                          f"< {objective}")


def _n_sum(inst: _Instance, y: dict[Key, int], a: str, b: str) -> int:
    """The (scaled) dual sum of N[a, b]: flow b (+1) or end (+1), flow a (-1), cap (-c_u), issue (+1), persist (+1)."""
    total = y.get(("end",), 0) if b == END else y.get(("flow", b), 0)
    total -= y.get(("flow", a), 0)
    total -= sum(inst.cap[u] * y.get(("cap", a, b, u), 0) for u in inst.units)
    total += y.get(("issue", a, b), 0)
    if b != END:
        total += sum(y.get(("persist", u, a, b), 0) for u in members(a))
    return total


def _check_n(inst: _Instance, y: dict[Key, int], den: int) -> None:
    """N[start, b] >= 0 (start + flow b), then N[a, b] >= 1."""
    for b in inst.states:
        total = y.get(("start",), 0) + y.get(("flow", b), 0)
        if total < 0:
            raise _refuse_column(f"N[start, {b}]", total, den, 0)
    for a, b in inst.pairs():
        total = _n_sum(inst, y, a, b)
        if total < den:
            raise _refuse_column(f"N[{a}, {b}]", total, den, 1)


def _per_phase(inst: _Instance, y: dict[Key, int], head: str, state: str, shift: int) -> list[int]:
    """The duals of rows [head, state, p + shift] for p = 0 .. P-1 (0 where none is listed)."""
    return [y.get((head, state, p + shift), 0) for p in range(inst.phases)]


def _y_sums(inst: _Instance, y: dict[Key, int], a: str, b: str, base: list[int], nxt: list[int]) -> list[int]:
    """The (scaled) dual sums of Y[p, a, b], p = 0 .. P-1.

    Y[p, a, b] lies in cap [a, b, u(p)] (+1), issue [a, b] (-1), pass [b, p+1] (+1), pass [a, p] (-1),
    zsum [u(p), a] (-1), work [p] (+1) and, when a is a tail state, tail [p] (+1); ``base`` holds the terms
    of a alone (work, tail, pass [a, p], zsum), ``nxt`` the pass [b, p+1] duals (zeros when b is ``end``).
    A row the instance lacks is never listed, so its dual 0 stands for its absence.
    """
    cap = {u: y.get(("cap", a, b, u), 0) for u in inst.units}
    issue = y.get(("issue", a, b), 0)
    return [s + n + cap[u] - issue for s, n, u in zip(base, nxt, inst.unit_of)]


def _check_y(inst: _Instance, y: dict[Key, int], den: int) -> None:
    """Y[p, a, b] >= 0 for every p and allowed (a, b); the refusal names the first by p, then (a, b)."""
    work = [y.get(("work", p), 0) for p in range(inst.phases)]
    tail = [y.get(("tail", p), 0) for p in range(inst.phases)]
    base: dict[str, list[int]] = {}
    nxt: dict[str, list[int]] = {}
    for s in inst.states:
        zsum = {u: y.get(("zsum", u, s), 0) for u in inst.units}
        own = _per_phase(inst, y, "pass", s, 0)
        base[s] = [w + (t if is_tail(s) else 0) - q - zsum[u] for w, t, q, u in zip(work, tail, own, inst.unit_of)]
        nxt[s] = _per_phase(inst, y, "pass", s, 1)
    nxt[END] = [0] * inst.phases
    first: tuple[int, int, int] | None = None  # (p, pair index, sum)
    for i, (a, b) in enumerate(inst.pairs()):
        sums = _y_sums(inst, y, a, b, base[a], nxt[b])
        if min(sums) < 0:
            p = next(p for p, v in enumerate(sums) if v < 0)
            if first is None or p < first[0]:
                first = (p, i, sums[p])
    if first is not None:
        p, i, total = first
        a, b = inst.pairs()[i]
        raise _refuse_column(f"Y[{p}, {a}, {b}]", total, den, 0)


def _check_z(inst: _Instance, y: dict[Key, int], den: int) -> None:
    """Z[u, a, b] >= 0: zsum [u, b] (+1), persist [u, a, b] (-1)."""
    for a, b in inst.pairs():
        if b == END:
            continue
        for u in members(a):
            total = y.get(("zsum", u, b), 0) - y.get(("persist", u, a, b), 0)
            if total < 0:
                raise _refuse_column(f"Z[{u}, {a}, {b}]", total, den, 0)


def _objective(inst: _Instance, duals: dict[Key, Fraction]) -> Fraction:
    """sum over rows of rhs * dual: start and end (1), work (W), tail (2C); the other rows have rhs 0."""
    room = 2 * sum(inst.cap.values())
    rhs = {"start": 1, "end": 1, "work": inst.warps, "tail": room}
    return sum((rhs.get(k[0], 0) * d for k, d in duals.items()), Fraction(0))


def checked_backlog(kernel: RefKernel, warps: int, bound: dict[str, Any]) -> int:
    """The backlog bound the duals prove for ``warps`` warps; BacklogRefused at the first fault.

    Refused: an instruction of more than one cycle, a malformed certificate or
    key, a key naming no row, a key listed twice, a negative dual on an ``le``
    row, and a column whose dual sum falls below its objective (checked in the
    order N[start, b], N[a, b], Y[p, a, b], Z[u, a, b]).
    """
    slow = [f"{i.unit}{i.latency}" for i in kernel.instrs if i.latency != 1]
    if slow:
        raise BacklogRefused(f"the backlog bound holds for one-cycle kernels; {slow[0]} takes "
                             f"{slow[0][1:]} cycles")
    if type(warps) is not int or warps < 1:
        raise BacklogRefused(f"warps {warps!r} must be an integer of at least 1")
    inst = _instance(kernel, warps)
    duals = _read_duals(inst, bound)
    scaled, den = _scaled(duals)
    _check_n(inst, scaled, den)
    _check_y(inst, scaled, den)
    _check_z(inst, scaled, den)
    return math.floor(_objective(inst, duals))


__all__ = ["BacklogRefused", "checked_backlog"]
