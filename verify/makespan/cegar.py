"""Deficit accounting refined by linear invariants: the abstract cycles that caps alone cannot break.

Why caps are not enough.  In ``LLCLLL`` (sigma_C = 1/2, so ``LLCCLLL`` with
sigma 1) the L unit idles only while every warp waits on C.  In the capped
graph the state "C phase 2 holds K or more warps, the L phases are empty"
loops on itself: C takes one warp out of phase 2 per cycle, and "K or more,
minus one" is again "K or more".  Raising K does not help: whatever K, a
count at its cap can shrink for ever.  The concrete fact that is lost is
relational: n_2 - n_4 <= 1 in every reachable state, the form the search
finds (a warp enters phase 2 only when L issues from phase 1, and C, busy
while n_2 >= 1, then drains phase 2 or feeds phase 4).  With it, an L-idle state holds at most one warp in phase 2, and
the deficit cycle is gone once the cap of phase 2 exceeds 1.

The loop (counterexample-guided).  Build the capped graph; if a deficit cycle
(or a longest deficit path that no run meets) remains, take its states as
*suspects* and ask an LP for a linear inequality sum_p a_p n_p <= b that
every concrete state reached at small W satisfies but that excludes a
suspect for every W (a_p >= 0 on the suspect's capped phases, so its least
value is known and above b).  A candidate is kept only when it is inductive
over the graph (below); the graph is rebuilt without the entries it
excludes.  When no invariant is found, the caps of the blamed phases grow as
in ``abstract.py``.

Inductive, checked per abstract move without a solver.  For an entry a, let
e_max(a) be the largest value of the form over its concrete states (infinite
when a capped phase has a_p > 0).  A move with m_p warps leaving phase p
changes the form by sum_p m_p (a_{p+1} - a_p); on a busy phase the form must
not grow (a_p >= a_{p+1}), so the least m_p (the cap) gives the largest
change.  If min(b, e_max(a)) plus that change is at most b for every move of
every entry in the graph (excluded next entries included), and the initial
state satisfies the form for every W (a_0 <= 0 <= b), every reached concrete
state satisfies it (induction over runs), so entries whose least value
exceeds b stand for no reached state and may be left out.  The certificate
carries the invariants; ``spec/makespan/lininv.py`` checks them again from
the rules, sharing no code with this module.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

import numpy as np

from warpcheck.encodings.makespan.lp import solve_lp
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.schedule import from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.verify.makespan.abstract import (WIDE, WIDE_SHARE, Abs, AbstractGraph, AbstractResult, Move,
                                               best_bound, capped_on_longest_path, deficit_score, meet_bound,
                                               default_caps, first_runs, longer_run, work)

Invariant = tuple[tuple[int, ...], int]  # integer coefficients a_p (one per non-done phase) and bound b
INF = math.inf
MAX_COEF = 4  # |a_p| at most this: small forms generalise from small W to every W
SAMPLE_STATES = 15_000  # concrete states reached at small W that the LP must respect
LARGE_W, RANDOM_RUNS = (48, 96), 30  # random runs at larger W: counts that only grow with W (held-back warps)
MAX_SUSPECTS = 12  # suspects per round
FIRST_ROWS, CUT_ROUNDS = 1500, 8  # samples the LP starts with, and rounds adding the samples its guess breaks
LEARN_TRIES, MAX_CTIS = 6, 60  # guesses per suspect, and failed moves added to the LP after each


class GuardedGraph(AbstractGraph):
    """The capped graph without the entries that some invariant excludes; records invariants that fail to hold."""

    def __init__(self, kernel: MkKernel, caps: Abs, invariants: Iterable[Invariant] = ()) -> None:
        super().__init__(kernel, caps)
        self.invariants = list(invariants)
        self.holder = [self.sm.holds_slot(p) for p in range(self.P)]
        self.broken: set[int] = set()  # indices of invariants not inductive on this graph
        self.raw: dict[Abs, list[Move]] = {}  # every move, excluded next entries included

    def capped(self, a: Abs, p: int) -> bool:
        return a[p] >= self.caps[p]

    def least(self, inv: Invariant, a: Abs) -> float:
        """The least value of the form over the concrete states of entry ``a``."""
        coef, _ = inv
        if any(coef[p] < 0 and self.capped(a, p) for p in range(self.P)):
            return -INF
        return sum(c * v for c, v in zip(coef, a))

    def most(self, inv: Invariant, a: Abs) -> float:
        """The largest value of the form over the concrete states of entry ``a``."""
        coef, _ = inv
        if any(coef[p] > 0 and self.capped(a, p) for p in range(self.P)):
            return INF
        return sum(c * v for c, v in zip(coef, a))

    def excluded(self, a: Abs) -> bool:
        """Whether some invariant rules out every concrete state of entry ``a``."""
        return any(self.least(inv, a) > inv[1] for inv in self.invariants)

    def moves(self, a: Abs) -> list[Move]:
        """The capped graph's moves, after checking every invariant on all of them, without the excluded entries."""
        out = super().moves(a)
        self.raw[a] = out
        for j, inv in enumerate(self.invariants):
            if j not in self.broken and not _kept_by(inv, self.most(inv, a), out):
                self.broken.add(j)
        return [m for m in out if not self.excluded(m[1])]


