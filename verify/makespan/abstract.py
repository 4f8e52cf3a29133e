"""An upper bound on the makespan for every W at once: deficit accounting over an abstract counter graph.

For any unit type u, count slot-cycles: sigma_u * T = W * w_u + D_u, where
w_u is the slot-cycles one warp needs on u and D_u the slots of u left unused
over the run (the deficit).  So bounding the deficit bounds the makespan, and
the deficit of a cycle depends only on which phases hold how many warps, up
to sigma: a warp count capped at sigma is enough to know it.

The abstract state is the count of each phase capped at that phase's own cap
(done not kept): at least sigma of its unit for a wait phase, so that a capped
phase makes its unit's issue count known (ready >= sigma >= free slots);
sigma + 1 for a busy stage that holds its slot (such counts never exceed
sigma, so they stay exact).  Moves are computed symbolically from the cycle
rules (:meth:`AbstractGraph.moves`): a capped count stands for "cap or more",
so its next count is "at least so many", which abstracts to every value from
there up to the cap.  W plays no part: the graph over-approximates every W
from the largest cap on.  The longest deficit path from the initial abstract
state to the all-done state bounds D_u; a cycle through a state with a
deficit means no bound from u (the caps then grow).  The bound is exact when
a run reaches it: a beam search over concrete states, ranked by deficit so
far plus abstract deficit-to-go, looks for one.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Sequence

from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.schedule import Schedule, from_counts
from warpcheck.models.makespan.sm import CountSM, splits
from warpcheck.verify.makespan.pump import Pump, pumped_run

Abs = tuple[int, ...]
Move = tuple[tuple[int, ...], Abs]  # warps leaving each phase (a capped busy stage: its cap), next abstract state
Run = list[dict[str, int]]


def default_caps(kernel: MkKernel, extra: int = 0) -> Abs:
    """Per-phase caps: sigma (+ extra) for wait phases and pipelined stages, sigma + 1 for slot holders."""
    sm = CountSM(kernel, 1)
    return tuple(kernel.sigma_of(sm.unit_of(p)) + (1 if sm.holds_slot(p) else extra) for p in range(sm.done))


class AbstractGraph:
    """The capped-count graph of a kernel: symbolic moves, per-unit deficits, and longest deficit paths."""

    def __init__(self, kernel: MkKernel, caps: Abs) -> None:
        self.sm = CountSM(kernel, 1)
        self.P = self.sm.done
        if len(caps) != self.P:
            raise ValueError(f"{len(caps)} caps for {self.P} phases")  # a caller bug
        self.caps = caps
        self.wait = [self.sm.phases[p].is_wait for p in range(self.P)]
        self.units = [(u, kernel.sigma_of(u), self.sm.waits_on(u), self.sm.holders_on(u)) for u in kernel.units]
        self.succ: dict[Abs, list[Move]] = {}
        self._splits: dict[tuple[tuple[int, ...], int], list[tuple[tuple[int, int], ...]]] = {}
        self._sccs: list[list[Abs]] | None = None
        self.blame: list[Abs] = []

    @property
    def done(self) -> Abs:
        return tuple(0 for _ in range(self.P))

    def initial(self, warps: int) -> Abs:
        """The abstract state of W warps all waiting at the first phase."""
        return self.alpha((warps,) + (0,) * (self.P - 1))

    def alpha(self, counts: Sequence[int]) -> Abs:
        """The abstract state of a concrete count tuple (the done count, if present, is dropped)."""
        return tuple(min(n, c) for n, c in zip(counts, self.caps))

    def _issue(self, a: Sequence[int], sigma: int, waits: list[int], holders: list[int]) -> int | None:
        """How many warps the unit issues: min(free, ready), ready >= sigma when a wait count is capped."""
        free = sigma - sum(a[p] for p in holders)
        if free < 0:
            return None  # more slots held than the unit has: never reached
        if any(a[p] >= self.caps[p] for p in waits):
            return free
        return min(free, sum(a[p] for p in waits))

    def deficit(self, a: Sequence[int], unit: str) -> int:
        """Unused slots of ``unit`` in a state (abstract, or concrete: a concrete count is exact)."""
        if not any(a):
            return 0
        for u, sigma, waits, holders in self.units:
            if u == unit:
                free = sigma - sum(a[p] for p in holders)
                capped = any(a[p] >= self.caps[p] for p in waits)
                return 0 if capped else max(0, free - sum(a[p] for p in waits))
        raise KeyError(unit)

    def moves(self, a: Abs) -> list[Move]:
        """Every abstract move out of ``a``: a work-conserving issue choice and every next abstract state."""
        per_unit = []
        for _, sigma, waits, holders in self.units:
            issue = self._issue(a, sigma, waits, holders)
            if issue is None:
                return []
            per_unit.append(self._unit_splits(a, waits, issue))
        P, caps = self.P, self.caps
        left0 = [0 if self.wait[p] else a[p] for p in range(P)]
        next0 = [(a[q] if self.wait[q] else 0) + (left0[q - 1] if q else 0) for q in range(P)]
        # next counts known only from below: a capped wait phase's own, and the one after a capped busy stage
        open_ = sorted({q if self.wait[q] else q + 1 for q in range(P) if a[q] >= caps[q]} - {P})
        out: list[Move] = []
        for combo in itertools.product(*per_unit):
            left, nxt = left0[:], next0[:]
            for part in combo:
                for p, x in part:
                    left[p] = x
                    nxt[p] -= x
                    if p + 1 < P:
                        nxt[p + 1] += x
            b = [min(v, c) for v, c in zip(nxt, caps)]
            ranged = [q for q in open_ if nxt[q] < caps[q]]
            if not ranged:
                out.append((tuple(left), tuple(b)))
                continue
            for vals in itertools.product(*[range(nxt[q], caps[q] + 1) for q in ranged]):
                for q, v in zip(ranged, vals):
                    b[q] = v
                out.append((tuple(left), tuple(b)))
        return out

    def _unit_splits(self, a: Abs, waits: list[int], issue: int) -> list[tuple[tuple[int, int], ...]]:
        """Every split of ``issue`` warps over the unit's non-empty wait phases (patterns cached by their caps)."""
        nz = [p for p in waits if a[p]]
        caps = tuple(min(a[p], issue) for p in nz)
        key = (caps, issue)
        if key not in self._splits:
            self._splits[key] = [tuple((j, x) for j, x in enumerate(split) if x) for split in splits(list(caps), issue)]
        return [tuple((nz[j], x) for j, x in pattern) for pattern in self._splits[key]]

    def build(self, start: Abs, deadline: float | None = None, reserve: float = 0.5) -> bool:
        """Explore every abstract state reachable from ``start``; False if the deadline passed first.

        The build also stops early enough to leave ``reserve`` times its own
        duration before the deadline, for the passes over the graph that follow
        (components, longest paths, the LP rows): they grow with the graph.
        """
        began = time.monotonic()
        todo = [start]
        self.succ.setdefault(start, [])
        seen = {start}
        while todo:
            if deadline is not None and len(self.succ) % 256 == 0:
                now = time.monotonic()
                if now + reserve * (now - began) > deadline:
                    return False
            a = todo.pop()
            self.succ[a] = [] if not any(a) else self.moves(a)
            for _, b in self.succ[a]:
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        self._sccs = None
        return True

    def states(self) -> int:
        return len(self.succ)

    def sccs(self) -> list[list[Abs]]:
        """Strongly connected components, each after every component it reaches (Tarjan, iterative)."""
        if self._sccs is None:
            self._sccs = tarjan({a: [b for _, b in ms] for a, ms in self.succ.items()})
        return self._sccs

    def deficit_to_go(self, unit: str) -> dict[Abs, int] | None:
        """Longest deficit path from each state to the done state, or None if a deficit lies on a live cycle.

        States that cannot reach the done state get no entry: no concrete run
        passes through them, since every run ends with all warps done.
        """
        togo: dict[Abs, int] = {}
        for comp in self.sccs():
            members = set(comp)
            exits = [togo[b] for m in comp for _, b in self.succ[m] if b in togo and b not in members]
            if comp == [self.done]:
                togo[self.done] = 0
                continue
            cyclic = len(comp) > 1 or any(b == comp[0] for _, b in self.succ[comp[0]])
            if not exits:
                continue
            if cyclic:
                if any(self.deficit(m, unit) for m in comp):
                    self.blame = comp  # where refinement starts: the counts capped on this cycle
                    return None
                for m in comp:  # deficit-free: every member reaches the best exit at no cost
                    togo[m] = max(exits)
            else:
                togo[comp[0]] = self.deficit(comp[0], unit) + max(exits)
        return togo


