"""Broken copies of QAWS (Singh et al., Alg. 1): the mutation suite of the QAWS proofs.

Each mutant overrides one rule of :class:`QawsRules` (one line of Alg. 1 read
wrongly) and runs on the SWaS front end.  Every one of them changes what is
issued or the group and counts QAWS keeps, so each must end FAIL with a
replayed witness (``api/_qaws/mutation.py``, ``benchmarks/mutants.py --domain qaws``).

The configuration is the README's (4 warps, kernels 0, 0, 1, 1, budgets 1, 4:
warps 2 and 3 form group 0); a mutant that only shows when a kernel starts
late (``LATE``), when group 0 hands over within BMC's reach (``SHORT``) or
with three warps a group (``WIDE``) says so in ``config``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from warpcheck.models.frontend.mutants import Mutant, _with_policy
from warpcheck.models.frontend.policies import Field, PolicyContext, PState, QawsRules, _lo_choose

# The README's command: prove --design swas --policy qaws --warps 4 --kernel-of-warp 0,0,1,1 --budgets 1,4
CONFIG: tuple[tuple[str, Any], ...] = (("warps", 4), ("kernel_of_warp", (0, 0, 1, 1)), ("budgets", (1, 4)))
LATE = (("launches", (0, 2)),)  # the larger-budget kernel starts at cycle 2: K1 issues first
WIDE = (("warps", 6), ("kernel_of_warp", (0, 0, 0, 1, 1, 1)))  # three warps a group: GTO and a round robin differ
# group 0 hands over after 2 counted switches, not 4: a bug of the hand-over within BMC's reach (depth 6, about 6 s;
# with budgets 1, 4 BMC needs depth 14, 150 s, and only random runs find it sooner, by chance of their seed)
SHORT = (("budgets", (1, 2)),)


class BudgetMinusOne(QawsRules):
    def spent(self, A: Any, budget: Any, count: Any) -> Any:
        return A.le(A.sub(budget, A.const(1)), count)


class BudgetPlusOne(QawsRules):
    def spent(self, A: Any, budget: Any, count: Any) -> Any:
        return A.le(A.add(budget, A.const(1)), count)

    def fields(self, ctx: PolicyContext) -> tuple[Field, ...]:  # room for the extra count
        return tuple(replace(f, hi=f.hi + 1) if f.name in ("c0", "c1") else f for f in super().fields(ctx))


class HandOverToGroupOne(QawsRules):
    def other(self, A: Any, cur: Any) -> Any:
        return A.const(1)


class CountNotReset(QawsRules):
    def counted(self, A: Any, spent: Any, count: Any) -> Any:
        return A.ite(spent, count, A.add(count, A.const(1)))


class OtherGreedyStallCounted(QawsRules):
    def stall(self, A: Any, st: PState, elig: Sequence[Any], member: list[Any]) -> Any:
        return A.and_(A.le(A.const(0), st["grp"]), A.not_(A.select(elig, st["ptr"])))


class SwitchWithoutMate(QawsRules):
    def switch(self, A: Any, stall: Any, elig: Sequence[Any], member: list[Any]) -> Any:
        return stall


class NoHistoryGroupOne(QawsRules):
    def current(self, A: Any, grp: Any) -> Any:
        return A.ite(A.lt(grp, A.const(0)), A.const(1), grp)


class GroupsAscending(QawsRules):
    def groups(self, ctx: PolicyContext) -> tuple[tuple[int, ...], tuple[int, ...]]:
        grp_of, budget = super().groups(ctx)
        if len(budget) < 2:
            return grp_of, budget
        return tuple(1 - g for g in grp_of), tuple(reversed(budget))


class GroupsSwapped(QawsRules):
    """Warps numbered by ascending budget, budgets listed by descending one: each kernel gets the other's budget."""

    def groups(self, ctx: PolicyContext) -> tuple[tuple[int, ...], tuple[int, ...]]:
        grp_of, budget = super().groups(ctx)
        return (tuple(1 - g for g in grp_of), budget) if len(budget) == 2 else (grp_of, budget)


class FrontFixedAfterFirstIssue(QawsRules):
    def first(self, A: Any, grp: Any, c: Any, grp_of: Sequence[int]) -> Any:
        return A.ite(A.lt(c, A.const(0)), grp, A.const(0))


