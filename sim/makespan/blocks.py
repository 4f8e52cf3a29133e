"""Check a deficit bound written over *blocks* of phases (certificate bounds with ``"method": "blocks"``).

The bound object holds ``blocks``: a list of [first, last, cap] that cuts
the phases of a one-cycle kernel (every instruction one cycle, so every
phase is a wait phase) into runs of consecutive phases of one unit, each
with a cap K >= sigma of its unit; ``unit``: the unit u whose unused slots
are counted; ``states``: rows of one value per phase and a potential g.  In
a row a block is either *lumped* (-1 in each of its phases: it holds K or
more warps, anywhere in it) or *exact* (a count per phase, summing to less
than K).  A row stands for every count vector that fits it, for any W.

For every row and every work-conserving move of every count vector it
stands for, the checker asks that the next vector's row is listed (all-done
may be absent: potential 0) and g(row) >= deficit_u(row) + g(next).  The
moves are stepped on rows, not on vectors, by these rules (each one is a
cycle rule of ``replay.py`` read on the row):

1. Ready warps of unit v: the sum of its exact counts, or at least K >= sigma_v
   if one of its blocks is lumped.  So v issues min(sigma_v, ready), known in
   every vector of the row, and so is u's deficit sigma_u - issue_u.
2. The issues of v go to its non-empty exact phases (at most their count)
   and its lumped blocks (at most all of them: such a block holds >= sigma_v),
   in every way.  A warp issued from an exact phase steps to the next phase;
   from a lumped block, any number e of its a issued warps may have stood at
   its last phase (they leave the block), the others step inside it (a
   block of one phase: all a leave).
3. A block's next value: exact blocks have exact next counts (lumped again
   when they reach K).  A lumped block that held n >= K keeps n - e old warps
   and gains the warps entering at its first phase; when that may fall below
   K, the next row is lumped or any exact block with the entering warps at
   its first phase and r >= K - e old warps anywhere (r + entering < K).

The checker shares no code with ``verify/makespan/phases.py``: it is written
again here from the rules above.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator

from warpcheck.models.makespan.kernel import MkKernel
from warpcheck.sim.makespan.numbers import read_number

Row = tuple[int, ...]
LUMPED = -1
MAX_CONTENTS = 100_000  # exact contents of one block (fewer than cap warps on its phases): more is a crafted table


class BlocksRefused(ValueError):
    """The blocks bound does not hold (the message says why)."""


@dataclass
class BlocksBound:
    """A validated blocks bound: the cuts, the unit, the table (scaled to integers) and its scale."""

    cuts: list[tuple[int, int, int]]  # first, last, cap
    unit: str
    table: dict[Row, int]
    scale: int


def read_blocks(kernel: MkKernel, bound: dict[str, Any]) -> BlocksBound:
    """Validate a blocks bound against its transformed kernel; raise BlocksRefused on any fault."""
    if not kernel.single_cycle:
        raise BlocksRefused("a blocks bound needs a kernel of one-cycle instructions")
    units = [ins.unit for ins in kernel.instrs]
    sigma = dict(kernel.sigma)
    if bound.get("weight") != "deficit" or bound.get("unit") not in sigma:
        raise BlocksRefused("a blocks bound counts the deficit of a unit of the kernel")
    cuts = _cuts(bound.get("blocks"), units, sigma)
    rows = bound.get("states")
    if not isinstance(rows, list):
        raise BlocksRefused("field 'states' is missing or not a list")
    raw: dict[Row, Fraction] = {}
    for row in rows:
        if not isinstance(row, list) or len(row) != len(units) + 1 or read_number(row[-1]) is None:
            raise BlocksRefused(f"state row {row!r} is not {len(units)} values and a potential")
        key = tuple(row[:-1])
        if not _row_ok(key, cuts):
            raise BlocksRefused(f"state row {row!r}: each block must be all -1 (lumped) or counts below its cap")
        if key in raw:
            raise BlocksRefused(f"state {list(key)} is listed twice")
        raw[key] = read_number(row[-1]) or Fraction(0)
    scale = math.lcm(*(v.denominator for v in raw.values())) if raw else 1
    return BlocksBound(cuts, bound["unit"], {k: int(v * scale) for k, v in raw.items()}, scale)


def _cuts(raw: Any, units: list[str], sigma: dict[str, int]) -> list[tuple[int, int, int]]:
    """The blocks: consecutive, covering every phase, one unit each, cap at least that unit's sigma."""
    if not isinstance(raw, list) or not raw:
        raise BlocksRefused("field 'blocks' is missing or not a non-empty list")
    out, nxt = [], 0
    for blk in raw:
        if not (isinstance(blk, list) and len(blk) == 3 and all(type(v) is int for v in blk)):
            raise BlocksRefused(f"block {blk!r} is not [first, last, cap]")
        first, last, cap = blk
        if first != nxt or last < first or last >= len(units):
            raise BlocksRefused(f"block {blk!r} does not start at phase {nxt} or runs past the last phase")
        if len(set(units[first:last + 1])) != 1:
            raise BlocksRefused(f"block {blk!r} mixes units")
        if cap < sigma[units[first]]:
            raise BlocksRefused(f"block {blk!r} has a cap below sigma {sigma[units[first]]} of its unit "
                                "(a lumped block would not fix its unit's issue count)")
        if math.comb(cap - 1 + last - first + 1, last - first + 1) > MAX_CONTENTS:
            raise BlocksRefused(f"block {blk!r} stands for more than {MAX_CONTENTS} exact contents; use a smaller cap "
                                "or shorter blocks")
        out.append((first, last, cap))
        nxt = last + 1
    if nxt != len(units):
        raise BlocksRefused(f"the blocks end at phase {nxt - 1}, not at the last phase {len(units) - 1}")
    return out


