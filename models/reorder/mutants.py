"""Broken copies of the reordering unit and its L1: the mutation suite of the stream proofs.

Each mutant is one single-point bug, a small mixin that patches one method of
:class:`ReorderUnit` (or of its L1 port), so it applies to a kernel's workload
and to symbolic streams alike.  Every one changes what the unit delivers to L1
(or what L1 does with it) for some stream and schedule, so each must end FAIL
with a witness that replays (``tests/test_reorder_mutants.py``,
``benchmarks/mutants.py --domain reorder``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from warpcheck.models.reorder.l1 import L1Port
from warpcheck.models.reorder.unit import ReorderUnit


class PointerStuck(ReorderUnit):
    def advance(self, A: Any, sp: Any, used: Any) -> Any:
        return sp


class PointerTwoSlots(ReorderUnit):
    def advance(self, A: Any, sp: Any, used: Any) -> Any:
        return A.ite(A.lt(A.add(sp, A.const(2)), used), A.add(sp, A.const(2)), A.const(0))


class PointerNotHome(ReorderUnit):
    def home(self, A: Any, sp: Any) -> Any:
        return sp


class WrongChannel(ReorderUnit):
    def routed(self, A: Any, i: Mapping[str, Any], w: int) -> Any:
        return A.eq(i["a_warp"], A.const((w - 1) % self.work.warps))


class SentStays(ReorderUnit):
    def free(self, A: Any, slots: Sequence[Any], go: Any, slot: Any) -> list[Any]:
        return list(slots)


class TailBeforeSend(ReorderUnit):
    def tail(self, A: Any, slots: Sequence[Any], kept: Sequence[Any]) -> Any:
        return A.count([A.ne(x, A.const(-1)) for x in slots])


class BacklogPlusOne(ReorderUnit):
    def backlog(self) -> int:
        return self.channel + 1


class EpochIgnored(ReorderUnit):
    def key(self, A: Any, s: Any, w: int, k: int) -> Any:
        return A.const(k)


class TiesToHigherWarp(ReorderUnit):
    def lowest(self, A: Any, left: Sequence[Any], keys: Sequence[Any]) -> Any:
        n = len(left)
        pick = A.argmin_true(list(reversed(left)), list(reversed(keys)))
        return A.ite(A.eq(pick, A.const(-1)), pick, A.sub(A.const(n - 1), pick))


class PointerVisitsEmpty(ReorderUnit):
    def advance(self, A: Any, sp: Any, used: Any) -> Any:
        return A.ite(A.lt(A.add(sp, A.const(1)), A.const(self.channel)), A.add(sp, A.const(1)), A.const(0))


class SentNeverSet(ReorderUnit):
    def _deliver(self, A: Any, s: Any, i: Mapping[str, Any], nxt: Any, w: int, slots: list, kept: list,
                 go: Any, there: Any) -> None:
        super()._deliver(A, s, i, nxt, w, slots, kept, A.false, there)


class NothingDelivered(ReorderUnit):
    def deliverable(self, A: Any, s: Any, w: int, k: int) -> Any:
        return A.false


class PhantomSend(ReorderUnit):
    def search(self, A: Any, slots: Sequence[Any], sp: Any, expected: Any) -> tuple[Any, Any, Any]:
        return A.true, expected, sp


class KeySpanFromEpochs(ReorderUnit):
    def key(self, A: Any, s: Any, w: int, k: int) -> Any:
        if self.order == "round":
            return A.const(k)
        span = self.work.max_epoch + 1
        return A.add(A.select([A.const(e * span) for e in range(self.work.max_epoch + 1)],
                              self.work.epoch(A, s, w, k)), A.const(k))


class IterationsIgnored(ReorderUnit):
    def key(self, A: Any, s: Any, w: int, k: int) -> Any:
        if self.paper is not None:
            return A.const(self.work.pcs[w][k])
        return self.work.pc(A, s, w, k)


class _HitKeepsPlace(L1Port):
    def load(self, A: Any, ways: Sequence[Any], line: Any) -> tuple[tuple[Any, ...], Any]:
        moved, hit = super().load(A, ways, line)
        return tuple(A.ite(hit, w, m) for w, m in zip(ways, moved)), hit


class _SetFromByteAddress(L1Port):
    def set_index(self, line_address: int) -> int:
        return line_address % self.spec.sets


class _MissEvictsMru(L1Port):
    def load(self, A: Any, ways: Sequence[Any], line: Any) -> tuple[tuple[Any, ...], Any]:
        moved, hit = super().load(A, ways, line)
        evicted = (line,) + tuple(ways[1:])
        return tuple(A.ite(hit, m, e) for m, e in zip(moved, evicted)), hit


class _StoreHitKept(L1Port):
    def store(self, A: Any, ways: Sequence[Any], line: Any) -> tuple[tuple[Any, ...], Any]:
        hit = A.any_([A.eq(w, line) for w in ways])
        return tuple(ways), hit


class _SetFromWays(L1Port):
    def set_index(self, line_address: int) -> int:
        return line_address // self.spec.line_bytes % self.spec.ways


class HitNotMru(ReorderUnit):
    port_class = _HitKeepsPlace


class SetFromByteAddress(ReorderUnit):
    port_class = _SetFromByteAddress


class MissEvictsMru(ReorderUnit):
    port_class = _MissEvictsMru


class StoreHitKept(ReorderUnit):
    port_class = _StoreHitKept


class SetFromWays(ReorderUnit):
    port_class = _SetFromWays


@dataclass(frozen=True)
class Mutant:
    """A named single-point bug of the unit: what it breaks, the order rule and L1 it shows under."""

    name: str
    breaks: str
    patch: type
    order: str = "round"
    l1: bool = False
    equivalent: bool = False

    def make(self, base: type = ReorderUnit) -> type:
        """The mutated unit class (the patch over ``base``)."""
        return type(f"{self.patch.__name__}{base.__name__}", (self.patch, base), {})


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    Mutant("pointer-stuck", "the search pointer never advances (only each channel's head is looked at)",
           PointerStuck),
    Mutant("pointer-two-slots", "the search pointer advances two slots per cycle", PointerTwoSlots),
    # equivalent: it changes only the cycle a request is found in, always within the proved wait bound
    Mutant("pointer-not-home", "after a send the search pointer stays where it was instead of going home",
           PointerNotHome, equivalent=True),
    Mutant("wrong-channel", "the distributing unit puts warp w-1's request into channel w", WrongChannel),
    Mutant("sent-stays", "a sent request stays in its channel slot (stale entry, capacity shrinks)", SentStays),
    Mutant("tail-before-send", "the tail is computed before a send frees a slot", TailBeforeSend),
    Mutant("backlog-plus-one", "LD/ST back-pressure lets channel + 1 requests of a warp out", BacklogPlusOne),
    Mutant("epoch-ignored", "under the barrier order the unit's key ignores the barrier epoch", EpochIgnored,
           order="barrier"),
    Mutant("ties-to-higher-warp", "the reordering unit breaks a tie of keys towards the higher warp",
           TiesToHigherWarp),
    # equivalent: the pointer still reaches any slot within channel - 1 moves (a ring of `channel` slots instead of
    # the used ones), so a delivered request is found within the proved wait bound; the order is unchanged
    Mutant("pointer-visits-empty", "the search pointer wraps at the channel's last slot, visiting empty slots",
           PointerVisitsEmpty, equivalent=True),
    Mutant("sent-never-set", "a request sent to L1 keeps its queued status (the LD/ST side never sees it sent)",
           SentNeverSet),
    Mutant("nothing-delivered", "the LD/ST side may never deliver a request to the unit (back-pressure stuck on)",
           NothingDelivered),
    Mutant("phantom-send", "the unit sends the request it waits for without finding it in the channel",
           PhantomSend),
    Mutant("key-span-from-epochs", "the barrier key's span is the epoch bound + 1, not the longest stream + 1",
           KeySpanFromEpochs, order="barrier"),
    Mutant("iterations-ignored", "under the paper's order the key is the instruction address alone (a loop's "
           "iterations not kept apart)", IterationsIgnored, order="paper"),
    Mutant("hit-not-mru", "an L1 load hit does not move the line to MRU (FIFO instead of LRU)", HitNotMru, l1=True),
    Mutant("set-from-byte-address", "the L1 set index is taken from the byte address, not the line number",
           SetFromByteAddress, l1=True),
    Mutant("miss-evicts-mru", "an L1 load miss replaces the most recently used way, not the LRU one",
           MissEvictsMru, l1=True),
    Mutant("set-from-ways", "the L1 set index is the line number modulo the ways, not the sets", SetFromWays,
           l1=True),
    Mutant("store-hit-kept", "an L1 store hit leaves the line valid (the evict policy ignored)", StoreHitKept,
           l1=True),
]}