def tarjan(graph: dict[Abs, list[Abs]]) -> list[list[Abs]]:
    """Return the strongly connected components of a graph, sinks first (iterative Tarjan)."""
    index: dict[Abs, int] = {}
    low: dict[Abs, int] = {}
    on_stack: set[Abs] = set()
    stack: list[Abs] = []
    out: list[list[Abs]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[Abs, Iterator[Abs]]] = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph.get(w, ()))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(comp)
    return out


def work(kernel: MkKernel, unit: str) -> int:
    """Slot-cycles one warp needs on ``unit``."""
    return sum(1 if ins.pipelined else ins.latency for ins in kernel.instrs if ins.unit == unit)


@dataclass
class AbstractResult:
    """The best bound over units, the greedy run, and whether they meet (exact)."""

    upper: int | None
    unit: str | None
    makespan: int
    schedule: Schedule
    exact: bool
    seconds: float
    states: int
    caps: Abs = ()
    potential: dict[Abs, int] | None = None  # the deficit to go from every abstract state (the proof)
    pump: Pump | None = None  # when the run was pumped from a smaller W: then exact on the pump's whole class


def bound_with_caps(kernel: MkKernel, warps: int, caps: Abs, deadline: float | None = None
                    ) -> tuple[int, str, dict[Abs, int], AbstractGraph] | None:
    """The best deficit bound over units with these per-phase caps, or None."""
    ag = AbstractGraph(kernel, caps)
    if not ag.build(ag.initial(warps), deadline):
        return None
    return best_bound(ag, kernel, warps)


