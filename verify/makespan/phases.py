"""Deficit accounting over *blocks*: runs of same-unit phases lumped while they hold many warps.

Kernels with many phases (a unit of sigma 1/3 turns every instruction into
three) give the per-phase abstract graph of ``abstract.py`` up to 2^phases
states.  Here the phases of a one-cycle kernel are cut into *blocks*: runs
of consecutive phases of one unit (by default the maximal ones).  A block B
of unit u with cap K_B >= sigma_u is abstracted as

- *lumped* (written -1 in every phase of the block): it holds K_B warps or
  more, at phases not kept.  Then u has at least sigma_u ready warps: it
  issues all its sigma_u slots and has no deficit, whatever the positions;
- *exact*: fewer than K_B warps, with the count of every phase kept.

A block of one phase is the per-phase capped count of ``abstract.py``; a
lumped block loses where its warps stand, which the deficit does not need
(it only needs the ready count up to sigma).  Moves, from the cycle rules:
per unit, issue = sigma_u if one of its blocks is lumped, else
min(sigma_u, ready); split over the unit's exact phases and lumped blocks in
every way; from a lumped block, any e of its a issued warps leave it (from
its last phase; all a when the block has one phase), the others step inside.  A lumped block that loses more
warps than it receives may fall below its cap: it is then any exact block
holding the warps that came in at its first phase plus r old warps anywhere,
for every r it allows.  Every concrete move has its abstract move (the law
``tests/test_makespan_phases.py`` checks), so the longest deficit path from
the initial to the all-done state bounds D_u for every W >= K of the first
block, and T <= floor((W w_u + D_u) / sigma_u).

Only one-cycle kernels (no latencies) are handled: other kernels get no
bound and go to the per-phase methods.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterator, Sequence

from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.schedule import from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.verify.makespan.abstract import (BASE, NARROW, WIDE, AbstractResult, Run, tarjan, first_runs,
                                               longer_run, work)
from warpcheck.verify.makespan.pump import pumped_run

LUMP = -1  # the value of every phase of a lumped block
State = tuple[int, ...]  # one value per non-done phase: a count, or LUMP
Block = tuple[int, int, int, int]  # first phase, last phase (inclusive), unit index, cap
# an issue choice: (phase p, warps issued there) for exact phases, (-1 - b, (issued, leaving)) for lumped block b
Label = tuple[tuple[int, Any], ...]


def maximal_blocks(kernel: MkKernel, extra: int = 0) -> list[Block]:
    """The maximal runs of same-unit phases, each with cap sigma of its unit (+ extra)."""
    names = [u for u, _ in kernel.sigma]
    out: list[Block] = []
    for p, ins in enumerate(kernel.instrs):
        j = names.index(ins.unit)
        if out and out[-1][2] == j:
            out[-1] = (out[-1][0], p, j, out[-1][3])
        else:
            out.append((p, p, j, kernel.sigma[j][1] + extra))
    return out


MAX_FILLS = 5000  # exact contents of one block (fewer than K warps over its phases) kept: beyond, cut it up


def affordable(blocks: list[Block]) -> list[Block]:
    """Cut into single phases every block whose exact contents would be too many to list (long block, large cap)."""
    out: list[Block] = []
    for first, last, j, cap in blocks:
        n = last - first + 1
        if n > 1 and math.comb(cap - 1 + n, n) > MAX_FILLS:  # states with at most cap - 1 warps on n phases
            out += [(p, p, j, cap) for p in range(first, last + 1)]
        else:
            out.append((first, last, j, cap))
    return out


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to place ``total`` identical warps on ``parts`` phases."""
    if parts == 0:
        return [()] if total == 0 else []
    return [tuple(b - a - 1 for a, b in zip((-1,) + cut, cut + (total + parts - 1,)))
            for cut in itertools.combinations(range(total + parts - 1), parts - 1)]


