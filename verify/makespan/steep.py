"""An upper bound for kernels whose worst case is steeper than any unit's work: a potential with a kink.

Where a unit u idles while its upstream unit works the first phases of every
warp (``LLLCLCL``, sigma_C = 1/3: 8W + 3 against 6W of C work), the worst
case to go is about ``rem_u(n) + max(k1, l(n) + k2)``, with l a *relational*
form: the upstream work still ahead of u's first phase minus u's backlog.
One linear part plus a table over capped counts cannot follow that kink.

Here the abstract state is the capped counts a (as in ``abstract.py``) and
z, the form l(n) = sum_p w_p n_p (integer weights) clamped to [lo, hi]
(z = hi means l >= hi, z = lo means l <= lo).  The potential is

    Psi(n) = sum_p c_p n_p + G(a, z) + f(z, l),
    f(hi, l) = s_hi (l - hi),  f(lo, l) = s_lo (l - lo),  f(z, l) = 0 between,

so G follows l exactly between lo and hi and Psi is linear beyond, with its
own slope on each side.  A move with m_p warps leaving phase p changes l by
Delta = sum_p m_p (w_{p+1} - w_p): the drop is linear in (c, G, s) for each
value of l, and linear in l inside each pair of classes (z, z'), so two rows
(the ends of the interval of l) cover each abstract move; an unbounded
interval only occurs from hi to hi or lo to lo, where the l-terms cancel.  The
interval of l is also cut by what the capped counts allow (``l_range``):
entries that stand for no state are dropped.  One LP (HiGHS) minimises
Psi(initial); its floats are made rational and every row re-checked exactly.

Single-cycle kernels only (every phase a wait phase: the warps leaving a
phase are then known exactly, so is Delta).  No certificate format covers
this potential, so the search never claims exact.  Result (see
docs/makespan-steep.md): on ``LLLCLCL`` every form tried still gives 9W + 2,
like the plain ranking LP, at 2 to 60 times its cost; ``obstruction`` shows
why (the LP's dual is a mixture of abstract runs balanced only on average).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Iterator, Sequence

from warpcheck.encodings.makespan.lp_dual import solve_lp_duals
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.schedule import Schedule, from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.verify.makespan.abstract import (NARROW, WIDE, WIDE_SHARE, Abs, AbstractGraph, default_caps, first_runs,
                                               longer_run)

Entry = tuple[Abs, int]  # capped counts, clamped form
Row = tuple[tuple[int, ...], Entry, Entry, Fraction, Fraction]  # left, from, to, coefficient of s_hi, of s_lo


@dataclass(frozen=True)
class Form:
    """The relational form l(n) = sum_p w_p n_p and the window [lo, hi] where the table follows it exactly."""

    weights: tuple[int, ...]
    lo: int
    hi: int

    def clamp(self, value: int) -> int:
        """The z of an exact value of l."""
        return max(self.lo, min(self.hi, value))

    def delta(self, left: Sequence[int]) -> int:
        """How much l changes when ``left[p]`` warps leave phase p (to p + 1; done has weight 0)."""
        w = list(self.weights) + [0]
        return sum(m * (w[p + 1] - w[p]) for p, m in enumerate(left) if m)


@dataclass
class SteepResult:
    """The bound, the best run, and the piecewise potential proving the bound (same fields as RankingResult)."""

    upper: int | None
    makespan: int
    schedule: Schedule
    exact: bool
    seconds: float
    caps: Abs = ()
    linear: list[Fraction] | None = None
    potential: dict[Entry, Fraction] | None = None
    form: Form | None = None
    slopes: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0))  # s_lo, s_hi

    @property
    def states(self) -> int:
        return len(self.potential or {})


Interval = tuple[int | None, int | None]  # None: unbounded on that side


def l_range(form: Form, caps: Abs, a: Abs) -> Interval:
    """The values l may take over the concrete states of capped counts ``a`` (a capped count: cap or more)."""
    lo: int | None = 0
    hi: int | None = 0
    for w, v, k in zip(form.weights, a, caps):
        lo = None if lo is None or (v >= k and w < 0) else lo + w * v
        hi = None if hi is None or (v >= k and w > 0) else hi + w * v
    return lo, hi


def z_range(form: Form, z: int) -> Interval:
    """The values of l that clamp to z."""
    return (None if z == form.lo else z, None if z == form.hi else z)


def meet(x: Interval, y: Interval) -> Interval | None:
    """The intersection of two intervals, or None when empty."""
    lo = x[0] if y[0] is None else y[0] if x[0] is None else max(x[0], y[0])
    hi = x[1] if y[1] is None else y[1] if x[1] is None else min(x[1], y[1])
    return None if lo is not None and hi is not None and lo > hi else (lo, hi)


def f_coeffs(form: Form, z: int, value: int) -> tuple[Fraction, Fraction]:
    """f(z, l) at l = value as coefficients of (s_hi, s_lo)."""
    if z == form.hi:
        return Fraction(value - form.hi), Fraction(0)
    if z == form.lo:
        return Fraction(0), Fraction(value - form.lo)
    return Fraction(0), Fraction(0)


def next_entries(form: Form, caps: Abs, a: Abs, z: int, b: Abs, delta: int) -> Iterator[tuple[int, list[int]]]:
    """Every z' of the move a -> b with this Delta, with the values of l (interval ends) where the drop is least."""
    here = meet(l_range(form, caps, a), z_range(form, z))
    there = l_range(form, caps, b)
    if here is None:
        return
    shifted = (None if there[0] is None else there[0] - delta, None if there[1] is None else there[1] - delta)
    span = meet(here, shifted)
    if span is None:
        return
    for z2 in _classes(form, span, delta):
        got = z_range(form, z2)
        part = meet(span, (None if got[0] is None else got[0] - delta, None if got[1] is None else got[1] - delta))
        if part is None:
            continue
        ends = sorted({v for v in part if v is not None})
        if not ends:
            raise ValueError("an l interval unbounded on both sides")  # form and caps admit no such entry: a bug
        yield z2, ends