class FrontFixedToGroupZero(QawsRules):
    """After the first issue group 0 is in front for good: the hand-over to group 1 never happens."""

    def update(self, A: Any, st: PState, c: Any, elig: Sequence[Any], ctx: PolicyContext) -> dict[str, Any]:
        out = super().update(A, st, c, elig, ctx)
        if "grp" not in out:
            return out
        return {**out, "grp": A.ite(A.lt(st["grp"], A.const(0)), out["grp"], A.const(0))}


class RoundRobinInGroup(QawsRules):
    """Inside a group a round robin from the greedy warp, not GTO: the same as GTO with at most two warps a group."""

    def within(self, A: Any, ptr: Any, elig: Sequence[Any], keys: Sequence[Any]) -> Any:
        return A.first_from(elig, ptr)


class OldestInGroup(QawsRules):
    def within(self, A: Any, ptr: Any, elig: Sequence[Any], keys: Sequence[Any]) -> Any:
        return _lo_choose(A, ptr, elig, keys)


class IdleWhenFrontStalled(QawsRules):
    def choose(self, A: Any, st: PState, elig: Sequence[Any], keys: Sequence[Any], ctx: PolicyContext) -> Any:
        grp_of, budget = self.groups(ctx)
        if len(budget) < 2:
            return super().choose(A, st, elig, keys, ctx)
        front = self.cycle(A, st, elig, ctx)[0]
        return self.within(A, st["ptr"], [A.and_(e, A.eq(front, A.const(g))) for e, g in zip(elig, grp_of)], keys)


class CountedInOtherGroup(QawsRules):
    """The switch is counted, but the group's count is not the one that grows (group 1's always grows)."""

    def update(self, A: Any, st: PState, c: Any, elig: Sequence[Any], ctx: PolicyContext) -> dict[str, Any]:
        out = super().update(A, st, c, elig, ctx)
        if "c0" not in out:
            return out
        _, cur, switch, spent = self.cycle(A, st, elig, ctx)
        in0 = A.and_(switch, A.eq(cur, A.const(0)), A.not_(spent))
        return {**out, "c0": A.ite(in0, st["c0"], out["c0"]),
                "c1": A.ite(in0, A.min(A.add(st["c1"], A.const(1)), A.const(self.groups(ctx)[1][1])), out["c1"])}


def _qaws(name: str, breaks: str, rules: type[QawsRules], config: tuple[tuple[str, Any], ...] = ()) -> Mutant:
    return Mutant(name, f"qaws: {breaks}", _with_policy(rules().policy()), "qaws", config=CONFIG + config)


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    _qaws("qaws-budget-minus-one", "a group hands over one context switch early (line 18)", BudgetMinusOne),
    _qaws("qaws-budget-plus-one", "a group hands over one context switch late (line 18)", BudgetPlusOne),
    _qaws("qaws-handover-to-group-1", "the hand-over always goes to group 1 (line 20)", HandOverToGroupOne),
    _qaws("qaws-count-not-reset", "the switch count is not reset at the hand-over (line 19)", CountNotReset),
    _qaws("qaws-other-greedy-stall-counted", "a stall of a greedy warp of the other group is counted (line 14)",
          OtherGreedyStallCounted),
    _qaws("qaws-switch-without-mate", "a stall with no other eligible warp of the group is counted (lines 22-23)",
          SwitchWithoutMate),
    _qaws("qaws-no-history-group-1", "with no history the smaller budget is in front (line 7)", NoHistoryGroupOne),
    _qaws("qaws-groups-ascending", "groups numbered by ascending budget (GETGROUPS)", GroupsAscending),
    _qaws("qaws-groups-swapped", "each kernel's warps get the other kernel's budget (GETGROUPS)", GroupsSwapped),
    _qaws("qaws-front-fixed-after-first-issue", "after the first issue group 0 is in front, whoever issued",
          FrontFixedAfterFirstIssue, LATE),
    _qaws("qaws-front-fixed-to-group-0", "after the first issue group 0 stays in front (no hand-over, line 20)",
          FrontFixedToGroupZero, SHORT),
    _qaws("qaws-round-robin-in-group", "inside a group a round robin, not GTO (SORT; shows with 3 warps a group)",
          RoundRobinInGroup, WIDE),
    _qaws("qaws-oldest-in-group", "inside a group the oldest warp first, not the greedy one (SORT)", OldestInGroup),
    _qaws("qaws-idle-when-front-stalled", "nothing issues when the front group has no eligible warp",
          IdleWhenFrontStalled),
    _qaws("qaws-counted-in-other-group", "a switch of group 0 is counted in group 1's count (line 16)",
          CountedInOtherGroup),
]}
