"""The backlog certificate checker (``spec/makespan/backlog_check.py``): its refusals, hand-made certificates, and LP duals.

The hand-made certificates are feasible by a line of reasoning (each in its
test's docstring); the LP certificates come from the backlog LP, built here
again from its definition and solved by scipy's HiGHS, whose duals are made
exact by limit_denominator.  Every bound the checker accepts must be at least
the worst case the reference enumeration finds.
"""
from __future__ import annotations

import math
import random
import re
import sys
from fractions import Fraction
from itertools import combinations

import pytest

from warpcheck.spec.makespan.backlog_check import BacklogRefused, checked_backlog
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.reference_enum import reference_worst_case


def states_of(units: str) -> list[str]:
    """Body states, then tail states, each set as its sorted letters."""
    sets = sorted("".join(c) for k in range(len(units) + 1) for c in combinations(sorted(units), k))
    return [f"b:{s}" for s in sets if s] + [f"t:{s}" for s in sets]


def allowed(a: str, b: str) -> bool:
    """Body -> body sharing a unit, body -> tail, tail -> tail."""
    if a.startswith("t:"):
        return b.startswith("t:")
    return b.startswith("t:") or bool(set(a[2:]) & set(b[2:]))


def post(units: str, a: str) -> list[str]:
    """The allowed successors of a, with ``end`` after a tail state."""
    return [b for b in states_of(units) if allowed(a, b)] + (["end"] if a.startswith("t:") else [])


def trivial(units: str, phases: int) -> dict:
    """T <= W P: work [p] = 1 and issue [a, b] = 1; N[a, b] sums to 1 (issue), Y[p, a, b] to 1 - 1 = 0."""
    duals: list[list] = [[["work", p], 1] for p in range(phases)]
    duals += [[["issue", a, b], 1] for a in states_of(units) for b in post(units, a)]
    return {"method": "backlog", "duals": duals}


def test_the_trivial_certificate_proves_w_times_p():
    k = reference_kernel("LCLL", {"L": "2", "C": "1"})
    assert checked_backlog(k, 3, trivial("CL", 4)) == 12
    assert reference_worst_case(k, 3).makespan <= 12


def test_a_fractional_certificate_by_hand():
    """Kernel L, sigma 2: states b:L, t:, t:L.

    cap [a, b, L] = -1/2 where L is in a's set (eq rows): N[a, b] gets -2 * -1/2 = 1; issue [t:, b] = 1 for the
    empty tail; work [0] = tail [0] = 1/2.  Y[0, a, b] sums to -1/2 + 1/2 (a = b:L), -1/2 + 1/2 + 1/2 (a = t:L),
    -1 + 1/2 + 1/2 (a = t:).  Bound W/2 + 2C/2 = W/2 + 2.
    """
    duals: list[list] = [[["cap", a, b, "L"], "-1/2"] for a in ("b:L", "t:L") for b in post("L", a)]
    duals += [[["issue", "t:", b], 1] for b in post("L", "t:")]
    duals += [[["work", 0], "1/2"], [["tail", 0], "1/2"]]
    k = reference_kernel("L", {"L": "2"})
    for w in (1, 4, 5):
        assert checked_backlog(k, w, {"method": "backlog", "duals": duals}) == math.floor(Fraction(w, 2) + 2)
        assert reference_worst_case(k, w).makespan <= w // 2 + 2
    # without the tail dual, Y[0, t:, b:?] ... t: has no body successor: Y[0, t:, t:] is the first to fail
    short = [d for d in duals if d[0] != ["tail", 0]]
    with pytest.raises(BacklogRefused, match=r"^column Y\[0, t:, t:\]: .* = -1/2 < 0$"):
        checked_backlog(k, 5, {"method": "backlog", "duals": short})


