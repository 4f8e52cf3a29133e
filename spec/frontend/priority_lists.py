"""Reference scheduling policies, written from the papers as priority lists.

Every cycle a scheduler of GPGPU-Sim's kind orders the warps by priority and
issues the first eligible one.  Each reference policy here states that order
directly, as a *rank* per warp (0 = highest priority), from a small state of
its own (the last issued warp, or a turn counter).  It shares no function
with ``models/frontend/policies.py`` (which scans rotations of the eligibility vector
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

    def fields(self, n: int) -> list[tuple[str, int, int]]:
        """The state's fields as (name, lowest, highest)."""
        return [("turn" if self.strict else "last", 0, n - 1)]

    def next(self, A: Any, st: RefState, chosen: Any, n: int, elig: Sequence[Any] = ()) -> RefState:
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


class QawsReference:
    """QAWS (Singh et al., Alg. 1) as ranks: the front group's warps first, greedy then oldest in each group.

    State: ``last`` (the warp issued last), ``grp`` (the group that had
    priority last cycle; -1 before any issue), ``c0``/``c1`` (context switches
    counted in each group).  Group 0 holds the kernels of the larger budget.
    A stall of ``last`` while another warp of its group is eligible is a
    context switch; at the group's budget its count goes back to 0 and the
    other group has priority.  One budget for all warps: greedy then oldest.
    """

    strict, uses_keys = False, False

    def __init__(self, kernel_of_warp: Sequence[int], budgets: Sequence[int]) -> None:
        self.name = "qaws"
        per_warp = [budgets[k] for k in kernel_of_warp] if budgets else []
        top = max(per_warp, default=0)
        self.team = [0 if b == top else 1 for b in per_warp]  # the warp's group
        self.limit = [top, min(per_warp, default=0)]
        self.two = len(set(per_warp)) == 2

    def fields(self, n: int) -> list[tuple[str, int, int]]:
        """The state's fields as (name, lowest, highest)."""
        more = [("grp", -1, 1), ("c0", 0, self.limit[0]), ("c1", 0, self.limit[1])] if self.two else []
        return [("last", 0, n - 1)] + more

    def init(self, A: Any, n: int) -> RefState:
        return {"last": A.const(0), **({"grp": A.const(-1), "c0": A.const(0), "c1": A.const(0)} if self.two else {})}

    def _plan(self, A: Any, st: RefState, elig: Sequence[Any]) -> tuple[Any, Any, Any, Any]:
        """(priority group now, group that led last cycle, a counted context switch, the budget is used up)."""
        lead = A.ite(A.lt(st["grp"], A.const(0)), A.const(0), st["grp"])
        stalled, mates = A.const(False), A.const(False)
        for w, e in enumerate(elig):
            mine = A.eq(lead, A.const(self.team[w]))
            stalled = A.or_(stalled, A.and_(mine, A.eq(st["last"], A.const(w)), A.not_(e)))
            mates = A.or_(mates, A.and_(mine, e))
        switch = A.and_(A.not_(A.lt(st["grp"], A.const(0))), stalled, mates)
        count = A.ite(A.eq(lead, A.const(0)), st["c0"], st["c1"])
        used = A.not_(A.lt(count, A.ite(A.eq(lead, A.const(0)), A.const(self.limit[0]), A.const(self.limit[1]))))
        prio = A.ite(A.and_(switch, used), A.ite(A.eq(lead, A.const(0)), A.const(1), A.const(0)), lead)
        return prio, lead, switch, used

    def choose(self, A: Any, st: RefState, elig: Sequence[Any], keys: Sequence[Any]) -> Any:
        """The warp this policy issues among ``elig`` (-1: none)."""
        n = len(elig)
        prio = self._plan(A, st, elig)[0] if self.two else A.const(0)
        team = self.team if self.two else [0] * n
        ranks = [A.add(A.ite(A.eq(prio, A.const(team[w])), A.const(0), A.const(2 * n)),
                       _greedy(A, st["last"], w, n, _oldest(A, w))) for w in range(n)]
        return pick(A, ranks, elig)

    def next(self, A: Any, st: RefState, chosen: Any, n: int, elig: Sequence[Any] = ()) -> RefState:
        """The state after a cycle in which ``chosen`` (-1: nobody) issued among ``elig``."""
        idle = A.lt(chosen, A.const(0))
        out = {"last": A.ite(idle, st["last"], chosen)}
        if not self.two:
            return out
        prio, lead, switch, used = self._plan(A, st, elig)
        team_of = A.const(-1)
        for w in range(n):
            team_of = A.ite(A.eq(chosen, A.const(w)), A.const(self.team[w]), team_of)
        out["grp"] = A.ite(A.lt(st["grp"], A.const(0)), team_of, prio)
        for g in (0, 1):
            bump = A.ite(used, A.const(0), A.add(st[f"c{g}"], A.const(1)))
            out[f"c{g}"] = A.ite(A.and_(switch, A.eq(lead, A.const(g))), bump, st[f"c{g}"])
        return out


# Policies written by the user (``warpcheck.register_policy``): the policy is its own specification,
# with this file's interface (fields, init, choose, next); the design is what a proof checks.
USER_REFERENCES: dict[str, Any] = {}


def ref_policy(name: str, kernel_of_warp: Sequence[int] = (), budgets: Sequence[int] = ()) -> Any:
    """The reference policy called ``name`` (QAWS bound to the kernels' budgets), or a ConfigError."""
    if name in USER_REFERENCES:
        return USER_REFERENCES[name]
    if name == "qaws":
        return QawsReference(kernel_of_warp, budgets)
    if name not in REF_POLICIES:
        raise ConfigError(f"no reference policy {name!r}; known: {', '.join([*REF_POLICIES, 'qaws'])}")
    return REF_POLICIES[name]
