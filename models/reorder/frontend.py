"""The SM front end with memory results timed by the LD/ST side (for the reordering unit's timing runs).

:class:`~warpcheck.models.frontend.design.FrontEnd` times every result by its class
latency: one scoreboard counter per warp, set when the instruction issues.  A
global load's result, though, comes back when the LD/ST unit, the channels,
the reordering unit and the L1 have dealt with it, which the front end cannot
know at issue.  ``LoadStoreFrontEnd`` is the same step with one more input per
warp, ``m{w}.hold``: the memory side holds the warp's head instruction (an
operand, or the register it overwrites, is a load result not back yet, or the
head is a ``bar.sync`` its block has not opened).  A held warp is not eligible
to issue; everything else (fetch, ibuffers, policies, flushes) is the front
end's own.  The memory class's latency in the configuration should then be 1,
so the scoreboard times only the ALU results.

The base class is untouched: existing configurations keep their encoding.
"""
from __future__ import annotations

from typing import Any, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import State, Var


class LoadStoreFrontEnd(FrontEnd):
    """The front end whose memory results the environment (LD/ST side) reports, per warp."""

    def __init__(self, config: SMConfig) -> None:
        super().__init__(config)
        if self.issue_policy.reads_elig:  # its update would see eligibility without the holds
            raise ConfigError(f"issue policy {config.issue_policy!r} reads eligibility in its update; "
                              "the LD/ST-timed front end takes policies that do not (e.g. lrr, srr, gtlrr, gtlo)")
        self.name: str = f"{config.design}-{self._policy_label()}-W{self.W}-ldst"

    def input_vars(self) -> list[Var]:
        return super().input_vars() + [Var(f"m{w}.hold", "bool") for w in range(self.W)]

    def scheduled(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """The issue policy's choice among the eligible warps the memory side does not hold."""
        elig = [A.and_(e, A.not_(i[f"m{w}.hold"])) for w, e in enumerate(self.issue_eligible(A, s))]
        return self.choose(A, s, elig)
