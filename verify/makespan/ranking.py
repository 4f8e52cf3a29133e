"""An upper bound on the makespan, linear in W: a ranking function found by linear programming.

The deficit method bounds one unit's unused slots; its slope in W is fixed
(w_u / sigma_u), so it fails wherever the worst case grows faster than the
busiest unit's work.  Here the potential is

    Psi(s) = sum_p c_p * n_p  +  g(alpha(s))

(n_p: warps in phase p; alpha: the counts capped at K, as in the deficit
method) and every work-conserving move s -> s' must lower it by at least one
cycle.  With m_p the warps leaving phase p in the move, the drop is
sum_p m_p (c_p - c_{p+1}) + g(alpha s) - g(alpha s'): one linear row per
abstract move (capped counts stand for K .. K + max sigma; a busy phase, which
all its warps leave, gets c_p >= c_{p+1} so that more warps only drop it
more).  HiGHS minimises Psi(initial) = c_0 W + g(alpha(initial)); the solution
is made rational and checked exactly.  Then makespan <= floor(Psi(initial))
- g(done), for every W >= K with the same table.  A beam search ranked by
cycles so far plus Psi looks for a run that meets the bound.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.makespan.lp import solve_lp
from warpcheck.models.makespan.sm import CountSM
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import Schedule, from_counts
from warpcheck.verify.makespan.abstract import Abs, AbstractGraph, bounds_by_cap, first_runs

Move = tuple[Abs, Abs, tuple[int, ...]]  # abstract state, next abstract state, warps leaving each phase


@dataclass
class RankingResult:
    """The bound, the best run, and the rational ranking function proving the bound."""

    upper: int | None
    makespan: int
    schedule: Schedule
    exact: bool
    seconds: float
    cap: int = 0
    linear: list[Fraction] | None = None
    potential: dict[Abs, Fraction] | None = None

    @property
    def states(self) -> int:
        return len(self.potential or {})


def abstract_moves(kernel: MkKernel, cap: int, start: Abs, deadline: float | None) -> set[Move] | None:
    """Every abstract move reachable from ``start`` (None if the deadline passed first)."""
    ag, moves = AbstractGraph(kernel, cap), set()
    sm, todo, seen = ag.sm, [start], {start}
    while todo:
        if deadline is not None and time.monotonic() > deadline:
            return None
        a = todo.pop()
        if not any(a):
            continue
        for s in ag.reps(a):
            if any(sm.free_slots(CONCRETE, s, u) < 0 for u in kernel.units):
                continue  # more slots held than the unit has: never reached
            for inp in sm.choices(s):
                b = ag.alpha(sm.step(CONCRETE, s, inp))
                left = tuple(inp.get(f"a{p}", 0) if sm.phases[p].is_wait else s[f"n{p}"] for p in range(ag.n_abs))
                moves.add((a, b, left))
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
    return moves


def _rows(moves: set[Move], index: dict[Abs, int], P: int) -> list[tuple[list[tuple[int, float]], float]]:
    rows = []
    for a, b, left in moves:
        terms: dict[int, float] = {}
        for p, m in enumerate(left):
            if m:
                terms[p] = terms.get(p, 0.0) + m
                if p + 1 < P:
                    terms[p + 1] = terms.get(p + 1, 0.0) - m
        terms[P + index[a]] = terms.get(P + index[a], 0.0) + 1
        terms[P + index[b]] = terms.get(P + index[b], 0.0) - 1
        rows.append(([(j, v) for j, v in terms.items() if v], 1.0))
    return rows


def exact_drop(moves: set[Move], linear: list[Fraction], g: dict[Abs, Fraction]) -> bool:
    """Whether every move lowers Psi by at least 1, in rational arithmetic."""
    c = linear + [Fraction(0)]
    return all(sum(m * (c[p] - c[p + 1]) for p, m in enumerate(left)) + g[a] - g[b] >= 1 for a, b, left in moves)


def ranking_bound(kernel: MkKernel, warps: int, cap: int, deadline: float | None = None
                  ) -> tuple[int, list[Fraction], dict[Abs, Fraction]] | None:
    """The least bound c_0 W + g(initial) - g(done) the LP finds with counts capped at ``cap``, or None."""
    sm = CountSM(kernel, 1)
    P = len(sm.phases) - 1
    start = tuple(min(warps, cap) if p == 0 else 0 for p in range(P))
    moves = abstract_moves(kernel, cap, start, deadline)
    if moves is None:
        return None
    states = sorted({a for a, _, _ in moves} | {b for _, b, _ in moves} | {start})
    index = {a: i for i, a in enumerate(states)}
    done = tuple(0 for _ in range(P))
    rows = _rows(moves, index, P)
    busy = [p for p in range(P) if not sm.phases[p].is_wait]
    rows += [([(p, 1.0)] + ([(p + 1, -1.0)] if p + 1 < P else []), 0.0) for p in busy]
    n = P + len(states)
    rows.append(([(P + index[done], -1.0)], 0.0))
    lower = [-math.inf] * n
    lower[P + index[done]] = 0.0
    cost = [0.0] * n
    cost[0], cost[P + index[start]] = float(warps), 1.0
    left = None if deadline is None else deadline - time.monotonic()
    x = solve_lp(n, cost, rows, lower, left)
    if x is None:
        return None
    return _rational(x, states, moves, busy, warps, start)


def _rational(x: list[float], states: list[Abs], moves: set[Move], busy: list[int], warps: int,
              start: Abs) -> tuple[int, list[Fraction], dict[Abs, Fraction]] | None:
    """Round the LP's floats to small denominators until the rows hold exactly."""
    P = len(start)
    for den in (1, 2, 6, 12, 60, 420, 2520):
        c = [Fraction(v).limit_denominator(den) for v in x[:P]] + [Fraction(0)]
        g = {a: Fraction(x[P + i]).limit_denominator(den) for i, a in enumerate(states)}
        done = g[tuple(0 for _ in range(P))]
        g = {a: v - done for a, v in g.items()}
        if all(c[p] >= c[p + 1] for p in busy) and exact_drop(moves, c[:P], g):
            return math.floor(c[0] * warps + g[start]), c[:P], g
    return None


