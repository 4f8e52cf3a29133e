"""The netlist algebra: a step function as a shared graph of bit-vector operations, for the exporters.

Integers are signed bit-vectors of one width (as in ``Z3BVAlgebra``), booleans
are booleans.  Every operation becomes a node once (hash-consed); operations
on constants are folded.  The SMT-LIB2, BTOR2, AIGER and Verilog printers walk this graph:
:meth:`NetAlgebra.below` orders a value's nodes operands first, and :func:`net_model` builds
the nodes of a whole model (variables, initial state, step, constraints, bad state) for the
printers of whole models (BTOR2, AIGER, Verilog).
"""
from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Any, Callable

from warpcheck.encodings.algebra import Algebra, SymbolicValue
from warpcheck.models.ts import TransitionSystem, Var

# node: (op, sort, *operands): op in const, var, add, sub, eq, slt, and, or, not, ite; sort "bool" or "bv"
Node = tuple[Any, ...]


class Net(SymbolicValue):
    """A node of the graph (its index), refusing to act as a Python bool."""

    __slots__ = ()


class NetAlgebra(Algebra):
    """Values are :class:`Net` indices into ``self.nodes``; Python ints and bools are constants."""

    name = "netlist"

    def __init__(self, width: int) -> None:
        self.width = width
        self.nodes: list[Node] = []
        self._index: dict[Node, int] = {}

    # -- graph -------------------------------------------------------------
    def node(self, op: str, sort: str, *args: Any) -> Net:
        key = (op, sort, *args)
        if key not in self._index:
            self._index[key] = len(self.nodes)
            self.nodes.append(key)
        return Net(self._index[key])

    def sort(self, x: Any) -> str:
        return "bool" if isinstance(x, bool) else "bv" if isinstance(x, int) else self.nodes[x.t][1]

    def _id(self, x: Any) -> int:
        return x.t if isinstance(x, Net) else self.node("const", self.sort(x), x).t

    def _fold(self, x: Any) -> Any:
        """A constant node's Python value (else the node itself)."""
        return self.nodes[x.t][2] if isinstance(x, Net) and self.nodes[x.t][0] == "const" else x

    def below(self, root: int, done: Container[int]) -> list[int]:
        """Nodes below ``root`` not in ``done``, operands first (iterative: graphs are deep)."""
        out, stack, seen = [], [(root, False)], set()
        while stack:
            k, ready = stack.pop()
            if ready:
                out.append(k)
            elif k not in done and k not in seen:
                seen.add(k)
                stack.append((k, True))
                op, _, *args = self.nodes[k]
                if op not in ("const", "var"):
                    stack += [(a, False) for a in args]
        return out

    # -- core ----------------------------------------------------------------
    def const(self, value: int | bool) -> Any:
        return value

    def var(self, name: str, kind: str) -> Any:
        return self.node("var", "bool" if kind == "bool" else "bv", name)

    def _binary(self, op: str, sort: str, a: Any, b: Any, fold: Any) -> Any:
        a, b = self._fold(a), self._fold(b)
        if not isinstance(a, Net) and not isinstance(b, Net):
            return fold(a, b)
        return self.node(op, sort, self._id(a), self._id(b))

    def add(self, a: Any, b: Any) -> Any:
        return self._binary("add", "bv", a, b, lambda x, y: x + y)

    def sub(self, a: Any, b: Any) -> Any:
        return self._binary("sub", "bv", a, b, lambda x, y: x - y)

    def eq(self, a: Any, b: Any) -> Any:
        return self._binary("eq", "bool", a, b, lambda x, y: x == y)

    def lt(self, a: Any, b: Any) -> Any:
        return self._binary("slt", "bool", a, b, lambda x, y: x < y)

    def and_(self, *xs: Any) -> Any:
        xs = tuple(self._fold(x) for x in xs)
        if any(x is False for x in xs):
            return False
        rest = tuple(dict.fromkeys(self._id(x) for x in xs if x is not True))
        return True if not rest else Net(rest[0]) if len(rest) == 1 else self.node("and", "bool", *rest)

    def or_(self, *xs: Any) -> Any:
        xs = tuple(self._fold(x) for x in xs)
        if any(x is True for x in xs):
            return True
        rest = tuple(dict.fromkeys(self._id(x) for x in xs if x is not False))
        return False if not rest else Net(rest[0]) if len(rest) == 1 else self.node("or", "bool", *rest)

    def not_(self, x: Any) -> Any:
        x = self._fold(x)
        return (not x) if isinstance(x, bool) else self.node("not", "bool", self._id(x))

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        c = self._fold(c)
        if isinstance(c, bool):
            return a if c else b
        fa, fb = self._fold(a), self._fold(b)
        if not isinstance(fa, Net) and not isinstance(fb, Net) and fa == fb and type(fa) is type(fb):
            return fa
        if isinstance(a, Net) and isinstance(b, Net) and a.t == b.t:
            return a
        return self.node("ite", self.sort(fa if isinstance(fa, Net) else fb), self._id(c), self._id(fa), self._id(fb))


@dataclass
class NetModel:
    """A transition system and its property over one :class:`NetAlgebra`: what every model printer walks.

    Variables are named ``s.NAME`` (states), ``i.NAME`` (inputs), ``p.NAME`` (parameters) and ``first``
    (true in cycle 0 only).  ``start`` is each state's initial value, folded (a Python constant, or a node
    over the parameters: then ``initial`` holds its constraint ``first -> state = value``).
    """

    A: NetAlgebra
    sv: list[Var]
    iv: list[Var]
    pv: list[Var]
    s: dict[str, Any]
    i: dict[str, Any]
    p: dict[str, Any]
    start: dict[str, Any]
    nxt: dict[str, Any]
    param_ranges: dict[str, Any]
    input_ranges: list[Any]
    assume: Any
    initial: dict[str, Any]
    bad: Any


def net_model(ts: TransitionSystem, prop: Callable[[Any, dict], Any], width: int) -> NetModel:
    """The nodes of ``ts``'s initial state, step, constraints and bad state (the property's negation)."""
    A, sv, iv, pv = NetAlgebra(width), ts.state_vars(), ts.input_vars(), ts.param_vars()
    s = {v.name: A.var(f"s.{v.name}", v.kind) for v in sv}
    i = {v.name: A.var(f"i.{v.name}", v.kind) for v in iv}
    p = {v.name: A.var(f"p.{v.name}", v.kind) for v in pv}
    start = {name: A._fold(value) for name, value in ts.init(A, p).items()}
    first = A.var("first", "bool")
    nxt = ts.step(A, s, i)
    return NetModel(A, sv, iv, pv, s, i, p, start, nxt, {v.name: v.domain(A, p[v.name]) for v in pv},
                    [v.domain(A, i[v.name]) for v in iv], ts.assume(A, s, i),
                    {n: A.implies(first, A.eq(s[n], x)) for n, x in start.items() if isinstance(x, Net)},
                    A.not_(prop(A, s)))
