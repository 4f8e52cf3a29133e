"""Step a capped count entry symbolically: one move per next entry stands for every concrete move.

An entry of a certificate's table gives, per non-done phase p, a value v_p
and a cap K_p: v_p < K_p means exactly v_p warps, v_p = K_p means K_p or
more.  The *concrete states* of the entry are all count vectors n with
n_p = v_p below the cap and n_p >= K_p at it (for any W).  ``moves`` lists
the entry's *symbolic moves* (weight, next entry, drop) so that

- every work-conserving move n -> n' of a concrete state n has a symbolic
  move with its weight, the next entry alpha(n') (counts capped again) and a
  drop no larger than its own, sum_p m_p (c_p - c_{p+1}) with m_p the warps
  leaving phase p (complete: checking the symbolic moves checks them all);
- every symbolic move is the move of some concrete state with exactly that
  drop (tight: the check refuses nothing that the concrete states accept).

Why, rule by rule (the cycle rules of ``spec/makespan/replay.py``):

1. Slot holders (busy stages of a non-pipelined instruction) of a unit never
   number more than sigma_u.  A holder count at its cap stands for K_p ..
   sigma_u minus the other holders (none when K_p > sigma_u): these few
   values are enumerated as *views*, so in a view every holder count is
   exact and free_u = sigma_u - held_u is exact.  A view with free_u < 0
   stands for no reachable state and has no move.
2. Ready warps r_u = sum of u's wait counts.  With a wait phase of u at its
   cap, r_u >= K_p >= sigma_u >= free_u (``low_wait_cap`` finds the entries
   where K_p < sigma_u: the checker refuses them), so u issues free_u warps
   and has no deficit, in every concrete state; otherwise r_u is exact and u
   issues min(free_u, r_u) with deficit max(0, free_u - r_u).
3. The issues of u are split over its wait phases with a_p <= n_p; a capped
   phase may give any a_p <= issue_u, since n_p >= K_p >= sigma_u >= issue_u.
4. Busy warps all move on: m_p = n_p; for a wait phase m_p = a_p.
5. Next count of q: x_q = stay_q + m_{q-1}, stay_q = n_q - a_q for a wait
   phase and 0 for a busy one.  The unknown counts enter disjoint places: a
   capped wait count only stay_q, a capped busy count n_p only m_p, which
   feeds phase p + 1 alone.  So each next phase takes its values on its own:
   min(x_q, K_q) for every x_q its unknown allows (from the least, up to
   K_q), and for each value the least m_{q-1} giving it, the least drop
   because c_{q-1} >= c_q on busy phases (the checker enforces it).  A busy
   last phase feeds done: its least drop is at m = K_p.  The symbolic moves
   are the product of the per-phase options, their drops summed.

Drops and weights are integers here: the checker scales the rational
potential by a common denominator first, which keeps the check exact.  A
move standing for more than MAX_NEXT next entries (caps far apart, e.g. a
capped busy phase of cap 1 before a phase of cap 50,000) raises TooManyNext
instead of listing them.
"""
from __future__ import annotations

import itertools
import math
from typing import Iterator, Sequence

from warpcheck.spec.makespan.reference import RefKernel

Counts = tuple[int, ...]
MAX_NEXT = 10_000  # next entries of one move: more means caps far apart (a crafted table), not a proof to check
Split = tuple[tuple[tuple[int, int], ...], int]  # (phase, warps issued) pairs, and their drop


class TooManyNext(ValueError):
    """An entry whose symbolic move stands for more next entries than the checker will list."""


def split_issues(bounds: Sequence[tuple[int, int]], k: int) -> list[tuple[tuple[int, int], ...]]:
    """Every way to issue k warps from phases (phase, at most this many), as (phase, warps) pairs with warps > 0."""
    room = list(itertools.accumulate([b for _, b in bounds][::-1]))[::-1] + [0]
    Pairs = tuple[tuple[int, int], ...]
    out: list[Pairs] = []
    stack: list[tuple[int, int, Pairs]] = [(0, k, ())]
    while stack:
        j, left, head = stack.pop()
        if left == 0:
            out.append(head)
        elif room[j] >= left:
            p, b = bounds[j]
            stack += [(j + 1, left - x, head + ((p, x),) if x else head) for x in range(min(b, left), -1, -1)]
    return out