def _psi(sm: CountSM, linear: list[Fraction], g: dict[Abs, Fraction], cap: int, s: dict[str, int]) -> Fraction:
    P = len(linear)
    a = tuple(min(s[f"n{p}"], cap) for p in range(P))
    return sum((linear[p] * s[f"n{p}"] for p in range(P)), Fraction(0)) + g.get(a, Fraction(-10 ** 9))


def guided_run(sm: CountSM, score: Callable[[dict[str, int]], Fraction], width: int) -> list[dict[str, int]]:
    """Beam search for a long run: keep the ``width`` states with most cycles so far plus ``score``."""
    names = [v.name for v in sm.state_vars()]
    beam: list[tuple[dict[str, int], tuple]] = [(sm.init(CONCRETE, {}), ())]
    best: tuple = ()
    while beam:
        nxt: dict[tuple[int, ...], tuple[Fraction, dict[str, int], tuple]] = {}
        for s, path in beam:
            if sm.finished(CONCRETE, s):
                best = path
                continue
            for inp in sm.choices(s):
                t = sm.step(CONCRETE, s, inp)
                key = tuple(t[n] for n in names)
                sc = score(t)
                if key not in nxt or nxt[key][0] < sc:
                    nxt[key] = (sc, t, (path, inp))
        beam = [(t, path) for _, t, path in sorted(nxt.values(), key=lambda e: -e[0])[:width]]
    out: list[dict[str, int]] = []
    while best:
        best, inp = best
        out.append(inp)
    return out[::-1]


def ranking_search(kernel: MkKernel, warps: int, budget: float = 30.0, max_extra_cap: int = 2,
                   progress: Callable[[str], None] | None = None) -> RankingResult:
    """Bound the makespan by a ranking function, raising the cap while the bound is not met by a run."""
    start = time.monotonic()
    sm = CountSM(kernel, warps)
    smax = max(kernel.sigma_of(u) for u in kernel.units)
    run, best = first_runs(sm), None
    for cap, found in bounds_by_cap(range(smax, smax + max_extra_cap + 1), start + budget, "ranking", progress,
                                    lambda cap: ranking_bound(kernel, warps, cap, start + budget)):
        if best is None or found[0] < best[0][0]:
            best = (found, cap)
        linear, g = found[1], found[2]
        for width in (1, 8, 64):
            if len(run) >= best[0][0]:
                break
            guided = guided_run(sm, lambda s: _psi(sm, linear, g, cap, s), width)
            run = guided if len(guided) > len(run) else run
            if len(run) >= best[0][0] or time.monotonic() - start > budget:
                break
        if len(run) >= best[0][0]:
            break
    upper = best[0][0] if best else None
    return RankingResult(upper, len(run), from_counts(sm, run), upper == len(run), time.monotonic() - start,
                         best[1] if best else 0, best[0][1] if best else None, best[0][2] if best else None)
