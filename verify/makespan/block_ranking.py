"""A ranking function over *blocks*: the LP of ``ranking.py`` on the block graph of ``phases.py``.

Kernels with many phases make the per-phase capped graph of the ranking LP
too large to build, and some of them grow faster than any unit's work, so
the deficit over blocks has no bound.  Here the potential is

    Psi(s) = sum_p c_p n_p  +  g(block state of s)

and every work-conserving move must lower it by at least one cycle.  A move
of the block graph says how many warps each exact phase issues, and for a
lumped block B (phases f..l) how many it issues (x) and how many of them
leave it from its last phase (e); the other x - e step somewhere inside, at
phases not kept.  Their drop is at least (x - e) d_B with d_B <= c_p - c_{p+1}
for every p in f..l-1 (an LP variable: the least inner step), so each
abstract move gives one linear row

    sum_exact m_p (c_p - c_{p+1}) + sum_B [e (c_l - c_{l+1}) + (x - e) d_B] + g(a) - g(b) >= 1

that holds for every concrete move it stands for.  Summed along a run the
drops give makespan <= c_0 W + g(initial) - g(done), one table for every W
from the cap of the first block (where the initial block state stops
depending on W).  The LP's floats are made rational and every row is
checked again exactly (d_B then is the least inner step itself);
``spec/makespan/block_bound_check.py`` checks the certificate without this code.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from warpcheck.encodings.makespan.lp import solve_lp
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.schedule import from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.verify.makespan.abstract import BASE, NARROW, WIDE, WIDE_SHARE, Run, first_runs, longer_run, priority_run
from warpcheck.verify.makespan.phases import Block, BlockGraph, Label, State, affordable, maximal_blocks
from warpcheck.verify.makespan.pump import Pump, pumped_run
from warpcheck.verify.makespan.ranking import RankingResult, potential_score, rationalised

Edge = tuple[State, Label, State]


def labelled_graph(g: BlockGraph, start: State, deadline: float | None) -> set[Edge] | None:
    """Every abstract move reachable from ``start``, with its issue choice (None if the deadline passed)."""
    if not g.build(start, deadline, labelled=True):
        return None
    return {(a, label, b) for a, moves in g.labels.items() for label, b in moves}


def inner(blocks: Sequence[Block]) -> list[int]:
    """The blocks of more than one phase: they get a least-inner-step variable d_B."""
    return [b for b, (first, last, _, _) in enumerate(blocks) if last > first]


def drop_terms(label: Label, blocks: Sequence[Block], P: int, d_of: dict[int, int]) -> dict[int, int]:
    """The linear part of a move's drop: coefficient per variable (c_p at p, d_B at d_of[B])."""
    terms: dict[int, int] = {}

    def step(p: int, m: int) -> None:
        terms[p] = terms.get(p, 0) + m
        if p + 1 < P:
            terms[p + 1] = terms.get(p + 1, 0) - m
    for key, v in label:
        if key >= 0:
            step(key, v)
            continue
        b = -1 - key
        issued, leaving = v
        step(blocks[b][1], leaving)
        if issued > leaving:
            terms[d_of[b]] = terms.get(d_of[b], 0) + issued - leaving
    return terms


@dataclass
class BlockRanking:
    """A checked ranking function over blocks: the bound at W, the linear part, the table, the blocks."""

    upper: int
    linear: list[Fraction]
    potential: dict[State, Fraction]
    graph: BlockGraph

    def at(self, warps: int) -> int | None:
        """The bound at another W (None below the first block's cap, where the initial state differs)."""
        a0 = self.graph.initial(warps)
        if warps < self.graph.blocks[0][3] or a0 not in self.potential:
            return None
        return math.floor(self.linear[0] * warps + self.potential[a0])