def _classes(form: Form, span: Interval, delta: int) -> list[int]:
    """The z' values met by l + delta for l in ``span``."""
    lo = form.lo if span[0] is None else form.clamp(span[0] + delta)
    hi = form.hi if span[1] is None else form.clamp(span[1] + delta)
    return list(range(lo, hi + 1))


def build_rows(form: Form, ag: AbstractGraph, start: Entry, deadline: float | None) -> list[Row] | None:
    """Every abstract move reachable from ``start`` as LP rows (None if the deadline passed first)."""
    rows: list[Row] = []
    seen = {start}
    todo = [start]
    while todo:
        if deadline is not None and len(seen) % 256 == 0 and time.monotonic() > deadline:
            return None
        a, z = todo.pop()
        if not any(a):
            continue
        for left, b in ag.moves(a):
            for z2, ends in next_entries(form, ag.caps, a, z, b, form.delta(left)):
                nxt = (b, z2)
                for v in ends:
                    h1, l1 = f_coeffs(form, z, v)
                    h2, l2 = f_coeffs(form, z2, v + form.delta(left))
                    rows.append((left, (a, z), nxt, h1 - h2, l1 - l2))
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return rows


@dataclass
class _Solved:
    """One solved LP: its rows and entries, the columns of the entries, and the floats (primal, row duals)."""

    rows: list[Row]
    states: list[Entry]
    index: dict[Entry, int]
    P: int
    start: Entry
    x: list[float]
    duals: list[float]


def _lp(kernel: MkKernel, warps: int, caps: Abs, form: Form, deadline: float | None) -> _Solved | None:
    """Build and solve the LP of this form and these caps (floats, with the row duals)."""
    ag = AbstractGraph(kernel, caps)
    P = ag.P
    start = (ag.initial(warps), form.clamp(form.weights[0] * warps))
    rows = build_rows(form, ag, start, deadline)
    if rows is None:
        return None
    done = (tuple(0 for _ in range(P)), 0)
    states = sorted({r[1] for r in rows} | {r[2] for r in rows} | {start, done})
    index = {e: P + 2 + i for i, e in enumerate(states)}  # columns: c_0..c_{P-1}, s_hi, s_lo, then G
    lp_rows = [_lp_row(r, index, P) for r in rows]
    n = P + 2 + len(states)
    lower = [-math.inf] * n
    lower[index[done]] = 0.0
    lp_rows.append(([(index[done], -1.0)], 0.0))
    h0, l0 = f_coeffs(form, start[1], form.weights[0] * warps)
    cost = [0.0] * n
    cost[0], cost[P], cost[P + 1] = float(warps), float(h0), float(l0)
    cost[index[start]] += 1.0
    left = None if deadline is None else deadline - time.monotonic()
    solved = solve_lp_duals(n, cost, lp_rows, lower, left)
    if solved is None:
        return None
    return _Solved(rows, states, index, P, start, solved[0], solved[1][:len(rows)])


