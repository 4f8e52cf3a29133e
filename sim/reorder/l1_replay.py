"""The miss-rate estimator: the L1 replayed, as plain Python lists, over a sequence of accesses.

Under the reordering unit the L1 sees the static order, so this replay is the
exact L1 behaviour, not an estimate.  It is written apart from the algebra
version in ``models.l1`` so that the two check each other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from warpcheck.models.reorder.l1 import L1Spec


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
    stats = L1Stats()
    for _ in per_access(accesses, spec, stats):
        pass
    return stats


def per_access(accesses: Iterable[tuple[str, Iterable[int]]], spec: L1Spec,
               stats: L1Stats | None = None) -> Iterator[bool]:
    """Replay the accesses in order; yield, per access, whether every load line of it hit."""
    sets: dict[int, list[int]] = {}
    stats = stats if stats is not None else L1Stats()
    for kind, lines in accesses:
        before = stats.load_misses
        for line in lines:
            s = sets.setdefault(spec.set_of(line), [])
            if kind == "L":
                _load(s, line, spec.ways, stats)
            else:
                _store(s, line, spec.stores, stats)
        yield stats.load_misses == before


def _load(s: list[int], line: int, ways: int, stats: L1Stats) -> None:
    stats.loads += 1
    if line in s:
        s.remove(line)
    else:
        stats.load_misses += 1
    s.insert(0, line)
    del s[ways:]


def _store(s: list[int], line: int, policy: str, stats: L1Stats) -> None:
    stats.stores += 1
    if line not in s:
        return
    stats.store_hits += 1
    if policy == "evict":
        s.remove(line)
    elif policy == "touch":
        s.remove(line)
        s.insert(0, line)
