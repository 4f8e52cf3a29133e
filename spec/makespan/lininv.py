"""Check the linear invariants of a certificate: true initially for every W and kept by every move, no solver.

A certificate's bound may carry ``invariants``: a list of objects
``{"coef": [a_0, ..., a_{P-1}], "bound": b}`` (integers), each claiming that
every reachable count state n satisfies sum_p a_p n_p <= b.  The table may
then leave out any entry whose concrete states all break one of them (its
least value of some form exceeds its bound): no run reaches such an entry.

Why the checks below prove the claim (induction over the cycles of a run):

- Initially n = (W, 0, ..., 0), so the form is a_0 W; a_0 <= 0 <= b makes
  it hold for every W.
- Let a reachable state n lie in a table entry (true initially; and every
  move lands in a table entry or in an excluded one, which by induction it
  cannot).  A move with m_p warps leaving phase p changes the form by
  sum_p m_p (a_{p+1} - a_p) (a_P = 0 for done).  The capped rules
  (``capped.py``) list every move of the entry with its least drop for the
  slopes a_p - a_{p+1}, i.e. the largest change of the form, provided the
  slope is >= 0 on every busy phase (checked: there m_p is the unknown count
  itself, least at the cap).  The form before the move is at most b (the
  induction) and at most its largest value over the entry (infinite if a
  capped count has a_p > 0).  So if min(b, largest) - drop <= b for every
  move of every entry in every view, the form stays at most b.

Each invariant is checked on every move, whether or not the next entry is
excluded by another one: a check that skipped moves excluded by the others
would let two false invariants vouch for each other.  The arithmetic is on
integers, hence exact.  This module shares no code with any search.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpcheck.spec.makespan.reference import RefKernel
from warpcheck.spec.makespan.capped import CappedRules, Counts, TooManyNext


class InvariantRefused(ValueError):
    """An invariant that is malformed or not proved by the table's moves."""


@dataclass(frozen=True)
class LinearInvariant:
    """sum_p coef[p] * n_p <= bound in every reachable state."""

    coef: tuple[int, ...]
    bound: int

    def least(self, a: Counts, caps: Counts) -> float:
        """The least value over an entry's concrete states (a count at its cap stands for cap or more)."""
        if any(c < 0 and v == k for c, v, k in zip(self.coef, a, caps)):
            return -float("inf")
        return sum(c * v for c, v in zip(self.coef, a))

    def largest(self, n: Counts, caps: Counts, holds: list[bool]) -> float:
        """The largest value over a view's concrete states (slot holders are exact in a view)."""
        if any(c > 0 and v == k and not h for c, v, k, h in zip(self.coef, n, caps, holds)):
            return float("inf")
        return sum(c * v for c, v in zip(self.coef, n))


def read_invariants(raw: Any, wait: list[bool]) -> list[LinearInvariant]:
    """Validate the ``invariants`` list of a bound against the kernel's phases (empty if absent)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvariantRefused("'invariants' must be a list")
    out = []
    for item in raw:
        ok = isinstance(item, dict) and isinstance(item.get("coef"), list) and len(item["coef"]) == len(wait)
        if not ok or not all(type(v) is int for v in item["coef"]) or type(item.get("bound")) is not int:
            raise InvariantRefused(f"invariant {item!r} is not {{'coef': {len(wait)} integers, 'bound': integer}}")
        inv = LinearInvariant(tuple(item["coef"]), item["bound"])
        if not inv.coef[0] <= 0 <= inv.bound:
            raise InvariantRefused(f"invariant {item!r} may fail initially: it needs coef[0] <= 0 <= bound")
        nxt = list(inv.coef[1:]) + [0]
        for p, is_wait in enumerate(wait):
            if not is_wait and inv.coef[p] < nxt[p]:
                raise InvariantRefused(f"invariant {item!r} grows after busy phase {p}")
        out.append(inv)
    return out


def check_invariants(kernel: RefKernel, caps: Counts, entries: list[Counts], invs: list[LinearInvariant]) -> None:
    """Check that every move of every entry keeps every invariant; raise InvariantRefused if one may break."""
    for inv in invs:
        slopes = [c - d for c, d in zip(inv.coef, list(inv.coef[1:]) + [0])]
        rules = CappedRules(kernel, caps, slopes, None)
        for a in entries:
            if not any(a):
                continue
            for n in rules.views(a):
                top = min(inv.bound, inv.largest(n, caps, rules.holds))
                try:
                    for _, nxt, drop in rules.moves(a, n):
                        if top - drop > inv.bound:
                            raise InvariantRefused(f"invariant {list(inv.coef)} <= {inv.bound} may break on the "
                                                   f"move from {list(a)} to {list(nxt)}")
                except TooManyNext as e:
                    raise InvariantRefused(str(e)) from None


def excluded(a: Counts, caps: Counts, invs: list[LinearInvariant]) -> bool:
    """Whether some invariant rules out every concrete state of entry ``a``."""
    return any(inv.least(a, caps) > inv.bound for inv in invs)
