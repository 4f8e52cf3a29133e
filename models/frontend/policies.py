"""Warp-scheduling policies: small pure functions usable for fetch and for issue.

A policy keeps a small *state record*: named integer fields with ranges
(:class:`Field`).  Most policies keep one field, ``ptr`` (the round-robin
pointer or the greedy warp); QAWS also keeps the group in front and a
context-switch count per group.  A policy maps (state, eligible warps, keys)
to the chosen warp (-1 when none is eligible) and (state, choice, eligible
warps) to its next state.  What it may know of the SM besides the number of
warps (each warp's kernel, each kernel's budget) is a :class:`PolicyContext`.

The front end stores field ``f`` of the issue scheduler as ``is.f`` and of
the baseline's fetch scheduler as ``fs.f``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from warpcheck.models.errors import ConfigError

PState = Mapping[str, Any]


@dataclass(frozen=True)
class Field:
    """One field of a policy's state record: its name, its range and its initial value."""

    name: str
    lo: int
    hi: int
    init: int = 0


@dataclass(frozen=True)
class PolicyContext:
    """What a policy knows of the SM: the warps, each warp's kernel, each kernel's budget."""

    warps: int
    kernel_of_warp: tuple[int, ...] = ()
    budgets: tuple[int, ...] = ()


def _ptr_fields(ctx: PolicyContext) -> tuple[Field, ...]:
    return (Field("ptr", 0, ctx.warps - 1),)


@dataclass(frozen=True)
class Policy:
    """A named policy: ``choose(A, st, elig, keys, ctx)``, ``update(A, st, chosen, elig, ctx)`` and its fields."""

    name: str
    summary: str
    choose: Callable[[Any, PState, Sequence[Any], Sequence[Any], PolicyContext], Any]
    update: Callable[[Any, PState, Any, Sequence[Any], PolicyContext], dict[str, Any]]
    fields: Callable[[PolicyContext], tuple[Field, ...]] = _ptr_fields
    reads_elig: bool = False  # whether ``update`` reads the eligibility vector (else it gets [])
    contract: bool = False  # a policy written by the user: its choice and update are checked in every proof

    def init(self, A: Any, ctx: PolicyContext) -> dict[str, Any]:
        """The initial state record."""
        return {f.name: A.const(f.init) for f in self.fields(ctx)}


PtrChoose = Callable[[Any, Any, Sequence[Any], Sequence[Any]], Any]
PtrUpdate = Callable[[Any, Any, Any, int], Any]


def ptr_policy(name: str, summary: str, choose: PtrChoose, update: PtrUpdate) -> Policy:
    """A policy whose whole state is the one field ``ptr``, from functions of the pointer."""
    return Policy(name, summary, lambda A, st, e, k, ctx: choose(A, st["ptr"], e, k),
                  lambda A, st, c, e, ctx: {"ptr": update(A, st["ptr"], c, ctx.warps)})


def _wrap_next(A: Any, w: Any, n: int) -> Any:
    return A.ite(A.eq(w, A.const(n - 1)), A.const(0), A.add(w, A.const(1)))


def _keep_if_idle(A: Any, ptr: Any, chosen: Any, new: Any) -> Any:
    return A.ite(A.lt(chosen, A.const(0)), ptr, new)


def _srr_choose(A, ptr, elig, keys):
    return A.ite(A.select(elig, ptr), ptr, A.const(-1))


def _lrr_choose(A, ptr, elig, keys):
    return A.first_from(elig, ptr)


def _greedy_rr_choose(A, ptr, elig, keys):
    return A.first_from(elig, ptr)  # starting at the current warp keeps it while eligible


def _gtlo_choose(A, ptr, elig, keys):
    return A.ite(A.select(elig, ptr), ptr, A.first_true(elig))


def _lo_choose(A, ptr, elig, keys):
    return A.first_true(elig)


def _icount_choose(A, ptr, elig, keys):
    return A.argmin_true(elig, keys)


def _greedy_update(A, ptr, c, n):
    return _keep_if_idle(A, ptr, c, c)


_BASE = [
    ptr_policy("srr", "strict round robin: the next warp in order, idle if it is not ready",
               _srr_choose, lambda A, ptr, c, n: _wrap_next(A, ptr, n)),
    ptr_policy("lrr", "loose round robin: the next ready warp in round-robin order",
               _lrr_choose, lambda A, ptr, c, n: _keep_if_idle(A, ptr, c, _wrap_next(A, c, n))),
    ptr_policy("gtlrr", "greedy then loose round robin: keep the warp while ready, then the next ready one",
               _greedy_rr_choose, _greedy_update),
    ptr_policy("gtlo", "greedy then loose oldest (GTO): keep the warp while ready, then the oldest ready one",
               _gtlo_choose, _greedy_update),
    ptr_policy("lo", "loose oldest first: the oldest (lowest-numbered) ready warp",
               _lo_choose, lambda A, ptr, c, n: ptr),
    ptr_policy("icount", "Icount: the ready warp with the fewest fetched but not issued instructions",
               _icount_choose, lambda A, ptr, c, n: ptr),
]


