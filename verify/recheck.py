"""Re-checking a k-induction PASS with a second solver (cvc5 through pySMT).

The obligations are rebuilt from the model with the pySMT algebra (not
translated from Z3 terms), so the second solver checks the same semantics
through an independent path: the proved lemmas hold initially and are
preserved, and the property follows from them in the step case.
"""
from __future__ import annotations

from typing import Any, Callable

from pysmt import shortcuts as S

from warpcheck.encodings.pysmt_algebra import PysmtAlgebra, fnode
from warpcheck.models.frontend.checked import Checked
from warpcheck.models.ts import TransitionSystem, Var
from warpcheck.verify.result import Result


def _fresh(A: PysmtAlgebra, vs: list[Var], tag: str) -> dict[str, Any]:
    return {v.name: A.var(f"{tag}{v.name}", v.kind) for v in vs}


def _frame_ok(A: PysmtAlgebra, ts: TransitionSystem, s: dict, lemmas: list[str]) -> Any:
    """The proved lemmas on a frame; ranges only where they were proved (``range:NAME``), never assumed."""
    named = ts.lemmas(A, s)
    kinds = {v.name: v for v in ts.state_vars()}
    return S.And([fnode(kinds[n[6:]].domain(A, s[n[6:]])) if n.startswith("range:") else fnode(named[n])
                  for n in lemmas])


def obligations(ts: TransitionSystem, prop: Callable[[Any, dict], Any], lemmas: list[str]) -> dict[str, Any]:
    """The formulas that must be unsatisfiable for the 1-step proof to stand."""
    A = PysmtAlgebra()
    p, s0, i0 = _fresh(A, ts.param_vars(), "p."), _fresh(A, ts.state_vars(), "s0."), _fresh(A, ts.input_vars(), "i0.")
    init = ts.init(A, p)
    pdom = S.And([fnode(v.domain(A, p[v.name])) for v in ts.param_vars() if v.kind == "int"])
    s1 = ts.step(A, s0, i0)
    idom = S.And([fnode(v.domain(A, i0[v.name])) for v in ts.input_vars() if v.kind == "int"]
                 + [fnode(ts.assume(A, s0, i0))])
    before = _frame_ok(A, ts, s0, lemmas)
    return {"initial states satisfy the lemmas and the property":
                S.And(pdom, S.Not(S.And(_frame_ok(A, ts, init, lemmas), fnode(prop(A, init))))),
            "a step preserves the lemmas and the property":
                S.And(before, fnode(prop(A, s0)), idom,
                      S.Not(S.And(_frame_ok(A, ts, s1, lemmas), fnode(prop(A, s1)))))}


def recheck_pass(ts: Checked, result: Result, solver: str = "cvc5") -> str:
    """'confirmed by cvc5' or why not; only 1-inductive proofs are re-checked."""
    if result.depth != 1:
        return f"not re-checked: only 1-inductive proofs are (this one is {result.depth}-inductive)"
    prop = ts.agree
    from pysmt.exceptions import NoSolverAvailableError
    try:
        S.Solver(name=solver, logic="QF_LIA").exit()
    except NoSolverAvailableError:
        return f"not re-checked: {solver} is not installed (pip install {solver})"
    with S.Solver(name=solver, logic="QF_LIA") as s:
        for what, f in obligations(ts, prop, result.lemmas).items():
            s.push()
            s.add_assertion(f)
            sat = s.solve()
            s.pop()
            if sat:
                return f"REFUTED by {solver}: {what} fails"
    return f"confirmed by {solver} (lemmas and property, initial and preserved)"
