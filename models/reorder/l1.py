"""The L1 data cache as LRU sets, written once over the value algebra.

A set is a tuple of line ids, most recently used first; ``-1`` is an empty
way.  A load that hits moves its line to the front; a miss inserts it at the
front and evicts the last way.  Stores are write-through and never allocate;
what a store that hits does is configurable (``stores``):

* ``evict`` (default): the line is invalidated (Fermi-style L1);
* ``keep``: the set is left as it is;
* ``touch``: the line becomes most recently used.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from warpcheck.models.errors import ConfigError, OptionError

STORE_POLICIES = ("evict", "keep", "touch")
EMPTY = -1


@dataclass(frozen=True)
class L1Spec:
    """An L1 data cache: total bytes, ways, line bytes, and what a store hit does."""

    size: int = 16 * 1024
    ways: int = 4
    line_bytes: int = 128
    stores: str = "evict"

    def __post_init__(self) -> None:
        for name in ("size", "ways", "line_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0 or value & (value - 1):
                raise ConfigError(f"L1 {name} is {value!r}; use a positive power of two")
        if self.size < self.ways * self.line_bytes:
            raise ConfigError(f"L1 of {self.size} bytes cannot hold {self.ways} ways of {self.line_bytes}-byte "
                              f"lines; give a larger size or fewer ways")
        if self.stores not in STORE_POLICIES:
            raise ConfigError(f"store policy {self.stores!r} is unknown; choose one of: {', '.join(STORE_POLICIES)}")

    @property
    def sets(self) -> int:
        """Number of sets."""
        return self.size // (self.ways * self.line_bytes)

    def set_of(self, line_address: int) -> int:
        """The set a line address maps to."""
        return line_address // self.line_bytes % self.sets


def parse_cache(text: str, line_bytes: int = 128, stores: str = "evict", option: str = "cache") -> L1Spec:
    """An L1Spec from ``SIZE:WAYS`` (size in bytes or with a K suffix, e.g. ``16K:4``).

    A text that is no L1 raises :class:`OptionError` naming ``option`` (the field that held it).
    """
    size, sep, ways = text.partition(":")
    size = size.strip().upper().removesuffix("B")
    mult = 1024 if size.endswith("K") else 1
    digits = size.removesuffix("K")
    if not sep or not digits.isdigit() or not ways.strip().isdigit():
        raise OptionError(option, text, "not SIZE:WAYS; write e.g. 16K:4")
    try:
        return L1Spec(int(digits) * mult, int(ways), line_bytes, stores)
    except OptionError:
        raise
    except ConfigError as e:
        raise OptionError(option, text, str(e)) from None


def _present_upto(A: Any, ways: Sequence[Any], line: Any, i: int) -> Any:
    """Whether ``line`` is in ways ``0 .. i``."""
    return A.any_([A.eq(w, line) for w in ways[:i + 1]])


def load(A: Any, ways: Sequence[Any], line: Any) -> tuple[tuple[Any, ...], Any]:
    """A load of ``line``: the new set (line first) and whether it hit."""
    hit = _present_upto(A, ways, line, len(ways) - 1)
    moved = [line] + [A.ite(_present_upto(A, ways, line, i - 1), ways[i], ways[i - 1]) for i in range(1, len(ways))]
    return tuple(moved), hit


def store(A: Any, ways: Sequence[Any], line: Any, policy: str) -> tuple[tuple[Any, ...], Any]:
    """A store to ``line`` (write-through, no allocate): the new set and whether it hit."""
    hit = _present_upto(A, ways, line, len(ways) - 1)
    if policy == "keep":
        return tuple(ways), hit
    if policy == "touch":
        moved, _ = load(A, ways, line)
        return tuple(A.ite(hit, m, w) for m, w in zip(moved, ways)), hit
    n = len(ways)
    out = [A.ite(_present_upto(A, ways, line, i), ways[i + 1] if i + 1 < n else A.const(EMPTY), ways[i])
           for i in range(n)]
    return tuple(out), hit


class L1Port:
    """The L1 as a component of a transition system: the touched sets, fed one request per cycle.

    Lines are numbered 0 .. L-1 by their position in ``universe`` (line
    addresses) so that state variables stay small; only the sets of the
    universe are modelled.  ``requests`` (kernel mode) lists every request's
    (kind, line addresses), numbered as the system numbers them; in stream
    mode the requests are symbolic and come through :meth:`access_ids`.
    """

    def __init__(self, spec: L1Spec, requests: Sequence[tuple[str, Sequence[int]]] = (),
                 universe: Sequence[int] | None = None) -> None:
        self.spec = spec
        self.requests = [(kind, tuple(sorted(set(lines)))) for kind, lines in requests]
        addresses = sorted({a for _, lines in self.requests for a in lines}) if universe is None else list(universe)
        self.universe = addresses
        self.line_id = {a: i for i, a in enumerate(addresses)}
        self.set_table = [self.set_index(a) for a in addresses]
        self.sets = sorted(set(self.set_table))
        self.widest = max([len(lines) for _, lines in self.requests] + [1])

    def set_index(self, line_address: int) -> int:
        """The set a line address maps to (the line number modulo the sets)."""
        return self.spec.set_of(line_address)

    def load(self, A: Any, ways: Sequence[Any], line: Any) -> tuple[tuple[Any, ...], Any]:
        return load(A, ways, line)

    def store(self, A: Any, ways: Sequence[Any], line: Any) -> tuple[tuple[Any, ...], Any]:
        return store(A, ways, line, self.spec.stores)

    def names(self) -> list[str]:
        """State variable names of the ways, set by set, most recently used first."""
        return [f"l1.{s}.{i}" for s in self.sets for i in range(self.spec.ways)]

    def _column(self, A: Any, p: int, of: Any) -> Any:
        """The p-th line id (or -1) of each request, selected by request number ``of``."""
        return A.select([A.const(self.line_id[lines[p]] if p < len(lines) else EMPTY)
                         for _, lines in self.requests], of)

    def access(self, A: Any, s: dict, valid: Any, of: Any) -> tuple[dict, Any, Any]:
        """Kernel mode: the sets after request number ``of`` (if ``valid``): (new ways, load hits, load misses)."""
        is_load = A.select([A.const(kind == "L") for kind, _ in self.requests], of)
        return self.access_ids(A, s, valid, is_load, [self._column(A, p, of) for p in range(self.widest)])

    def access_ids(self, A: Any, s: dict, valid: Any, is_load: Any, ids: Sequence[Any]) -> tuple[dict, Any, Any]:
        """The sets after one request touching line ids ``ids`` (-1: none) in turn, if ``valid``."""
        ways = {k: s[k] for k in self.names()}
        hits, misses = A.const(0), A.const(0)
        table = [A.const(x) for x in self.set_table] or [A.const(EMPTY)]
        for line in ids:
            used = A.and_(valid, A.ne(line, A.const(EMPTY)))
            where = A.select(table, line)
            for st in self.sets:
                here = A.and_(used, A.eq(where, A.const(st)))
                old = tuple(ways[f"l1.{st}.{i}"] for i in range(self.spec.ways))
                loaded, hit = self.load(A, old, line)
                stored, _ = self.store(A, old, line)
                new = A.ite(here, A.ite(is_load, loaded, stored), old)
                ways.update({f"l1.{st}.{i}": w for i, w in enumerate(new)})
                counted = A.and_(here, is_load)
                hits = A.add(hits, A.ite(A.and_(counted, hit), A.const(1), A.const(0)))
                misses = A.add(misses, A.ite(A.and_(counted, A.not_(hit)), A.const(1), A.const(0)))
        return ways, hits, misses