def block_ranking_bound(kernel: MkKernel, warps: int, blocks: Sequence[Block],
                        deadline: float | None = None) -> BlockRanking | None:
    """The least bound c_0 W + g(initial) the LP finds over these blocks, checked exactly; None if none in time."""
    g = BlockGraph(kernel, blocks)
    P = g.P
    start = g.initial(warps)
    edges = labelled_graph(g, start, deadline)
    if edges is None:
        return None
    states = sorted({a for a, _, _ in edges} | {b for _, _, b in edges} | {start, g.done})
    d_of = {b: P + i for i, b in enumerate(inner(blocks))}
    base = P + len(d_of)
    index = {a: base + i for i, a in enumerate(states)}
    rows: list[tuple[list[tuple[int, float]], float]] = []
    for a, label, b in {(a, tuple(sorted(drop_terms(lb, blocks, P, d_of).items())), b) for a, lb, b in edges}:
        terms = dict(label)
        terms[index[a]] = terms.get(index[a], 0) + 1
        terms[index[b]] = terms.get(index[b], 0) - 1
        rows.append(([(j, float(v)) for j, v in terms.items() if v], 1.0))
    for blk, j in d_of.items():  # d_B <= c_p - c_{p+1} inside the block
        first, last = blocks[blk][0], blocks[blk][1]
        rows += [([(p, 1.0), (p + 1, -1.0), (j, -1.0)], 0.0) for p in range(first, last)]
    n = base + len(states)
    lower = [-math.inf] * n
    lower[index[g.done]] = 0.0
    rows.append(([(index[g.done], -1.0)], 0.0))
    cost = [0.0] * n
    cost[0], cost[index[start]] = float(warps), 1.0
    x = solve_lp(n, cost, rows, lower, None if deadline is None else deadline - time.monotonic())
    if x is None:
        return None
    return _rational(x, g, states, index, edges, warps, deadline)


def _rational(x: list[float], g: BlockGraph, states: list[State], index: dict[State, int], edges: set[Edge],
              warps: int, deadline: float | None) -> BlockRanking | None:
    """Round the LP's floats to small denominators until every row holds exactly."""
    table = {a: x[index[a]] for a in states}
    for c, pot in rationalised(x[:g.P], table, g.done, deadline):
        if exact_drops(g, c, pot, edges):
            return BlockRanking(math.floor(c[0] * warps + pot[g.initial(warps)]), c, pot, g)
    return None


def exact_drops(g: BlockGraph, c: list[Fraction], pot: dict[State, Fraction], edges: set[Edge]) -> bool:
    """Whether every move lowers Psi by at least 1, in rational arithmetic, inner steps at their least."""
    cc = c + [Fraction(0)]
    d_of = {b: g.P + i for i, b in enumerate(inner(g.blocks))}
    var = cc[:g.P] + [min(cc[p] - cc[p + 1] for p in range(g.blocks[b][0], g.blocks[b][1])) for b in d_of]
    for a, label, b in edges:
        drop = sum(v * var[j] for j, v in drop_terms(label, g.blocks, g.P, d_of).items())
        if drop + pot[a] - pot[b] < 1:
            return False
    return True


def _score(found: BlockRanking) -> Callable[[tuple[int, ...]], tuple[int, float | None]]:
    """Psi of a found bound as a beam score."""
    return potential_score(found.graph.alpha, found.linear, found.potential)


@dataclass
class BlockRankingResult(RankingResult):
    """A RankingResult whose table is over block states; ``blocks`` as (first, last, cap)."""

    blocks: tuple[tuple[int, int, int], ...] = ()


