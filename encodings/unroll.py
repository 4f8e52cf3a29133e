"""Unrolling a transition system into Z3 constraints, one frame per clock cycle."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import z3

from warpcheck.encodings.z3_algebra import Sym, Z3Algebra, Z3BVAlgebra, term
from warpcheck.models.ts import State, TransitionSystem, Var


@dataclass
class Trace:
    """Concrete values read off a model: parameters, states per cycle, inputs per cycle."""

    params: dict[str, Any]
    states: list[dict[str, Any]]
    inputs: list[dict[str, Any]] = field(default_factory=list)


def _fresh(A: Z3Algebra, vs: list[Var], tag: str) -> dict[str, Sym]:
    return {v.name: A.var(f"{tag}{v.name}", v.kind) for v in vs}


def _domains(A: Z3Algebra, vs: list[Var], values: dict[str, Any]) -> z3.BoolRef:
    return z3.And([term(v.domain(A, values[v.name])) for v in vs if v.kind == "int"])


class Unrolling:
    """Frames ``s_0 .. s_k`` and inputs ``i_0 .. i_{k-1}`` of a system, built on demand.

    ``init()`` is the constraint ``s_0 = init(p)``; ``trans(t)`` ties frame t to
    t+1 (the step, the input assumption and the input ranges); ``domain(t)``
    is the range constraint of frame t, which holds on every reachable state.
    """

    def __init__(self, ts: TransitionSystem, prefix: str = "", bitvector: bool = True) -> None:
        self.ts = ts
        # Bit-vectors by default: on these ite-heavy steps Z3's bit-blasting is far faster than
        # linear integer arithmetic (W = 32, depth 4: 2.4 s against more than 300 s).
        self.A = Z3BVAlgebra(_width(ts)) if bitvector else Z3Algebra()
        self.logic = "QF_BV" if bitvector else "QF_LIA"
        self.prefix = prefix
        self._svars, self._ivars = ts.state_vars(), ts.input_vars()
        self.params = _fresh(self.A, ts.param_vars(), f"{prefix}p.")
        self.states: list[dict[str, Sym]] = []
        self.inputs: list[dict[str, Sym]] = []

    def state(self, t: int) -> dict[str, Sym]:
        while len(self.states) <= t:
            self.states.append(_fresh(self.A, self._svars, f"{self.prefix}s{len(self.states)}."))
        return self.states[t]

    def input(self, t: int) -> dict[str, Sym]:
        while len(self.inputs) <= t:
            self.inputs.append(_fresh(self.A, self._ivars, f"{self.prefix}i{len(self.inputs)}."))
        return self.inputs[t]

    def _equal(self, lhs: State, rhs: State) -> z3.BoolRef:
        return z3.And([term(lhs[v.name]) == term(rhs[v.name]) for v in self._svars])

    def init(self) -> z3.BoolRef:
        ps = self.ts.param_vars()
        return z3.And(_domains(self.A, ps, self.params),
                      self._equal(self.state(0), self.ts.init(self.A, self.params)))

    def trans(self, t: int) -> z3.BoolRef:
        s, i = self.state(t), self.input(t)
        nxt = self.ts.step(self.A, s, i)
        return z3.And(_domains(self.A, self._ivars, i), term(self.ts.assume(self.A, s, i)),
                      self._equal(self.state(t + 1), nxt))

    def domain(self, t: int) -> z3.BoolRef:
        return _domains(self.A, self._svars, self.state(t))

    def holds(self, pred: Callable[[Any, State], Any], t: int) -> z3.BoolRef:
        """The Z3 formula of ``pred`` on frame ``t``."""
        return term(pred(self.A, self.state(t)))

    def distinct(self, t: int, u: int) -> z3.BoolRef:
        """Frames t and u differ somewhere (a simple-path constraint)."""
        a, b = self.state(t), self.state(u)
        return z3.Or([term(a[v.name]) != term(b[v.name]) for v in self._svars])

    def trace(self, model: z3.ModelRef, depth: int) -> Trace:
        """Read frames ``0 .. depth`` and their inputs off a Z3 model as Python values."""
        return Trace(params=_read(model, self.ts.param_vars(), self.params),
                     states=[_read(model, self._svars, self.state(t)) for t in range(depth + 1)],
                     inputs=[_read(model, self._ivars, self.input(t)) for t in range(depth)])


def _width(ts: TransitionSystem) -> int:
    """A signed bit-vector width that holds every declared range with room for sums of two."""
    vs = ts.state_vars() + ts.input_vars() + ts.param_vars()
    big = max([abs(v.lo) for v in vs] + [abs(v.hi) for v in vs] + [1])
    return max(8, (4 * big + 1).bit_length() + 1)


def _read(model: z3.ModelRef, vs: list[Var], values: dict[str, Sym]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for v in vs:
        val = model.eval(term(values[v.name]), model_completion=True)
        if v.kind == "bool":
            out[v.name] = z3.is_true(val)
        else:
            out[v.name] = val.as_signed_long() if z3.is_bv_value(val) else val.as_long()
    return out
