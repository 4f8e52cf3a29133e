"""An upper bound on the makespan for every W at once: deficit accounting over an abstract counter graph.

For any unit type u, count slot-cycles: sigma_u * T = W * w_u + D_u, where
w_u is the slot-cycles one warp needs on u and D_u the slots of u left unused
over the run (the deficit).  So bounding the deficit bounds the makespan, and
the deficit of a cycle depends only on which phases hold how many warps, up
to sigma: a warp count capped at K = max sigma is enough to know it.

The abstract state is the count of each phase capped at K (done not kept).
Its successors are computed by stepping the model itself (``CountSM.step``)
on concrete representatives (a capped count K stands for K .. K + sigma_max,
which covers every way a larger count can move).  W plays no part: the graph
over-approximates every W >= K.  The longest deficit path from the initial
abstract state to the all-done state bounds D_u; a cycle through a state with
a deficit means no bound from u (the cap then grows by one).  The bound is
exact when a run reaches it: a beam search over concrete states, ranked by
deficit so far plus abstract deficit-to-go, looks for one.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import networkx as nx

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.makespan.sm import CountSM
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import Schedule, from_counts

Abs = tuple[int, ...]


class AbstractGraph:
    """The capped-count graph of a kernel, with the per-unit deficit of every abstract state."""

    def __init__(self, kernel: MkKernel, cap: int) -> None:
        self.sm = CountSM(kernel, 1)
        self.K = cap
        smax = max(kernel.sigma_of(u) for u in kernel.units)
        self.span = self.K + smax  # representatives of a capped count: K .. K + sigma_max
        self.n_abs = len(self.sm.phases) - 1
        self.graph = nx.DiGraph()
        self.deficit: dict[Abs, dict[str, int]] = {}

    def alpha(self, s: dict[str, int]) -> Abs:
        return tuple(min(s[f"n{p}"], self.K) for p in range(self.n_abs))

    def reps(self, a: Abs) -> list[dict[str, int]]:
        """Concrete states standing for abstract state a (a capped count K: K .. K + max sigma)."""
        ranges = [[v] if v < self.K else range(self.K, self.span + 1) for v in a]
        return [{**{f"n{p}": v for p, v in enumerate(vals)}, f"n{self.n_abs}": 0}
                for vals in itertools.product(*ranges)]

    def _unit_deficit(self, s: dict[str, int]) -> dict[str, int]:
        out = {}
        for u in self.sm.kernel.units:
            free = self.sm.free_slots(CONCRETE, s, u)
            out[u] = max(0, free - self.sm.ready(CONCRETE, s, u))
        return out

    def deficit_of(self, s: dict[str, int], unit: str) -> int:
        """The unused slots of ``unit`` in concrete state ``s``."""
        return self._unit_deficit(s)[unit]

    def build(self, start: Abs, deadline: float | None = None) -> bool:
        """Explore every abstract state reachable from ``start``; False if the deadline passed first."""
        todo, seen = [start], {start}
        while todo:
            if deadline is not None and time.monotonic() > deadline:
                return False
            a = todo.pop()
            reps = self.reps(a)
            self.deficit[a] = self._unit_deficit(reps[0])
            self.graph.add_node(a)
            if not any(a):
                continue
            for s in reps:
                for inp in self.sm.choices(s):
                    b = self.alpha(self.sm.step(CONCRETE, s, inp))
                    self.graph.add_edge(a, b)
                    if b not in seen:
                        seen.add(b)
                        todo.append(b)
        return True

    def deficit_to_go(self, unit: str) -> dict[Abs, int] | None:
        """Longest deficit path from each state to the done state, or None if a deficit lies on a cycle."""
        done = tuple(0 for _ in range(self.n_abs))
        live = nx.ancestors(self.graph, done) | {done}
        g = self.graph.subgraph(live).copy()
        cond = nx.condensation(g)
        for c in cond.nodes:
            members = cond.nodes[c]["members"]
            cyclic = len(members) > 1 or any(g.has_edge(m, m) for m in members)
            if cyclic and any(self.deficit[m][unit] for m in members):
                return None
        togo: dict[Abs, int] = {}
        for c in reversed(list(nx.topological_sort(cond))):
            for m in cond.nodes[c]["members"]:
                nxt = [togo[b] for b in g.successors(m) if b in togo]
                togo[m] = (self.deficit[m][unit] if any(m) else 0) + (max(nxt) if nxt else 0)
            # members of a deficit-free cycle share the best exit: iterate to a fixpoint
            for _ in range(len(cond.nodes[c]["members"])):
                for m in cond.nodes[c]["members"]:
                    nxt = [togo[b] for b in g.successors(m) if b in togo]
                    togo[m] = max(togo[m], (self.deficit[m][unit] if any(m) else 0) + (max(nxt) if nxt else 0))
        return togo


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
    cap: int = 0
    potential: dict[Abs, int] | None = None  # the deficit to go from every abstract state (the proof)


def bound_with_cap(kernel: MkKernel, warps: int, cap: int,
                   deadline: float | None = None) -> tuple[int, str, dict[Abs, int], AbstractGraph] | None:
    """The best bound over units with counts capped at ``cap`` (at least max sigma), or None."""
    ag = AbstractGraph(kernel, cap)
    sm = CountSM(kernel, warps)
    a0 = ag.alpha(sm.init(CONCRETE, {}))
    if not ag.build(a0, deadline):
        return None
    best = None
    for u in kernel.units:
        togo = ag.deficit_to_go(u)
        if togo is None or a0 not in togo:
            continue
        bound = (warps * work(kernel, u) + togo[a0]) // kernel.sigma_of(u)
        if best is None or bound < best[0]:
            best = (bound, u, togo, ag)
    return best


def bounds_by_cap(caps: Iterable[int], deadline: float, label: str, progress: Callable[[str], None] | None,
                  bound: Callable[[int], Any]) -> Iterator[tuple[int, Any]]:
    """The bound found at each cap (skipping caps that give none) while the deadline lasts."""
    for cap in caps:
        if time.monotonic() > deadline:
            return
        found = bound(cap)
        if progress:
            progress(f"{label}: cap {cap}: bound {found[0] if found else None}")
        if found is not None:
            yield cap, found


def abstract_search(kernel: MkKernel, warps: int, max_cap: int | None = None, budget: float = 30.0,
                    progress: Callable[[str], None] | None = None) -> AbstractResult:
    """Bound the makespan by deficit accounting, and try to reach the bound with a guided run.

    The cap grows from max sigma to ``max_cap`` (default max sigma + 1: a
    finer abstraction) while the bound is not met and the time budget lasts.
    """
    start = time.monotonic()
    smax = max(kernel.sigma_of(u) for u in kernel.units)
    max_cap = smax + 1 if max_cap is None else max_cap
    sm = CountSM(kernel, warps)
    best, run = None, first_runs(sm)
    for cap, found in bounds_by_cap(range(smax, max_cap + 1), start + budget, "abstract", progress,
                                    lambda cap: bound_with_cap(kernel, warps, cap, start + budget)):
        if best is None or found[0] < best[0]:
            best = found
        for width in (1, 8, 64):
            if len(run) >= found[0]:
                break
            guided = _guided_run(sm, found[3], found[2], found[1], width)
            run = guided if len(guided) > len(run) else run
            if progress:
                progress(f"abstract: beam {width}: run of {len(guided)} cycles")
            if len(run) >= found[0] or time.monotonic() - start > budget:
                break
        if len(run) >= best[0] or time.monotonic() - start > budget:
            break
    upper = best[0] if best else None
    return AbstractResult(upper, best[1] if best else None, len(run), from_counts(sm, run),
                          upper == len(run), time.monotonic() - start,
                          best[3].graph.number_of_nodes() if best else 0,
                          best[3].K if best else 0, best[2] if best else None)


def complete_first(sm: CountSM) -> list[dict[str, int]]:
    """A run that always takes the first work-conserving choice."""
    s, run = sm.init(CONCRETE, {}), []
    while not sm.finished(CONCRETE, s):
        inp = next(sm.choices(s))
        s = sm.step(CONCRETE, s, inp)
        run.append(inp)
    return run


def priority_run(sm: CountSM, latest_first: bool) -> list[dict[str, int]]:
    """The run that always issues from the earliest (or the latest) wait phases first: often a worst case."""
    order = sm.waits[::-1] if latest_first else sm.waits
    s, run = sm.init(CONCRETE, {}), []
    while not sm.finished(CONCRETE, s):
        inp = max(sm.choices(s), key=lambda i: tuple(i.get(f"a{p}", 0) for p in order))
        s = sm.step(CONCRETE, s, inp)
        run.append(inp)
    return run


def first_runs(sm: CountSM) -> list[dict[str, int]]:
    """The longest of three cheap runs: first choice, earliest phases first, latest phases first."""
    return max((complete_first(sm), priority_run(sm, False), priority_run(sm, True)), key=len)


def _guided_run(sm: CountSM, ag: AbstractGraph, togo: dict[Abs, int], unit: str, width: int) -> list[dict[str, int]]:
    """Beam search for a long run: keep the ``width`` states with most deficit so far plus abstract deficit-to-go."""
    names = [v.name for v in sm.state_vars()]
    start = sm.init(CONCRETE, {})
    beam: list[tuple[int, dict[str, int], list]] = [(0, start, [])]
    finished: list[tuple[int, list]] = []
    while beam:
        nxt: dict[tuple[int, ...], tuple[int, int, dict[str, int], Any]] = {}
        for spent, s, path in beam:
            if sm.finished(CONCRETE, s):
                finished.append((spent, path))
                continue
            spent2 = spent + ag.deficit_of(s, unit)
            for inp in sm.choices(s):
                t = sm.step(CONCRETE, s, inp)
                key = tuple(t[n] for n in names)
                score = spent2 + togo.get(ag.alpha(t), -10 ** 9)
                if key not in nxt or nxt[key][0] < score:
                    nxt[key] = (score, spent2, t, (path, inp))
        ranked = sorted(nxt.values(), key=lambda e: -e[0])[:width]
        beam = [(spent, t, path) for _, spent, t, path in ranked]
    best = max(finished, key=lambda e: e[0])[1]
    out: list[dict[str, int]] = []
    while best:
        best, inp = best
        out.append(inp)
    return out[::-1]