def _kept_by(inv: Invariant, most: float, moves: list[Move]) -> bool:
    """Whether no move can take a state satisfying the invariant above its bound."""
    coef, bound = inv
    start = min(most, bound)
    nxt = list(coef[1:]) + [0]
    for left, _ in moves:
        if start + sum(m * (nxt[p] - coef[p]) for p, m in enumerate(left) if m) > bound:
            return False
    return True


def admissible(kernel: MkKernel, inv: Invariant) -> bool:
    """The shape rules every invariant obeys: a_0 <= 0 <= b (true initially for every W), no growth after a busy phase."""
    coef, bound = inv
    sm = CountSM(kernel, 1)
    nxt = list(coef[1:]) + [0]
    busy_ok = all(coef[p] >= nxt[p] for p in range(sm.done) if not sm.phases[p].is_wait)
    return coef[0] <= 0 <= bound and busy_ok


def reached_states(kernel: MkKernel, limit: int = SAMPLE_STATES, max_warps: int = 12,
                   deadline: float | None = None) -> set[tuple[int, ...]]:
    """Concrete count states (done count dropped) reached with 1, 2, ... warps, until ``limit`` states."""
    out: set[tuple[int, ...]] = set()
    for warps in range(1, max_warps + 1):
        moves = CountMoves(CountSM(kernel, warps))
        root = tuple([warps] + [0] * moves.sm.done)
        seen, todo = {root}, [root]
        while todo:
            if len(out) + len(seen) > limit or (deadline is not None and time.monotonic() > deadline):
                return out | {s[:-1] for s in seen}
            s = todo.pop()
            for _, t in moves.successors(s):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        out |= {s[:-1] for s in seen}
    return out


def sampled_states(kernel: MkKernel, warps: int, runs: int, seed: int = 0,
                   deadline: float | None = None) -> set[tuple[int, ...]]:
    """Concrete count states (done count dropped) of random runs of ``warps`` warps: what small W never shows."""
    rng = random.Random(seed)
    moves = CountMoves(CountSM(kernel, warps))
    out: set[tuple[int, ...]] = set()
    for _ in range(runs):
        if deadline is not None and time.monotonic() > deadline:
            break
        k = tuple([warps] + [0] * moves.sm.done)
        while k[-1] != warps:
            out.add(k[:-1])
            k = rng.choice(moves.successors(k))[1]
    return out


def samples_for(kernel: MkKernel, deadline: float | None = None) -> list[tuple[int, ...]]:
    """The states an invariant guess must respect: every state at small W, and random runs at larger W."""
    out = reached_states(kernel, deadline=deadline)
    for warps in LARGE_W:
        out |= sampled_states(kernel, warps, RANDOM_RUNS, warps, deadline)
    return sorted(out)


