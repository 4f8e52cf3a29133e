"""Broken copies of the SWaS front end and its policies: the mutation suite of the proofs.

Each mutant is one single-point bug, written as a small subclass of
:class:`FrontEnd` that patches one method.  A property that cannot tell a
mutant from the design proves nothing about that point, so every mutant that
changes what the design issues must end FAIL (``tests/test_mutants.py``,
``benchmarks/mutants.py``).  Mutants marked ``equivalent`` do not change the
issue record; their PASS is the proof of that.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES, Policy
from warpcheck.models.frontend.swas_every_warp import SORT_POLICIES, Action, SortPolicy
from warpcheck.models.ts import State


class _Scheduled(FrontEnd):
    """The step issues from an eligibility vector of its own (the policy's choice left as is)."""

    def step_eligible(self, A: Any, s: State) -> list[Any]:
        return self.issue_eligible(A, s)

    def scheduled(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self.choose(A, s, self.step_eligible(A, s))


class PickWhenNone(FrontEnd):
    def scheduled(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        c = self.issue_choice(A, s)
        return A.ite(A.lt(c, A.const(0)), A.const(0), c)


class ReadinessIgnoredInStep(_Scheduled):
    def step_eligible(self, A: Any, s: State) -> list[Any]:
        return [A.and_(A.not_(s[f"w{w}.done"]), A.lt(A.const(0), s[f"w{w}.n"]), A.not_(self.suspended(A, s, w)))
                for w in range(self.W)]


class SuspensionIgnoredInStep(_Scheduled):
    def step_eligible(self, A: Any, s: State) -> list[Any]:
        return [A.and_(A.not_(s[f"w{w}.done"]), A.lt(A.const(0), s[f"w{w}.n"]), self.head_ready(A, s, w))
                for w in range(self.W)]


class ExitedWarpIssues(_Scheduled):
    def step_eligible(self, A: Any, s: State) -> list[Any]:
        return [A.and_(A.lt(A.const(0), s[f"w{w}.n"]), self.head_ready(A, s, w), A.not_(self.suspended(A, s, w)))
                for w in range(self.W)]


class DependenceIgnored(FrontEnd):
    def head_ready(self, A: Any, s: State, w: int) -> Any:
        return super().head_ready(A, {**s, f"w{w}.b0.dep": A.false}, w)


class UnitIgnored(FrontEnd):
    def head_ready(self, A: Any, s: State, w: int) -> Any:
        return super().head_ready(A, {**s, **{f"u.{c}": A.const(0) for c in self.c.unpipelined}}, w)


class MissNoticedLate(FrontEnd):
    def suspended(self, A: Any, s: State, w: int) -> Any:
        m = s[f"w{w}.miss"]
        return A.and_(A.lt(A.const(0), m), A.lt(m, A.const(self.c.miss_latency)))


class FetchOtherWarp(FrontEnd):
    def fetch_choice(self, A: Any, s: State, issued: Any = None) -> Any:
        iw = super().fetch_choice(A, s, issued)
        nxt = A.ite(A.eq(iw, A.const(self.W - 1)), A.const(0), A.add(iw, A.const(1)))
        return A.ite(A.lt(iw, A.const(0)), iw, nxt)


class RefetchMayMiss(FrontEnd):
    def hits(self, A: Any, s: State, i: Mapping[str, Any], fw: Any) -> Any:
        return A.or_(i["f.hit"], A.select([s[f"w{v}.pend"] for v in range(self.W)], fw))


class NoNopOnMiss(FrontEnd):
    def _advance_pipe(self, A: Any, s: State, i: Mapping[str, Any], fw: Any, hit: Any, flush: list[Any]) -> Any:
        return super()._advance_pipe(A, s, i, fw, A.true, flush)


class FlushSparesOwnRequest(FrontEnd):
    def _advance_pipe(self, A: Any, s: State, i: Mapping[str, Any], fw: Any, hit: Any, flush: list[Any]) -> Any:
        self._spare_new = True
        try:
            return super()._advance_pipe(A, s, i, fw, hit, flush)
        finally:
            self._spare_new = False

    def _flush_slot(self, A: Any, slot: dict[str, Any], flush: list[Any]) -> dict[str, Any]:
        if getattr(self, "_spare_new", False):
            self._spare_new = False  # the first slot flushed is this cycle's request
            return slot
        return super()._flush_slot(A, slot, flush)


class FlushSparesPipe(FrontEnd):
    def _flush_slot(self, A: Any, slot: dict[str, Any], flush: list[Any]) -> dict[str, Any]:
        return slot


class FlushDrops(FrontEnd):
    def _step_ibuffer(self, A: Any, s: State, out: State, w: int, pop: Any, flush: Any, arriving: dict[str, Any]) -> None:
        super()._step_ibuffer(A, s, out, w, pop, flush, arriving)
        mine = A.and_(arriving["v"], A.eq(arriving["w"], A.const(w)))
        out[f"w{w}.n"] = A.ite(flush, A.ite(mine, A.const(1), A.const(0)), out[f"w{w}.n"])


class _PatchWarp(FrontEnd):
    """Patches one field of a warp's next state."""

    field, delta = "", 0

    def state_vars(self) -> list[Any]:
        """A counter that may run one past its range (delta > 0) gets the room in its declared range."""
        grow = max(self.delta, 0)
        return [replace(v, hi=v.hi + grow) if v.name.endswith(f".{self.field}") else v for v in super().state_vars()]

    def patch(self, A: Any, s: State, w: int, new: Any, cycle: tuple[Any, ...], head: dict[str, Any]) -> Any:
        return new

    def _step_warp(self, A: Any, s: State, i: Mapping[str, Any], out: State, w: int, cycle: tuple[Any, Any, Any, Any],
                   arriving: dict[str, Any], head: dict[str, Any]) -> None:
        super()._step_warp(A, s, i, out, w, cycle, arriving, head)
        key = f"w{w}.{self.field}"
        out[key] = self.patch(A, s, w, out[key], cycle, head)


class _MissCount(_PatchWarp):
    field, delta = "miss", 0

    def patch(self, A: Any, s: State, w: int, new: Any, cycle: tuple[Any, ...], head: dict[str, Any]) -> Any:
        L = self.c.miss_latency
        return A.ite(A.eq(new, A.const(L)), A.const(L + self.delta), new)


class SuspensionShort(_MissCount):
    delta = -1


class SuspensionLong(_MissCount):
    delta = 1


class _Scoreboard(_PatchWarp):
    field, delta = "sb", 0

    def patch(self, A: Any, s: State, w: int, new: Any, cycle: tuple[Any, ...], head: dict[str, Any]) -> Any:
        pop = A.eq(cycle[0], A.const(w))
        lat = A.select([A.const(x) for x in self.lat], head["cls"])
        target = A.add(lat, A.const(self.delta - 1))
        shifted = A.max(A.dec_sat(s[f"w{w}.sb"]), A.max(target, A.const(0)))
        return A.ite(pop, shifted, new)


class ScoreboardShort(_Scoreboard):
    delta = -1


class ScoreboardLong(_Scoreboard):
    delta = 1


class ExitNotFinal(_PatchWarp):
    field = "done"

    def patch(self, A: Any, s: State, w: int, new: Any, cycle: tuple[Any, ...], head: dict[str, Any]) -> Any:
        return s[f"w{w}.done"]


class BranchNotPending(_PatchWarp):
    field = "pend"

    def patch(self, A: Any, s: State, w: int, new: Any, cycle: tuple[Any, ...], head: dict[str, Any]) -> Any:
        return A.and_(new, s[f"w{w}.pend"])


class WindowStuckOpen(_PatchWarp):
    """The design's own osched2 window counter never closes (ghost state: nothing issued changes)."""

    field = "win"

    def patch(self, A: Any, s: State, w: int, new: Any, cycle: tuple[Any, ...], head: dict[str, Any]) -> Any:
        return A.const(max(self.miss_window, self.branch_window) - 1)


class UnitReleasedEarly(FrontEnd):
    def units_next(self, A: Any, s: State, i: Mapping[str, Any], iw: Any, issued: Any) -> State:
        out = super().units_next(A, s, i, iw, issued)
        return {k: A.ite(A.eq(v, A.const(self.c.latency[k[2:]] - 1)), A.const(self.c.latency[k[2:]] - 2), v)
                for k, v in out.items()}


class PipeLonger(FrontEnd):
    def __init__(self, config: SMConfig) -> None:
        super().__init__(config)
        self.P += 1


class PipeShorter(FrontEnd):
    def __init__(self, config: SMConfig) -> None:
        super().__init__(config)
        self.P -= 1


def _ibuffer_short(config: SMConfig) -> FrontEnd:
    """One ibuffer slot fewer than the pipeline needs (the configuration would refuse it)."""
    return FrontEnd(config.with_(ibuffer=config.ibuffer - 1, check_buffer=False))


def _with_policy(policy: Policy) -> Callable[[SMConfig], FrontEnd]:
    def make(config: SMConfig) -> FrontEnd:
        fe = FrontEnd(config)
        fe.issue_policy = fe.fetch_policy = policy
        return fe
    return make


def _wrap_late(A: Any, w: Any, n: int) -> Any:
    """Round-robin successor that wraps one warp late (n - 1 is followed by n - 1)."""
    return A.ite(A.eq(w, A.const(n - 1)), w, A.add(w, A.const(1)))


_P = POLICIES


def _ptr_update(base: Policy, update: Callable[[Any, Any, Any, int], Any]) -> Policy:
    """``base`` with its pointer update replaced (a policy whose state is the pointer)."""
    return replace(base, update=lambda A, st, c, e, ctx: {"ptr": update(A, st["ptr"], c, ctx.warps)})


def _ptr_choose(base: Policy, choose: Callable[[Any, Any, Any, Any], Any]) -> Policy:
    """``base`` with its choice replaced by a function of the pointer."""
    return replace(base, choose=lambda A, st, e, k, ctx: choose(A, st["ptr"], e, k))


def _qaws_budget_never_spent(A: Any, st: Any, c: Any, e: Any, ctx: Any) -> dict[str, Any]:
    """QAWS whose counts never grow: the group in front never hands over."""
    out = _P["qaws"].update(A, st, c, e, ctx)
    return {**out, **{k: st[k] for k in ("c0", "c1") if k in st}}


# QAWS shows its groups only with two kernels, one of them with two warps (a context switch inside it).
MUTANT_CONFIG: dict[str, tuple[tuple[str, Any], ...]] = {
    "qaws": (("warps", 3), ("kernel_of_warp", (0, 0, 1)), ("budgets", (2, 1))),
    "gtlo-falls-back-to-rr": (("warps", 3),),  # at two warps round robin and oldest pick the same other warp
}

POLICY_MUTANTS: dict[str, Policy] = {
    "lrr-starts-at-ptr": _ptr_update(_P["lrr"], lambda A, ptr, c, n: A.ite(A.lt(c, A.const(0)), ptr, c)),
    "lrr-wraps-late": _ptr_update(_P["lrr"], lambda A, ptr, c, n: A.ite(A.lt(c, A.const(0)), ptr, _wrap_late(A, c, n))),
    "gtlrr-not-greedy": replace(_P["gtlrr"], update=_P["lrr"].update),
    # GTLO whose fallback, once the greedy warp stalls, is round robin from it instead of the oldest warp
    "gtlo-falls-back-to-rr": _ptr_choose(_P["gtlo"], lambda A, ptr, e, k: A.first_from(e, ptr)),
    "gtlo-greedy-never-moves": _ptr_update(_P["gtlo"], lambda A, ptr, c, n: ptr),
    "gtlo-keeps-ineligible-greedy": _ptr_choose(_P["gtlo"], lambda A, ptr, e, k: A.ite(
        A.any_(list(e)), ptr, A.const(-1))),
    "srr-waits-when-idle": _ptr_update(_P["srr"], lambda A, ptr, c, n: A.ite(
        A.lt(c, A.const(0)), ptr, A.ite(A.eq(ptr, A.const(n - 1)), A.const(0), A.add(ptr, A.const(1))))),
    "lo-youngest-first": _ptr_choose(_P["lo"], lambda A, ptr, e, k: _youngest(A, e)),
    "qaws-budget-never-spent": replace(_P["qaws"], update=_qaws_budget_never_spent),
}


def _youngest(A: Any, elig: Any) -> Any:
    out: Any = A.const(-1)
    for w, e in enumerate(elig):
        out = A.ite(e, A.const(w), out)
    return out


@dataclass(frozen=True)
class Mutant:
    """A named single-point bug: what it breaks, its model, and the policy it needs (if any)."""

    name: str
    breaks: str
    make: Callable[[SMConfig], FrontEnd]
    policy: str | None = None
    equivalent: bool = False  # does not change the issue record (its PASS proves it)
    config: tuple[tuple[str, Any], ...] = ()  # configuration changes it needs to show (kernels, budgets)


def _cls(kind: type[FrontEnd]) -> Callable[[SMConfig], FrontEnd]:
    return kind


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    Mutant("pick-when-none", "issue path: issues warp 0 when the policy picks none", _cls(PickWhenNone)),
    Mutant("readiness-ignored-in-step", "issue path: the step ignores operand readiness",
           _cls(ReadinessIgnoredInStep)),
    Mutant("suspension-ignored-in-step", "issue path: the step ignores the SWaS suspension",
           _cls(SuspensionIgnoredInStep)),
    Mutant("exited-warp-issues", "issue path: a warp that exited stays eligible", _cls(ExitedWarpIssues)),
    Mutant("dependence-ignored", "readiness: a dependent head issues before its operand", _cls(DependenceIgnored)),
    Mutant("unit-ignored", "readiness: a busy unpipelined unit is ignored", _cls(UnitIgnored)),
    Mutant("miss-noticed-late", "miss: the warp may issue in the cycle after its miss", _cls(MissNoticedLate)),
    Mutant("suspension-short", "miss: the suspension is one cycle short", _cls(SuspensionShort)),
    Mutant("suspension-long", "miss: the suspension is one cycle long", _cls(SuspensionLong)),
    Mutant("no-nop-on-miss", "miss: the missed request is not turned into a NOP", _cls(NoNopOnMiss)),
    Mutant("refetch-may-miss", "miss: the refetch after a miss may miss again", _cls(RefetchMayMiss)),
    Mutant("fetch-other-warp", "fetch: the request is tied to the next warp, not the issued one",
           _cls(FetchOtherWarp)),
    Mutant("branch-not-pending", "branch: a fetched taken branch does not mark the path as wrong",
           _cls(BranchNotPending)),
    Mutant("flush-drops", "branch: the flush drops the ibuffer instead of leaving NOPs", _cls(FlushDrops)),
    Mutant("flush-spares-own-request", "branch: the request of the flushing cycle is not turned into a NOP",
           _cls(FlushSparesOwnRequest)),
    Mutant("flush-spares-pipe", "branch: the fetch pipe is not flushed", _cls(FlushSparesPipe)),
    Mutant("exit-not-final", "exit: a warp goes on after its exit", _cls(ExitNotFinal)),
    Mutant("pipe-longer", "timing: the fetch pipe is one stage longer", _cls(PipeLonger)),
    Mutant("pipe-shorter", "timing: the fetch pipe is one stage shorter", _cls(PipeShorter), equivalent=True),
    Mutant("ibuffer-short", "timing: the ibuffer is one slot short", _ibuffer_short),
    Mutant("scoreboard-short", "scoreboard: a result is ready one cycle early", _cls(ScoreboardShort)),
    Mutant("scoreboard-long", "scoreboard: a result is ready one cycle late", _cls(ScoreboardLong)),
    Mutant("unit-released-early", "units: an unpipelined unit is released one cycle early", _cls(UnitReleasedEarly)),
    # the baseline has scheduling errors: with its ghost window stuck open, oracle must still FAIL
    Mutant("window-stuck-open", "oracle windows: the design's window counter never closes (baseline, lrr/gtlrr)",
           _cls(WindowStuckOpen), config=(("design", "baseline"), ("fetch_policy", "lrr"), ("issue_policy", "gtlrr"))),
    *[Mutant(name, f"policy {p.name}: {name.split('-', 1)[1].replace('-', ' ')}", _with_policy(p), p.name,
             config=MUTANT_CONFIG.get(name, MUTANT_CONFIG.get(p.name, ())))
      for name, p in POLICY_MUTANTS.items()],
]}


# -- policies that break only from some number of warps on: the every-W proof must find that W ----------
def _lrr_wraps_at_4(A: Any, ptr: Any, c: Any, n: int) -> Any:
    """LRR's pointer kept in two bits: after warp 3 it wraps to warp 0."""
    return A.ite(A.lt(c, A.const(0)), ptr, A.ite(A.or_(A.eq(c, A.const(3)), A.eq(c, A.const(n - 1))),
                                                 A.const(0), A.add(c, A.const(1))))


def _gtlo_mask_8(A: Any, ptr: Any, e: Any, k: Any) -> Any:
    """GTLO over an eligibility mask of 8 bits: warps from 8 on are never seen."""
    seen = [x if w < 8 else A.false for w, x in enumerate(e)]
    return A.ite(A.select(seen, ptr), ptr, A.first_true(seen))


def _gtlo_age_4_bits(A: Any, ptr: Any, e: Any, k: Any) -> Any:
    """GTLO whose age is warp + 1 in 4 bits: warp 15's age wraps to 0, so it looks the oldest."""
    oldest = A.first_true(e) if len(e) < 16 else A.ite(e[15], A.const(15), A.first_true(e))
    return A.ite(A.select(e, ptr), ptr, oldest)


def _sort_wraps_at_4(A: Any, ptr: Any, a: Action) -> Any:
    return A.ite(A.eq(a.g, A.first_warps(4)[3]), A.least, a.succ)


def _sort_sees_8(A: Any, w: Any) -> Any:
    return A.or_(*[A.eq(w, z) for z in A.first_warps(8)])


def _sort_age_4_bits(A: Any, ptr: Any, elig: Any, g: Any) -> Any:
    z = A.first_warps(16)
    wrapped = lambda x: A.and_(A.eq(x, z[15]), A.ne(z[15], z[14]))  # warp 15, when there is one
    older = lambda x: A.or_(wrapped(x), A.and_(A.not_(wrapped(g)), A.before(x, g)))
    oldest = A.forall(lambda x: A.implies(A.and_(A.ne(x, g), older(x)), A.not_(elig(x))))
    return A.ite(elig(ptr), A.eq(g, ptr), oldest)


@dataclass(frozen=True)
class WideMutant:
    """A policy bug silent below ``breaks_at`` warps: the kit's policy and the same bug over the warp sort."""

    name: str
    breaks: str
    policy: str
    breaks_at: int
    kit: Policy
    every_warp: SortPolicy

    def make(self, config: SMConfig) -> FrontEnd:
        return _with_policy(self.kit)(config)


_S = SORT_POLICIES
WIDE_MUTANTS: dict[str, WideMutant] = {m.name: m for m in [
    WideMutant("lrr-wraps-at-4", "policy lrr: the pointer wraps after warp 3 (two bits)", "lrr", 5,
               _ptr_update(_P["lrr"], _lrr_wraps_at_4), replace(_S["lrr"], next_ptr=_sort_wraps_at_4)),
    WideMutant("gtlo-mask-8", "policy gtlo: an eligibility mask of 8 bits (warps from 8 on never issue)", "gtlo", 9,
               _ptr_choose(_P["gtlo"], _gtlo_mask_8), replace(_S["gtlo"], sees=_sort_sees_8)),
    WideMutant("gtlo-age-4-bits", "policy gtlo: ages of 4 bits (warp 15 looks the oldest)", "gtlo", 16,
               _ptr_choose(_P["gtlo"], _gtlo_age_4_bits), replace(_S["gtlo"], first=_sort_age_4_bits)),
]}


def mutant(name: str) -> Mutant:
    """The mutant called ``name``, or a ConfigError listing the known ones."""
    if name not in MUTANTS:
        raise ConfigError(f"unknown mutant {name!r}; known: {', '.join(MUTANTS)}")
    return MUTANTS[name]
