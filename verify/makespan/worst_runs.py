"""Long runs for any kernel length: priority policies improved by local search (the lower side of the interval).

A run is found by simulating the counter machine (``models/makespan/sm.py``)
under a *priority policy*: per unit and cycle, the min(free slots, ready
warps) issues go to the unit's wait phases in the order of a priority vector
(one number per phase; a second vector takes over at a switch cycle).  Every
such run is work-conserving by construction, so its length is a lower bound
of the worst case; the verb replays it on the reference kernel before it
prints it.  The search starts from the fixed policies (earliest phases first,
latest first, the busiest unit's phases last) and keeps a mutation (one
phase's priority redrawn, two swapped, the switch moved) when the run is at
least as long.  It is bounded by a number of simulated runs (work), with an
optional deadline for the verb that every step keeps, a run itself included:
at a million warps one run takes over a minute.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.schedule import Schedule
from warpcheck.models.makespan.sm import CountSM

Run = list[dict[str, int]]
Genome = tuple[tuple[float, ...], tuple[float, ...], int]  # priorities before / after the switch, switch cycle
CLOCK_EVERY = 1024  # cycles simulated (or scheduled) between two looks at the deadline


@dataclass
class WorstRun:
    """The longest run found, the policy behind it, and how many runs were simulated."""

    makespan: int
    run: Run
    genome: Genome
    runs: int


class PolicySim:
    """Simulate the counter machine of ``kernel`` with W warps under a priority policy."""

    units: list[tuple[int, list[int], list[int]]]  # per unit: sigma, its wait phases, its slot-holding phases

    def __init__(self, kernel: MkKernel, warps: int) -> None:
        self.sm = sm = CountSM(kernel, warps)
        self.warps, self.P = warps, len(sm.phases)
        self.busy = [p for p in range(sm.done) if not sm.phases[p].is_wait]
        self.units = [(kernel.sigma_of(u), sm.waits_on(u), sm.holders_on(u)) for u in kernel.units]

    def run(self, genome: Genome, deadline: float | None = None) -> Run | None:
        """The run of ``genome``: per cycle, the warps issued from each wait phase; None once ``deadline`` passes.

        Only the non-empty phases are visited (at most W of them), so a cycle
        costs O(W log W) whatever the kernel's length.
        """
        first, second, switch = genome
        unit_of = {p: j for j, (_, waits, _) in enumerate(self.units) for p in waits}
        holder_unit = {p: j for j, (_, _, holders) in enumerate(self.units) for p in holders}
        busy = set(self.busy)
        n = [self.warps] + [0] * (self.P - 1)
        live = {0} if self.warps else set()  # non-empty, non-done phases
        out: Run = []
        while n[-1] < self.warps:
            if deadline is not None and len(out) % CLOCK_EVERY == 0 and time.monotonic() > deadline:
                return None
            prio = first if len(out) < switch else second
            free = [sigma for sigma, _, _ in self.units]
            for p in live:
                if p in holder_unit:
                    free[holder_unit[p]] -= n[p]
            issues: dict[str, int] = {}
            moved = []
            for p in sorted(live, key=lambda q: -prio[q]):
                if p in busy:
                    moved.append((p, n[p]))
                    continue
                j = unit_of[p]
                if free[j] > 0:
                    a = min(free[j], n[p])
                    free[j] -= a
                    issues[f"a{p}"] = a
                    moved.append((p, a))
            for p, a in moved:
                n[p] -= a
                n[p + 1] += a
                if not n[p]:
                    live.discard(p)
                if p + 1 < self.P - 1:
                    live.add(p + 1)
            out.append(issues)
        return out


def schedule_of(sim: PolicySim, run: Run, deadline: float | None = None) -> Schedule | None:
    """The per-warp schedule of a run, as ``from_counts`` gives it (lowest-numbered warps first), visiting only the
    non-empty phases: ``from_counts`` walks every phase every cycle, too slow for kernels of thousands of phases.
    None once ``deadline`` passes (a phase of many warps costs O(W) per cycle: minutes at 50,000 warps)."""
    sm = sim.sm
    members: dict[int, list[int]] = {0: list(range(sim.warps))}
    issue = [[0] * len(sm.kernel.instrs) for _ in range(sim.warps)]
    busy = set(sim.busy)
    for t, inp in enumerate(run, start=1):
        if deadline is not None and t % CLOCK_EVERY == 1 and time.monotonic() > deadline:
            return None
        moved: list[tuple[int, list[int]]] = []
        for p in [q for q in members if q in busy]:
            moved.append((p + 1, members.pop(p)))
        for key, k in inp.items():
            p = int(key[1:])
            go, rest = members[p][:k], members[p][k:]
            if rest:
                members[p] = rest
            else:
                del members[p]
            for w in go:
                issue[w][sm.phases[p].instr] = t
            moved.append((p + 1, go))
        for q, ws in moved:
            if q < sm.done:
                members[q] = sorted(members.get(q, []) + ws)
    if members:
        raise ValueError("the run does not finish every warp")  # a simulator bug, not user input
    return Schedule(sm.kernel, tuple(tuple(r) for r in issue))


def fixed_genomes(kernel: MkKernel, P: int) -> list[Genome]:
    """Earliest phases first, latest first, and each unit's phases last (the others' first)."""
    early = tuple(float(P - p) for p in range(P))
    late = tuple(float(p) for p in range(P))
    out = [(early, early, 0), (late, late, 0)]
    sm = CountSM(kernel, 1)
    for u in kernel.units:
        mine = set(sm.waits_on(u))
        prio = tuple(float(p - (P if p in mine else 0)) for p in range(P))
        out.append((prio, late, P))
    return out


def _mutate(g: Genome, rng: random.Random, horizon: int) -> Genome:
    first, second, switch = list(g[0]), list(g[1]), g[2]
    kind = rng.random()
    vec = first if rng.random() < 0.5 else second
    if kind < 0.5:
        vec[rng.randrange(len(vec))] = rng.uniform(-len(vec), 2 * len(vec))
    elif kind < 0.85:
        i, j = rng.randrange(len(vec)), rng.randrange(len(vec))
        vec[i], vec[j] = vec[j], vec[i]
    else:
        switch = rng.randrange(horizon + 1)
    return tuple(first), tuple(second), switch


class PolicySearch:
    """A resumable local search over priority policies: ``more`` simulates further runs and keeps the longest."""

    def __init__(self, kernel: MkKernel, warps: int, seed: int = 0) -> None:
        self.sim, self.rng = PolicySim(kernel, warps), random.Random(seed)
        self.pool = fixed_genomes(kernel, self.sim.P)
        self.best: WorstRun | None = None
        self.runs = 0
        self.last = 0.0  # seconds of the last simulated run

    def _next(self) -> Genome:
        if self.pool:
            return self.pool.pop(0)
        assert self.best is not None
        if self.rng.random() < 0.1:  # a restart now and then: a random vector, so the search does not stall
            fresh = tuple(self.rng.uniform(0, self.sim.P) for _ in range(self.sim.P))
            return fresh, fresh, 0
        return _mutate(self.best.genome, self.rng, self.best.makespan)

    def more(self, runs: int, deadline: float | None = None, target: int | None = None) -> WorstRun | None:
        """Simulate up to ``runs`` more policies (fewer if ``deadline`` passes, or once a run reaches ``target``, a
        proved upper bound); return the longest run so far (None: no run ended before ``deadline``)."""
        for _ in range(runs):
            if self.best is not None and deadline is not None and time.monotonic() + self.last >= deadline:
                break  # the next run would likely end past the deadline
            if self.best is not None and target is not None and self.best.makespan >= target:
                break  # no run can be longer: the interval has closed
            g = self._next()
            start = time.monotonic()
            r = self.sim.run(g, deadline)
            self.last = time.monotonic() - start
            if r is None:
                self.pool.insert(0, g)  # the deadline passed inside the run: its policy is tried first next time
                break
            self.runs += 1
            if self.best is None or len(r) >= self.best.makespan:
                self.best = WorstRun(len(r), r, g, self.runs)
        return self.best


def search_worst_run(kernel: MkKernel, warps: int, runs: int = 200, seed: int = 0,
                     deadline: float | None = None) -> WorstRun | None:
    """Local search over priority policies: the longest run within ``runs`` simulations (and ``deadline``)."""
    best = PolicySearch(kernel, warps, seed).more(runs, deadline)
    return best
