"""QAWS bounds K2's waiting in context switches, not in cycles: a proof for every run (k-induction).

The cycle bound of issue 11 is refuted (``qaws_wait``): a K1 warp that does not
stall keeps the SM.  What QAWS counts is context switches, so the bound is
stated in them.  A *window* is a run of consecutive cycles in each of which
some warp of the larger-budget kernel (K2) is eligible and a warp of the
other kernel (K1) issues.  A *switch of K1* is a cycle of the window in which
a K1 warp issues that is not the warp issued last, which was itself a K1
warp.  Property: no window holds more than ``b(K1)`` switches of K1.

The monitor reads only the front end's issue record (``o.w``) and its
eligibility vector, never the policy's state: a policy that ignores its
budget breaks the property (the mutant ``qaws-budget-never-spent`` FAILs).
Candidate lemmas that tie the monitor to QAWS's record (the switches so far
are at most K1's count; the last issued warp is the greedy warp) are proved
before use, as for every other property.
"""
from __future__ import annotations

from typing import Any, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import State, TransitionSystem, Var
from warpcheck.verify.engines import bmc, cover, kinduction
from warpcheck.spec.qaws.kernel_roles import split_by_budget
from warpcheck.verify.qaws.wcrt import trace_replays
from warpcheck.verify.result import Result, Status


class SwitchMonitor(TransitionSystem):
    """A SWaS front end plus ``mon.last`` (the warp issued last) and ``mon.sw`` (K1's switches in this window)."""

    def __init__(self, fe: FrontEnd) -> None:
        self.fe, self.name = fe, f"switches-{fe.name}"
        # K2 (the larger budget) and K1, from the configuration: never from the policy's grouping
        self.high, self.low, self.budget = split_by_budget(fe.c, "the switch bound")

    def state_vars(self) -> list[Var]:
        return self.fe.state_vars() + [Var("mon.last", "int", -1, self.fe.W - 1),
                                       Var("mon.sw", "int", 0, self.budget + 1)]

    def input_vars(self) -> list[Var]:
        return self.fe.input_vars()

    def param_vars(self) -> list[Var]:
        return self.fe.param_vars()

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        return {**self.fe.init(A, p), "mon.last": A.const(-1), "mon.sw": A.const(0)}

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self.fe.assume(A, s, i)

    def _in(self, A: Any, w: Any, warps: list[int]) -> Any:
        return A.any_([A.eq(w, A.const(v)) for v in warps])

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        out = self.fe.step(A, {k: v for k, v in s.items() if not k.startswith("mon.")}, i)
        iw, last = out["o.w"], s["mon.last"]
        elig = self.fe.issue_eligible(A, s)
        window = A.and_(A.any_([elig[w] for w in self.high]), self._in(A, iw, self.low))
        switch = A.and_(window, self._in(A, last, self.low), A.ne(iw, last))
        more = A.min(A.add(s["mon.sw"], A.ite(switch, A.const(1), A.const(0))), A.const(self.budget + 1))
        out["mon.sw"] = A.ite(window, more, A.const(0))
        out["mon.last"] = A.ite(A.lt(iw, A.const(0)), last, iw)
        return out

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        out = dict(self.fe.lemmas(A, s))
        if "is.c1" in s:  # QAWS's record: candidates only, proved before use
            out["mon.sw-at-most-count"] = A.le(s["mon.sw"], s["is.c1"])
            out["mon.last-is-greedy"] = A.or_(A.lt(s["mon.last"], A.const(0)), A.eq(s["mon.last"], s["is.ptr"]))
        return out


def bounded(ts: SwitchMonitor) -> Any:
    """The property: at most b(K1) switches of K1 in any window."""
    return lambda A, s: A.le(s["mon.sw"], A.const(ts.budget))


def prove_switch_bound(fe: FrontEnd, max_k: int = 4, timeout: float | None = 600.0, depth: int = 24) -> Result:
    """k-induction (with proved lemmas) of the switch bound on front end ``fe``; if it does not close, BMC to ``depth``.

    A FAIL's trace is replayed on the concrete step before it is returned
    (a trace that does not replay is an ERROR of the kit).
    """
    ts = SwitchMonitor(fe)
    r = kinduction(ts, bounded(ts), max_k, timeout)
    if r.status is Status.UNKNOWN:
        r = bmc(ts, bounded(ts), depth, timeout)
    if r.trace is not None and not trace_replays(ts, r.trace):
        r.status, r.message = Status.ERROR, "the counterexample does not replay on the simulator"
    return r


def bound_is_reached(fe: FrontEnd, depth: int, timeout: float | None = 300.0) -> Result:
    """Cover: a run with exactly b(K1) switches of K1 in one window (the bound is tight)."""
    ts = SwitchMonitor(fe)
    return cover(ts, lambda A, s: A.eq(s["mon.sw"], A.const(ts.budget)), depth, timeout)


def qaws_front_end(config: SMConfig) -> FrontEnd:
    """The SWaS front end of ``config`` under QAWS."""
    return FrontEnd(config.with_(design="swas", issue_policy="qaws"))
