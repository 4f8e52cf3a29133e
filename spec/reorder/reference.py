"""The reference of the reordering unit, written from the paper apart from the unit (Huangfu and Zhang, Sec. III-E).

The paper's claim: whatever the LD/ST unit does (the order it issues each
warp's requests in, how warps interleave, when it stalls), the L1 sees the
*static order*: every request sorted by (barrier epoch, under ``barrier``), its
index in its warp, then its warp (warps numbered block by block).  So:

* the static order is a sorted list (:func:`static_order`), and the request
  due next is the least request after the last one sent (:meth:`ReferenceOrder.next_after`);
* none is lost: once the request due next has reached the unit, the unit sends
  it within a bounded number of cycles (the reference counts the cycles it waits);
* the L1 misses are those of an LRU replay of the static order (``reference_l1``).

Ghost state (the last request sent, which requests the LD/ST side delivered,
the wait, the reference L1) lives here, computed from the unit's inputs and its
output record, never read from the unit.  The stream is read from the state
by the names of the stream vocabulary (``len.w``, ``bar.w.k``, ``ln.w.k``, ``ld.w.k``).
"""
from __future__ import annotations

from typing import Any, Sequence

RULES = ("round", "barrier", "paper")
Request = tuple[int, int]


def rank(rule: str, epoch: int, w: int, k: int) -> tuple[int, ...]:
    """Where request (w, k) sorts in the static order."""
    return (k, w) if rule == "round" else (epoch, k, w)


def static_order(epochs: Sequence[Sequence[int]], rule: str,
                 pcs: Sequence[Sequence[int]] | None = None) -> list[Request]:
    """Every request (warp, index) of per-warp epoch lists, sorted into the static order.

    The ``paper`` rule needs each request's instruction address (``pcs``, per warp)."""
    if rule not in RULES:
        raise ValueError(f"unknown order {rule!r}")
    every = [(w, k) for w in range(len(epochs)) for k in range(len(epochs[w]))]
    if rule == "paper":
        if pcs is None:
            raise ValueError("the paper's order needs each request's instruction address")
        ranks = {(w, k): (it, pc, w) for w in range(len(pcs)) for k, (it, pc) in enumerate(paper_ranks(pcs[w]))}
        return sorted(every, key=lambda r: ranks[r])
    return sorted(every, key=lambda r: rank(rule, epochs[r[0]][r[1]], r[0], r[1]))


def paper_ranks(pcs: Sequence[int]) -> list[tuple[int, int]]:
    """One warp's accesses as the paper orders them: (iteration, instruction address) each.

    Paper 001 (Sec. III-E): the unit waits for "the warp with the smallest warp
    index and the smallest block ID that still has the global load/store
    instruction with the lowest instruction address"; the accesses of one path
    go to L1 before those of the next.  Where a warp comes back to an address
    not above the last one it accessed (a loop repeats, or a path laid out
    earlier runs later), a new iteration starts: iterations go in order, and
    within one, the lowest address first (then block, then warp)."""
    out, it = [], 0
    for k, pc in enumerate(pcs):
        if k and pc <= pcs[k - 1]:
            it += 1
        out.append((it, pc))
    return out


def sorts_before(A: Any, a: Sequence[Any], b: Sequence[Any]) -> Any:
    """Tuple ``a`` sorts strictly before tuple ``b`` (lexicographic)."""
    if not a:
        return A.false
    return A.or_(A.lt(a[0], b[0]), A.and_(A.eq(a[0], b[0]), sorts_before(A, a[1:], b[1:])))


class ReferenceOrder:
    """The static order over symbolic streams, as the successor of the last request sent."""

    def __init__(self, warps: int, length: int, rule: str, barriers: int | None = None) -> None:
        if rule not in RULES:
            raise ValueError(f"unknown order {rule!r}")
        self.warps, self.length, self.rule = warps, length, rule
        self.barriers = length if barriers is None else barriers

    def epoch(self, A: Any, s: dict, w: int, k: int) -> Any:
        """Barriers passed by warp ``w`` up to its k-th request (at most ``barriers`` count)."""
        passed = A.count([s[f"bar.{w}.{j}"] for j in range(k + 1)])
        return A.ite(A.lt(passed, A.const(self.barriers)), passed, A.const(self.barriers))

    def present(self, A: Any, s: dict, w: int, k: int) -> Any:
        return A.lt(A.const(k), s[f"len.{w}"])

    def key(self, A: Any, s: dict, w: int, k: int) -> tuple[Any, ...]:
        if self.rule == "paper":
            return (*self.paper_rank(A, s, w, k), A.const(w))
        ek = self.epoch(A, s, w, k) if self.rule == "barrier" else A.const(0)
        return tuple(rank(self.rule, ek, A.const(w), A.const(k)))

    def paper_rank(self, A: Any, s: dict, w: int, k: int) -> tuple[Any, Any]:
        """(iteration, instruction address) of request (w, k), as :func:`paper_ranks` counts them."""
        pcs = [s[f"pc.{w}.{j}"] for j in range(k + 1)]
        back = [A.not_(A.lt(pcs[j - 1], pcs[j])) for j in range(1, k + 1)]  # not above the previous address
        return A.count(back), pcs[k]

    def last_key(self, A: Any, s: dict, prefix: str = "r.") -> tuple[Any, ...]:
        if self.rule == "paper":
            lw, lk = s[f"{prefix}lw"], s[f"{prefix}lk"]
            ranks = [[self.paper_rank(A, s, w, k) for k in range(self.length)] for w in range(self.warps)]
            it = A.select([A.select([r[0] for r in row], lk) for row in ranks], lw)
            pc = A.select([A.select([r[1] for r in row], lk) for row in ranks], lw)
            return (it, pc, lw)
        return tuple(rank(self.rule, s[f"{prefix}le"], s[f"{prefix}lw"], s[f"{prefix}lk"]))

    def next_after(self, A: Any, s: dict, prefix: str = "r.") -> tuple[Any, Any, Any]:
        """The least present request after the last one sent (``prefix``lw = -1: none sent yet): (warp, index, epoch),
        (-1, -1, -1) when every request has been sent."""
        started = A.ne(s[f"{prefix}lw"], A.const(-1))
        last = self.last_key(A, s, prefix)
        best_w, best_k, best_e, best, found = A.const(-1), A.const(-1), A.const(-1), None, A.false
        for w in range(self.warps):
            for k in range(self.length):
                mine = self.key(A, s, w, k)
                after = A.or_(A.not_(started), sorts_before(A, last, mine))
                better = A.and_(self.present(A, s, w, k), after,
                                A.or_(A.not_(found), sorts_before(A, mine, best)) if best is not None else A.true)
                best = mine if best is None else tuple(A.ite(better, m, b) for m, b in zip(mine, best))
                best_w, best_k = A.ite(better, A.const(w), best_w), A.ite(better, A.const(k), best_k)
                best_e = A.ite(better, self.epoch(A, s, w, k), best_e)
                found = A.or_(found, better)
        return best_w, best_k, best_e

    def pick(self, A: Any, s: dict, w: Any, k: Any, field: str) -> Any:
        """Stream field ``field`` (``ln`` / ``ld``) of request (w, k), for symbolic ``w`` and ``k``."""
        rows = [A.select([s[f"{field}.{q}.{j}"] for j in range(self.length)], k) for q in range(self.warps)]
        return A.select(rows, w)
