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
* ``paper``, the paper's rule (Huangfu and Zhang, Sec. III-E): the lowest
  instruction address first, then the lower block, then the lower warp, so
  the accesses of one path (lower addresses) go to L1 before those of the
  next; where a warp comes back to an address not above its previous access
  (a loop's next iteration, or a path laid out earlier that runs later), a
  new iteration starts, and iterations go in order.  On divergent code it
  differs from the round: a warp whose first access comes late in the code
  waits for the other warps' accesses at lower addresses.

This module is the reference of the order proofs: a sorted list and a
counter over it, written apart from the unit's step.
"""
from __future__ import annotations

from typing import Sequence

from warpcheck.models.errors import ConfigError

ORDERS = ("round", "barrier", "paper")
Request = tuple[int, int]  # (global warp index, index in that warp's accesses)


def static_order(epochs: Sequence[Sequence[int]], rule: str = "round",
                 pcs: Sequence[Sequence[int]] | None = None) -> list[Request]:
    """Every request ``(warp, k)`` in the order the reordering unit sends them to L1 (``pcs``: each request's
    instruction address, which the ``paper`` rule needs)."""
    if rule not in ORDERS:
        raise ConfigError(f"unknown order {rule!r}; known orders: {', '.join(ORDERS)}")
    requests = [(w, k) for w, eps in enumerate(epochs) for k in range(len(eps))]
    if rule == "paper":
        keys = paper_keys(_need_pcs(pcs, epochs))
        return sorted(requests, key=lambda r: (keys[r[0]][r[1]], r[0]))
    if rule == "round":
        return sorted(requests, key=lambda r: (r[1], r[0]))
    return sorted(requests, key=lambda r: (epochs[r[0]][r[1]], r[1], r[0]))


def paper_keys(pcs: Sequence[Sequence[int]]) -> list[list[int]]:
    """Each request's key under the paper's rule: iteration x (largest address + 1) + address (a lower key first,
    ties to the lower warp); a warp's iteration grows each time its next access's address is not above the last."""
    span = max([pc for warp in pcs for pc in warp] + [0]) + 1
    out = []
    for warp in pcs:
        keys, it = [], 0
        for k, pc in enumerate(warp):
            it += 1 if k and pc <= warp[k - 1] else 0
            keys.append(it * span + pc)
        out.append(keys)
    return out


def _need_pcs(pcs: Sequence[Sequence[int]] | None, epochs: Sequence[Sequence[int]]) -> Sequence[Sequence[int]]:
    if pcs is None or [len(p) for p in pcs] != [len(e) for e in epochs]:
        raise ConfigError("the paper's order needs the instruction address of every request")
    return pcs


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