def kernel_groups(ctx: PolicyContext) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each warp's QAWS group and each group's budget: warps grouped by their kernel's budget, highest first.

    Kernels of equal budget share a group; no kernels (or one budget) is one group.
    """
    if not ctx.kernel_of_warp or not ctx.budgets:
        return (0,) * ctx.warps, ()
    budget = [ctx.budgets[k] for k in ctx.kernel_of_warp]
    order = sorted(set(budget), reverse=True)
    return tuple(order.index(b) for b in budget), tuple(order)


class QawsRules:
    """Alg. 1 as small rules, each one method, so that a single-point bug is one override.

    ``grp`` = -1 means no history: group 0 (the highest budget) is in front.
    """

    def groups(self, ctx: PolicyContext) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return kernel_groups(ctx)

    def fields(self, ctx: PolicyContext) -> tuple[Field, ...]:
        budget = self.groups(ctx)[1]
        if len(budget) < 2:
            return _ptr_fields(ctx)  # one group: GTO (Alg. 1, lines 8-9)
        return (*_ptr_fields(ctx), Field("grp", -1, 1, -1), Field("c0", 0, budget[0]), Field("c1", 0, budget[1]))

    def current(self, A: Any, grp: Any) -> Any:
        """The group in front at the start of the cycle."""
        return A.ite(A.lt(grp, A.const(0)), A.const(0), grp)

    def stall(self, A: Any, st: PState, elig: Sequence[Any], member: list[Any]) -> Any:
        """The greedy warp belongs to the current group and is not eligible (line 13-14)."""
        return A.and_(A.le(A.const(0), st["grp"]), A.select(member, st["ptr"]), A.not_(A.select(elig, st["ptr"])))

    def switch(self, A: Any, stall: Any, elig: Sequence[Any], member: list[Any]) -> Any:
        """A context switch: another warp of the current group is eligible."""
        return A.and_(stall, A.any_([A.and_(m, e) for m, e in zip(member, elig)]))

    def spent(self, A: Any, budget: Any, count: Any) -> Any:
        """The group's count has reached its budget (line 18)."""
        return A.le(budget, count)

    def other(self, A: Any, cur: Any) -> Any:
        """The group that takes the front at a hand-over (line 20)."""
        return A.sub(A.const(1), cur)

    def counted(self, A: Any, spent: Any, count: Any) -> Any:
        """A counted switch: back to 0 at the hand-over (line 19), else one more (line 16)."""
        return A.ite(spent, A.const(0), A.add(count, A.const(1)))

    def first(self, A: Any, grp: Any, c: Any, grp_of: Sequence[int]) -> Any:
        """The group after the first cycle: the issued warp's (-1 while nothing issued)."""
        return A.ite(A.lt(c, A.const(0)), grp, A.select([A.const(g) for g in grp_of], c))

    def within(self, A: Any, ptr: Any, elig: Sequence[Any], keys: Sequence[Any]) -> Any:
        """SORT inside a group: greedy then oldest."""
        return _gtlo_choose(A, ptr, elig, keys)

    def cycle(self, A: Any, st: PState, elig: Sequence[Any], ctx: PolicyContext) -> tuple[Any, Any, Any, Any]:
        """(group in front, current group, a counted context switch, budget spent)."""
        grp_of, budget = self.groups(ctx)
        cur = self.current(A, st["grp"])
        member = [A.eq(cur, A.const(g)) for g in grp_of]
        switch = self.switch(A, self.stall(A, st, elig, member), elig, member)
        spent = self.spent(A, A.select([A.const(b) for b in budget], cur), A.select([st["c0"], st["c1"]], cur))
        front = A.ite(A.and_(switch, spent), self.other(A, cur), cur)
        return front, cur, switch, spent

    def choose(self, A: Any, st: PState, elig: Sequence[Any], keys: Sequence[Any], ctx: PolicyContext) -> Any:
        grp_of, budget = self.groups(ctx)
        if len(budget) < 2:
            return _gtlo_choose(A, st["ptr"], elig, keys)
        front = self.cycle(A, st, elig, ctx)[0]
        ahead = self.within(A, st["ptr"], [A.and_(e, A.eq(front, A.const(g))) for e, g in zip(elig, grp_of)], keys)
        behind = self.within(A, st["ptr"], [A.and_(e, A.ne(front, A.const(g))) for e, g in zip(elig, grp_of)], keys)
        return A.ite(A.le(A.const(0), ahead), ahead, behind)

    def update(self, A: Any, st: PState, c: Any, elig: Sequence[Any], ctx: PolicyContext) -> dict[str, Any]:
        grp_of, budget = self.groups(ctx)
        ptr = _greedy_update(A, st["ptr"], c, ctx.warps)
        if len(budget) < 2:
            return {"ptr": ptr}
        front, cur, switch, spent = self.cycle(A, st, elig, ctx)
        out = {"ptr": ptr, "grp": A.ite(A.lt(st["grp"], A.const(0)), self.first(A, st["grp"], c, grp_of), front)}
        for g in range(2):
            hit = A.and_(switch, A.eq(cur, A.const(g)))
            out[f"c{g}"] = A.ite(hit, self.counted(A, spent, st[f"c{g}"]), st[f"c{g}"])
        return out

    def policy(self, name: str = "qaws") -> Policy:
        return Policy(name, "QoS-aware (Singh et al.): GTO inside the group of a kernel's budget; "
                      "a group keeps the front for budget context switches",
                      self.choose, self.update, self.fields, reads_elig=True)


QAWS = QawsRules().policy()


POLICIES: dict[str, Policy] = {p.name: p for p in [*_BASE, QAWS]}


def check_policy(field_name: str, name: str) -> Policy:
    """The policy called ``name``, or a ConfigError listing the known ones."""
    if name not in POLICIES:
        raise ConfigError(f"{field_name} = {name!r} is not a known policy; choose one of: {', '.join(POLICIES)}")
    return POLICIES[name]