def test_each_kind_of_column_is_refused_first_in_order():
    k = reference_kernel("LCLL", {"L": "2", "C": "1"})
    cert = trivial("CL", 4)
    with pytest.raises(BacklogRefused, match=r"^column N\[start, b:C\]: .* = -1 < 0$"):
        checked_backlog(k, 3, {"method": "backlog", "duals": cert["duals"] + [[["flow", "b:C"], -1]]})
    no_issue = [d for d in cert["duals"] if d[0] != ["issue", "b:CL", "t:"]]
    with pytest.raises(BacklogRefused, match=r"^column N\[b:CL, t:\]: .* = 0 < 1$"):
        checked_backlog(k, 3, {"method": "backlog", "duals": no_issue})
    no_work = [d for d in cert["duals"] if d[0] != ["work", 2]]
    with pytest.raises(BacklogRefused, match=r"^column Y\[2, b:C, b:C\]: .* = -1 < 0$"):
        checked_backlog(k, 3, {"method": "backlog", "duals": no_work})
    persist = cert["duals"] + [[["persist", "L", "b:CL", "t:C"], "1/3"]]
    with pytest.raises(BacklogRefused, match=r"^column Z\[L, b:CL, t:C\]: .* = -1/3 < 0$"):
        checked_backlog(k, 3, {"method": "backlog", "duals": persist})
    # its zsum row pays for Z, and takes 1/3 from Y[p, t:C, b] at the L phases 0, 2, 3 ...
    paid = persist + [[["zsum", "L", "t:C"], "1/3"]]
    with pytest.raises(BacklogRefused, match=r"^column Y\[0, t:C, t:\]: .* = -1/3 < 0$"):
        checked_backlog(k, 3, {"method": "backlog", "duals": paid})
    # ... which their tail rows give back, at 3 * 1/3 * 2C = 6 more cycles
    paid += [[["tail", p], "1/3"] for p in (0, 2, 3)]
    assert checked_backlog(k, 3, {"method": "backlog", "duals": paid}) == 12 + 6


def test_a_pass_dual_moves_along_the_phases():
    """pass [b:C, 1] (u(1) = L is outside {C}) adds to Y[0, a, b:C] and takes from Y[1, b:C, b]."""
    k = reference_kernel("CL", {"L": "1", "C": "1"})
    cert = trivial("CL", 2)
    with pytest.raises(BacklogRefused, match=r"^column Y\[1, b:C, b:C\]: .* = -1 < 0$"):
        checked_backlog(k, 2, {"method": "backlog", "duals": cert["duals"] + [[["pass", "b:C", 1], 1]]})
    with pytest.raises(BacklogRefused, match="names no pass row"):
        checked_backlog(k, 2, {"method": "backlog", "duals": cert["duals"] + [[["pass", "b:L", 1], 1]]})


@pytest.mark.parametrize("bad, message", [
    ([[["flow", "b:X"], 1]], r"names no flow row"),
    ([[["flux", "b:L"], 1]], r"unknown row kind"),
    ([[["work"], 1]], r"malformed: a work row takes 1 arguments"),
    ([[["work", 1], 1]], r"names no work row"),  # one phase only
    ([[["work", True], 1]], r"not a list of a row kind"),
    ([[["cap", "t:", "b:L", "L"], 1]], r"names no cap row"),  # tail -> body is never allowed
    ([[["persist", "L", "t:L", "end"], 1]], r"names no persist row"),
    ([[["issue", "b:L", "t:"], -1]], r"the le row \[\"issue\", \"b:L\", \"t:\"\] has the negative dual -1"),
    ([[["cap", "t:", "t:", "L"], "-1/2"]], r"le row .* negative dual -1/2"),
    ([[["work", 0], 1], [["work", 0], 2]], r"listed twice"),
    ([[["work", 0], 1.5]], r"value 1.5 .* not an integer"),
    ([[["work", 0], "1/0"]], r"not an integer"),
    ([[["work", 0], "1.5"]], r"not an integer"),
    ([[["work", 0], " 1"]], r"not an integer"),
    ([[["work", 0], True]], r"not an integer"),
    ([["work", 0]], r"entry 0 has the key \"work\", not a list"),
    ([[["work", 0]]], r"entry 0 .* not a \[KEY, VALUE\] pair"),
    ([[[], 1]], r"not a list of a row kind"),
])
def test_malformed_duals_are_refused(bad, message):
    k = reference_kernel("L", {"L": "1"})
    with pytest.raises(BacklogRefused, match=message):
        checked_backlog(k, 2, {"method": "backlog", "duals": bad})


def test_an_eq_row_may_be_negative_and_values_may_be_strings():
    k = reference_kernel("L", {"L": "1"})
    cert = trivial("L", 1)
    # flow rows cancel on every N[a, b]... but N[start, b] needs start + flow b >= 0
    extra = [[["start"], "2"], [["flow", "b:L"], "-2/1"]]
    assert checked_backlog(k, 2, {"method": "backlog", "duals": cert["duals"] + extra}) == 2 + 2