class BlockGraph:
    """The abstract graph over blocks: symbolic moves, per-unit deficits, longest deficit paths."""

    def __init__(self, kernel: MkKernel, blocks: Sequence[Block]) -> None:
        if not kernel.single_cycle:
            raise ValueError("blocks need a one-cycle kernel")  # a caller bug: phase_search checks first
        self.kernel, self.blocks = kernel, list(blocks)
        self.P = len(kernel.instrs)
        self.sigma = [s for _, s in kernel.sigma]
        self.of_unit = [[b for b, blk in enumerate(self.blocks) if blk[2] == j] for j in range(len(self.sigma))]
        self.succ: dict[State, list[State]] = {}
        self.labels: dict[State, set[tuple[Label, State]]] = {}  # build(labelled=True): each move's issue choice
        self._fill: dict[tuple[int, int, int], list[tuple[int, ...]]] = {}
        self.blame: list[State] = []

    @property
    def done(self) -> State:
        return (0,) * self.P

    def alpha(self, counts: Sequence[int]) -> State:
        """The abstract state of a concrete count tuple (a done count at the end is ignored)."""
        out = list(counts[:self.P])
        for first, last, _, cap in self.blocks:
            if sum(out[first:last + 1]) >= cap:
                out[first:last + 1] = [LUMP] * (last - first + 1)
        return tuple(out)

    def initial(self, warps: int) -> State:
        return self.alpha((warps,) + (0,) * (self.P - 1))

    def _issue(self, a: State, j: int) -> tuple[int, int]:
        """How many warps unit j issues, and its deficit (unused slots)."""
        if any(a[self.blocks[b][0]] == LUMP for b in self.of_unit[j]):
            return self.sigma[j], 0
        ready = sum(a[p] for b in self.of_unit[j] for p in range(self.blocks[b][0], self.blocks[b][1] + 1))
        issue = min(self.sigma[j], ready)
        return issue, self.sigma[j] - issue

    def deficit(self, a: State, j: int) -> int:
        """Unused slots of unit j in abstract state ``a`` (0 in the done state)."""
        return 0 if a == self.done else self._issue(a, j)[1]

    def _unit_options(self, a: State, j: int) -> list[dict[int, Any]]:
        """Per unit j, every split of its issues: exact phase p -> warps, lumped block b -> (issued, leaving)."""
        issue, _ = self._issue(a, j)
        slots: list[tuple[Any, int]] = []
        for b in self.of_unit[j]:
            first, last, _, _ = self.blocks[b]
            if a[first] == LUMP:
                slots.append((("b", b), issue))
            else:
                slots += [(("p", p), min(a[p], issue)) for p in range(first, last + 1) if a[p]]
        out: list[dict[int, Any]] = []
        for split in _splits([m for _, m in slots], issue):
            lumped = [(key, x) for (key, _), x in zip(slots, split) if key[0] == "b"]
            exact = {key[1]: x for (key, _), x in zip(slots, split) if key[0] == "p" and x}
            # a warp issued inside a block of one phase always leaves it
            for leaves in itertools.product(*[range(x if self._single(key[1]) else 0, x + 1) for key, x in lumped]):
                opt: dict[int, Any] = dict(exact)
                opt.update({-1 - key[1]: (x, e) for (key, x), e in zip(lumped, leaves)})
                out.append(opt)
        return out

    def _single(self, b: int) -> bool:
        return self.blocks[b][0] == self.blocks[b][1]

    def moves(self, a: State) -> list[State]:
        """Every next abstract state of ``a``."""
        return list({b for _, b in self.labelled_moves(a)})

    def labelled_moves(self, a: State) -> set[tuple[Label, State]]:
        """Every next abstract state of ``a`` with its issue choice (the ranking LP needs who moved where)."""
        per_unit = [self._unit_options(a, j) for j in range(len(self.sigma))]
        out: set[tuple[Label, State]] = set()
        for combo in itertools.product(*per_unit):
            merged: dict[int, Any] = {}
            for part in combo:
                merged.update(part)
            label = tuple(sorted(merged.items()))
            out.update((label, b) for b in self._next(a, merged))
        return out

    def _next(self, a: State, opt: dict[int, Any]) -> Iterator[State]:
        """The next states of one issue choice (phase p -> warps; -1 - b -> (issued, leaving) of lumped block b)."""
        per_block: list[list[tuple[int, ...]]] = []
        inflow = 0
        for b, (first, last, _, cap) in enumerate(self.blocks):
            if a[first] == LUMP:
                _, leave = opt.get(-1 - b, (0, 0))
                per_block.append(self._refill(b, inflow, leave))
                inflow = leave
                continue
            x = [a[p] - opt.get(p, 0) for p in range(first, last + 1)]
            x[0] += inflow
            for p in range(first, last):
                x[p - first + 1] += opt.get(p, 0)
            per_block.append([tuple(x)] if sum(x) < cap else [(LUMP,) * (last - first + 1)])
            inflow = opt.get(last, 0)
        for parts in itertools.product(*per_block):
            yield tuple(v for part in parts for v in part)

    def _refill(self, b: int, inflow: int, leave: int) -> list[tuple[int, ...]]:
        """A lumped block after ``leave`` warps left and ``inflow`` came in: lumped, or exact if it may fall below."""
        first, last, _, cap = self.blocks[b]
        n = last - first + 1
        out = [(LUMP,) * n]
        key = (b, inflow, leave)
        if key not in self._fill:
            fills = []
            for old in range(max(0, cap - leave), cap - inflow):  # old warps staying: at least cap - leave
                for spots in _compositions(old, n):
                    fills.append((spots[0] + inflow,) + spots[1:])
            self._fill[key] = fills
        return out + self._fill[key]

    def build(self, start: State, deadline: float | None = None, labelled: bool = False) -> bool:
        """Explore every abstract state reachable from ``start``; False if the deadline passed first.

        With ``labelled``, every move's issue choice is kept in ``labels`` too (the ranking LP needs who moved where).
        """
        todo, seen = [start], {start}
        while todo:
            if deadline is not None and len(self.succ) % 256 == 0 and time.monotonic() > deadline:
                return False
            a = todo.pop()
            if a == self.done:
                self.succ[a] = []
            elif labelled:
                self.labels[a] = self.labelled_moves(a)
                self.succ[a] = list({b for _, b in self.labels[a]})
            else:
                self.succ[a] = self.moves(a)
            for b in self.succ[a]:
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return True

    def deficit_to_go(self, j: int) -> dict[State, int] | None:
        """Longest deficit path of unit j from each state to done; None if a deficit lies on a live cycle."""
        togo: dict[State, int] = {}
        for comp in tarjan(self.succ):
            members = set(comp)
            if comp == [self.done]:
                togo[self.done] = 0
                continue
            exits = [togo[b] for m in comp for b in self.succ[m] if b in togo and b not in members]
            if not exits:
                continue  # cannot reach done: no run passes here
            if len(comp) > 1 or comp[0] in self.succ[comp[0]]:
                if any(self.deficit(m, j) for m in comp):
                    self.blame = comp  # where refinement starts: the blocks lumped on this cycle
                    return None
                togo.update({m: max(exits) for m in comp})
            else:
                togo[comp[0]] = self.deficit(comp[0], j) + max(exits)
        return togo


