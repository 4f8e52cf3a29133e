"""The reordering unit's static order: a linear extension of every warp's program order.

Warps are numbered globally, block by block (blocks in linear order), then by
their index in the block.  Two rules, both linear extensions of each warp's
program order:

* ``round`` (default), the dynamic round: the k-th access of every warp comes
  before any (k+1)-th access; within a round, lower block first, then lower
  warp.  On straight-line code this is the paper's "lowest PC, then block,
  then warp"; with loops it lists every iteration.
* ``barrier``: the barrier epoch first (accesses after the e-th ``bar.sync``
  of their warp come after every access of epoch e-1), then the dynamic
  round.  It never makes the unit wait for a request that needs a barrier
  still held by a warp whose earlier request is queued behind it.

This module is the reference of the order proofs: a sorted list and a
counter over it, written apart from the unit's step.
"""
from __future__ import annotations

from typing import Sequence

from warpcheck.models.errors import ConfigError

ORDERS = ("round", "barrier")
Request = tuple[int, int]  # (global warp index, index in that warp's accesses)


def static_order(epochs: Sequence[Sequence[int]], rule: str = "round") -> list[Request]:
    """Every request ``(warp, k)`` in the order the reordering unit sends them to L1."""
    if rule not in ORDERS:
        raise ConfigError(f"unknown order {rule!r}; known orders: {', '.join(ORDERS)}")
    requests = [(w, k) for w, eps in enumerate(epochs) for k in range(len(eps))]
    if rule == "round":
        return sorted(requests, key=lambda r: (r[1], r[0]))
    return sorted(requests, key=lambda r: (epochs[r[0]][r[1]], r[1], r[0]))


def reference_next(order: Sequence[Request], sent: int) -> Request | None:
    """The request the reference expects after ``sent`` requests went to L1 (None when all did)."""
    return order[sent] if sent < len(order) else None


def is_linear_extension(order: Sequence[Request], counts: Sequence[int]) -> bool:
    """Say whether ``order`` lists each warp's requests exactly once and in program order."""
    seen = [0] * len(counts)
    for w, k in order:
        if k != seen[w]:
            return False
        seen[w] += 1
    return list(seen) == list(counts)