def block_ranking_search(kernel: MkKernel, warps: int, budget: float = 30.0, max_extra: int = 2,
                         progress: Callable[[str], None] | None = None) -> BlockRankingResult:
    """Bound the makespan by a ranking function over blocks; look for a run that meets the least bound.

    The caps grow (sigma + 0, 1, 2) while the bound drops, before any run is
    searched: a pumped or beam run costs seconds at W = 128, and on a bound
    that larger caps lower it is lost (MLLMMMCC, sigma_M = 1/2, sigma_L = 3:
    1155, 1154, 1153 = the worst case; runs on each took 4 s).  The bounds
    have the first 60 % of the budget, the runs the rest.
    """
    start = time.monotonic()
    deadline, refine_until = start + budget, start + WIDE_SHARE * budget
    sm = CountSM(kernel, warps)
    moves = CountMoves(sm)
    cheap: list[Run] = []  # the cheap runs, once there is a bound to meet: at W = 600 on 22 phases they take 0.7 s

    def met(upper: int) -> bool:
        cheap.append(cheap[0] if cheap else first_runs(sm, moves))
        return len(cheap[0]) >= upper
    found = _least_bound(kernel, warps, max_extra, met, refine_until, progress)
    best = found[-1] if found else None
    if best is None:  # any run will do, the quickest (auto keeps the longest run of every method)
        return _result(sm, priority_run(moves, False), None, best, time.monotonic() - start)
    run = cheap[0]
    scores = [_score(f) for f in reversed(found)]  # the tightest first
    pumped = _pumped(kernel, warps, best, scores[0], deadline, progress)  # even when met: the closed form
    if pumped is not None:
        return _result(sm, pumped[0], pumped[1], best, time.monotonic() - start)
    if len(run) >= best.upper:
        return _result(sm, run, None, best, time.monotonic() - start)
    for widths in (NARROW, WIDE):  # every potential guides a beam: the tightest is not always the best guide
        for score in scores:
            run = longer_run(moves, score, run, best.upper, widths, deadline, progress, "block ranking")
    return _result(sm, run, None, best, time.monotonic() - start)


def _least_bound(kernel: MkKernel, warps: int, max_extra: int, met: Callable[[int], bool], until: float,
                 progress: Callable[[str], None] | None) -> list[BlockRanking]:
    """The bounds found as the caps grow, each lower than the last; stops when one is met, or stops dropping."""
    out: list[BlockRanking] = []
    for extra in range(max_extra + 1) if kernel.single_cycle else ():
        if time.monotonic() > until:
            break
        blocks = affordable(maximal_blocks(kernel, extra))
        found = block_ranking_bound(kernel, warps, blocks, until)
        if progress:
            progress(f"block ranking: caps {[cap for *_, cap in blocks]}: bound {found.upper if found else None}")
        if found is None:
            continue
        if out and found.upper >= out[-1].upper:
            break
        out.append(found)
        if met(found.upper):
            break
    return out


def _pumped(kernel: MkKernel, warps: int, found: BlockRanking, score: Callable[[tuple[int, ...]], Any],
            deadline: float, progress: Callable[[str], None] | None) -> tuple[list[dict[str, int]], Pump] | None:
    """A run meeting the bound, pumped from a small W (the table holds for every W from the first block's cap)."""
    def beam(m: CountMoves) -> list[dict[str, int]]:
        target = found.at(m.sm.warps) or 0
        return longer_run(m, score, first_runs(m.sm, m), target, BASE, deadline, None, "")
    return pumped_run(kernel, warps, found.linear[0], found.at, beam, deadline, progress)


def _result(sm: CountSM, run: list[dict[str, int]], pump: Pump | None, best: BlockRanking | None,
            seconds: float) -> BlockRankingResult:
    upper = best.upper if best else None
    cuts = tuple((f, l, cap) for f, l, _, cap in best.graph.blocks) if best else ()
    return BlockRankingResult(upper, len(run), from_counts(sm, run), upper == len(run), seconds, (),
                              best.linear if best else None, best.potential if best else None, pump, blocks=cuts)


def certificate_bound(result: BlockRankingResult) -> dict[str, Any]:
    """The ``bound`` object of a certificate (checked by spec/makespan/block_bound_check.py): blocks, linear part, table."""
    states = [list(a) + [str(v)] for a, v in (result.potential or {}).items()]
    return {"method": "blocks", "weight": "cycles", "unit": None, "blocks": [list(b) for b in result.blocks],
            "linear": [str(v) for v in result.linear or []], "states": states}