def _splits(caps: list[int], k: int) -> list[tuple[int, ...]]:
    """Every way to write k as a sum with part i at most caps[i]."""
    if not caps:
        return [()] if k == 0 else []
    return [(x,) + rest for x in range(min(caps[0], k) + 1) for rest in _splits(caps[1:], k - x)]


@dataclass
class BlockBound:
    """A deficit bound over blocks: the bound at W, the unit, the deficit to go, and the graph."""

    upper: int
    unit: str
    togo: dict[State, int]
    graph: BlockGraph

    def at(self, warps: int) -> int | None:
        """The bound at another W (None below the first block's cap, where the initial state differs)."""
        a0 = self.graph.initial(warps)
        if warps < self.graph.blocks[0][3] or a0 not in self.togo:
            return None
        k = self.graph.kernel
        return (warps * work(k, self.unit) + self.togo[a0]) // k.sigma_of(self.unit)


def block_bound(kernel: MkKernel, warps: int, blocks: Sequence[Block], deadline: float | None = None,
                blamed: set[int] | None = None) -> BlockBound | None:
    """The least deficit bound over units with these blocks, or None (no bound, or out of time).

    With no bound, ``blamed`` receives the blocks lumped on a deficit cycle
    of the busiest units (those whose work could bound the makespan).
    """
    g = BlockGraph(kernel, blocks)
    a0 = g.initial(warps)
    if not g.build(a0, deadline):
        return None
    best = None
    slope = max(Fraction(work(kernel, u), s) for u, s in kernel.sigma)
    for j, (u, sigma) in enumerate(kernel.sigma):
        togo = g.deficit_to_go(j)
        if togo is None and blamed is not None and Fraction(work(kernel, u), sigma) == slope:
            blamed |= {b for m in g.blame for b, blk in enumerate(g.blocks) if m[blk[0]] == LUMP}
        if togo is None or a0 not in togo:
            continue
        bound = (warps * work(kernel, u) + togo[a0]) // sigma
        if best is None or bound < best.upper:
            best = BlockBound(bound, u, togo, g)
    return best


def _on_longest_path(found: BlockBound, warps: int) -> set[int]:
    """Blocks lumped somewhere on a longest deficit path from the initial state."""
    g, togo = found.graph, found.togo
    j = [u for u, _ in g.kernel.sigma].index(found.unit)
    a, out, seen = g.initial(warps), set(), set()
    while a != g.done and a not in seen:
        seen.add(a)
        out |= {b for b, blk in enumerate(g.blocks) if a[blk[0]] == LUMP}
        nxt = [b for b in g.succ[a] if b in togo and togo[b] == togo[a] - g.deficit(a, j)]
        if not nxt:
            break
        a = nxt[0]
    return out


