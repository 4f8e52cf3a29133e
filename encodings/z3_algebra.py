"""The Z3 algebra: the same step functions build Z3 terms.  The only module that imports z3
together with ``encodings/unroll.py`` and the engines' solver glue."""
from __future__ import annotations

from typing import Any

import z3

from warpcheck.encodings.algebra import Algebra, SymbolicValue
from warpcheck.encodings.solver_signals import WATCHED


_CTRL_C = {"checking": False}


def check(solver: Any, *assumptions: Any) -> z3.CheckSatResult:
    """``solver.check``, except that a Ctrl-C never becomes an "unknown" answer.

    Z3 catches SIGINT during a check and answers unknown ("interrupted from
    keyboard", or "canceled" in some solvers, like a timeout): read as a solver
    that gave up, an interrupted run would end with a verdict.  So either Python
    keeps the signal (after ``solver_signals.leave_ctrl_c_to_python``), or a keyboard
    interrupt Z3 reports is raised as KeyboardInterrupt.
    """
    if WATCHED["python"]:
        solver.set("ctrl_c", False)
    _CTRL_C["checking"] = True
    try:
        r = solver.check(*assumptions)
    finally:
        _CTRL_C["checking"] = False
    if r == z3.unknown and "keyboard" in solver.reason_unknown():
        raise KeyboardInterrupt
    return r


def interrupt_solvers() -> None:
    """Stop the check running in the main Z3 context (safe from another thread).

    Only while a check runs: an interrupt of an idle context would stay pending
    and spoil the next models of the process (seen in-process, in the tests).
    """
    if _CTRL_C["checking"]:
        z3.main_ctx().interrupt()


class Sym(SymbolicValue):
    """A Z3 term that refuses to act as a Python bool."""

    __slots__ = ()


def term(x: Any) -> z3.ExprRef:
    """The Z3 term of a Sym or a Python constant."""
    if isinstance(x, Sym):
        return x.t
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        return z3.IntVal(x)
    raise TypeError(f"not a Z3 algebra value: {x!r}")


class Z3Algebra(Algebra):
    """Values are :class:`Sym` wrappers over Z3 Int and Bool terms."""

    name = "z3"

    def __init__(self, ctx: z3.Context | None = None) -> None:
        self.ctx = ctx

    def const(self, value: int | bool) -> Any:
        return Sym(z3.BoolVal(value) if isinstance(value, bool) else z3.IntVal(value))

    def var(self, name: str, kind: str) -> Any:
        return Sym(z3.Bool(name) if kind == "bool" else z3.Int(name))

    def add(self, a: Any, b: Any) -> Any:
        return Sym(term(a) + term(b))

    def sub(self, a: Any, b: Any) -> Any:
        return Sym(term(a) - term(b))

    def eq(self, a: Any, b: Any) -> Any:
        return Sym(term(a) == term(b))

    def lt(self, a: Any, b: Any) -> Any:
        return Sym(term(a) < term(b))

    def and_(self, *xs: Any) -> Any:
        return Sym(z3.And([term(x) for x in xs])) if xs else self.true

    def or_(self, *xs: Any) -> Any:
        return Sym(z3.Or([term(x) for x in xs])) if xs else self.false

    def not_(self, x: Any) -> Any:
        return Sym(z3.Not(term(x)))

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(c, bool):
            return a if c else b
        return Sym(z3.If(term(c), term(a), term(b)))


class Z3BVAlgebra(Z3Algebra):
    """Integers as signed bit-vectors of a fixed width: bit-blasted, often faster on ite-heavy steps.

    Exact as long as every value fits the width; ``Unrolling`` checks the
    declared ranges fit before using it.
    """

    name = "z3-bv"

    def __init__(self, width: int = 10) -> None:
        super().__init__()
        self.width = width

    def const(self, value: int | bool) -> Any:
        return Sym(z3.BoolVal(value) if isinstance(value, bool) else z3.BitVecVal(value, self.width))

    def var(self, name: str, kind: str) -> Any:
        return Sym(z3.Bool(name) if kind == "bool" else z3.BitVec(name, self.width))

    def _lift(self, x: Any) -> z3.ExprRef:
        if isinstance(x, int) and not isinstance(x, bool):
            return z3.BitVecVal(x, self.width)
        return term(x)

    def add(self, a: Any, b: Any) -> Any:
        return Sym(self._lift(a) + self._lift(b))

    def sub(self, a: Any, b: Any) -> Any:
        return Sym(self._lift(a) - self._lift(b))

    def eq(self, a: Any, b: Any) -> Any:
        return Sym(self._lift(a) == self._lift(b))

    def lt(self, a: Any, b: Any) -> Any:
        return Sym(self._lift(a) < self._lift(b))  # signed comparison

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(c, bool):
            return a if c else b
        return Sym(z3.If(term(c), self._lift(a), self._lift(b)))
