"""The SMT encoding of the worst-case makespan: the unrolled counter machine and its queries.

The counter machine (:class:`CountSM`) is unrolled by the generic
:class:`Unrolling`; this module adds what the worst-case search asks of it:
"some run is still unfinished after T cycles", and the objective "number of
unfinished cycles" for Optimize.  Redundant facts that every run satisfies
(the done count never falls, no unit issues more than sigma per cycle) are
added as well; they only help the solver.
"""
from __future__ import annotations

from typing import Any

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import term
from warpcheck.models.makespan.sm import CountSM


class MakespanUnrolling:
    """Frames of the counter machine added on demand to one solver."""

    def __init__(self, sm: CountSM, solver: Any, prefix: str = "m.") -> None:
        self.sm, self.solver = sm, solver
        self.u = Unrolling(sm, prefix, bitvector=False)  # counts reach W: linear integer arithmetic
        self.depth = 0
        solver.add(self.u.init())

    def extend(self, depth: int) -> None:
        """Make sure frames 0 .. depth are tied by the transition relation."""
        while self.depth < depth:
            t = self.depth
            self.solver.add(self.u.trans(t))
            done_now, done_next = self.done(t), self.done(t + 1)
            self.solver.add(done_now <= done_next)
            self.depth += 1

    def done(self, t: int) -> z3.ArithRef:
        """How many warps are done after t cycles."""
        return term(self.u.state(t)[f"n{self.sm.done}"])

    def unfinished(self, t: int) -> z3.BoolRef:
        """Some warp is not done after t cycles (the makespan exceeds t)."""
        return self.done(t) < self.sm.warps

    def unfinished_cycles(self, depth: int) -> z3.ArithRef:
        """How many of the first ``depth`` cycles end with a warp not done: the makespan, capped at depth."""
        return z3.Sum([z3.If(self.unfinished(t), 1, 0) for t in range(depth)])

    def inputs(self, model: z3.ModelRef, depth: int) -> list[dict[str, int]]:
        """The issues per cycle of a model, for frames 0 .. depth-1."""
        return self.u.trace(model, depth).inputs
