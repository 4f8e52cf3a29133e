"""Check a bound written over *blocks* of phases (certificate bounds with ``"method": "blocks"``).

The bound object holds ``blocks``: a list of [first, last, cap] that cuts
the phases of a one-cycle kernel (every instruction one cycle, so every
phase is a wait phase) into runs of consecutive phases of one unit, each
with a cap K >= sigma of its unit; ``weight``: ``"deficit"`` with ``unit``
u (the slots of u left unused in a cycle are counted) or ``"cycles"`` (1 per
unfinished cycle); optionally ``linear``: one rational c_p per phase, so that
Psi = sum_p c_p n_p + g; ``states``: rows of one value per phase and a potential g.  In
a row a block is either *lumped* (-1 in each of its phases: it holds K or
more warps, anywhere in it) or *exact* (a count per phase, summing to less
than K).  A row stands for every count vector that fits it, for any W.

For every row and every work-conserving move of every count vector it
stands for, the checker asks that the next vector's row is listed (all-done
may be absent: potential 0) and g(row) + drop >= weight(row) + g(next), with
drop the least fall of the linear part over the vectors and moves (rule 4).  The
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
4. The linear part falls by m (c_p - c_{p+1}) for m warps leaving phase p
   (c of the done phase is 0).  The e warps leaving a lumped block stood at
   its last phase; its other issued warps stepped at unknown inner phases, so
   each counts the least c_p - c_{p+1} over the block's phases but its last.

Summed along a run, the weights total at most Psi(initial) - g(done): the
makespan itself for ``cycles``, or D_u, and then T <= floor((W w_u + D_u) / sigma_u).

The checker shares no code with ``verify/makespan/phases.py``: it is written
again here from the rules above.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator

from warpcheck.spec.makespan.reference import RefKernel
from warpcheck.spec.makespan.numbers import read_number

Row = tuple[int, ...]
LUMPED = -1
MAX_CONTENTS = 100_000  # exact contents of one block (fewer than cap warps on its phases): more is a crafted table


class BlocksRefused(ValueError):
    """The blocks bound does not hold (the message says why)."""


@dataclass
class BlocksBound:
    """A validated blocks bound: the cuts, the unit, the table (scaled to integers) and its scale."""

    cuts: list[tuple[int, int, int]]  # first, last, cap
    unit: str | None  # None for weight "cycles"
    table: dict[Row, int]
    scale: int
    linear: list[int]  # c_p scaled like the table (zeros when absent)

    @property
    def weight(self) -> str:
        return "cycles" if self.unit is None else "deficit"


def read_blocks(kernel: RefKernel, bound: dict[str, Any]) -> BlocksBound:
    """Validate a blocks bound against its transformed kernel; raise BlocksRefused on any fault."""
    if not kernel.single_cycle:
        raise BlocksRefused("a blocks bound needs a kernel of one-cycle instructions")
    units = [ins.unit for ins in kernel.instrs]
    sigma = dict(kernel.sigma)
    if bound.get("weight") not in ("deficit", "cycles"):
        raise BlocksRefused("a blocks bound counts cycles or the deficit of a unit")
    if bound["weight"] == "deficit" and bound.get("unit") not in sigma:
        raise BlocksRefused("a blocks bound on the deficit names a unit of the kernel")
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
    linear = _linear(bound.get("linear", [0] * len(units)), len(units))
    scale = math.lcm(*(v.denominator for v in list(raw.values()) + linear))
    unit = bound["unit"] if bound["weight"] == "deficit" else None
    return BlocksBound(cuts, unit, {k: int(v * scale) for k, v in raw.items()}, scale,
                       [int(v * scale) for v in linear])


def _linear(raw: Any, phases: int) -> list[Fraction]:
    """The linear part: one number per phase."""
    values = [read_number(v) for v in raw] if isinstance(raw, list) else []
    if len(values) != phases or any(v is None for v in values):
        raise BlocksRefused(f"field 'linear' is not a list of {phases} numbers")
    return [v or Fraction(0) for v in values]


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

    def __init__(self, kernel: RefKernel, cuts: list[tuple[int, int, int]], unit: str | None,
                 linear: list[int]) -> None:
        self.cuts = cuts
        self.sigma = dict(kernel.sigma)
        self.unit_of = [kernel.instrs[first].unit for first, _, _ in cuts]
        self.names = list(self.sigma)
        self.watched = unit
        step = [c - n for c, n in zip(linear, linear[1:] + [0])]  # fall per warp leaving each phase
        self.step = step
        self.inner = [min(step[first:last], default=0) for first, last, _ in cuts]  # least inner step

    def issues(self, row: Row, v: str) -> int:
        """How many warps unit v issues in every vector of the row."""
        mine = [c for c, u in zip(self.cuts, self.unit_of) if u == v]
        if any(row[first] == LUMPED for first, _, _ in mine):
            return self.sigma[v]
        return min(self.sigma[v], sum(row[p] for first, last, _ in mine for p in range(first, last + 1)))

    def weight(self, row: Row) -> int:
        """Unused slots of the watched unit, or 1 cycle when no unit is watched."""
        if self.watched is None:
            return 1
        return self.sigma[self.watched] - self.issues(row, self.watched)

    def successors(self, row: Row) -> Iterator[tuple[Row, int]]:
        """Every next row (with repeats) of every move of every vector the row stands for, with the linear fall."""
        takes = [list(self._unit_takes(row, v)) for v in self.names]
        for pick in itertools.product(*takes):
            took: dict[tuple[str, int], int] = {}
            for part in pick:
                took.update(part)
            fall = sum(x * self.step[key[1]] for key, x in took.items() if key[0] == "p")
            yield from self._land(row, took, 0, 0, (), fall)

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

    def _land(self, row: Row, took: dict[tuple[str, int], int], b: int, entering: int, head: Row,
              fall: int) -> Iterator[tuple[Row, int]]:
        """Next values of blocks b, b+1, ... given the warps entering block b; every leaving count of lumped blocks."""
        if b == len(self.cuts):
            yield head, fall
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
            yield from self._land(row, took, b + 1, moved[-1], head + part, fall)
            return
        issued = took.get(("b", b), 0)
        for leave in range(issued if size == 1 else 0, issued + 1):  # one phase: every issued warp leaves it
            more = leave * self.step[last] + (issued - leave) * self.inner[b]
            for part in self._after_lumped(size, cap, leave, entering):
                yield from self._land(row, took, b + 1, leave, head + part, fall + more)

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


def check_blocks(kernel: RefKernel, bb: BlocksBound) -> None:
    """Check that Psi drops by the weight on every move of every row; raise BlocksRefused if not."""
    rules = _Rules(kernel, bb.cuts, bb.unit, bb.linear)
    done = (0,) * len(kernel.instrs)
    at_done = bb.table.get(done, 0)
    for row, g in bb.table.items():
        if row == done:
            continue
        need = rules.weight(row) * bb.scale
        for nxt, fall in set(rules.successors(row)):
            after = bb.table.get(nxt, at_done if nxt == done else None)
            if after is None:
                raise BlocksRefused(f"state {list(nxt)}, reached from {list(row)}, is not in the table")
            if g + fall < need + after:
                raise BlocksRefused(f"the potential does not drop enough from {list(row)} to {list(nxt)}")


def initial_row(bb: BlocksBound, phases: int, warps: int) -> Row:
    """The row of W warps all waiting at the first phase."""
    first, last, cap = bb.cuts[0]
    if warps >= cap:
        return (LUMPED,) * (last + 1) + (0,) * (phases - last - 1)
    return (warps,) + (0,) * (phases - 1)


def _total(bb: BlocksBound, phases: int, warps: int) -> Fraction:
    """Psi(initial) - g(done): the weights summed along any run of W warps are at most this."""
    init = initial_row(bb, phases, warps)
    if init not in bb.table:
        raise BlocksRefused(f"the initial state {list(init)} is not in the table")
    return Fraction(bb.linear[0] * warps + bb.table[init] - bb.table.get((0,) * phases, 0), bb.scale)


def blocks_upper(kernel: RefKernel, bb: BlocksBound, warps: int) -> int:
    """The cycles bound floor(Psi), or floor((W w_u + D_u) / sigma_u); refuses a table without the initial row."""
    total = _total(bb, len(kernel.instrs), warps)
    if bb.unit is None:
        return math.floor(total)
    need = sum(1 for ins in kernel.instrs if ins.unit == bb.unit)
    return math.floor((warps * need + total) / kernel.sigma_of(bb.unit))


def slope(kernel: RefKernel, bb: BlocksBound) -> Fraction:
    """How much the bound grows per warp, from the cap of the first block on."""
    c0 = Fraction(bb.linear[0], bb.scale)
    if bb.unit is None:
        return c0
    need = sum(1 for ins in kernel.instrs if ins.unit == bb.unit)
    return (need + c0) / kernel.sigma_of(bb.unit)


def formula(kernel: RefKernel, bb: BlocksBound) -> str:
    """The bound as a function of W, for every W >= the cap of the first block."""
    P = len(kernel.instrs)
    cap = bb.cuts[0][2]
    init = initial_row(bb, P, cap)
    d = Fraction(bb.table[init] - bb.table.get((0,) * P, 0), bb.scale)
    c0 = Fraction(bb.linear[0], bb.scale)
    if bb.unit is None:
        return f"makespan <= floor({c0} W + {d})"
    need = sum(1 for ins in kernel.instrs if ins.unit == bb.unit)
    lin = f" + {c0} W" if c0 else ""
    return f"makespan <= floor(({need} W{lin} + {d}) / {kernel.sigma_of(bb.unit)})"
