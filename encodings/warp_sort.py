"""Warps as a sort: the value algebra of the proofs for every number of warps, and its instance at one W.

A model written for every W (``models/frontend/swas_every_warp.py``) reads its
warps through five operations on top of the Z3 algebra:

- ``warp(name)``: a warp-valued constant (an action parameter, a pointer);
- ``before(a, b)``: the order of the warps (warp a is numbered below warp b);
- ``least`` / ``top``: the first and the last warp;
- ``forall(body)`` / ``exists(body)``: a formula over every warp;
- ``per_warp(name, kind)``: a function from the warps into integers or booleans
  (a warp's ibuffer entry, its scoreboard, ...).

:class:`WarpSort` interprets the warps as an uninterpreted sort with ``before``
a strict total order given by axioms (:meth:`WarpSort.axioms`): a formula is
then about every finite W at once.  There is no function into the sort, so a
check whose negation is exists-forall stays in EPR (with integer-valued
functions of warps, which ground instantiation keeps decidable), and a
satisfiable one has a model with no more warps than it has warp constants.

:class:`FiniteWarps` interprets the same operations at one W: warps are the
integers 0..W-1, ``forall`` is a conjunction over them, and per-warp functions
read given terms (the kit's per-W variables ``w{k}.x``).  The encoding check
runs the model under this algebra beside the kit's own step.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import z3

from warpcheck.encodings.z3_algebra import Sym, Z3Algebra, Z3BVAlgebra, term

Body = Callable[[Any], Any]


class WarpSort(Z3Algebra):
    """Warps as an uninterpreted sort, strictly and totally ordered by axioms."""

    name = "z3-warp-sort"

    def __init__(self) -> None:
        super().__init__()
        self.sort = z3.DeclareSort("Warp")
        self._lt = z3.Function("warp_before", self.sort, self.sort, z3.BoolSort())
        self.least, self.top = Sym(z3.Const("warp_least", self.sort)), Sym(z3.Const("warp_top", self.sort))
        self._n = 0
        self._more: list[Any] = []  # the definitions of the constants of first_warps
        self._defined = 0  # how many of them are defined

    def warp(self, name: str) -> Any:
        return Sym(z3.Const(name, self.sort))

    def before(self, a: Any, b: Any) -> Any:
        return Sym(self._lt(term(a), term(b)))

    def _bound(self) -> z3.ExprRef:
        self._n += 1
        return z3.Const(f"x!{self._n}", self.sort)

    def forall(self, body: Body) -> Any:
        x = self._bound()
        return Sym(z3.ForAll([x], term(body(Sym(x)))))

    def exists(self, body: Body) -> Any:
        x = self._bound()
        return Sym(z3.Exists([x], term(body(Sym(x)))))

    def per_warp(self, name: str, kind: str) -> Callable[[Any], Any]:
        f = z3.Function(name, self.sort, z3.BoolSort() if kind == "bool" else z3.IntSort())
        return lambda w: Sym(f(term(w)))

    def first_warps(self, k: int) -> list[Any]:
        """The first ``k`` warps in order, as constants; past the last warp they stay at ``top``."""
        zs = [self.least] + [self.warp(f"warp_{i}") for i in range(1, k)]
        if k <= self._defined:
            return zs
        self._defined = k
        for a, b in zip(zs, zs[1:]):
            self._more.append(self.ite(self.eq(a, self.top), self.eq(b, a), self.and_(
                self.before(a, b), self.forall(lambda x: self.not_(self.and_(self.before(a, x), self.before(x, b)))))))
        return zs

    def axioms(self) -> list[z3.ExprRef]:
        """``before`` is a strict total order with ``least`` first and ``top`` last (universal, EPR)."""
        x, y, z = z3.Consts("ax ay az", self.sort)
        lt = self._lt
        return [z3.ForAll([x], z3.Not(lt(x, x))),
                z3.ForAll([x, y, z], z3.Implies(z3.And(lt(x, y), lt(y, z)), lt(x, z))),
                z3.ForAll([x, y], z3.Or(lt(x, y), x == y, lt(y, x))),
                z3.ForAll([x], z3.Not(lt(x, term(self.least)))),
                z3.ForAll([x], z3.Not(lt(term(self.top), x))), *[term(m) for m in self._more]]

    def warps_of(self, model: z3.ModelRef) -> list[Any]:
        """The warps of a model, in their order (the model's W)."""
        universe = model.get_universe(self.sort) or [model.eval(term(self.least), model_completion=True)]
        key = lambda a: sum(z3.is_true(model.eval(self._lt(b, a), model_completion=True)) for b in universe)
        return sorted(universe, key=key)


class FiniteWarps(Z3BVAlgebra):
    """The same operations at one W: warps are the integers 0..W-1 in their order (bit-vectors of ``width``)."""

    name = "z3-finite-warps"

    def __init__(self, warps: int, width: int = 16) -> None:
        super().__init__(width)
        self.W = warps
        self.least, self.top = self.const(0), self.const(warps - 1)
        self.domain: list[Any] = []  # the range of each warp constant made

    def warp(self, name: str) -> Any:
        w = self.var(name, "int")
        self.domain.append(self.and_(self.le(self.least, w), self.le(w, self.top)))
        return w

    def before(self, a: Any, b: Any) -> Any:
        return self.lt(a, b)

    def forall(self, body: Body) -> Any:
        return self.and_(*[body(self.const(k)) for k in range(self.W)])

    def exists(self, body: Body) -> Any:
        return self.or_(*[body(self.const(k)) for k in range(self.W)])

    def per_warp(self, name: str, kind: str) -> Callable[[Any], Any]:
        raise TypeError("FiniteWarps reads per-warp values from given terms: use reading()")

    def first_warps(self, k: int) -> list[Any]:
        return [self.const(min(i, self.W - 1)) for i in range(k)]

    def reading(self, values: Mapping[int, Any]) -> Callable[[Any], Any]:
        """The per-warp function whose value at warp k is ``values[k]`` (for a symbolic warp: a selection)."""
        def at(w: Any) -> Any:
            t = term(w)
            return values[t.as_long()] if z3.is_bv_value(t) else self.select([values[k] for k in range(self.W)], w)
        return at

    def axioms(self) -> list[z3.ExprRef]:
        return [term(d) for d in self.domain]