def steep_bound(kernel: MkKernel, warps: int, caps: Abs, form: Form, deadline: float | None = None
                ) -> tuple[int, list[Fraction], dict[Entry, Fraction], tuple[Fraction, Fraction]] | None:
    """The least bound the LP finds for this form and these caps: (bound, c, G, (s_lo, s_hi)), or None."""
    got = _lp(kernel, warps, caps, form, deadline)
    if got is None:
        return None
    return _rational(got, warps, form, deadline)


def obstruction(kernel: MkKernel, warps: int, caps: Abs, form: Form | None = None, deadline: float | None = None
                ) -> dict[tuple[tuple[int, int], ...], float] | None:
    """Why the LP's bound is what it is: the dual weight on each issue pattern (phase, warps issued), summed.

    The dual of the ranking LP is a fractional mix of abstract runs from the
    initial entry to done that moves W warps through every phase *on
    average* (the linear part's rows) and lasts exactly the bound.  A mix that
    no single run can follow (e.g. the C unit idle while L issues the last
    phase of every warp, mixed with L idle while C works) is what keeps the
    bound above the worst case.  With no form, this is the plain ranking LP.
    """
    form = form or Form(tuple(0 for _ in range(len(caps))), -1, 1)
    got = _lp(kernel, warps, caps, form, deadline)
    if got is None:
        return None
    out: dict[tuple[tuple[int, int], ...], float] = {}
    for row, y in zip(got.rows, got.duals):
        if y > 1e-9:
            key = tuple((p, m) for p, m in enumerate(row[0]) if m)
            out[key] = out.get(key, 0.0) + y
    return out


def _lp_row(row: Row, index: dict[Entry, int], P: int) -> tuple[list[tuple[int, float]], float]:
    left, src, dst, h, lo = row
    terms: dict[int, float] = {}
    for p, m in enumerate(left):
        if m:
            terms[p] = terms.get(p, 0.0) + m
            if p + 1 < P:
                terms[p + 1] = terms.get(p + 1, 0.0) - m
    terms[P] = float(h)
    terms[P + 1] = float(lo)
    terms[index[src]] = terms.get(index[src], 0.0) + 1
    terms[index[dst]] = terms.get(index[dst], 0.0) - 1
    return [(j, v) for j, v in terms.items() if v], 1.0


def row_holds(row: Row, c: Sequence[Fraction], g: dict[Entry, Fraction], s_hi: Fraction, s_lo: Fraction) -> bool:
    """Whether one row's drop is at least 1, in rational arithmetic."""
    left, src, dst, h, lo = row
    cc = list(c) + [Fraction(0)]
    drop = sum(m * (cc[p] - cc[p + 1]) for p, m in enumerate(left)) + g[src] - g[dst] + h * s_hi + lo * s_lo
    return drop >= 1


def _rational(got: _Solved, warps: int, form: Form, deadline: float | None
              ) -> tuple[int, list[Fraction], dict[Entry, Fraction], tuple[Fraction, Fraction]] | None:
    """Round the LP's floats to small denominators until every row holds exactly."""
    P, x = got.P, got.x
    done = (tuple(0 for _ in range(P)), 0)
    for den in (1, 2, 6, 12, 60, 420, 2520):
        if deadline is not None and time.monotonic() > deadline:
            return None
        c = [Fraction(v).limit_denominator(den) for v in x[:P]]
        s_hi, s_lo = Fraction(x[P]).limit_denominator(den), Fraction(x[P + 1]).limit_denominator(den)
        g = {e: Fraction(x[got.index[e]]).limit_denominator(den) for e in got.states}
        base = g[done]
        g = {e: v - base for e, v in g.items()}
        if all(row_holds(r, c, g, s_hi, s_lo) for r in got.rows):
            h0, l0 = f_coeffs(form, got.start[1], form.weights[0] * warps)
            return math.floor(c[0] * warps + g[got.start] + h0 * s_hi + l0 * s_lo), c, g, (s_lo, s_hi)
    return None


