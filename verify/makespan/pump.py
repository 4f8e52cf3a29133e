"""Pumping a run: a run at a small W0, with stretches repeated, is a run for W0 + m d, for every m.

The lemma.  Cap the count of a wait phase at sigma of its unit.  While a wait
phase holds at least that many warps, its unit issues exactly its free slots
(ready >= sigma >= free), and any split of them is allowed at that phase (a
split takes at most sigma warps from it).  So extra warps standing in capped
wait phases change neither which issue choices are work-conserving nor what
they do to the other phases; extra warps in the done phase change nothing.

Take a run of W0 warps, with states k_0 .. k_T (k_t: warps per phase after t
cycles; the choice of cycle t + 1 is taken in k_t), and a chain of stretches
[i_1, j_1), [i_2, j_2), ... in time order, stretch s moving d warps from wait
phase p_{s-1} to wait phase p_s (k_{j_s} - k_{i_s} is exactly that), with
p_0 = 0 and the last p = done.  Start W0 + m d warps and replay the run's
choices, playing each stretch m + 1 times: the m d extra warps stand in
phase 0 until the first stretch, move d at a time to p_1 while it repeats,
stand in p_1 until the second stretch, and so on, until they are done.  If
every phase holding extra warps is capped in the run's own state at every
cycle where they stand there (both ends of a stretch while it repeats), each
choice stays work-conserving and does the same: a run of T + m sum(j_s - i_s)
cycles.  So the worst case of W0 + m d warps is at least that.  When the
upper bound, which holds for every W, grows by exactly sum(j_s - i_s) per d
warps and the run meets it at W0, the worst case is known exactly for every
W = W0 + m d.  (One stretch from phase 0 to done is the common case of a
steady state; worst cases that first push every warp through the first
instructions need a chain.)

``spec/makespan/certificate_check.py`` checks a pump of a certificate again from the
rules, sharing no code with this module.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from warpcheck.models.makespan.moves import CountMoves, Key
from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.models.makespan.sm import CountSM

Run = list[dict[str, int]]

MAX_PERIOD = 4  # periods tried: the extra warps' spread over phases grows fast with it
BASES = range(16, 16 + MAX_PERIOD)  # the W0 tried for a base run: one of them is W's class for every period
Stretch = tuple[int, int]  # cycles [i, j) of the run (states k_i .. k_j)


@dataclass(frozen=True)
class Pump:
    """A run of ``warps`` warps whose ``stretches``, each played m + 1 times, run W0 + m ``period`` warps."""

    warps: int
    run: tuple[dict[str, int], ...]
    stretches: tuple[Stretch, ...]
    period: int

    @property
    def cycles(self) -> int:
        """Cycles added per ``period`` warps."""
        return sum(j - i for i, j in self.stretches)

    def covers(self, warps: int) -> bool:
        return warps >= self.warps and (warps - self.warps) % self.period == 0

    def run_for(self, warps: int) -> Run:
        """The pumped run of ``warps`` warps (which the pump covers): each stretch played m + 1 times."""
        m = (warps - self.warps) // self.period
        r, out, at = list(self.run), [], 0
        for i, j in self.stretches:
            out += r[at:i] + r[i:j] * (m + 1)
            at = j
        return out + r[at:]


def count_states(moves: CountMoves, run: Iterable[dict[str, int]]) -> list[Key]:
    """The states k_0 .. k_T of a counter-level run."""
    sm = moves.sm
    k: Key = tuple([sm.warps] + [0] * sm.done)
    out = [k]
    for inp in run:
        want = tuple(sorted((int(name[1:]), v) for name, v in inp.items() if v))
        k = next(t for m, t in moves.successors(k) if tuple(sorted(m)) == want)
        out.append(k)
    return out


class _Chains:
    """The dynamic program of ``find_pumps``: where the extra warps may stand, and when.

    ``until[p][t]``: the first state index >= t at which phase p may not hold
    extra warps (a busy stage never may; a wait phase below its cap may not;
    done always may).  Extra warps spread as Y (per m, summing to d) may stand
    through the choices of states t .. u - 1 when every phase of Y's support
    has until >= u.
    """

    def __init__(self, moves: CountMoves, run: Run) -> None:
        sm = moves.sm
        self.states = np.array(count_states(moves, run), dtype=np.int64)
        self.T, self.done = len(run), sm.done
        caps = [sm.kernel.sigma_of(sm.unit_of(p)) if sm.phases[p].is_wait else None for p in range(sm.done)]
        held = np.array([[c is not None and k[p] >= c for p, c in enumerate(caps)] + [True] for k in self.states])
        self.until = np.full(held.shape, self.T + 1, dtype=np.int64)
        for t in range(self.T, -1, -1):
            self.until[t] = np.where(held[t], self.until[t + 1] if t < self.T else self.T + 1, t)

    def limit(self, y: np.ndarray, t: int) -> int:
        return int(self.until[t][y > 0].min())

    def best(self, d: int) -> tuple[Stretch, ...] | None:
        """The stretches adding the most cycles for period d: from d warps at phase 0 to d warps done."""
        start = np.zeros(self.done + 1, dtype=np.int64)
        start[0] = d
        reach: dict[int, dict[bytes, tuple[int, np.ndarray, tuple[Stretch, ...]]]] = {0: {start.tobytes(): (0, start, ())}}
        best: tuple[int, tuple[Stretch, ...]] = (0, ())
        for t in range(self.T + 1):
            for gain, y, chain in reach.pop(t, {}).values():
                if y[self.done] == d:  # every extra warp done: nothing more to check
                    best = max(best, (gain, chain), key=lambda e: e[0])
                    continue
                lim = self.limit(y, t)
                if lim > t:
                    self._keep(reach, t + 1, gain, y, chain)  # the extra warps stand still through state t
                for j, y2 in self._stretches(y, t, lim):
                    self._keep(reach, j, gain + j - t, y2, chain + ((t, j),))
        return best[1] or None

    def _stretches(self, y: np.ndarray, t: int, lim: int) -> Iterator[tuple[int, np.ndarray]]:
        """Stretches [t, j) the extra warps can follow: Y + (k_j - k_t) stays >= 0 and may stand where it goes."""
        if lim <= t:
            return
        ends = self.states[t + 1:lim + 1]
        ys = ends - self.states[t] + y
        ok = (ys >= 0).all(axis=1)
        for off in np.flatnonzero(ok):
            j = t + 1 + int(off)
            y2 = ys[off]
            if self.limit(y2, t) >= j:
                yield j, y2

    @staticmethod
    def _keep(reach: dict[int, dict[bytes, tuple[int, np.ndarray, tuple[Stretch, ...]]]], j: int, gain: int,
              y: np.ndarray, chain: tuple[Stretch, ...]) -> None:
        at = reach.setdefault(j, {})
        key = y.tobytes()
        if key not in at or at[key][0] < gain:
            at[key] = (gain, y, chain)


def find_pumps(moves: CountMoves, run: Run) -> list[Pump]:
    """For each period d up to MAX_PERIOD, the stretches adding the most cycles that the lemma allows."""
    chains = _Chains(moves, run)
    out = []
    for d in range(1, MAX_PERIOD + 1):
        best = chains.best(d)
        if best:
            out.append(Pump(moves.sm.warps, tuple(run), best, d))
    return out


def pumped_run(kernel: MkKernel, warps: int, slope: Fraction, bound_at: Callable[[int], int | None],
               beam: Callable[[CountMoves], Run], deadline: float,
               progress: Callable[[str], None] | None = None) -> tuple[Run, Pump] | None:
    """A run of ``warps`` warps meeting ``bound_at(warps)``, pumped from a base run at a small W0 that meets its bound.

    ``bound_at`` is the upper bound as a function of W (one table for every
    W from the cap of phase 0 on), ``slope`` its growth per warp, and
    ``beam`` searches a run for the machine it is given.  Only pumps adding
    exactly ``slope`` cycles per warp can meet the bound at every W they
    cover.
    """
    for w0 in BASES:
        if w0 >= warps or time.monotonic() > deadline:
            return None
        bound = bound_at(w0)
        if bound is None:
            continue
        moves = CountMoves(CountSM(kernel, w0))
        base = beam(moves)
        if len(base) != bound:
            return None  # the bound is likely loose: at other W0 it would be missed too, at the same cost
        pumps = [p for p in find_pumps(moves, base) if Fraction(p.cycles, p.period) == slope]
        if not pumps:
            return None  # no steady state in the worst run found: other W0 would cost as much for as little
        pump = min((p for p in pumps if p.covers(warps)), key=lambda p: p.period, default=None)
        if pump is None:
            continue  # periods that do not fit W: one of the next W0 is in W's class
        run = pump.run_for(warps)
        if progress:
            progress(f"pump: a run of {w0} warps ({len(base)} cycles) repeats {len(pump.stretches)} stretch(es), "
                     f"{pump.cycles} cycles per {pump.period} warps: {len(run)} cycles at W = {warps}")
        if len(run) == bound_at(warps):
            return run, pump
    return None


def closed_form(pump: Pump) -> dict[str, Any]:
    """The worst case as a function of W on the pump's class (for a pumped run that met a bound valid for every W)."""
    slope = Fraction(pump.cycles, pump.period)
    offset = len(pump.run) - slope * pump.warps
    which = "every W" if pump.period == 1 else f"every W = {pump.warps} + {pump.period} m"
    return {"formula": f"{slope} W {'-' if offset < 0 else '+'} {abs(offset)}", "for": f"{which} >= {pump.warps}",
            "base_warps": pump.warps, "period": pump.period, "cycles_per_period": pump.cycles,
            "repeated_cycles": [[i + 1, j] for i, j in pump.stretches]}