def _row_ok(key: Row, cuts: list[tuple[int, int, int]]) -> bool:
    for first, last, cap in cuts:
        part = key[first:last + 1]
        if not all(type(v) is int for v in part):
            return False
        if not (all(v == LUMPED for v in part) or (all(v >= 0 for v in part) and sum(part) < cap)):
            return False
    return True


class _Rules:
    """The kernel's units and blocks, stepped on rows."""

    def __init__(self, kernel: MkKernel, cuts: list[tuple[int, int, int]], unit: str) -> None:
        self.cuts = cuts
        self.sigma = dict(kernel.sigma)
        self.unit_of = [kernel.instrs[first].unit for first, _, _ in cuts]
        self.names = list(self.sigma)
        self.watched = unit

    def issues(self, row: Row, v: str) -> int:
        """How many warps unit v issues in every vector of the row."""
        mine = [c for c, u in zip(self.cuts, self.unit_of) if u == v]
        if any(row[first] == LUMPED for first, _, _ in mine):
            return self.sigma[v]
        return min(self.sigma[v], sum(row[p] for first, last, _ in mine for p in range(first, last + 1)))

    def deficit(self, row: Row) -> int:
        return self.sigma[self.watched] - self.issues(row, self.watched)

    def successors(self, row: Row) -> Iterator[Row]:
        """Every next row (with repeats) of every move of every vector the row stands for."""
        takes = [list(self._unit_takes(row, v)) for v in self.names]
        for pick in itertools.product(*takes):
            took: dict[tuple[str, int], int] = {}
            for part in pick:
                took.update(part)
            yield from self._land(row, took, 0, 0, ())

    def _unit_takes(self, row: Row, v: str) -> Iterator[dict[tuple[str, int], int]]:
        """Warps taken from each phase ('p', phase) or lumped block ('b', block) of unit v, summing to its issues."""
        want = self.issues(row, v)
        places: list[tuple[tuple[str, int], int]] = []
        for b, ((first, last, _), u) in enumerate(zip(self.cuts, self.unit_of)):
            if u != v:
                continue
            if row[first] == LUMPED:
                places.append((("b", b), want))
            else:
                places += [(("p", p), row[p]) for p in range(first, last + 1) if row[p] > 0]
        for amounts in itertools.product(*[range(min(most, want) + 1) for _, most in places]):
            if sum(amounts) == want:
                yield {key: x for (key, _), x in zip(places, amounts)}

    def _land(self, row: Row, took: dict[tuple[str, int], int], b: int, entering: int, head: Row) -> Iterator[Row]:
        """Next values of blocks b, b+1, ... given the warps entering block b; every leaving count of lumped blocks."""
        if b == len(self.cuts):
            yield head
            return
        first, last, cap = self.cuts[b]
        size = last - first + 1
        if row[first] != LUMPED:
            cnt = list(row[first:last + 1])
            moved = [took.get(("p", p), 0) for p in range(first, last + 1)]
            nxt = [c - m for c, m in zip(cnt, moved)]
            nxt[0] += entering
            for i in range(size - 1):
                nxt[i + 1] += moved[i]
            part = tuple(nxt) if sum(nxt) < cap else (LUMPED,) * size
            yield from self._land(row, took, b + 1, moved[-1], head + part)
            return
        issued = took.get(("b", b), 0)
        for leave in range(issued if size == 1 else 0, issued + 1):  # one phase: every issued warp leaves it
            for part in self._after_lumped(size, cap, leave, entering):
                yield from self._land(row, took, b + 1, leave, head + part)

    @staticmethod
    def _after_lumped(size: int, cap: int, leave: int, entering: int) -> Iterator[Row]:
        yield (LUMPED,) * size
        for old in range(max(0, cap - leave), cap - entering):
            for where in itertools.combinations_with_replacement(range(size), old):
                cnt = [0] * size
                for i in where:
                    cnt[i] += 1
                cnt[0] += entering
                yield tuple(cnt)


