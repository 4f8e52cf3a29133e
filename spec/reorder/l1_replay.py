"""The miss-rate estimator: the L1 replayed, as plain Python lists, over a sequence of accesses.

Under the reordering unit the L1 sees the static order, so this replay is the
exact L1 behaviour, not an estimate.  The replay is the reference's
(``spec.reorder.reference_l1``), which shares no code with the unit's L1
(``models.reorder.l1``), set index included, so that the two check each other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from warpcheck.spec.reorder.reference_l1 import Geometry, lru_replay

L1Spec = Any  # the unit's L1 configuration (models.reorder.l1.L1Spec), read for its geometry only: not imported,
# so that nothing of the unit's L1 (its set index above all) reaches the replay


@dataclass
class L1Stats:
    """Line accesses and misses of one replay."""

    loads: int = 0
    load_misses: int = 0
    stores: int = 0
    store_hits: int = 0

    @property
    def miss_rate(self) -> float:
        """Load misses per load line access (0 without loads)."""
        return self.load_misses / self.loads if self.loads else 0.0

    def to_json(self, spec: L1Spec) -> dict:
        return {"size": spec.size, "ways": spec.ways, "line_bytes": spec.line_bytes, "stores_policy": spec.stores,
                "loads": self.loads, "load_misses": self.load_misses, "stores": self.stores,
                "miss_rate": round(self.miss_rate, 6)}


def replay(accesses: Iterable[tuple[str, Iterable[int]]], spec: L1Spec) -> L1Stats:
    """Replay ``(kind, line addresses)`` accesses in order through LRU sets."""
    r = lru_replay(accesses, _geometry(spec))
    return L1Stats(r.loads, r.load_misses, r.stores, r.store_hits)


def per_access(accesses: Iterable[tuple[str, Iterable[int]]], spec: L1Spec,
               stats: L1Stats | None = None) -> Iterator[bool]:
    """Replay the accesses in order; yield, per access, whether every load line of it hit."""
    r = lru_replay(accesses, _geometry(spec))
    if stats is not None:
        stats.loads, stats.load_misses, stats.stores, stats.store_hits = r.loads, r.load_misses, r.stores, r.store_hits
    yield from r.all_hit


def _geometry(spec: L1Spec) -> Geometry:
    """The geometry only: the set index and replacement are the reference's own."""
    return Geometry(spec.size, spec.ways, spec.line_bytes, spec.stores)