def best_bound(ag: AbstractGraph, kernel: MkKernel, warps: int) -> tuple[int, str, dict[Abs, int], AbstractGraph] | None:
    """Return the least deficit bound over the units at W, with its unit, deficit to go and graph; None if none."""
    a0 = ag.initial(warps)
    best = None
    for u in kernel.units:
        togo = ag.deficit_to_go(u)
        if togo is None or a0 not in togo:
            continue
        bound = (warps * work(kernel, u) + togo[a0]) // kernel.sigma_of(u)
        if best is None or bound < best[0]:
            best = (bound, u, togo, ag)
    return best


def abstract_search(kernel: MkKernel, warps: int, budget: float = 30.0, max_rounds: int = 12,
                    progress: Callable[[str], None] | None = None) -> AbstractResult:
    """Bound the makespan by deficit accounting, refining the caps until a guided run meets the bound.

    Refinement raises by one the caps of the phases that are capped where
    the abstraction is too coarse: on a cycle with a deficit of the busiest
    unit (no bound), or along the longest deficit path (a bound no run meets).
    """
    start = time.monotonic()
    deadline, refine_until = start + budget, start + WIDE_SHARE * budget
    sm = CountSM(kernel, warps)
    moves = CountMoves(sm)
    best, run, caps = None, first_runs(sm, moves), default_caps(kernel)
    pump = None
    for _ in range(max_rounds):
        if time.monotonic() > refine_until:
            break
        ag = AbstractGraph(kernel, caps)
        if not ag.build(ag.initial(warps), refine_until):
            break
        found = best_bound(ag, kernel, warps)
        if progress:
            progress(f"abstract: caps {list(caps)}, {ag.states()} states: bound {found[0] if found else None}")
        if found is None:
            refine = _blamed(ag, kernel)
        else:
            best = found if best is None or found[0] < best[0] else best
            run, pump, met = meet_bound(moves, found, run, best[0], (refine_until, deadline), progress, "abstract")
            if met:
                break
            refine = capped_on_longest_path(ag, found[2], found[1], warps)
        if not refine:
            break
        caps = tuple(c + 1 if p in refine else c for p, c in enumerate(caps))
    if best is not None:
        run = longer_run(moves, deficit_score(best), run, best[0], WIDE, deadline, progress, "abstract")
    upper = best[0] if best else None
    return AbstractResult(upper, best[1] if best else None, len(run), from_counts(sm, run),
                          upper == len(run), time.monotonic() - start,
                          best[3].states() if best else 0, best[3].caps if best else (), best[2] if best else None,
                          pump)