Cti = tuple[Abs, tuple[int, ...], bool]  # an entry, a move's leaving warps, and whether its least value is bounded


def _form_row(on_a: dict[int, float], on_b: float, lo: float, P: int) -> tuple[list[tuple[int, float]], float]:
    """The LP row sum_p on_a[p] a_p + on_b b >= lo over the split variables a_p = x_p - x_{P+p}, b = x_{2P}."""
    terms = [t for p, v in on_a.items() if v for t in ((p, v), (P + p, -v))]
    return terms + ([(2 * P, on_b)] if on_b else []), lo


def _change(left: tuple[int, ...]) -> dict[int, float]:
    """The change of the form on a move, sum_p m_p (a_{p+1} - a_p), as coefficients of a."""
    out: dict[int, float] = {}
    for p, m in enumerate(left):
        if m:
            out[p] = out.get(p, 0.0) - m
            if p + 1 < len(left):
                out[p + 1] = out.get(p + 1, 0.0) + m
    return out


def _cti_rows(ctis: list[Cti], caps: Abs, P: int) -> list[tuple[list[tuple[int, float]], float]]:
    """Rows that make the form inductive on moves it failed on: no growth, or (if bounded there) no overflow."""
    rows = []
    for entry, left, bounded in ctis:
        change = _change(left)
        if not bounded:
            rows.append(_form_row({p: -v for p, v in change.items()}, 0.0, 0.0, P))
            continue
        top = {p: -float(v) for p, v in enumerate(entry) if v}
        for p, v in change.items():
            top[p] = top.get(p, 0.0) - v
        rows.append(_form_row(top, 1.0, 0.0, P))  # b - e(entry) - change >= 0
        rows += [_form_row({p: -1.0}, 0.0, 0.0, P) for p in range(P) if entry[p] >= caps[p]]
    return rows


def separate(kernel: MkKernel, caps: Abs, samples: list[tuple[int, ...]], suspect: Abs,
             deadline: float | None = None, ctis: list[Cti] | None = None) -> Invariant | None:
    """A small integer form that every sample satisfies and whose least value on ``suspect`` exceeds its bound.

    ``ctis`` are moves on which an earlier guess was not inductive: the form
    must not grow there (or, where its largest value on the entry is
    bounded, stay within b).
    """
    P = len(caps)
    sm = CountSM(kernel, 1)
    fixed = [_form_row({p: float(v) for p, v in enumerate(suspect) if v}, -1.0, 1.0, P)]  # a.suspect - b >= 1
    for p in range(P):
        if suspect[p] >= caps[p]:
            fixed.append(_form_row({p: 1.0}, 0.0, 0.0, P))  # a capped count with a_p < 0 has no least value
        if not sm.phases[p].is_wait:
            fixed.append(_form_row({p: 1.0, p + 1: -1.0} if p + 1 < P else {p: 1.0}, 0.0, 0.0, P))
        fixed += [([(p, -1.0)], -MAX_COEF), ([(P + p, -1.0)], -MAX_COEF)]
    fixed.append(_form_row({0: -1.0}, 0.0, 0.0, P))
    fixed += _cti_rows(ctis or [], caps, P)
    points = np.array(samples, dtype=float).reshape(-1, P)
    chosen = np.unique(np.linspace(0, len(points) - 1, min(len(points), FIRST_ROWS)).astype(int))
    for _ in range(CUT_ROUNDS):  # cutting planes: the LP sees a few samples, then those its form breaks
        rows = fixed + [_form_row({p: -float(v) for p, v in enumerate(n) if v}, 1.0, 0.0, P) for n in points[chosen]]
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return None
        x = solve_lp(2 * P + 1, [1.0] * (2 * P + 1), rows, [0.0] * (2 * P + 1), left)
        if x is None:
            return None
        coef = np.array([x[p] - x[P + p] for p in range(P)])
        values = points @ coef
        broken = np.flatnonzero(values > x[2 * P] + 1e-7)
        if not len(broken):
            break
        chosen = np.union1d(chosen, broken[np.argsort(-values[broken])][:FIRST_ROWS])
    return _integral(list(coef), x[2 * P], samples, suspect, caps, kernel)