def check_blocks(kernel: MkKernel, bb: BlocksBound) -> None:
    """Check that g drops by the deficit on every move of every row; raise BlocksRefused if not."""
    rules = _Rules(kernel, bb.cuts, bb.unit)
    done = (0,) * len(kernel.instrs)
    at_done = bb.table.get(done, 0)
    for row, g in bb.table.items():
        if row == done:
            continue
        need = rules.deficit(row) * bb.scale
        for nxt in set(rules.successors(row)):
            after = bb.table.get(nxt, at_done if nxt == done else None)
            if after is None:
                raise BlocksRefused(f"state {list(nxt)}, reached from {list(row)}, is not in the table")
            if g < need + after:
                raise BlocksRefused(f"the potential does not drop enough from {list(row)} to {list(nxt)}")


def initial_row(bb: BlocksBound, phases: int, warps: int) -> Row:
    """The row of W warps all waiting at the first phase."""
    first, last, cap = bb.cuts[0]
    if warps >= cap:
        return (LUMPED,) * (last + 1) + (0,) * (phases - last - 1)
    return (warps,) + (0,) * (phases - 1)


def blocks_upper(kernel: MkKernel, bb: BlocksBound, warps: int) -> int:
    """floor((W w_u + D_u) / sigma_u), D_u = g(initial) - g(done); refuses a table without the initial row."""
    P = len(kernel.instrs)
    init = initial_row(bb, P, warps)
    if init not in bb.table:
        raise BlocksRefused(f"the initial state {list(init)} is not in the table")
    deficit = Fraction(bb.table[init] - bb.table.get((0,) * P, 0), bb.scale)
    need = sum(1 for ins in kernel.instrs if ins.unit == bb.unit)
    return math.floor((warps * need + deficit) / kernel.sigma_of(bb.unit))


def formula(kernel: MkKernel, bb: BlocksBound) -> str:
    """The bound as a function of W, for every W >= the cap of the first block."""
    P = len(kernel.instrs)
    init = initial_row(bb, P, bb.cuts[0][2])
    d = Fraction(bb.table[init] - bb.table.get((0,) * P, 0), bb.scale)
    need = sum(1 for ins in kernel.instrs if ins.unit == bb.unit)
    return f"makespan <= floor(({need} W + {d}) / {kernel.sigma_of(bb.unit)})"