def test_kernels_with_latencies_and_bad_bounds_are_refused():
    with pytest.raises(BacklogRefused, match="one-cycle kernels; L4 takes 4 cycles"):
        checked_backlog(reference_kernel("CL4", {"L": "1", "C": "1"}), 2, {"method": "backlog", "duals": []})
    k = reference_kernel("L", {"L": "1"})
    with pytest.raises(BacklogRefused, match="not \"backlog\""):
        checked_backlog(k, 2, {"method": "alternation", "duals": []})
    with pytest.raises(BacklogRefused, match="no list \"duals\""):
        checked_backlog(k, 2, {"method": "backlog"})
    with pytest.raises(BacklogRefused, match=r"^column N\[b:L, b:L\]: .* = 0 < 1$"):
        checked_backlog(k, 2, {"method": "backlog", "duals": []})


def test_a_long_kernel_of_four_units_is_checked_quickly():
    """Quickly, counted in work rather than seconds (the same on a busy machine): the Python calls the check
    makes, about 67,000 for 500 instructions (44,000 for 100), far from any walk over the kernel's states."""
    text = ("LCMALLCMMAL" * 46)[:500]
    k = reference_kernel(text, {"L": "2", "C": "1", "M": "3", "A": "1"})
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event == "call"
    sys.setprofile(count)
    try:
        bound = checked_backlog(k, 7, trivial("ACLM", 500))
    finally:
        sys.setprofile(None)
    assert bound == 3500
    assert calls < 200_000, calls


# ---- certificates from the LP itself ---------------------------------------------------------------------------

def lp_rows(text: str, sigma: dict[str, int], warps: int) -> tuple[list, dict[tuple, int]]:
    """The backlog LP, built here from its definition: rows (key, kind, rhs, {column: coefficient}), columns."""
    units = "".join(sorted(set(text)))
    phases, states = len(text), states_of(units)
    cols: dict[tuple, int] = {}

    def col(*name):
        return cols.setdefault(name, len(cols))

    for b in states:
        col("N", "start", b)
    for a in states:
        for b in post(units, a):
            col("N", a, b)
            for p in range(phases):
                col("Y", p, a, b)
            for u in (a[2:] if b != "end" else ""):
                col("Z", u, a, b)
    rows: list[tuple[list, str, float, dict[int, int]]] = []  # key, kind, rhs, {column: coefficient}

    def row(key, kind, rhs, coef):
        rows.append((key, kind, rhs, coef))

    row(["start"], "eq", 1, {col("N", "start", b): 1 for b in states})
    row(["end"], "eq", 1, {col("N", a, "end"): 1 for a in states if a.startswith("t:")})
    for s in states:
        coef = {col("N", "start", s): 1}
        for a in states:
            if allowed(a, s):
                coef[col("N", a, s)] = coef.get(col("N", a, s), 0) + 1
        for b in post(units, s):
            coef[col("N", s, b)] = coef.get(col("N", s, b), 0) - 1
        row(["flow", s], "eq", 0, coef)
    for a in states:
        for b in post(units, a):
            for u in units:
                coef = {col("Y", p, a, b): 1 for p in range(phases) if text[p] == u}
                coef[col("N", a, b)] = -sigma[u]
                row(["cap", a, b, u], "eq" if u in a[2:] else "le", 0, coef)
            coef = {col("Y", p, a, b): -1 for p in range(phases)}
            coef[col("N", a, b)] = 1
            row(["issue", a, b], "le", 0, coef)
            for u in (a[2:] if b != "end" else ""):
                row(["persist", u, a, b], "le", 0, {col("N", a, b): 1, col("Z", u, a, b): -1})
    for s in states:
        for p in range(1, phases):
            if text[p] not in s[2:]:
                coef = {col("Y", p - 1, a, s): 1 for a in states if allowed(a, s)}
                coef.update({col("Y", p, s, b): -1 for b in post(units, s)})
                row(["pass", s, p], "le", 0, coef)
        for u in units:
            coef = {col("Z", u, a, s): 1 for a in states if allowed(a, s) and u in a[2:]}
            if coef:
                coef.update({col("Y", p, s, b): -1 for b in post(units, s) for p in range(phases) if text[p] == u})
                row(["zsum", u, s], "le", 0, coef)
    for p in range(phases):
        row(["work", p], "eq", warps, {col("Y", p, a, b): 1 for a in states for b in post(units, a)})
        row(["tail", p], "le", 2 * sum(sigma.values()),
            {col("Y", p, a, b): 1 for a in states if a.startswith("t:") for b in post(units, a)})
    return rows, cols