def _integral(coef: list[float], bound: float, samples: list[tuple[int, ...]], suspect: Abs, caps: Abs,
              kernel: MkKernel) -> Invariant | None:
    """Round the LP's form to integers and re-check it exactly on the samples and the suspect."""
    for den in (1, 2, 3, 4, 6, 12):
        fr = [Fraction(v).limit_denominator(den) for v in coef]
        scale = math.lcm(*(f.denominator for f in fr))
        ints = tuple(int(f * scale) for f in fr)
        b = max(sum(c * v for c, v in zip(ints, n)) for n in samples)  # the tightest bound the samples allow
        inv = (ints, max(b, 0))
        if not admissible(kernel, inv):
            continue
        if any(c < 0 and suspect[p] >= caps[p] for p, c in enumerate(ints)):
            continue
        if sum(c * v for c, v in zip(ints, suspect)) > inv[1]:
            return inv
    return None


@dataclass
class CegarResult(AbstractResult):
    """A deficit result whose graph leaves out the entries that the (checked) invariants exclude."""

    invariants: list[Invariant] = field(default_factory=list)


def _suspects(ag: GuardedGraph, kernel: MkKernel, togo: dict[Abs, int] | None, unit: str | None,
              warps: int) -> list[Abs]:
    """States to explain away: the deficit cycle's states, or those on a longest deficit path."""
    if togo is None:
        states = [m for m in ag.blame if any(ag.deficit(m, u) for u in kernel.units)]
    else:
        assert unit is not None
        states, a, seen = [], ag.initial(warps), set()
        while a != ag.done and a not in seen:
            seen.add(a)
            states.append(a)
            nxt = [b for _, b in ag.succ[a] if b in togo and togo[b] == togo[a] - ag.deficit(a, unit)]
            if not nxt:
                break
            a = nxt[0]
        states = [s for s in states if ag.deficit(s, unit)] + [s for s in states if not ag.deficit(s, unit)]
    capped = [s for s in states if any(ag.capped(s, p) for p in range(ag.P))]
    return capped[:MAX_SUSPECTS]


def new_invariants(kernel: MkKernel, ag: GuardedGraph, suspects: list[Abs], samples: list[tuple[int, ...]],
                   deadline: float, rejected: set[Invariant]) -> list[Invariant]:
    """Invariants (new, not yet rejected) that exclude suspects, one learning loop per suspect not yet excluded."""
    out: list[Invariant] = []
    for s in suspects:
        if time.monotonic() > deadline:
            break
        if any(ag.least(inv, s) > inv[1] for inv in ag.invariants + out):
            continue
        inv = _learn(kernel, ag, samples, s, deadline)
        if inv is not None and inv not in out and inv not in ag.invariants and inv not in rejected:
            out.append(inv)
    return out


def _learn(kernel: MkKernel, ag: GuardedGraph, samples: list[tuple[int, ...]], suspect: Abs, deadline: float
           ) -> Invariant | None:
    """Guess a form excluding ``suspect``; while it is not inductive on the graph, guess again avoiding its failures."""
    ctis: list[Cti] = []
    for _ in range(LEARN_TRIES):
        inv = separate(kernel, ag.caps, samples, suspect, deadline, ctis)
        if inv is None:
            return None
        bad = _failures(ag, inv)
        if not bad:
            return inv
        ctis += bad[:MAX_CTIS]
    return None


def _failures(ag: GuardedGraph, inv: Invariant) -> list[Cti]:
    """The moves of the graph's states on which ``inv`` is not kept (states it or the others exclude skipped)."""
    out: list[Cti] = []
    for a, moves in ag.raw.items():
        if ag.least(inv, a) > inv[1] or ag.excluded(a):
            continue
        most = ag.most(inv, a)
        for left, _ in moves:
            if not _kept_by(inv, most, [(left, a)]):
                out.append((a, left, most < INF))
    return out