def candidate_forms(kernel: MkKernel, window: int = 2) -> list[Form]:
    """Forms 'upstream work ahead of unit u's first phase, minus u's backlog', one per unit and gate, scaled to integers.

    For a unit u and a gate j (the first phase of u), a warp before the gate
    weighs the upstream work it still needs before its last phase ahead of
    the gate (in cycles of its unit, times sigma_u), and a warp at or after
    the gate weighs minus its remaining u work (times the upstream sigma).
    """
    P = len(kernel.instrs)
    units = [ins.unit for ins in kernel.instrs]
    out: list[Form] = []
    for u in kernel.units:
        gate = units.index(u)
        if gate < 1:
            continue
        up = units[gate - 1]
        su, sv = kernel.sigma_of(u), kernel.sigma_of(up)
        rem = [sum(1 for q in range(p, P) if units[q] == u) for p in range(P)]
        for skip in (1, 0):
            ahead = [sum(1 for q in range(p, gate - skip) if units[q] == up) for p in range(gate)]
            w = tuple([su * v for v in ahead] + [-sv * rem[p] for p in range(gate, P)])
            if any(w):
                out.append(Form(w, -window, window))
    return list(dict.fromkeys(out))


def steep_search(kernel: MkKernel, warps: int, budget: float = 30.0, forms: Iterable[Form] | None = None,
                 progress: Callable[[str], None] | None = None) -> SteepResult:
    """Bound the makespan by a potential with a kink along a relational form, and look for a long run.

    Never claims exact: no certificate format or checker covers this potential
    yet, so its bound is an upper estimate for the interval only.
    """
    start = time.monotonic()
    deadline = start + budget
    sm = CountSM(kernel, warps)
    moves = CountMoves(sm)
    run = first_runs(sm, moves)
    best = None
    if kernel.single_cycle:
        for form in forms if forms is not None else candidate_forms(kernel):
            found = steep_bound(kernel, warps, default_caps(kernel), form, start + WIDE_SHARE * budget)
            if progress:
                progress(f"steep: form {list(form.weights)}: bound {found[0] if found else None}")
            if found is not None and (best is None or found[0] < best[0][0]):
                best = (found, form)
    if best is None:
        return SteepResult(None, len(run), from_counts(sm, run), False, time.monotonic() - start)
    (upper, c, g, slopes), form = best
    caps = default_caps(kernel)
    run = longer_run(moves, _score(kernel, caps, form, c, g, slopes), run, upper, NARROW + WIDE, deadline,
                     progress, "steep")
    return SteepResult(upper, len(run), from_counts(sm, run), False, time.monotonic() - start, caps, c, g, form,
                       slopes)


def psi_of(form: Form, ag: AbstractGraph, c: Sequence[Fraction], g: dict[Entry, Fraction],
           slopes: tuple[Fraction, Fraction], k: Sequence[int]) -> Fraction | None:
    """Psi of a concrete count state (done count last, ignored), or None when its entry is not in the table."""
    n = k[:ag.P]
    value = sum(w * v for w, v in zip(form.weights, n))
    e = (ag.alpha(n), form.clamp(value))
    if e not in g:
        return None
    h, lo = f_coeffs(form, e[1], value)
    return sum(ci * v for ci, v in zip(c, n)) + g[e] + h * slopes[1] + lo * slopes[0]


def _score(kernel: MkKernel, caps: Abs, form: Form, c: list[Fraction], g: dict[Entry, Fraction],
           slopes: tuple[Fraction, Fraction]) -> Callable[[tuple[int, ...]], tuple[int, float | None]]:
    """Cycles so far (1 a step) and Psi of the state in floats: it only ranks the beam."""
    ag = AbstractGraph(kernel, caps)

    def score(k: tuple[int, ...]) -> tuple[int, float | None]:
        v = psi_of(form, ag, c, g, slopes, k)
        return (1, None if v is None else float(v))
    return score
