"""Transition systems: state, inputs, ``init`` and ``step``, written over a value algebra.

A model never sees a solver.  It declares its variables (with their finite
ranges), builds its initial state from free parameters, and steps one clock
cycle.  Engines (``verify``) and the simulator (``sim``) interpret the same
functions with different algebras.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

State = dict[str, Any]
Predicate = Callable[[Any, State], Any]


@dataclass(frozen=True)
class Var:
    """A state, input or parameter variable: a bool, or an int in ``[lo, hi]``."""

    name: str
    kind: str = "int"  # "int" | "bool"
    lo: int = 0
    hi: int = 1

    def domain(self, A: Any, value: Any) -> Any:
        """The range constraint of ``value`` (true for a bool)."""
        if self.kind == "bool":
            return A.true
        return A.and_(A.le(A.const(self.lo), value), A.le(value, A.const(self.hi)))

    def contains(self, value: Any) -> bool:
        """Whether a concrete value lies in the domain."""
        if self.kind == "bool":
            return isinstance(value, bool)
        return isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi


class TransitionSystem:
    """Base class of every model: override the variable lists, ``init`` and ``step``."""

    name = "system"
    lemma_batch = 1  # candidate lemmas per Houdini query (verify.lemmas, where the choice is measured)

    def state_vars(self) -> list[Var]:
        """The state variables, flat, with their ranges."""
        raise NotImplementedError

    def input_vars(self) -> list[Var]:
        """The free inputs of one cycle."""
        return []

    def param_vars(self) -> list[Var]:
        """The free parameters of the initial state."""
        return []

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        """The initial state, as a function of the parameters ``p``."""
        raise NotImplementedError

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        """The state one clock cycle later."""
        raise NotImplementedError

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """Which inputs are allowed in state ``s`` (default: all)."""
        return A.true

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        """Candidate invariants the model states about itself.

        Engines never assume them: a lemma is used only once it is proved to
        hold initially and to be preserved by ``step``.
        """
        return {}


def check_state(ts: TransitionSystem, s: Mapping[str, Any]) -> None:
    """Raise ValueError if a concrete state leaves the declared ranges (a model bug)."""
    for v in ts.state_vars():
        if v.name not in s:
            raise ValueError(f"{ts.name}: state has no variable {v.name!r}")
        if not v.contains(s[v.name]):
            raise ValueError(f"{ts.name}: {v.name} = {s[v.name]!r} is outside its range [{v.lo}, {v.hi}]")


class Prologue(TransitionSystem):
    """A system with a saturating cycle counter ``clock``, so a property may skip the first cycles.

    The paper's metrics are taken after a prologue, with warm buffers; a
    property guarded by :meth:`guard` holds trivially during the first ``n``
    cycles and is checked from cycle ``n`` on.
    """

    def __init__(self, inner: TransitionSystem, n: int) -> None:
        self.inner, self.n = inner, n
        self.name = f"{inner.name}+prologue{n}"

    def state_vars(self) -> list[Var]:
        return self.inner.state_vars() + [Var("clock", "int", 0, self.n)]

    def input_vars(self) -> list[Var]:
        return self.inner.input_vars()

    def param_vars(self) -> list[Var]:
        return self.inner.param_vars()

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        return {**self.inner.init(A, p), "clock": A.const(0)}

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        clock = A.min(A.add(s["clock"], A.const(1)), A.const(self.n))
        return {**self.inner.step(A, s, i), "clock": clock}

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self.inner.assume(A, s, i)

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        return self.inner.lemmas(A, s)

    def guard(self, prop: Predicate) -> Predicate:
        """``prop`` from cycle n on."""
        return lambda A, s: A.or_(A.lt(s["clock"], A.const(self.n)), prop(A, s))