def guarded_graph(kernel: MkKernel, warps: int, caps: Abs, invs: list[Invariant], deadline: float,
                  rejected: set[Invariant], reserve: float = 0.5) -> tuple[GuardedGraph, list[Invariant]] | None:
    """The guarded graph with the invariants that hold on it (dropping those that fail into ``rejected``)."""
    while True:
        ag = GuardedGraph(kernel, caps, invs)
        if not ag.build(ag.initial(warps), deadline, reserve):
            return None
        if not ag.broken:
            return ag, invs
        rejected |= {inv for j, inv in enumerate(invs) if j in ag.broken}
        invs = [inv for j, inv in enumerate(invs) if j not in ag.broken]


def cegar_search(kernel: MkKernel, warps: int, budget: float = 30.0, max_rounds: int = 16,
                 progress: Callable[[str], None] | None = None) -> CegarResult:
    """Bound the makespan by deficit accounting over the capped graph cut by invariants; a run meeting it makes it exact."""
    start = time.monotonic()
    deadline, refine_until = start + budget, start + WIDE_SHARE * budget
    sm = CountSM(kernel, warps)
    moves = CountMoves(sm)
    best, run, caps = None, first_runs(sm, moves), default_caps(kernel)
    invs: list[Invariant] = []
    pump = None
    samples: list[tuple[int, ...]] | None = None
    best_invs: list[Invariant] = []
    rejected: set[Invariant] = set()  # not inductive with the current caps: finer caps may make them so
    for _ in range(max_rounds):
        if time.monotonic() > refine_until:
            break
        built = guarded_graph(kernel, warps, caps, invs, refine_until, rejected)
        if built is None:
            break
        ag, invs = built
        found = best_bound(ag, kernel, warps)
        if progress:
            progress(f"cegar: caps {list(caps)}, {len(invs)} invariants, {ag.states()} states: "
                     f"bound {found[0] if found else None}")
        if found is not None:
            if best is None or found[0] < best[0]:
                best, best_invs = found, list(invs)
            run, pump, met = meet_bound(moves, found, run, best[0], (refine_until, deadline), progress, "cegar")
            if met:
                break
        if samples is None:
            samples = samples_for(kernel, refine_until)
        togo, unit = (found[2], found[1]) if found else (None, None)
        if found is None:
            _blame_busiest(ag, kernel)
        new = new_invariants(kernel, ag, _suspects(ag, kernel, togo, unit, warps), samples, refine_until, rejected)
        if progress and new:
            progress(f"cegar: new invariants {new}")
        if new:
            invs = invs + new
            continue
        refine = _blamed_phases(ag) if found is None else capped_on_longest_path(ag, togo or {}, unit or "", warps)
        if not refine:
            break
        caps = tuple(c + 1 if p in refine else c for p, c in enumerate(caps))
        rejected.clear()
    if best is not None:
        run = longer_run(moves, deficit_score(best), run, best[0], WIDE, deadline, progress, "cegar")
    upper = best[0] if best else None
    return CegarResult(upper, best[1] if best else None, len(run), from_counts(sm, run), upper == len(run),
                       time.monotonic() - start, best[3].states() if best else 0, best[3].caps if best else (),
                       best[2] if best else None, pump, best_invs)


def _blame_busiest(ag: AbstractGraph, kernel: MkKernel) -> None:
    """Leave in ``ag.blame`` a deficit cycle of a busiest unit (the units whose work could bound the makespan)."""
    slope = max(Fraction(work(kernel, u), kernel.sigma_of(u)) for u in kernel.units)
    for u in kernel.units:
        if Fraction(work(kernel, u), kernel.sigma_of(u)) == slope and ag.deficit_to_go(u) is None:
            return


def _blamed_phases(ag: AbstractGraph) -> set[int]:
    return {p for m in ag.blame for p in range(ag.P) if m[p] >= ag.caps[p]}
