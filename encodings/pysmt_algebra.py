"""The pySMT algebra: the same step functions as pySMT formulas, for a second solver (cvc5)."""
from __future__ import annotations

from typing import Any

from pysmt import shortcuts as S
from pysmt import typing as T
from pysmt.fnode import FNode

from warpcheck.encodings.algebra import Algebra, SymbolicValue


class PSym(SymbolicValue):
    """A pySMT formula that refuses to act as a Python bool."""

    __slots__ = ()


def fnode(x: Any) -> FNode:
    """The pySMT formula of a PSym or a Python constant."""
    if isinstance(x, PSym):
        return x.t
    if isinstance(x, bool):
        return S.Bool(x)
    if isinstance(x, int):
        return S.Int(x)
    raise TypeError(f"not a pySMT algebra value: {x!r}")


class PysmtAlgebra(Algebra):
    """Values are :class:`PSym` wrappers over pySMT Int and Bool formulas."""

    name = "pysmt"

    def const(self, value: int | bool) -> Any:
        return PSym(fnode(value))

    def var(self, name: str, kind: str) -> Any:
        return PSym(S.Symbol(name, T.BOOL if kind == "bool" else T.INT))

    def add(self, a: Any, b: Any) -> Any:
        return PSym(S.Plus(fnode(a), fnode(b)))

    def sub(self, a: Any, b: Any) -> Any:
        return PSym(S.Minus(fnode(a), fnode(b)))

    def eq(self, a: Any, b: Any) -> Any:
        x, y = fnode(a), fnode(b)
        return PSym(S.Iff(x, y) if x.get_type().is_bool_type() else S.Equals(x, y))

    def lt(self, a: Any, b: Any) -> Any:
        return PSym(S.LT(fnode(a), fnode(b)))

    def and_(self, *xs: Any) -> Any:
        return PSym(S.And([fnode(x) for x in xs]))

    def or_(self, *xs: Any) -> Any:
        return PSym(S.Or([fnode(x) for x in xs]))

    def not_(self, x: Any) -> Any:
        return PSym(S.Not(fnode(x)))

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(c, bool):
            return a if c else b
        return PSym(S.Ite(fnode(c), fnode(a), fnode(b)))
