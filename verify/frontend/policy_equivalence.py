"""Each model policy equals its reference policy (spec/frontend/priority_lists.py), checked by SMT per W.

The two keep different state (a pointer, or the last issued warp / a turn);
the check finds the link between them (the same one Houdini keeps in the
proofs) and proves, for every eligibility vector and every key vector, that
linked states choose the same warp and stay linked after the choice.
"""
from __future__ import annotations

from typing import Any, Callable

import z3

from warpcheck.encodings.z3_algebra import Z3BVAlgebra, check, term
from warpcheck.models.frontend.policies import POLICIES, Policy, PolicyContext
from warpcheck.spec.frontend.priority_lists import ref_policy
from warpcheck.verify.result import Status

Link = Callable[[Any, Any, dict[str, Any], int], Any]

LINKS: dict[str, Link] = {  # how the model's pointer reads in the reference's state
    "ptr=last": lambda A, ptr, st, n: A.eq(ptr, st["last"]),
    "ptr=last+1": lambda A, ptr, st, n: A.eq(ptr, A.ite(A.eq(st["last"], A.const(n - 1)), A.const(0),
                                                         A.add(st["last"], A.const(1)))),
    "ptr=turn": lambda A, ptr, st, n: A.eq(ptr, st["turn"]),
    "stateless": lambda A, ptr, st, n: A.true,  # neither choice reads its state (oldest first, Icount)
}


def default_context(policy: str, warps: int) -> PolicyContext:
    """The context a policy is checked in; for QAWS two kernels (first half of the warps: budget 1, the rest: 3)."""
    if policy != "qaws" or warps < 2:
        return PolicyContext(warps)
    half = (warps + 1) // 2
    return PolicyContext(warps, tuple(0 if w < half else 1 for w in range(warps)), (1, 3))


def _same_fields(A: Any, st: dict[str, Any], rst: dict[str, Any]) -> Any:
    """The fields both records name (beyond the pointer) are equal."""
    return A.and_(A.true, *[A.eq(v, rst[k]) for k, v in st.items() if k != "ptr" and k in rst])


def _check(policy: str, ctx: PolicyContext, link: Link, timeout_ms: int | None,
           model: Policy | None = None) -> z3.CheckSatResult:
    warps = ctx.warps
    A, ref = Z3BVAlgebra(16), ref_policy(policy, ctx.kernel_of_warp, ctx.budgets)
    model = model or POLICIES[policy]
    fields = model.fields(ctx)
    mst = {f.name: A.var(f"model.{f.name}", "int") for f in fields}
    st = {k: A.var(f"ref.{k}", "int") for k in ref.init(A, warps)}
    elig = [A.var(f"e{w}", "bool") for w in range(warps)]
    keys = [A.var(f"k{w}", "int") for w in range(warps)]
    c = model.choose(A, mst, elig, keys, ctx)
    nm, nr = model.update(A, mst, c, elig, ctx), ref.next(A, st, c, warps, elig)
    linked = lambda m, r: A.and_(link(A, m["ptr"], r, warps), _same_fields(A, m, r))
    same = A.and_(A.eq(c, ref.choose(A, st, elig, keys)), linked(nm, nr))
    s = z3.SolverFor("QF_BV")
    if timeout_ms:
        s.set("timeout", timeout_ms)
    rng = [z3.And(f.lo <= term(mst[f.name]), term(mst[f.name]) <= f.hi) for f in fields]
    rng += [z3.And(lo <= term(st[k]), term(st[k]) <= hi) for k, lo, hi in ref.fields(warps)]
    s.add(*rng, *[z3.And(0 <= term(k), term(k) < 64) for k in keys], term(linked(mst, st)),
          z3.Not(term(same)))
    return check(s)


def policy_agrees(policy: str, warps: int, timeout_ms: int | None = None,
                  ctx: PolicyContext | None = None, model: Policy | None = None) -> tuple[Status, str]:
    """PASS with the link that makes the model policy equal its reference at ``warps`` warps, or why not.

    ``model`` is the design's policy when it is not the registered one of that name (a mutant's).
    """
    ctx = ctx or default_context(policy, warps)
    strict = ref_policy(policy, ctx.kernel_of_warp, ctx.budgets).strict
    verdicts = []
    for name, link in LINKS.items():
        if name == "ptr=turn" and not strict or name != "ptr=turn" and strict:
            continue
        r = _check(policy, ctx, link, timeout_ms, model)
        if r == z3.unsat:
            return Status.PASS, name
        verdicts.append(r)
    if any(v == z3.unknown for v in verdicts):
        return Status.UNKNOWN, "the solver gave up"
    return Status.FAIL, "no link makes the two choose alike"