def lp_certificate(text: str, sigma: dict[str, int], warps: int) -> tuple[dict, float]:
    """Solve the backlog LP with HiGHS (highspy, which the kit installs); its duals as exact strings, and its value.

    The rows are this file's own; the solver only proposes the duals, which the checker then checks in rationals."""
    import highspy
    import numpy as np

    rows, cols = lp_rows(text, sigma, warps)
    n = len(cols)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    cost = np.zeros(n)
    for name, j in cols.items():
        if name[0] == "N" and name[1] != "start":
            cost[j] = -1  # maximise the cycles: minimise their negation
    h.addVars(n, np.zeros(n), np.full(n, np.inf))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
    starts: list[int] = []
    idx: list[int] = []
    val: list[float] = []
    for _, _, _, coef in rows:
        starts.append(len(idx))
        idx += list(coef)
        val += [float(v) for v in coef.values()]
    lower = np.array([r[2] if r[1] == "eq" else -np.inf for r in rows], dtype=float)
    upper = np.array([r[2] for r in rows], dtype=float)
    assert h.addRows(len(rows), lower, upper, len(idx), np.array(starts, dtype=np.int32),
                     np.array(idx, dtype=np.int32), np.array(val, dtype=float)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.modelStatusToString(h.getModelStatus())
    duals = []
    for r, m in zip(rows, h.getSolution().row_dual):  # HiGHS's dual: the optimum's change per unit of the row's bound
        y = Fraction(-float(m)).limit_denominator(10**6)
        if r[1] == "le" and y < 0:
            y = Fraction(0)
        if y:
            duals.append([r[0], str(y)])
    return {"method": "backlog", "duals": duals}, -h.getInfo().objective_function_value


@pytest.mark.parametrize("text, sigma, warps", [
    ("L", {"L": 1}, 3), ("LL", {"L": 2}, 5), ("LCL", {"L": 1, "C": 1}, 4), ("LCLL", {"L": 2, "C": 1}, 5),
    ("CLLC", {"L": 1, "C": 2}, 4), ("LMC", {"L": 1, "C": 1, "M": 1}, 3),
])
def test_lp_duals_are_accepted_and_bound_the_worst_case(text, sigma, warps):
    cert, value = lp_certificate(text, sigma, warps)
    k = reference_kernel(text, {u: str(s) for u, s in sigma.items()})
    bound = checked_backlog(k, warps, cert)
    assert bound == math.floor(value + 1e-6)
    assert bound >= reference_worst_case(k, warps).makespan


def objective(name: tuple) -> int:
    """1 for N[a, b], 0 for N[start, b], Y and Z."""
    return 1 if name[0] == "N" and name[1] != "start" else 0


def test_the_checker_agrees_with_the_whole_matrix():
    """Random changes to the trivial certificate: refused exactly when some column of A^T y - c is negative,
    and the column named is one of those, with its value."""
    rng = random.Random(3)
    for _ in range(80):
        text = "".join(rng.choice("LCM"[:rng.randint(1, 3)]) for _ in range(rng.randint(1, 5)))
        sigma = {u: rng.choice([1, 2, 3]) for u in set(text)}
        rows, cols = lp_rows(text, sigma, 3)
        duals = {tuple(d[0]): Fraction(d[1]) for d in trivial("".join(sorted(sigma)), len(text))["duals"]}
        for _ in range(rng.randint(1, 4)):
            key, kind, _, _ = rng.choice(rows)
            change = Fraction(rng.randint(-3, 3), rng.choice([1, 2, 3]))
            duals[tuple(key)] = duals.get(tuple(key), 0) + (abs(change) if kind == "le" else change)
        sums = dict.fromkeys(cols.values(), Fraction(0))
        for key, _, _, coef in rows:
            for j, a in coef.items():
                sums[j] += a * duals.get(tuple(key), 0)
        short = {name: sums[j] - objective(name) for name, j in cols.items() if sums[j] < objective(name)}
        cert = {"method": "backlog", "duals": [[list(k), str(v)] for k, v in duals.items()]}
        kernel = reference_kernel(text, {u: str(s) for u, s in sigma.items()})
        if not short:
            checked_backlog(kernel, 3, cert)
            continue
        with pytest.raises(BacklogRefused) as refused:
            checked_backlog(kernel, 3, cert)
        m = re.fullmatch(r"column (\w)\[(.*)\]: .* = (\S+) < (\d)", str(refused.value))
        assert m, refused.value
        name = (m[1], *(int(x) if x.isdigit() else x for x in m[2].split(", ")))
        assert short[name] == Fraction(m[3]) - int(m[4])
