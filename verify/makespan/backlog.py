"""The backlog LP: an upper bound on the worst-case makespan that follows each unit's backlog, for any kernel length.

One-cycle kernels (every phase one cycle after the sigma transform).  Every
cycle of a run has a *state*: the set of units that hold more warps than they
can issue (backlogged), and whether more than 2C warps are unfinished (body)
or not (tail; C = the sum of the sigmas).  Summed over a run, the cycles
between two states and the issues of each phase in them satisfy linear rows
(``docs/makespan-interval.md`` gives each row and why it holds); the largest
number of cycles those rows allow is an upper bound.  HiGHS solves the LP;
its duals, rounded to multiples of 1/DENOM and repaired to be exactly
feasible (``_repair``), are the certificate: any dual-feasible point bounds
the LP's maximum, and ``spec/makespan/backlog_check.py`` checks it again from the
rules without a solver.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from warpcheck.encodings.makespan.lp import solve_ranged
from warpcheck.models.makespan.kernel import MkKernel

DENOM = 2 ** 20  # duals are rounded to multiples of 1 / DENOM before the exact repair
MAX_COLUMNS = 200_000  # larger LPs are not built (HiGHS needs minutes); the other bounds still answer

State = str  # "b:" or "t:" + the sorted letters of the backlogged units


@dataclass(frozen=True)
class BacklogBound:
    """The proved bound and its certificate: one exact dual value per row (key, "n/d"), zero rows left out."""

    upper: int
    duals: tuple[tuple[tuple[object, ...], str], ...]

    def certificate(self) -> dict[str, object]:
        """The ``bound`` object of an interval certificate."""
        return {"method": "backlog", "duals": [[list(k), v] for k, v in self.duals]}


def _states(units: list[str]) -> list[State]:
    sets = ["".join(c) for r in range(len(units) + 1) for c in itertools.combinations(units, r)]
    return ["b:" + s for s in sets if s] + ["t:" + s for s in sets]


def _allowed(a: State, b: State) -> bool:
    if a[0] == "t":
        return b[0] == "t"
    return b[0] == "t" or bool(set(a[2:]) & set(b[2:]))


class _Lp:
    """The rows and columns of the LP for one instance, as sparse integer triples."""

    def __init__(self, unit_of: list[str], caps: dict[str, int], warps: int) -> None:
        self.unit_of, self.caps, self.warps = unit_of, caps, warps
        units = sorted(caps)
        self.states = _states(units)
        self.post = {a: [b for b in self.states if _allowed(a, b)] + (["end"] if a[0] == "t" else [])
                     for a in self.states}
        self.pred = {b: [a for a in self.states if _allowed(a, b)] for b in self.states}
        self.rows: dict[tuple[object, ...], int] = {}
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.cols: list[tuple[object, ...]] = []
        self.cost: list[int] = []
        self.entries: tuple[list[int], list[int], list[int]] = ([], [], [])

    def size(self) -> int:
        """Columns the LP will have (known before building it)."""
        y_and_n = sum(len(p) for p in self.post.values()) * (len(self.unit_of) + 1)
        z = sum((len(a) - 2) * (len(self.post[a]) - (a[0] == "t")) for a in self.states)  # no Z into "end"
        return y_and_n + z + len(self.states)

    def row(self, key: tuple[object, ...], lo: float, hi: float) -> int:
        if key not in self.rows:
            self.rows[key] = len(self.lo)
            self.lo.append(lo)
            self.hi.append(hi)
        return self.rows[key]

    def col(self, key: tuple[object, ...], cost: int, terms: list[tuple[int, int]]) -> None:
        j = len(self.cols)
        self.cols.append(key)
        self.cost.append(cost)
        merged: dict[int, int] = {}
        for i, v in terms:  # N[a, a] meets its flow row twice (-1 and +1): one entry per row
            merged[i] = merged.get(i, 0) + v
        for i, v in merged.items():
            if v == 0:
                continue
            self.entries[0].append(i)
            self.entries[1].append(j)
            self.entries[2].append(v)


def _declare_rows(lp: _Lp) -> None:
    inf, c_all, n = float("inf"), sum(lp.caps.values()), len(lp.unit_of)
    lp.row(("start",), 1, 1)
    lp.row(("end",), 1, 1)
    for s in lp.states:
        lp.row(("flow", s), 0, 0)
        for p in range(1, n):
            if lp.unit_of[p] not in s[2:]:
                lp.row(("pass", s, p), -inf, 0)
        for u in lp.caps:
            if any(u in a[2:] for a in lp.pred[s]):
                lp.row(("zsum", u, s), -inf, 0)
    for a in lp.states:
        for b in lp.post[a]:
            lp.row(("issue", a, b), -inf, 0)
            for u in lp.caps:
                lp.row(("cap", a, b, u), 0 if u in a[2:] else -inf, 0)
                if u in a[2:] and b != "end":
                    lp.row(("persist", u, a, b), -inf, 0)
    for p in range(n):
        lp.row(("work", p), lp.warps, lp.warps)
        lp.row(("tail", p), -inf, 2 * c_all)


def _declare_columns(lp: _Lp) -> None:
    r, n = lp.rows, len(lp.unit_of)
    for b in lp.states:
        lp.col(("N", "start", b), 0, [(r[("start",)], 1), (r[("flow", b)], 1)])
    for a in lp.states:
        for b in lp.post[a]:
            terms = [(r[("issue", a, b)], 1)] + [(r[("cap", a, b, u)], -lp.caps[u]) for u in lp.caps]
            terms += [(r[("flow", a)], -1)] + ([(r[("flow", b)], 1)] if b != "end" else [(r[("end",)], 1)])
            terms += [(r[("persist", u, a, b)], 1) for u in a[2:] if b != "end"]
            lp.col(("N", a, b), 1, terms)
            for u in a[2:]:
                if b != "end":
                    lp.col(("Z", u, a, b), 0, [(r[("persist", u, a, b)], -1), (r[("zsum", u, b)], 1)])
            for p in range(n):
                lp.col(("Y", p, a, b), 0, _y_terms(lp, p, a, b))


def _y_terms(lp: _Lp, p: int, a: State, b: State) -> list[tuple[int, int]]:
    r, u = lp.rows, lp.unit_of[p]
    terms = [(r[("cap", a, b, u)], 1), (r[("issue", a, b)], -1), (r[("work", p)], 1)]
    if a[0] == "t":
        terms.append((r[("tail", p)], 1))
    if ("pass", a, p) in r:
        terms.append((r[("pass", a, p)], -1))
    if b != "end" and ("pass", b, p + 1) in r:
        terms.append((r[("pass", b, p + 1)], 1))
    if ("zsum", u, a) in r:
        terms.append((r[("zsum", u, a)], -1))
    return terms


def _shape(kernel: MkKernel, warps: int) -> _Lp | None:
    """The LP's states and moves, no rows or columns yet; None on kernels with latencies."""
    if not kernel.single_cycle:
        return None
    return _Lp([i.unit for i in kernel.instrs], {u: kernel.sigma_of(u) for u in kernel.units}, warps)