NARROW, WIDE = (1, 8), (64,)  # beam widths: after every bound found, and once the bounds are refined
BASE = (8, 64, 256, 1024)  # beam widths for a base run to pump: at W0 <= 27 even 1024 takes about a second
WIDE_SHARE = 0.6  # bounds are refined in the first 60 % of the budget; the wide beam has the rest


def longer_run(moves: CountMoves, score: Callable[[tuple[int, ...]], tuple[Any, Any]], run: Run, target: int,
               widths: Iterable[int], deadline: float, progress: Callable[[str], None] | None, label: str) -> Run:
    """Beam searches of the given widths, ranked by ``score``, until one run reaches ``target``; the longest run."""
    for width in widths:
        if len(run) >= target or time.monotonic() > deadline:
            break
        guided = guided_run(moves, score, width, deadline)
        run = guided if len(guided) > len(run) else run
        if progress:
            progress(f"{label}: beam {width}: run of {len(guided)} cycles")
    return run


def meet_bound(moves: CountMoves, found: tuple[int, str, dict[Abs, int], AbstractGraph], run: Run, target: int,
               deadlines: tuple[float, float], progress: Callable[[str], None] | None, label: str
               ) -> tuple[Run, Pump | None, bool]:
    """Look for a run meeting a deficit bound: pumped from a small W first, else the narrow beams; True if met.

    ``deadlines``: the end of the bound refinement (for the pump) and of the search (for the beams).
    """
    kernel, warps = moves.sm.kernel, moves.sm.warps
    pumped = pumped_deficit_run(kernel, warps, found, deadlines[0], progress)
    if pumped is not None:
        return pumped[0], pumped[1], True
    run = longer_run(moves, deficit_score(found), run, target, NARROW, deadlines[1], progress, label)
    return run, None, len(run) >= target


def pumped_deficit_run(kernel: MkKernel, warps: int, found: tuple[int, str, dict[Abs, int], AbstractGraph],
                       deadline: float, progress: Callable[[str], None] | None) -> tuple[Run, Pump] | None:
    """A run meeting the bound, pumped from a small W: the bound is one table for every W from the cap of phase 0."""
    _, unit, togo, ag = found
    sigma, need = kernel.sigma_of(unit), work(kernel, unit)

    def bound_at(w: int) -> int | None:
        a0 = ag.initial(w)
        return (w * need + togo[a0]) // sigma if w >= ag.caps[0] and a0 in togo else None

    score = deficit_score(found)

    def beam(moves: CountMoves) -> Run:
        target = bound_at(moves.sm.warps) or 0
        return longer_run(moves, score, first_runs(moves.sm, moves), target, BASE, deadline, None, "")
    return pumped_run(kernel, warps, Fraction(need, sigma), bound_at, beam, deadline, progress)


def deficit_score(found: tuple[int, str, dict[Abs, int], AbstractGraph]) -> Callable[[tuple[int, ...]], tuple[Any, Any]]:
    """Rank concrete count states for the beam: the deficit so far, then the abstract deficit to go."""
    _, unit, togo, ag = found
    return lambda k: (ag.deficit(k, unit), togo.get(ag.alpha(k)))


