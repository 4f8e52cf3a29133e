"""The paper's time-indexed binary ILP (its Fig. 3, short constraints), solved with HiGHS.

Kept as the reference that the SMT search replaces.  Variables: X[w, i, t] = 1
iff warp w performs instruction i at cycle t (the paper's LS and CC, one
family since the unit of i is fixed), and E[u, t] = 1 iff unit u is full at
cycle t (the paper's E_t and G_t, one per unit type).  The horizon T is the
least closed upper bound (``models/makespan/closed.py``), not the paper's pessimistic bound:
Eq. 5-7 can be below the worst case with a unit of sigma 2 or more, and an
ILP whose horizon cuts the worst run off answers too little (``LL``,
sigma_L = 2, W = 4: 4 against 5).  Only single-cycle instructions with
integer sigmas (after the transformation) are supported, as in the paper.
"""
from __future__ import annotations

from typing import Any

import time
from dataclasses import dataclass

import numpy as np

from warpcheck.encodings.highs_quiet import quiet_highs, run_interruptible
from warpcheck.models.errors import ConfigError
from warpcheck.models.makespan.closed import time_horizon
from warpcheck.models.makespan.kernel import MkKernel


@dataclass
class IlpResult:
    """The ILP's answer: the best makespan found, the proved bound, and the issue cycles per warp."""

    makespan: int | None
    bound: float | None
    optimal: bool
    issue: list[list[int]] | None
    seconds: float


class _Rows:
    """Sparse rows ``lo <= sum(val * x[idx]) <= hi`` collected before one call to HiGHS."""

    def __init__(self) -> None:
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.starts: list[int] = []
        self.idx: list[int] = []
        self.val: list[float] = []

    def add(self, terms: list[tuple[int, float]], lo: float, hi: float) -> None:
        self.starts.append(len(self.idx))
        self.idx += [j for j, _ in terms]
        self.val += [v for _, v in terms]
        self.lo.append(lo)
        self.hi.append(hi)


