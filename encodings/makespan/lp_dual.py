"""The ranking LP's dual on HiGHS: the primal solution and one dual value per row.

Kept apart from ``lp.py`` (which the searches share) so that this diagnostic
adds no option there.  A row's dual value is the weight the optimum puts on
that row: for the ranking LP, how often an abstract move is taken by the
fractional "run" that blocks any lower bound (the obstruction).
"""
from __future__ import annotations

import numpy as np

from warpcheck.encodings.highs_quiet import quiet_highs


def solve_lp_duals(n: int, cost: list[float], rows: list[tuple[list[tuple[int, float]], float]],
                   lower: list[float], timeout: float | None = None) -> tuple[list[float], list[float]] | None:
    """Minimise ``cost . x`` with every row ``sum(v * x[j]) >= lo``; (x, row duals), or None if not optimal."""
    import highspy

    h = quiet_highs()
    highspy.Highs.resetGlobalScheduler(True)  # one thread scheduler per process, as in solve_lp
    h.setOptionValue("threads", 1)
    h.setOptionValue("solver", "ipm")
    if timeout is not None:
        h.setOptionValue("time_limit", float(max(timeout, 0.1)))
    h.addVars(n, np.array(lower, dtype=float), np.full(n, np.inf))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), np.array(cost, dtype=float))
    starts: list[int] = []
    idx: list[int] = []
    val: list[float] = []
    for terms, _ in rows:
        starts.append(len(idx))
        idx += [j for j, _ in terms]
        val += [v for _, v in terms]
    h.addRows(len(rows), np.array([r[1] for r in rows], dtype=float), np.full(len(rows), np.inf), len(idx),
              np.array(starts, dtype=np.int32), np.array(idx, dtype=np.int32), np.array(val, dtype=float))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    sol = h.getSolution()
    return list(sol.col_value), list(sol.row_dual)
