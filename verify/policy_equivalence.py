"""Each model policy equals its reference policy (models/reference_policies.py), checked by SMT per W.

The two keep different state (a pointer, or the last issued warp / a turn);
the check finds the link between them (the same one Houdini keeps in the
proofs) and proves, for every eligibility vector and every key vector, that
linked states choose the same warp and stay linked after the choice.
"""
from __future__ import annotations

from typing import Any, Callable

import z3

from warpcheck.encodings.z3_algebra import Z3BVAlgebra, term
from warpcheck.models.policies import POLICIES
from warpcheck.models.reference_policies import REF_POLICIES
from warpcheck.verify.result import Status

Link = Callable[[Any, Any, dict[str, Any], int], Any]

LINKS: dict[str, Link] = {  # how the model's pointer reads in the reference's state
    "ptr=last": lambda A, ptr, st, n: A.eq(ptr, st["last"]),
    "ptr=last+1": lambda A, ptr, st, n: A.eq(ptr, A.ite(A.eq(st["last"], A.const(n - 1)), A.const(0),
                                                         A.add(st["last"], A.const(1)))),
    "ptr=turn": lambda A, ptr, st, n: A.eq(ptr, st["turn"]),
    "stateless": lambda A, ptr, st, n: A.true,  # neither choice reads its state (oldest first, Icount)
}


def _check(policy: str, warps: int, link: Link, timeout_ms: int | None) -> z3.CheckSatResult:
    A, model, ref = Z3BVAlgebra(16), POLICIES[policy], REF_POLICIES[policy]
    ptr = A.var("ptr", "int")
    st = {k: A.var(f"ref.{k}", "int") for k in ref.init(A, warps)}
    elig = [A.var(f"e{w}", "bool") for w in range(warps)]
    keys = [A.var(f"k{w}", "int") for w in range(warps)]
    c = model.choose(A, ptr, elig, keys)
    same = A.and_(A.eq(c, ref.choose(A, st, elig, keys)),
                  link(A, model.update(A, ptr, c, warps), ref.next(A, st, c, warps), warps))
    s = z3.SolverFor("QF_BV")
    if timeout_ms:
        s.set("timeout", timeout_ms)
    rng = [z3.And(0 <= term(v), term(v) < warps) for v in [ptr, *st.values()]]
    s.add(*rng, *[z3.And(0 <= term(k), term(k) < 64) for k in keys], term(link(A, ptr, st, warps)),
          z3.Not(term(same)))
    return s.check()


def policy_agrees(policy: str, warps: int, timeout_ms: int | None = None) -> tuple[Status, str]:
    """PASS with the link that makes the model policy equal its reference at ``warps`` warps, or why not."""
    verdicts = []
    for name, link in LINKS.items():
        if name == "ptr=turn" and not REF_POLICIES[policy].strict or name != "ptr=turn" and REF_POLICIES[policy].strict:
            continue
        r = _check(policy, warps, link, timeout_ms)
        if r == z3.unsat:
            return Status.PASS, name
        verdicts.append(r)
    if any(v == z3.unknown for v in verdicts):
        return Status.UNKNOWN, "the solver gave up"
    return Status.FAIL, "no link makes the two choose alike"
