"""The oracle issue schedulers of Crouzet et al. (Sec. VI-A4), resynchronised every cycle.

Each oracle runs the implemented issue policy from the implemented scheduler's
own state (so a discrepancy counts once, then the oracle follows again), but
with another view of which warps are eligible:

- ``osched1``: every ibuffer always holds an instruction: an empty ibuffer
  counts as holding a ready one.
- ``osched2``: the same, except within the predictable windows after an
  I-cache miss (1 + miss_latency + t_fetch + t_decode cycles) or a taken
  branch (1 + t_fetch + t_decode cycles), where the real eligibility is used.
  A choice that differs from osched2's is a scheduling *error*.

These are the simulator's metrics (discrepancies, errors), computed with the
model's own policy.  The proofs never use them: their references are written
apart from the model in ``spec/frontend/issue_reference.py``.
"""
from __future__ import annotations

from typing import Any

from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import State


def _assumed(fe: FrontEnd, A: Any, s: State, w: int) -> Any:
    """Eligible if the ibuffer were never empty: empty counts as ready."""
    return A.and_(A.not_(s[f"w{w}.done"]),
                  A.or_(A.eq(s[f"w{w}.n"], A.const(0)), fe.head_ready(A, s, w)))


def osched1_eligible(fe: FrontEnd, A: Any, s: State) -> list[Any]:
    """Which warps osched1 deems eligible in state ``s``."""
    return [_assumed(fe, A, s, w) for w in range(fe.W)]


def osched2_eligible(fe: FrontEnd, A: Any, s: State) -> list[Any]:
    """Which warps osched2 deems eligible: the real view inside a predictable window."""
    real = fe.issue_eligible(A, s)
    return [A.ite(A.lt(A.const(0), s[f"w{w}.win"]), real[w], _assumed(fe, A, s, w)) for w in range(fe.W)]


def osched1_choice(fe: FrontEnd, A: Any, s: State) -> Any:
    """The warp osched1 would issue in state ``s``."""
    return fe.choose(A, s, osched1_eligible(fe, A, s))


def osched2_choice(fe: FrontEnd, A: Any, s: State) -> Any:
    """The warp osched2 would issue in state ``s``."""
    return fe.choose(A, s, osched2_eligible(fe, A, s))