def _score(found: BlockBound) -> Callable[[tuple[int, ...]], tuple[Any, Any]]:
    """Beam ranking: the concrete state's own deficit, and the abstract deficit to go (None: dead end)."""
    g, k = found.graph, found.graph.kernel
    j = [u for u, _ in k.sigma].index(found.unit)
    waits = [p for p, ins in enumerate(k.instrs) if ins.unit == found.unit]

    def score(c: tuple[int, ...]) -> tuple[Any, Any]:
        alive = any(c[:g.P])
        own = max(0, g.sigma[j] - sum(c[p] for p in waits)) if alive else 0
        return own, found.togo.get(g.alpha(c))
    return score


@dataclass
class BlockResult(AbstractResult):
    """An AbstractResult whose proof is over blocks: ``blocks`` as (first, last, cap), ``potential`` keyed by block states."""

    blocks: list[tuple[int, int, int]] = field(default_factory=list)


def phase_search(kernel: MkKernel, warps: int, budget: float = 30.0, max_rounds: int = 12,
                 progress: Callable[[str], None] | None = None) -> BlockResult:
    """Bound the makespan by deficit accounting over maximal same-unit blocks; look for a run that meets it.

    While there is no bound, the caps of the blocks lumped on a deficit
    cycle of the busiest unit grow by one; while the bound is not met, those
    lumped along a longest deficit path.  ``potential`` holds the deficit to go of every block state
    (-1 on lumped blocks) and ``blocks`` the cuts; the certificate writer
    takes it as proof ("blocks", result) (``certificate_bound``).
    """
    start = time.monotonic()
    deadline, refine_until = start + budget, start + 0.6 * budget
    sm = CountSM(kernel, warps)
    moves = CountMoves(sm)
    run: Run = []  # the cheap runs come after the first bound: on long kernels they take seconds
    best: BlockBound | None = None
    pump = None
    # caps sigma + 0, 1, 2 on every block first; then the blocks blamed by the last round grow
    uniform = [affordable(maximal_blocks(kernel, extra)) for extra in range(3)] if kernel.single_cycle else []
    blocks = uniform.pop(0) if uniform else None
    for _ in range(max_rounds):
        if blocks is None or time.monotonic() > refine_until:
            break
        blamed: set[int] = set()
        found = block_bound(kernel, warps, blocks, refine_until, blamed)
        if progress:
            progress(f"blocks: caps {[c for *_, c in blocks]}: bound {found.upper if found else None}")
        if found is not None:
            best = found if best is None or found.upper < best.upper else best
            run = run or first_runs(sm, moves)
            run, pump = _meet(kernel, warps, found, moves, run, deadline, progress)
            if len(run) >= best.upper:
                break
            blamed = _on_longest_path(found, warps)
        refined = affordable([(f, l, j, c + 1 if b in blamed else c) for b, (f, l, j, c) in enumerate(blocks)])
        blocks = uniform.pop(0) if uniform else refined if blamed else None
    run = run or first_runs(sm, moves)
    upper = best.upper if best else None
    return BlockResult(upper, best.unit if best else None, len(run), from_counts(sm, run), upper == len(run),
                       time.monotonic() - start, len(best.graph.succ) if best else 0, (),
                       best.togo if best else None, pump if best and upper == len(run) else None,
                       [(f, l, c) for f, l, _, c in best.graph.blocks] if best else [])


def _meet(kernel: MkKernel, warps: int, found: BlockBound, moves: CountMoves, run: Run, deadline: float,
          progress: Callable[[str], None] | None) -> tuple[Run, Any]:
    """A run meeting the bound: the cheap runs, a run pumped from a small W, then beams at W."""
    if len(run) >= found.upper:
        return run, None
    score = _score(found)

    def beam(m: CountMoves) -> Run:
        target = found.at(m.sm.warps) or 0
        return longer_run(m, score, first_runs(m.sm, m), target, BASE, deadline, None, "")
    slope = _slope(kernel, found.unit)
    pumped = pumped_run(kernel, warps, slope, found.at, beam, deadline, progress)
    if pumped is not None:
        return pumped
    return longer_run(moves, score, run, found.upper, NARROW + WIDE, deadline, progress, "blocks"), None


def _slope(kernel: MkKernel, unit: str) -> Fraction:
    return Fraction(work(kernel, unit), kernel.sigma_of(unit))


def certificate_bound(result: BlockResult) -> dict[str, Any]:
    """The ``bound`` object of a certificate for a phase_search result (checked by spec/makespan/block_bound_check.py)."""
    blocks = [list(b) for b in result.blocks]
    states = [list(a) + [v] for a, v in (result.potential or {}).items()]
    return {"method": "blocks", "weight": "deficit", "unit": result.unit, "blocks": blocks, "states": states}
