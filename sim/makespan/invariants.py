"""Check the linear invariants of a certificate: true for every W, kept by every move, and what they exclude.

A relational certificate leaves out of its table the count entries that no
reachable state can stand in, and lists the invariants c . n <= b that rule
them out.  The checker trusts none of it:

- *initially*: the initial state of W warps (all in phase 0) has c . n = c_0 W,
  which is <= b for every W >= 1 exactly when c_0 <= 0 and c_0 <= b;
- *inductive*: Z3 is asked for a state of naturals (any W: the counts are
  unbounded) satisfying every invariant, with a work-conserving move that
  breaks one of them; the step is encoded here again from the cycle rules
  (per unit, issues = min(free slots, ready warps), split over its wait
  phases; busy warps move on), sharing no code with the search's encoding;
- *excluded*: an entry missing from the table is accepted only when every
  concrete state it stands for breaks some invariant: the least c . n over
  its box (exact counts fixed, a capped count from its cap up) exceeds b.

Every reachable state satisfies the invariants, so no run passes through
an excluded entry and the table still covers every run.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import z3

from warpcheck.models.errors import WarpcheckError
from warpcheck.models.makespan.kernel import MkKernel

Ineq = tuple[tuple[Fraction, ...], Fraction]


class InvariantRefused(WarpcheckError):
    """An invariant of the certificate is not proved."""


def read_invariants(raw: Any, phases: int, number: Any) -> list[Ineq]:
    """Rows of ``phases`` coefficients and a bound (integers or 'p/q' strings); ``number`` parses one."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvariantRefused("the invariants must be a list of rows")
    out = []
    for row in raw:
        vals = [number(v) for v in row] if isinstance(row, list) and len(row) == phases + 1 else [None]
        if any(v is None for v in vals):
            raise InvariantRefused(f"invariant {row!r} is not {phases} coefficients and a bound")
        out.append((tuple(vals[:-1]), vals[-1]))
    return out


def least(entry: Sequence[int], caps: Sequence[int], c: Sequence[Fraction]) -> Fraction | None:
    """The least c . n over the concrete states of an entry; None when unbounded below."""
    total = Fraction(0)
    for n, cap, cp in zip(entry, caps, c):
        if n >= cap and cp < 0:
            return None
        total += cp * n
    return total


def excluded(entry: Sequence[int], caps: Sequence[int], invariants: Sequence[Ineq]) -> bool:
    """Whether every concrete state of the entry breaks some invariant."""
    for c, b in invariants:
        low = least(entry, caps, c)
        if low is not None and low > b:
            return True
    return False


def check_invariants(kernel: MkKernel, invariants: Sequence[Ineq], timeout: float = 60.0) -> None:
    """Raise InvariantRefused unless every invariant holds initially for every W and all are kept by every move."""
    for c, b in invariants:
        if not (c[0] <= 0 and c[0] <= b):
            raise InvariantRefused(f"invariant {_show(c, b)} fails in the initial state of some W")
    if not invariants:
        return
    n, nxt, step = _step(kernel)
    s = z3.Solver()
    s.set("timeout", int(timeout * 1000))
    s.add(step)
    s.add([_le(c, b, n) for c, b in invariants])
    s.add(z3.Or([z3.Not(_le(c, b, nxt)) for c, b in invariants]))
    r = s.check()
    if r == z3.sat:
        m = s.model()
        state = [m.eval(v, model_completion=True).as_long() for v in n]
        raise InvariantRefused(f"a move from counts {state} breaks an invariant")
    if r != z3.unsat:
        raise InvariantRefused("Z3 could not decide whether the invariants are kept (timeout)")


def _le(c: Sequence[Fraction], b: Fraction, n: Sequence[z3.ArithRef]) -> z3.BoolRef:
    den = math.lcm(*(v.denominator for v in c), b.denominator)
    return z3.Sum([int(cp * den) * v for cp, v in zip(c, n) if cp] + [z3.IntVal(0)]) <= int(b * den)


def _step(kernel: MkKernel) -> tuple[list[z3.ArithRef], list[z3.ArithRef], list[z3.BoolRef]]:
    """Counts n (non-done phases), the next counts, and the rules of one cycle linking them."""
    phases = [(i, stage) for i, ins in enumerate(kernel.instrs) for stage in range(ins.latency)]
    n = [z3.Int(f"chk.n{p}") for p in range(len(phases))]
    out = [v >= 0 for v in n]
    leave = []
    for p, (i, stage) in enumerate(phases):
        if stage == 0:
            a = z3.Int(f"chk.a{p}")
            out += [a >= 0, a <= n[p]]
            leave.append(a)
        else:
            leave.append(n[p])
    for unit, sigma in kernel.sigma:
        waits = [p for p, (i, st) in enumerate(phases) if st == 0 and kernel.instrs[i].unit == unit]
        holders = [p for p, (i, st) in enumerate(phases)
                   if st > 0 and kernel.instrs[i].unit == unit and not kernel.instrs[i].pipelined]
        free = int(sigma) - z3.Sum([n[p] for p in holders] + [z3.IntVal(0)])
        ready = z3.Sum([n[p] for p in waits] + [z3.IntVal(0)])
        issued = z3.Sum([leave[p] for p in waits] + [z3.IntVal(0)])
        out.append(issued == z3.If(free < ready, free, ready))
    nxt = [n[p] - leave[p] + (leave[p - 1] if p else 0) for p in range(len(phases))]
    return n, nxt, out


def _show(c: Sequence[Fraction], b: Fraction) -> str:
    return " + ".join(f"{v} n{p}" for p, v in enumerate(c) if v) + f" <= {b}"
