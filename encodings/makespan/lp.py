"""A linear program on HiGHS: minimise ``cost . x`` subject to ``lo <= A x`` rows, for the ranking search.

Kept apart from the Fig. 3 ILP: here every variable is continuous and free
unless bounded, and the answer is a plain list of floats (made exact by the
caller, which checks it in rational arithmetic).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from warpcheck.encodings.highs_quiet import quiet_highs, run_interruptible


Rows = list[tuple[list[tuple[int, float]], float]]


def _highs(timeout: float | None) -> Any:
    """A quiet HiGHS on one thread, stopping at ``timeout`` seconds."""
    import highspy

    h = quiet_highs()
    highspy.Highs.resetGlobalScheduler(True)  # see MakespanIlp.solve: one thread scheduler per process
    h.setOptionValue("threads", 1)
    if timeout is not None:
        h.setOptionValue("time_limit", float(max(timeout, 0.1)))
    return h


def solve_lp(n: int, cost: list[float], rows: Rows, lower: list[float] | None = None,
             timeout: float | None = None) -> list[float] | None:
    """Minimise ``cost . x`` with every row ``sum(v * x[j]) >= lo``; None if infeasible, unbounded or out of time."""
    solved = solve_lp_duals(n, cost, rows, lower, timeout)
    return None if solved is None else solved[0]


def solve_lp_duals(n: int, cost: list[float], rows: Rows, lower: list[float] | None = None,
                   timeout: float | None = None) -> tuple[list[float], list[float]] | None:
    """As ``solve_lp``, with one dual value per row: the weight the optimum puts on it (zero on slack rows)."""
    import highspy

    h = _highs(timeout)
    h.setOptionValue("solver", "ipm")  # with crossover (a vertex, which rounds well): 14x faster than simplex here
    lo = np.full(n, -np.inf) if lower is None else np.array(lower, dtype=float)
    h.addVars(n, lo, np.full(n, np.inf))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), np.array(cost, dtype=float))
    starts: list[int] = []
    idx: list[int] = []
    val: list[float] = []
    for terms, _ in rows:
        starts.append(len(idx))
        idx += [j for j, _ in terms]
        val += [v for _, v in terms]
    status = h.addRows(len(rows), np.array([r[1] for r in rows], dtype=float), np.full(len(rows), np.inf), len(idx),
              np.array(starts, dtype=np.int32), np.array(idx, dtype=np.int32), np.array(val, dtype=float))
    if status != highspy.HighsStatus.kOk:
        raise ValueError(f"HiGHS refused the rows: {status}")  # e.g. an index twice in one row: a caller bug
    run_interruptible(h)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    sol = h.getSolution()
    return list(sol.col_value), list(sol.row_dual)


def solve_ranged(n: int, cost: list[float], entries: tuple[list[int], list[int], list[int]], lo: list[float],
                 hi: list[float], timeout: float | None = None) -> list[float] | None:
    """Minimise ``cost . x`` over x >= 0 with ``lo_i <= (A x)_i <= hi_i``; the row duals, or None without an optimum.

    ``entries`` holds A as (row, column, value) triples.  HiGHS's dual of row i
    is the optimum's change per unit of its active side (zero when slack).
    """
    import highspy

    h = _highs(timeout)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, len(lo)
    lp.col_cost_ = np.array(cost, dtype=float)
    lp.col_lower_, lp.col_upper_ = np.zeros(n), np.full(n, np.inf)
    lp.row_lower_, lp.row_upper_ = np.array(lo, dtype=float), np.array(hi, dtype=float)
    rows, cols, vals = (np.asarray(x) for x in entries)
    order = np.lexsort((rows, cols))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(cols[order], np.arange(n + 1)).astype(np.int32)
    lp.a_matrix_.index_ = rows[order].astype(np.int32)
    lp.a_matrix_.value_ = vals[order].astype(float)
    h.passModel(lp)
    run_interruptible(h)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return list(h.getSolution().row_dual)
