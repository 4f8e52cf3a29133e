"""One warp of an SM of any size, against an arbitrary scheduler: the component of a parametric proof.

The per-warp part of :class:`FrontEnd`'s step reads only the warp's own
fields, whether it is the issued and the fetching warp, its own fetch-pipe
slots, and the shared unpipelined units.  ``OpenWarp`` is that same step with
one warp (``warps = 1``) where the rest of the SM is left free:

- ``sel`` (an input) says whether the scheduler picks this warp; the only
  constraint is the one every policy meets: a picked warp is eligible;
- the units' next countdowns are inputs (other warps may use the units);
- the fetch pipe holds this warp's own requests only: a cycle in which
  another warp fetches is an empty slot.

So every run of a W-warp SM, seen from one warp, is a run of ``OpenWarp``; a
per-warp fact proved on it holds for every warp of every SM size.
"""
from __future__ import annotations

from typing import Any, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import State, Var


class OpenWarp(FrontEnd):
    """The front end of one warp, the scheduler and the other warps left arbitrary."""

    def __init__(self, config: SMConfig) -> None:
        super().__init__(config.with_(warps=1, kernel_of_warp=(), budgets=()))
        self.name = f"open-warp-{config.design}"

    def input_vars(self) -> list[Var]:
        units = [Var(f"u_next.{c}", "int", 0, self.c.latency[c] - 1) for c in self.c.unpipelined]
        return super().input_vars() + [Var("sel", "bool")] + units

    def scheduled(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return A.ite(i["sel"], A.const(0), A.const(-1))

    def fetch_choice(self, A: Any, s: State, issued: Any = None) -> Any:
        if issued is None:
            raise TypeError("OpenWarp's fetch follows the (free) scheduler; pass the issued warp")
        return super().fetch_choice(A, s, issued)

    def units_next(self, A: Any, s: State, i: Mapping[str, Any], iw: Any, issued: Any) -> State:
        mine = super().units_next(A, s, i, iw, issued)
        # Our own issue sets the unit; otherwise another warp may have set it to anything.
        return {k: A.ite(A.le(A.const(0), iw), v, i[f"u_next.{k[2:]}"]) for k, v in mine.items()}

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        picked_ok = A.implies(i["sel"], self.issue_eligible(A, s)[0])
        return A.and_(super().assume(A, s, i), picked_ok)