class CappedRules:
    """The phases of a transformed kernel with per-phase caps and integer slopes c_p - c_{p+1}."""

    def __init__(self, kernel: RefKernel, caps: Counts, slopes: Sequence[int], weight_unit: str | None) -> None:
        self.caps, self.slope = caps, list(slopes)
        self.unit: list[int] = []
        self.wait: list[bool] = []
        self.holds: list[bool] = []
        names = [u for u, _ in kernel.sigma]
        for ins in kernel.instrs:
            for stage in range(ins.latency):
                self.unit.append(names.index(ins.unit))
                self.wait.append(stage == 0)
                self.holds.append(stage > 0 and not ins.pipelined)
        self.sigma = [s for _, s in kernel.sigma]
        self.waits = [[p for p, u in enumerate(self.unit) if u == j and self.wait[p]] for j in range(len(names))]
        self.holders = [[p for p, u in enumerate(self.unit) if u == j and self.holds[p]] for j in range(len(names))]
        self.weight_unit = None if weight_unit is None else names.index(weight_unit)
        # next phases whose value is open: a capped wait phase itself, or the phase after a capped busy one
        self.after_busy = [q > 0 and not self.wait[q - 1] for q in range(len(caps))]
        self.busy = [p for p, w in enumerate(self.wait) if not w]
        self.holder_phases = [p for p, h in enumerate(self.holds) if h]
        self._splits: dict[tuple[int, tuple[tuple[int, int], ...], int], list[Split]] = {}
        self._opts: dict[tuple[int, int, bool], list[tuple[int, int]]] = {}

    def low_wait_cap(self, a: Counts) -> int | None:
        """A wait phase of ``a`` at a cap below its unit's sigma (the issue count is then open), or None."""
        return next((p for p, v in enumerate(a) if self.wait[p] and v == self.caps[p] < self.sigma[self.unit[p]]),
                    None)

    def views(self, a: Counts) -> list[Counts]:
        """The entry with every capped holder count made exact, keeping only views with no unit overfull."""
        if not any(a[p] == self.caps[p] for p in self.holder_phases):
            return [a] if self._fits(a) else []
        per_unit = []
        for hs, sigma in zip(self.holders, self.sigma):
            at_cap = [p for p in hs if a[p] == self.caps[p]]
            room = sigma - sum(a[p] for p in hs)  # slots left for warps beyond the capped counts
            per_unit.append([] if room < 0 else
                            [e for k in range(room + 1) for e in split_issues([(p, room) for p in at_cap], k)])
        views = []
        for combo in itertools.product(*per_unit):
            n = list(a)
            for extra in combo:
                for p, x in extra:
                    n[p] += x
            views.append(tuple(n))
        return views

    def _fits(self, n: Counts) -> bool:
        return all(sum(n[p] for p in hs) <= s for hs, s in zip(self.holders, self.sigma))

    def moves(self, a: Counts, n: Counts) -> Iterator[tuple[int, Counts, int]]:
        """Every symbolic move (weight, next entry, least drop) of entry ``a`` in its view ``n``."""
        caps = self.caps
        capped = [v == k and not h for v, k, h in zip(a, caps, self.holds)]
        per_unit, weight = self._issues(n)
        raw, drop = [v if w else 0 for v, w in zip(n, self.wait)] + [0], 0  # counts after the busy warps move
        for p in self.busy:
            raw[p + 1] += n[p]
            drop += n[p] * self.slope[p]
        open_ = [q for q in range(len(n)) if (self.wait[q] and capped[q]) or (self.after_busy[q] and capped[q - 1])]
        for combo in itertools.product(*per_unit) if len(per_unit) > 1 else [(s,) for s in per_unit[0]]:
            x, d = raw[:], drop
            for pairs, sd in combo:
                d += sd
                for p, k in pairs:
                    x[p] -= k
                    x[p + 1] += k
            nxt = list(map(min, x, caps))
            below = [q for q in open_ if x[q] < caps[q]]  # at or above the cap, the value is the cap
            if not below:
                yield weight, tuple(nxt), d
                continue
            choices = [self._options(q, x[q], capped[q]) for q in below]
            if math.prod(map(len, choices)) > MAX_NEXT:
                raise TooManyNext(f"state {list(a)} has a move to more than {MAX_NEXT} next entries; use smaller caps")
            for pick in itertools.product(*choices):
                extra = 0
                for q, (v, e) in zip(below, pick):
                    nxt[q] = v
                    extra += e
                yield weight, tuple(nxt), d + extra

    def _issues(self, n: Counts) -> tuple[list[list[Split]], int]:
        """Per unit, every split of its issues over its wait phases; and the weight (deficit, or 1 per cycle)."""
        per_unit, weight = [], 1
        for j, (sigma, waits, holders) in enumerate(zip(self.sigma, self.waits, self.holders)):
            # a capped wait count is cap >= sigma >= free or more: the cap alone fixes issue, deficit, bounds
            free, ready = sigma - sum(n[p] for p in holders), sum(n[p] for p in waits)
            issue = min(free, ready)
            if j == self.weight_unit:
                weight = max(0, free - ready)
            per_unit.append(self._split(j, tuple((p, min(n[p], issue)) for p in waits if n[p]), issue))
        return per_unit, weight

    def _options(self, q: int, lo: int, own: bool) -> list[tuple[int, int]]:
        """Values of next phase q whose count is at least ``lo``, each with the extra drop of its least m_{q-1}."""
        key = (q, lo, own)
        if key not in self._opts:
            self._opts[key] = self._values(q, lo, own)
        return self._opts[key]

    def _values(self, q: int, lo: int, own: bool) -> list[tuple[int, int]]:
        cap = self.caps[q]
        if self.wait[q] and own:  # its own unknown count can make up any value: m_{q-1} stays least
            return [(v, 0) for v in range(min(lo, cap), cap + 1)]
        m_lo, slope = self.caps[q - 1], self.slope[q - 1]  # a capped busy phase before: m_{q-1} >= its cap
        stay = lo - m_lo
        return [(v, (v - lo) * slope) for v in range(min(lo, cap), cap)] + [(cap, max(0, cap - stay - m_lo) * slope)]

    def _split(self, j: int, bounds: tuple[tuple[int, int], ...], issue: int) -> list[Split]:
        if issue <= 1:  # the common case, too varied to cache: one phase issues, or none
            return [(((p, 1),), self.slope[p]) for p, _ in bounds] if issue else [((), 0)]
        key = (j, bounds, issue)
        if key not in self._splits:
            self._splits[key] = [(pairs, sum(k * self.slope[p] for p, k in pairs))
                                 for pairs in split_issues(bounds, issue)]
        return self._splits[key]