def columns(kernel: MkKernel, warps: int) -> int | None:
    """The columns the LP would have (None on kernels with latencies): above MAX_COLUMNS it is not built."""
    lp = _shape(kernel, warps)
    return None if lp is None else lp.size()


def build(kernel: MkKernel, warps: int) -> _Lp | None:
    """The LP of ``warps`` warps on a one-cycle kernel; None for latencies or above MAX_COLUMNS columns."""
    lp = _shape(kernel, warps)
    if lp is None or lp.size() > MAX_COLUMNS:
        return None
    _declare_rows(lp)
    _declare_columns(lp)
    return lp


def _repair(lp: _Lp, duals: list[float]) -> np.ndarray:
    """Duals as integers over DENOM, made exactly feasible: sum_i A_ij y_i >= cost_j * DENOM for every column.

    Rounding leaves small violations.  An N column is fixed on its ``issue``
    row (which lowers its Y columns), a Z column on its ``zsum`` row (which
    lowers Y columns of the next state), and a Y column last on its phase's
    ``work`` row, which no other column meets; so one pass suffices.
    """
    rows_i, cols_j, coef = (np.array(x, dtype=np.int64) for x in lp.entries)
    y = np.rint(np.array(duals) * DENOM).astype(np.int64)
    le = np.array([lo == float("-inf") for lo in lp.lo])
    y[le & (y < 0)] = 0
    cost = np.array(lp.cost, dtype=np.int64) * DENOM
    for kind in ("N", "Z", "Y"):
        short = cost - _column_sums(rows_i, cols_j, coef, y, len(lp.cols))
        raise_by: dict[int, int] = {}
        for j, key in enumerate(lp.cols):
            if key[0] == kind and short[j] > 0:
                i = lp.rows[_fix_row(key)]
                raise_by[i] = max(raise_by.get(i, 0), int(short[j]))
        for i, v in raise_by.items():
            y[i] += v
    return y


def _fix_row(key: tuple[object, ...]) -> tuple[object, ...]:
    """The row that lifts a short column without touching the columns fixed before it (N, then Z, then Y)."""
    if key[0] == "N":
        return ("start",) if key[1] == "start" else ("issue", key[1], key[2])
    if key[0] == "Z":
        return ("zsum", key[1], key[3])
    return ("work", key[1])


def _column_sums(rows_i: np.ndarray, cols_j: np.ndarray, coef: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, cols_j, coef * y[rows_i])
    return out


def backlog_bound(kernel: MkKernel, warps: int, timeout: float | None = None) -> BacklogBound | None:
    """The backlog LP's bound with its exact certificate; None when the kernel has latencies, the LP is too large,
    or HiGHS gives no optimum within ``timeout``."""
    lp = build(kernel, warps)
    if lp is None:
        return None
    solved = solve_ranged(len(lp.cols), [-float(c) for c in lp.cost], lp.entries, lp.lo, lp.hi, timeout)
    if solved is None:
        return None
    y = _repair(lp, [-d for d in solved])
    keys = list(lp.rows)
    total = sum(int(lp.hi[i]) * int(y[i]) for i in range(len(keys)) if y[i] != 0)  # every row's rhs is its upper side
    duals = tuple((keys[i], str(Fraction(int(y[i]), DENOM))) for i in range(len(keys)) if y[i] != 0)
    return BacklogBound(total // DENOM, duals)


__all__ = ["BacklogBound", "MAX_COLUMNS", "backlog_bound", "build", "columns"]
