"""A design run beside an independent reference: the system every front-end property is proved on.

The product's state is the design's (names unchanged) plus the reference's
(prefixed ``ref.``); both see the same inputs and start from the same
program.  Each cycle both export an issue record, and :meth:`Checked.agree`
states that the records are equal on the fields the reference defines.

A reference that fetches on its own (the analysis machine) takes the input of
the cycle as the next instruction of the warp *it* issues.  While the two
records agree, that is the warp the design fetches, so the input means the
same instruction to both; the first cycle where the warps differ is already a
violation.  The simulator feeds such a reference from the program streams
instead, which gives the same first violation.
"""
from __future__ import annotations

from typing import Any, Mapping, Protocol

from warpcheck.models.ts import State, TransitionSystem, Var

PREFIX = "ref."
CONTRACT = "o.ok"  # the design's record of whether the user's policies kept their contract this cycle


class Reference(Protocol):
    """What a reference provides: its variables, init, step (reading the design's state) and links."""

    name: str
    compared: tuple[str, ...]

    def state_vars(self) -> list[Var]: ...

    def init(self, A: Any, p: Mapping[str, Any]) -> State: ...

    def step(self, A: Any, r: Mapping[str, Any], i: Mapping[str, Any], d: Mapping[str, Any]) -> State: ...

    def lemmas(self, A: Any, r: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, Any]: ...


def reference_part(s: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's own variables of a product state, without the prefix."""
    return {k[len(PREFIX):]: v for k, v in s.items() if k.startswith(PREFIX)}


def _prefixed(r: Mapping[str, Any]) -> State:
    return {PREFIX + k: v for k, v in r.items()}


class Checked(TransitionSystem):
    """``design`` and ``reference`` in lockstep; :meth:`agree` is the property."""

    def __init__(self, design: TransitionSystem, reference: Reference) -> None:
        self.design, self.reference = design, reference
        self.name = f"{design.name}~{reference.name}"

    def state_vars(self) -> list[Var]:
        ref = [Var(PREFIX + v.name, v.kind, v.lo, v.hi) for v in self.reference.state_vars()]
        return self.design.state_vars() + ref

    def input_vars(self) -> list[Var]:
        return self.design.input_vars()

    def param_vars(self) -> list[Var]:
        return self.design.param_vars()

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        return {**self.design.init(A, p), **_prefixed(self.reference.init(A, p))}

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        return self.step_with(A, s, i, i)

    def step_with(self, A: Any, s: State, i: Mapping[str, Any], ri: Mapping[str, Any]) -> State:
        """One cycle where the reference takes its own inputs ``ri`` (the simulator's program feed)."""
        nxt = self.design.step(A, s, i)
        return {**nxt, **_prefixed(self.reference.step(A, reference_part(s), ri, s))}

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self.design.assume(A, s, i)

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        links = self.reference.lemmas(A, reference_part(s), s)
        return {**self.design.lemmas(A, s), **{f"link.{k}": v for k, v in links.items()},
                "link.agree-next": self.agree(A, self.step(A, s, self._some_input(A)))}

    def _some_input(self, A: Any) -> dict[str, Any]:
        """Fixed inputs: with them ``agree-next`` says the records of this cycle agree, if they do not read inputs."""
        return {v.name: A.false if v.kind == "bool" else A.const(v.lo) for v in self.input_vars()}

    def pairs(self) -> list[tuple[str, str]]:
        """(design variable, reference variable) of every compared field of the records."""
        same = [(f, PREFIX + f) for f in self.reference.compared]
        return same + [(d, PREFIX + r) for d, r in getattr(self.reference, "exported", ())]

    def agree(self, A: Any, s: Mapping[str, Any]) -> Any:
        """The design's issue record equals the reference's, on the compared fields, and the user's policies kept
        their contract in that cycle (``o.ok``, exported by a design that runs one: an eligible choice, declared
        ranges; the reference runs the same policy, so only this sees a policy that breaks it)."""
        kept = [s[CONTRACT]] if CONTRACT in s else []
        return A.and_(*[A.eq(s[d], s[r]) for d, r in self.pairs()], *kept)
