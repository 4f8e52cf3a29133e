"""Does QAWS bound how long a ready warp of the larger-budget kernel (K2) waits?  A BMC search.

The hypothesis of issue 11: while K2 has a ready warp, at most a
budget-dependent number of consecutive cycles go to K1.  :class:`WaitMonitor`
is the SWaS front end with one more variable, ``mon.wait``: the number of
consecutive cycles, up to this one, in which some K2 warp was eligible and a
K1 warp issued (saturating at ``cap + 1``).  The property is ``mon.wait <=
cap``; BMC looks for a run that breaks it.  QAWS counts *context switches*,
not cycles: a K1 warp that never stalls keeps the SM, so the search finds a
violation for every cap (the run is replayable from its trace).
"""
from __future__ import annotations

from typing import Any

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.spec.qaws.kernel_roles import split_by_budget
from warpcheck.models.ts import State, Var
from warpcheck.verify.engines import bmc
from warpcheck.verify.result import Result


class WaitMonitor(FrontEnd):
    """The front end plus ``mon.wait``: consecutive cycles that K1 issued while a K2 warp was eligible."""

    def __init__(self, config: SMConfig, cap: int) -> None:
        super().__init__(config)
        self.cap = cap
        # K2 (the larger budget) and K1, from the configuration: never from the policy's grouping
        self.high, self.low, _ = split_by_budget(config, "the waiting-time search")

    def state_vars(self) -> list[Var]:
        return super().state_vars() + [Var("mon.wait", "int", 0, self.cap + 1)]

    def init(self, A: Any, p: Any) -> State:
        return {**super().init(A, p), "mon.wait": A.const(0)}

    def step(self, A: Any, s: State, i: Any) -> State:
        out = super().step(A, s, i)
        elig = self.issue_eligible(A, s)
        waiting = A.and_(A.any_([elig[w] for w in self.high]), A.any_([A.eq(out["o.w"], A.const(w)) for w in self.low]))
        longer = A.min(A.add(s["mon.wait"], A.const(1)), A.const(self.cap + 1))
        out["mon.wait"] = A.ite(waiting, longer, A.const(0))
        return out

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        return {}


def k2_wait_search(config: SMConfig, cap: int, depth: int, timeout: float | None = 300.0) -> Result:
    """BMC for a run in which K2 has a ready warp and K1 issues for more than ``cap`` consecutive cycles."""
    ts = WaitMonitor(config, cap)
    return bmc(ts, lambda A, s: A.le(s["mon.wait"], A.const(cap)), depth, timeout)