class MakespanIlp:
    """The Fig. 3 ILP of one instance; ``x(w, i, t)`` and ``e(u, t)`` are column numbers."""

    def __init__(self, kernel: MkKernel, warps: int, horizon: int | None = None) -> None:
        if not kernel.single_cycle:
            raise ConfigError(f"kernel {kernel.text()!r} has multi-cycle instructions; "
                              "the paper's ILP supports single-cycle instructions only (use the method smt)")
        self.kernel, self.W = kernel, warps
        self.I, self.T = len(kernel.instrs), horizon or time_horizon(kernel, warps)
        self.units = kernel.units
        self.n_x = self.W * self.I * self.T
        self.n = self.n_x + len(self.units) * self.T
        self.rows = _Rows()
        self._build()

    def x(self, w: int, i: int, t: int) -> int:
        return (w * self.I + i) * self.T + (t - 1)

    def e(self, u: int, t: int) -> int:
        return self.n_x + u * self.T + (t - 1)

    def _y(self, w: int, i: int, sign: float = 1.0) -> list[tuple[int, float]]:
        """The terms of Y_{w,i} = sum_t t * X[w,i,t] (times ``sign``)."""
        return [(self.x(w, i, t), sign * t) for t in range(1, self.T + 1)]

    def _build(self) -> None:
        self._capacity()
        self._once()
        self._precedence()
        self._work_conserving()

    def _on(self, u: str) -> list[int]:
        return [i for i, ins in enumerate(self.kernel.instrs) if ins.unit == u]

    def _capacity(self) -> None:
        for u in self.units:
            for t in range(1, self.T + 1):
                used = [(self.x(w, i, t), 1.0) for w in range(self.W) for i in self._on(u)]
                self.rows.add(used, -np.inf, self.kernel.sigma_of(u))
                for w in range(self.W):  # one instruction per warp per unit type and cycle
                    self.rows.add([(self.x(w, i, t), 1.0) for i in self._on(u)], -np.inf, 1)

    def _once(self) -> None:
        for w in range(self.W):
            for i in range(self.I):
                self.rows.add([(self.x(w, i, t), 1.0) for t in range(1, self.T + 1)], 1, 1)

    def _precedence(self) -> None:
        for w in range(self.W):
            for i in range(self.I - 1):  # 1 + Y_{w,i} <= Y_{w,i+1}
                self.rows.add(self._y(w, i) + self._y(w, i + 1, -1.0), -np.inf, -1)
        last = self.I - 1
        for w in range(self.W - 1):  # the last warp to complete is warp W
            self.rows.add(self._y(w, last) + self._y(self.W - 1, last, -1.0), -np.inf, 0)

    def _work_conserving(self) -> None:
        for k, u in enumerate(self.units):
            sigma = self.kernel.sigma_of(u)
            for t in range(1, self.T + 1):
                used = [(self.x(w, i, t), 1.0) for w in range(self.W) for i in self._on(u)]
                self.rows.add([(self.e(k, t), 1.0)] + [(j, -v) for j, v in used], 1 - sigma, np.inf)  # (40)
                self.rows.add([(self.e(k, t), float(sigma))] + [(j, -v) for j, v in used], -np.inf, 0)  # (41)
                for w in range(self.W):
                    for i in self._on(u):
                        self._short(k, w, i, t)

    def _short(self, k: int, w: int, i: int, t: int) -> None:
        """(34)/(37): TL_{w,i,t} or E_t, with TL = [Y_{w,i-1} >= t] + [Y_{w,i} <= t]."""
        terms = [(self.e(k, t), 1.0)] + [(self.x(w, i, s), 1.0) for s in range(1, t + 1)]
        if i > 0:
            terms += [(self.x(w, i - 1, s), 1.0) for s in range(t, self.T + 1)]
        self.rows.add(terms, 1, np.inf)

    def solve(self, timeout: float | None = None, threads: int = 1) -> IlpResult:
        """Solve with HiGHS (maximise Y_{W,I}); ``optimal`` only when HiGHS proves it."""
        import highspy

        start = time.monotonic()
        h = quiet_highs()
        # HiGHS keeps one thread scheduler per process: a solve asking for another thread count than an
        # earlier solve (the IPET's) fails with no solution (seen with highspy 1.16), so restart it first.
        highspy.Highs.resetGlobalScheduler(True)
        h.setOptionValue("threads", threads)
        if timeout is not None:
            h.setOptionValue("time_limit", float(timeout))
        h.addVars(self.n, np.zeros(self.n), np.ones(self.n))
        h.changeColsIntegrality(self.n, np.arange(self.n, dtype=np.int32),
                                np.full(self.n, highspy.HighsVarType.kInteger))
        cost = np.zeros(self.n)
        for j, v in self._y(self.W - 1, self.I - 1):
            cost[j] = v
        h.changeColsCost(self.n, np.arange(self.n, dtype=np.int32), cost)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        r = self.rows
        h.addRows(len(r.lo), np.array(r.lo), np.array(r.hi), len(r.idx), np.array(r.starts, dtype=np.int32),
                  np.array(r.idx, dtype=np.int32), np.array(r.val))
        run_interruptible(h)
        return self._result(h, time.monotonic() - start)

    def _result(self, h: Any, seconds: float) -> IlpResult:
        import highspy

        status = h.getModelStatus()
        info = h.getInfo()
        optimal = status == highspy.HighsModelStatus.kOptimal
        bound = getattr(info, "mip_dual_bound", None)
        if info.primal_solution_status != 2:  # no feasible solution
            return IlpResult(None, bound, False, None, seconds)
        col = np.round(np.array(h.getSolution().col_value)).astype(int)
        issue = [[next(t for t in range(1, self.T + 1) if col[self.x(w, i, t)]) for i in range(self.I)]
                 for w in range(self.W)]
        return IlpResult(max(row[-1] for row in issue), bound, optimal, issue, seconds)
