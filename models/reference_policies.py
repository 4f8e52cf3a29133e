"""Reference scheduling policies, written from the papers as priority lists.

Every cycle a scheduler of GPGPU-Sim's kind orders the warps by priority and
issues the first eligible one.  Each reference policy here states that order
directly, as a *rank* per warp (0 = highest priority), from a small state of
its own (the last issued warp, or a turn counter).  It shares no function
with ``models/policies.py`` (which scans rotations of the eligibility vector
from a pointer); the proofs compare the two, so a bug in either shows.

Only the algebra's core operations are used, so the same code is the
concrete reference and the symbolic one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from warpcheck.models.errors import ConfigError

RefState = dict[str, Any]


def _rr_after(A: Any, last: Any, w: int, n: int) -> Any:
    """Rank of warp ``w`` in round-robin order starting just after ``last``."""
    d = A.sub(A.const(w), last)  # in (-n, n)
    return A.ite(A.lt(A.const(0), d), A.sub(d, A.const(1)), A.add(d, A.const(n - 1)))


def _rr_from(A: Any, start: Any, w: int, n: int) -> Any:
    """Rank of warp ``w`` in round-robin order starting at ``start`` itself."""
    d = A.sub(A.const(w), start)
    return A.ite(A.lt(d, A.const(0)), A.add(d, A.const(n)), d)


def _oldest(A: Any, w: int) -> Any:
    """Rank by age: warp 0 was launched first."""
    return A.const(w)


def _greedy(A: Any, last: Any, w: int, n: int, then: Any) -> Any:
    """The last issued warp first, then the order ``then`` (shifted down by one)."""
    return A.ite(A.eq(last, A.const(w)), A.const(0), A.add(then, A.const(1)))


def pick(A: Any, ranks: Sequence[Any], elig: Sequence[Any], keys: Sequence[Any] | None = None) -> Any:
    """The eligible warp of lowest rank (ties: lower key first, then lower index), or -1."""
    best, best_r, best_k, found = A.const(-1), A.const(0), A.const(0), A.const(False)
    for w, (r, e) in enumerate(zip(ranks, elig)):
        k = keys[w] if keys is not None else A.const(0)
        beats = A.or_(A.lt(r, best_r), A.and_(A.eq(r, best_r), A.lt(k, best_k)))
        take = A.and_(e, A.or_(A.not_(found), beats))
        best, best_r, best_k = A.ite(take, A.const(w), best), A.ite(take, r, best_r), A.ite(take, k, best_k)
        found = A.or_(found, e)
    return best


@dataclass(frozen=True)
class RefPolicy:
    """A reference policy: its state, the rank of each warp in it, and its next state."""

    name: str
    init: Callable[[Any, int], RefState]
    ranks: Callable[[Any, RefState, int], list[Any]]
    uses_keys: bool = False
    strict: bool = False  # strict round robin: only the warp whose turn it is may issue

    def choose(self, A: Any, st: RefState, elig: Sequence[Any], keys: Sequence[Any]) -> Any:
        """The warp this policy issues among ``elig`` (-1: none)."""
        n = len(elig)
        ranks = self.ranks(A, st, n)
        if self.strict:  # rank 0 or nothing
            elig = [A.and_(e, A.eq(r, A.const(0))) for e, r in zip(elig, ranks)]
        return pick(A, ranks, elig, keys if self.uses_keys else None)

    def next(self, A: Any, st: RefState, chosen: Any, n: int) -> RefState:
        """The state after a cycle in which ``chosen`` (-1: nobody) issued."""
        if self.strict:
            t = st["turn"]
            return {"turn": A.ite(A.eq(t, A.const(n - 1)), A.const(0), A.add(t, A.const(1)))}
        return {"last": A.ite(A.lt(chosen, A.const(0)), st["last"], chosen)}


def _last(value: Callable[[int], int]) -> Callable[[Any, int], RefState]:
    return lambda A, n: {"last": A.const(value(n))}


REF_POLICIES: dict[str, RefPolicy] = {p.name: p for p in [
    # strict RR: warp `turn` or nobody; the turn moves on every cycle
    RefPolicy("srr", lambda A, n: {"turn": A.const(0)},
              lambda A, st, n: [_rr_from(A, st["turn"], w, n) for w in range(n)], strict=True),
    # loose RR: the next ready warp after the last issued one (warp 0 first)
    RefPolicy("lrr", _last(lambda n: n - 1), lambda A, st, n: [_rr_after(A, st["last"], w, n) for w in range(n)]),
    # greedy then loose RR: the last issued warp while ready, then the ones after it
    RefPolicy("gtlrr", _last(lambda n: 0),
              lambda A, st, n: [_greedy(A, st["last"], w, n, _rr_after(A, st["last"], w, n)) for w in range(n)]),
    # greedy then loose oldest: the last issued warp while ready, then the oldest
    RefPolicy("gtlo", _last(lambda n: 0),
              lambda A, st, n: [_greedy(A, st["last"], w, n, _oldest(A, w)) for w in range(n)]),
    # loose oldest: the oldest ready warp
    RefPolicy("lo", _last(lambda n: 0), lambda A, st, n: [_oldest(A, w) for w in range(n)]),
    # Icount: the ready warp with the fewest instructions fetched and not issued (oldest on ties)
    RefPolicy("icount", _last(lambda n: 0), lambda A, st, n: [A.const(0) for _ in range(n)], uses_keys=True),
]}


def ref_policy(name: str) -> RefPolicy:
    """The reference policy called ``name``, or a ConfigError listing the known ones."""
    if name not in REF_POLICIES:
        raise ConfigError(f"no reference policy {name!r}; known: {', '.join(REF_POLICIES)}")
    return REF_POLICIES[name]