def _blamed(ag: AbstractGraph, kernel: MkKernel) -> set[int]:
    """Phases capped on a deficit cycle of the busiest units (those whose work could bound the makespan)."""
    slope = max(Fraction(work(kernel, u), kernel.sigma_of(u)) for u in kernel.units)
    out: set[int] = set()
    for u in kernel.units:
        if Fraction(work(kernel, u), kernel.sigma_of(u)) == slope and ag.deficit_to_go(u) is None:
            out |= {p for m in ag.blame for p in range(ag.P) if m[p] >= ag.caps[p]}
    return out


def capped_on_longest_path(ag: AbstractGraph, togo: dict[Abs, int], unit: str, warps: int) -> set[int]:
    """Phases capped somewhere on a longest deficit path from the initial state."""
    a, out, seen = ag.initial(warps), set(), set()
    while a != ag.done and a not in seen:
        seen.add(a)
        out |= {p for p in range(ag.P) if a[p] >= ag.caps[p]}
        nxt = [b for _, b in ag.succ[a] if b in togo and togo[b] == togo[a] - ag.deficit(a, unit)]
        if not nxt:
            break
        a = nxt[0]
    return out


def _run_of(moves: CountMoves, pick: Callable[[list[tuple[tuple[tuple[int, int], ...], tuple[int, ...]]]], Any]
            ) -> Run:
    k, run = tuple([moves.sm.warps] + [0] * moves.sm.done), []
    while k[-1] != moves.sm.warps:
        inp, k = pick(moves.successors(k))
        run.append({f"a{p}": x for p, x in inp})
    return run


def priority_run(moves: CountMoves, latest_first: bool) -> Run:
    """The run that always issues from the earliest (or the latest) wait phases first: often a worst case."""
    order = moves.sm.waits[::-1] if latest_first else moves.sm.waits

    def rank(e: Any) -> tuple[int, ...]:
        got = dict(e[0])
        return tuple(got.get(p, 0) for p in order)
    return _run_of(moves, lambda succ: max(succ, key=rank))


def first_runs(sm: CountSM, moves: CountMoves | None = None) -> Run:
    """The longest of three cheap runs: first choice, earliest phases first, latest phases first."""
    moves = moves or CountMoves(sm)
    return max((_run_of(moves, lambda succ: succ[0]), priority_run(moves, False), priority_run(moves, True)), key=len)


def guided_run(moves: CountMoves, score: Callable[[tuple[int, ...]], tuple[Any, Any]], width: int,
               deadline: float | None = None) -> Run:
    """Beam search for a long run: keep the ``width`` states with most gain so far plus ``score``'s to-go part.

    ``score(k)`` gives (gain of state k itself, estimate to go from k, None
    where k cannot lead to the end); the beam keeps the states with the
    largest gain so far plus estimate.
    """
    warps = moves.sm.warps
    root = tuple([warps] + [0] * moves.sm.done)
    beam: list[tuple[Any, tuple[int, ...], tuple]] = [(0, root, ())]
    best: tuple = ()
    while beam:
        if deadline is not None and time.monotonic() > deadline:
            return []
        nxt: dict[tuple[int, ...], tuple[Any, Any, tuple]] = {}
        for spent, k, path in beam:
            if k[-1] == warps:
                best = path
                continue
            spent2 = spent + score(k)[0]
            for inp, t in moves.successors(k):
                togo = score(t)[1]
                if togo is None:
                    continue
                sc = spent2 + togo
                if t not in nxt or nxt[t][0] < sc:
                    nxt[t] = (sc, spent2, (path, inp))
        ranked = sorted(nxt.items(), key=lambda e: -e[1][0])[:width]
        beam = [(spent, t, path) for t, (_, spent, path) in ranked]
    out: Run = []
    while best:
        best, inp = best
        out.append({f"a{p}": x for p, x in inp})
    return out[::-1]
