"""An upper bound on the makespan, linear in W: a ranking function found by linear programming.

The deficit method bounds one unit's unused slots; its slope in W is fixed
(w_u / sigma_u), so it fails wherever the worst case grows faster than the
busiest unit's work.  Here the potential is

    Psi(s) = sum_p c_p * n_p  +  g(alpha(s))

(n_p: warps in phase p; alpha: the counts capped per phase, as in the deficit
method) and every work-conserving move s -> s' must lower it by at least one
cycle.  With m_p the warps leaving phase p in the move, the drop is
sum_p m_p (c_p - c_{p+1}) + g(alpha s) - g(alpha s'): one linear row per
abstract move of the symbolic graph of ``abstract.py`` (per-phase caps; a
capped busy stage, which all its warps leave, counts its cap and gets
c_p >= c_{p+1}, so that more warps only drop Psi more).  HiGHS minimises Psi(initial) = c_0 W + g(alpha(initial)); the solution
is made rational and checked exactly.  Then makespan <= floor(Psi(initial))
- g(done), for every W >= the largest cap with the same table.  A beam search ranked by
cycles so far plus Psi looks for a run that meets the bound.

Invariants (``refined_bounds``).  The LP's dual is a mixture of abstract
runs lasting exactly the bound; where it runs through an entry that no
reachable state lies in (``LLCLLL``, sigma_C = 1/2: "2 or more warps wait
for C, none past it", which n_2 - n_4 <= 1 rules out), the bound is loose.
The entries carrying the dual's flow with a capped count become suspects
for cegar's learning loop (``cegar.py``: a linear form true on sampled
states, kept only when inductive on the graph); the graph is rebuilt
without the entries the invariants exclude and the LP solved again, while
its optimum drops.  The certificate carries the invariants.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Hashable, Iterable, Iterator, TypeVar

from warpcheck.encodings.makespan.lp import solve_lp_duals
from warpcheck.models.makespan.sm import CountSM
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import Schedule, from_counts
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.verify.makespan.pump import Pump, pumped_run
from warpcheck.verify.makespan.abstract import (BASE, NARROW, WIDE, WIDE_SHARE, Abs, AbstractGraph, default_caps, first_runs,
                                               longer_run)
from warpcheck.verify.makespan.cegar import Invariant, guarded_graph, new_invariants, samples_for

Key = TypeVar("Key", bound=Hashable)  # an abstract state: capped counts, or a block state
Move = tuple[Abs, Abs, tuple[int, ...]]  # abstract state, next abstract state, warps leaving each phase
# the bound, the linear part, the table, and the invariants whose excluded entries the table leaves out
Found = tuple[int, list[Fraction], dict[Abs, Fraction], list[Invariant]]
INV_ROUNDS = 6  # LP solves per caps with new invariants: each round excludes the entries carrying the dual's flow
MAX_SUSPECTS = 12


@dataclass
class RankingResult:
    """The bound, the best run, and the rational ranking function proving the bound."""

    upper: int | None
    makespan: int
    schedule: Schedule
    exact: bool
    seconds: float
    caps: Abs = ()
    linear: list[Fraction] | None = None
    potential: dict[Abs, Fraction] | None = None
    pump: Pump | None = None  # when the run was pumped from a smaller W: then exact on the pump's whole class
    invariants: list[Invariant] = field(default_factory=list)  # the table leaves out the entries they exclude

    @property
    def states(self) -> int:
        return len(self.potential or {})


def graph_moves(ag: AbstractGraph) -> set[Move]:
    """The moves of a built graph (a guarded graph's leave out the entries its invariants exclude)."""
    return {(a, b, left) for a, ms in ag.succ.items() for left, b in ms}


def move_rows(moves: Iterable[Move], index: dict[Abs, int], P: int) -> list[tuple[list[tuple[int, float]], float]]:
    """One LP row per move: sum_p m_p (c_p - c_{p+1}) + g(a) - g(b) >= 1 (c_p at column p, g(a) at P + index[a])."""
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


def exact_drop(moves: Iterable[Move], linear: list[Fraction], g: dict[Abs, Fraction]) -> bool:
    """Whether every move lowers Psi by at least 1, in rational arithmetic."""
    c = linear + [Fraction(0)]
    return all(sum(m * (c[p] - c[p + 1]) for p, m in enumerate(left)) + g[a] - g[b] >= 1 for a, b, left in moves)


Flow = dict[Abs, float]  # the LP dual's weight on the moves out of each entry: the mixture of runs blocking a lower bound


def solve_ranking(ag: AbstractGraph, warps: int, deadline: float | None
                  ) -> tuple[tuple[int, list[Fraction], dict[Abs, Fraction]], Flow] | None:
    """The ranking LP over a built graph: the exact bound, linear part and table, and the dual's flow per entry."""
    sm, P = ag.sm, ag.P
    start, done = ag.initial(warps), ag.done
    moves = sorted(graph_moves(ag))
    states = sorted(set(ag.succ) | {start, done})
    index = {a: i for i, a in enumerate(states)}
    rows = move_rows(moves, index, P)
    busy = [p for p in range(P) if not sm.phases[p].is_wait]
    rows += [([(p, 1.0)] + ([(p + 1, -1.0)] if p + 1 < P else []), 0.0) for p in busy]
    n = P + len(states)
    rows.append(([(P + index[done], -1.0)], 0.0))
    lower = [-math.inf] * n
    for a in states:  # an entry without moves (all its next entries excluded) holds no reachable state: g >= 0 will do
        if a == done or not ag.succ.get(a):
            lower[P + index[a]] = 0.0
    cost = [0.0] * n
    cost[0], cost[P + index[start]] = float(warps), 1.0
    left = None if deadline is None else deadline - time.monotonic()
    solved = solve_lp_duals(n, cost, rows, lower, left)
    if solved is None:
        return None
    x, duals = solved
    found = _rational(x, states, moves, busy, warps, start, deadline)
    if found is None:
        return None
    flow: Flow = {}
    for (a, _, _), y in zip(moves, duals):
        if abs(y) > 1e-7:
            flow[a] = flow.get(a, 0.0) + abs(y)
    return found, flow


DENOMINATORS = (1, 2, 6, 12, 60, 420, 2520)  # tried in turn: the LP's optimum is rational with small ones


def rationalised(linear: list[float], table: dict[Key, float], done: Key, deadline: float | None
                 ) -> Iterator[tuple[list[Fraction], dict[Key, Fraction]]]:
    """The LP's floats as fractions of ever larger denominators (the table shifted to 0 at done), while time lasts.

    The caller checks each candidate exactly and keeps the first that holds.
    """
    for den in DENOMINATORS:
        if deadline is not None and time.monotonic() > deadline:
            return
        c = [Fraction(v).limit_denominator(den) for v in linear]
        g = {a: Fraction(v).limit_denominator(den) for a, v in table.items()}
        yield c, {a: v - g[done] for a, v in g.items()}


def potential_score(alpha: Callable[[tuple[int, ...]], Key], linear: list[Fraction], table: dict[Key, Fraction]
                    ) -> Callable[[tuple[int, ...]], tuple[int, float | None]]:
    """Cycles so far (1 a step) and Psi of the state, in floats: it only ranks the beam (the bound is exact)."""
    lin, g = [float(v) for v in linear], {a: float(v) for a, v in table.items()}

    def score(k: tuple[int, ...]) -> tuple[int, float | None]:
        a = alpha(k)
        return (1, sum(v * n for v, n in zip(lin, k)) + g[a]) if a in g else (1, None)
    return score


def _rational(x: list[float], states: list[Abs], moves: list[Move], busy: list[int], warps: int,
              start: Abs, deadline: float | None) -> tuple[int, list[Fraction], dict[Abs, Fraction]] | None:
    """Round the LP's floats to small denominators until the rows hold exactly."""
    P = len(start)
    table = {a: x[P + i] for i, a in enumerate(states)}
    for c, g in rationalised(x[:P], table, tuple(0 for _ in range(P)), deadline):
        cc = c + [Fraction(0)]
        if all(cc[p] >= cc[p + 1] for p in busy) and exact_drop(moves, c, g):
            return math.floor(c[0] * warps + g[start]), c, g
    return None


def blocking_entries(flow: Flow, caps: Abs) -> list[Abs]:
    """The entries carrying the dual's flow with a capped count (the only ones an invariant can exclude), most first."""
    ranked = sorted(flow, key=lambda a: (-flow[a], a))
    return [a for a in ranked if any(v >= k for v, k in zip(a, caps))][:MAX_SUSPECTS]


class Samples:
    """Concrete states that invariant guesses must respect, computed once and only if a guess is needed."""

    def __init__(self, kernel: MkKernel) -> None:
        self.kernel = kernel
        self.states: list[tuple[int, ...]] | None = None

    def get(self, deadline: float) -> list[tuple[int, ...]]:
        if self.states is None:
            self.states = samples_for(self.kernel, deadline)
        return self.states


def refined_bounds(kernel: MkKernel, warps: int, caps: Abs, deadline: float, invs: list[Invariant],
                   samples: Samples, progress: Callable[[str], None] | None = None) -> Iterator[Found]:
    """Ranking bounds over the graph cut by inductive invariants, each lower than the last (a lazy generator).

    The LP's dual is a mixture of abstract runs lasting exactly the bound; the
    entries it runs through with a capped count are the suspects: an
    invariant (cegar's learning loop, checked inductive on the graph) that
    excludes them removes that mixture, and the LP solves again.  Lazy, so
    that no invariant is learnt once a run meets a bound.
    """
    best_value: Fraction | None = None
    rejected: set[Invariant] = set()
    for _ in range(INV_ROUNDS + 1):
        built = guarded_graph(kernel, warps, caps, invs, deadline, rejected, reserve=1.0)
        solved = None if built is None else solve_ranking(built[0], warps, deadline)
        if built is None or solved is None:
            return
        ag, invs = built
        (upper, linear, g), flow = solved
        value = linear[0] * warps + g[ag.initial(warps)]
        if progress:
            progress(f"ranking: caps {list(caps)}, {len(invs)} invariants, {ag.states()} states: bound {upper}")
        if best_value is not None and value >= best_value:
            return  # the new invariants did not lower the optimum: the mixture found another way
        best_value = value
        yield upper, linear, g, list(invs)
        if time.monotonic() > deadline:
            return
        new = new_invariants(kernel, ag, blocking_entries(flow, caps), samples.get(deadline), deadline, rejected)
        if progress:
            progress(f"ranking: new invariants {new}" if new else "ranking: no invariant excludes the dual's entries")
        if not new:
            return
        invs = invs + new


def ranking_search(kernel: MkKernel, warps: int, budget: float = 30.0, max_extra: int = 2,
                   progress: Callable[[str], None] | None = None) -> RankingResult:
    """Bound the makespan by a ranking function, cutting the graph by invariants and raising the caps while no run
    meets the bound."""
    start = time.monotonic()
    deadline, refine_until = start + budget, start + WIDE_SHARE * budget
    sm = CountSM(kernel, warps)
    moves = CountMoves(sm)
    run, best, scores = first_runs(sm, moves), None, []
    pump, met = None, False
    samples = Samples(kernel)
    carried: list[Invariant] = []  # invariants found with coarser caps are tried first with finer ones
    for extra in range(max_extra + 1):
        if met or time.monotonic() > refine_until:
            break
        caps = default_caps(kernel, extra)
        for found in refined_bounds(kernel, warps, caps, refine_until, carried, samples, progress):
            if best is None or found[0] < best[0][0]:
                best, carried = (found, caps), found[3]
            scores.append(_score(kernel, caps, found))
            pumped = _pumped(kernel, warps, caps, found, scores[-1], refine_until, progress)
            if pumped is not None and found[0] == best[0][0]:
                (run, pump), met = pumped, True
                break
            run = longer_run(moves, scores[-1], run, best[0][0], NARROW, deadline, progress, "ranking")
            if len(run) >= best[0][0]:
                met = True
                break
    for score in scores:  # every potential guides a wide beam: the tightest is not always the best guide
        if best is None or len(run) >= best[0][0]:
            break
        run = longer_run(moves, score, run, best[0][0], WIDE, deadline, progress, "ranking")
    upper = best[0][0] if best else None
    return RankingResult(upper, len(run), from_counts(sm, run), upper == len(run), time.monotonic() - start,
                         best[1] if best else (), best[0][1] if best else None, best[0][2] if best else None, pump,
                         best[0][3] if best else [])


def _pumped(kernel: MkKernel, warps: int, caps: Abs, found: Found,
            score: Callable[[tuple[int, ...]], tuple[int, float | None]], deadline: float,
            progress: Callable[[str], None] | None) -> tuple[list[dict[str, int]], Pump] | None:
    """A run meeting the bound, pumped from a small W: the potential is one table for every W from the cap of phase 0."""
    linear, g = found[1], found[2]
    ag = AbstractGraph(kernel, caps)

    def bound_at(w: int) -> int | None:
        a0 = ag.initial(w)
        return math.floor(linear[0] * w + g[a0]) if w >= caps[0] and a0 in g else None

    def beam(moves: CountMoves) -> list[dict[str, int]]:
        target = bound_at(moves.sm.warps) or 0
        return longer_run(moves, score, first_runs(moves.sm, moves), target, BASE, deadline, None, "")
    return pumped_run(kernel, warps, linear[0], bound_at, beam, deadline, progress)


def _score(kernel: MkKernel, caps: Abs, found: Found) -> Callable[[tuple[int, ...]], tuple[int, float | None]]:
    """Psi of a found bound as a beam score."""
    return potential_score(AbstractGraph(kernel, caps).alpha, found[1], found[2])
