"""The reference L1 data cache: LRU sets written from the paper, apart from the unit's ``l1`` module.

The paper's miss-rate estimator replays the static order through an LRU L1
(write-through, no write-allocate).  This module computes the set of a line
address and the replacement with code of its own, twice: over plain Python
lists (:func:`lru_replay`, for replays and the simulator's estimator) and over
the value algebra (:class:`ReferenceL1`, for proofs).  It imports nothing of the
design: a bug in the design's set index or replacement shows as a difference.

Geometry and store policy come as plain values: ``size`` and ``line_bytes`` in
bytes, ``ways``; ``stores`` is what a store that hits does (``evict`` the line,
``keep`` the set as it is, ``touch``: make the line most recently used).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

NO_LINE = -1


@dataclass(frozen=True)
class Geometry:
    """An L1's size, associativity, line size (bytes, powers of two) and store-hit policy."""

    size: int
    ways: int
    line_bytes: int
    stores: str = "evict"

    @property
    def sets(self) -> int:
        return self.size // self.ways // self.line_bytes

    def line_number(self, address: int) -> int:
        """The line an address lies in: the address without its offset bits."""
        return address >> (self.line_bytes.bit_length() - 1)

    def set_number(self, address: int) -> int:
        """The set of an address: the low bits of its line number."""
        return self.line_number(address) & (self.sets - 1)


@dataclass
class Replay:
    """What an LRU replay counted, and per access whether all its load lines hit."""

    loads: int = 0
    load_misses: int = 0
    stores: int = 0
    store_hits: int = 0
    all_hit: list[bool] = field(default_factory=list)


def lru_replay(accesses: Iterable[tuple[str, Iterable[int]]], g: Geometry) -> Replay:
    """Replay ``(kind, line addresses)`` accesses in order; each set a list, least recently used last."""
    sets: dict[int, list[int]] = {}
    out = Replay()
    for kind, addresses in accesses:
        missed = out.load_misses
        for address in addresses:
            tag, mru = g.line_number(address), sets.setdefault(g.set_number(address), [])
            present = tag in mru
            if kind == "L":
                out.loads += 1
                out.load_misses += not present
                mru[:] = ([tag] + [t for t in mru if t != tag])[:g.ways]
            else:
                out.stores += 1
                out.store_hits += present
                if present and g.stores == "evict":
                    mru.remove(tag)
                elif present and g.stores == "touch":
                    mru[:] = [tag] + [t for t in mru if t != tag]
        out.all_hit.append(out.load_misses == missed)
    return out


class ReferenceL1:
    """The reference L1 over the value algebra: ways hold line numbers (``NO_LINE``: empty), MRU first.

    Only the sets that lines ``0 .. lines - 1`` map to are kept; state
    variables are named ``<prefix><set>.<way>``.
    """

    def __init__(self, g: Geometry, lines: int, prefix: str = "r1.") -> None:
        self.g, self.lines, self.prefix = g, lines, prefix
        self.set_of_line = [g.set_number(n * g.line_bytes) for n in range(lines)]
        self.sets = sorted(set(self.set_of_line))

    def names(self) -> list[str]:
        return [f"{self.prefix}{st}.{i}" for st in self.sets for i in range(self.g.ways)]

    def way_names(self, st: int) -> list[str]:
        return [f"{self.prefix}{st}.{i}" for i in range(self.g.ways)]

    def access(self, A: Any, s: dict, valid: Any, load: Any, line: Any) -> tuple[dict, Any]:
        """The ways after one access to line number ``line`` (if ``valid``), and whether it was a load miss."""
        where = A.select([A.const(x) for x in self.set_of_line], line)
        out, miss = {}, A.false
        for st in self.sets:
            old = [s[n] for n in self.way_names(st)]
            mine = A.and_(valid, A.eq(where, A.const(st)))
            pos = self._position(A, old, line)
            present = A.lt(pos, A.const(self.g.ways))
            new = self._after(A, old, line, pos, load, present)
            out.update({n: A.ite(mine, v, o) for n, v, o in zip(self.way_names(st), new, old)})
            miss = A.or_(miss, A.and_(mine, load, A.not_(present)))
        return out, miss

    def _position(self, A: Any, ways: Sequence[Any], line: Any) -> Any:
        """Where ``line`` sits in the set (``ways`` when it is absent)."""
        pos = A.const(self.g.ways)
        for i in reversed(range(len(ways))):
            pos = A.ite(A.eq(ways[i], line), A.const(i), pos)
        return pos

    def _after(self, A: Any, ways: Sequence[Any], line: Any, pos: Any, load: Any, present: Any) -> list[Any]:
        """A load (or a touching store hit) puts the line first and shifts the ways above it down by one;
        an evicting store hit closes the gap at its position."""
        n = len(ways)
        to_front = [line] + [A.ite(A.lt(A.const(i), A.add(pos, A.const(1))), ways[i - 1], ways[i]) for i in range(1, n)]
        if self.g.stores == "touch":
            stored = [A.ite(present, a, b) for a, b in zip(to_front, ways)]
        elif self.g.stores == "evict":
            stored = [A.ite(A.lt(A.const(i), pos), ways[i], ways[i + 1] if i + 1 < n else A.const(NO_LINE))
                      for i in range(n)]
        else:
            stored = list(ways)
        return [A.ite(load, a, b) for a, b in zip(to_front, stored)]
