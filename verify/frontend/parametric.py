"""A proof for every number of warps at once (SWaS), by composition.

1. Component: on :class:`OpenWarp` (one warp, the scheduler and the other
   warps arbitrary) the warp's real eligibility always equals the reference
   scheduler's view of it.  Proved unbounded (k-induction with proved lemmas),
   once, for every SM size and every policy.
2. Policy: each policy picks only an eligible warp, and its choice is a
   function of (scheduler state, eligibility vector, keys): equal vectors give
   equal choices.  The first is checked by SMT for every W up to ``max_w``.
3. Projection: a W-warp step, seen from one warp, is an ``OpenWarp`` step
   (same initial state, same eligibility, same next state, and the warp the
   policy picks is eligible).  Checked by SMT for every W up to ``max_proj``.

Together: in every reachable state of an SM of W warps, every warp's
eligibility agrees with the reference, so the issued warp equals the
reference scheduler's.  Steps (2) and (3) are machine-checked one W at a
time, so the result covers W = 1 .. min(max_w, max_proj) and says so; it
never claims every W.  The reference eligibility is the independent one of
``spec/frontend/issue_reference.py``.
"""
from __future__ import annotations

import time
from typing import Any

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import Z3Algebra, check, term
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.frontend.design import FIELDS, FrontEnd
from warpcheck.models.frontend.open_warp import OpenWarp
from warpcheck.spec.frontend.issue_reference import OracleReference
from warpcheck.models.frontend.policies import POLICIES, Policy, PolicyContext
from warpcheck.verify.frontend.policy_equivalence import policy_agrees
from warpcheck.verify.engines import Deadline, kinduction
from warpcheck.verify.result import Result, Status


VIEWS = {"oracle": "osched2", "ideal": "ideal"}


def _ref_eligible(config: SMConfig, prop: str, A: Any, s: dict, w: int) -> Any:
    """The reference view of warp w; its window is still the design's counter here (not yet its own: see docs)."""
    return OracleReference(config, VIEWS[prop]).eligible(A, s, w, {}, s[f"w{w}.win"])


def component(config: SMConfig, prop: str, timeout: float | None) -> Result:
    """Step 1: per-warp agreement of real and reference eligibility, unbounded."""
    ow = OpenWarp(config)
    agree = lambda A, s: A.eq(ow.issue_eligible(A, s)[0], _ref_eligible(ow.c, prop, A, s, 0))
    return kinduction(ow, agree, 4, timeout)


def picks_only_eligible(policy: str, warps: int, timeout_ms: int | None = None) -> bool | None:
    """Step 2: for every scheduler state, eligibility and keys, the choice is -1 or an eligible warp (None: unknown)."""
    A, p, ctx = Z3Algebra(), POLICIES[policy], PolicyContext(warps)
    fields = p.fields(ctx)
    st = {f.name: A.var(f.name, "int") for f in fields}
    elig = [A.var(f"e{w}", "bool") for w in range(warps)]
    keys = [A.var(f"k{w}", "int") for w in range(warps)]
    c = p.choose(A, st, elig, keys, ctx)
    ok = A.or_(A.eq(c, A.const(-1)), A.and_(A.le(A.const(0), c), A.lt(c, A.const(warps)), A.select(elig, c)))
    s = z3.Solver()
    if timeout_ms is not None:
        s.set("timeout", timeout_ms)
    s.add(*[z3.And(f.lo <= term(st[f.name]), term(st[f.name]) <= f.hi) for f in fields], z3.Not(term(ok)))
    r = check(s)
    return None if r == z3.unknown else r == z3.unsat


def _project(fe: FrontEnd, A: Any, s: dict, w: int) -> dict:
    """Warp w's view of a W-warp state, as an OpenWarp state."""
    out = {k.replace(f"w{w}.", "w0.", 1): v for k, v in s.items() if k.startswith(f"w{w}.")}
    for k in range(fe.P):
        out[f"p{k}.v"] = A.and_(s[f"p{k}.v"], A.eq(s[f"p{k}.w"], A.const(w)))
        out[f"p{k}.w"] = A.const(0)
        out.update({f"p{k}.{f}": s[f"p{k}.{f}"] for f in FIELDS})
    out.update({k: v for k, v in s.items() if k.startswith("u.")})
    out["is.ptr"] = A.const(0)  # OpenWarp's scheduler state (it has no kernels: a pointer)
    return out


def _same(ow: OpenWarp, a: dict, b: dict) -> z3.BoolRef:
    """Equal as seen by the warp: its fields, its pipe slots' validity, and their contents when valid."""
    eqs = [term(a[k]) == term(b[k]) for k in a if not k.startswith(("p", "is."))]
    for k in range(ow.P):
        v = f"p{k}.v"
        eqs.append(term(a[v]) == term(b[v]))
        eqs += [z3.Implies(term(a[v]), term(a[f"p{k}.{f}"]) == term(b[f"p{k}.{f}"])) for f in FIELDS]
    return z3.And(eqs)


def projection_holds(config: SMConfig, prop: str, warps: int, timeout_ms: int | None = None) -> bool | None:
    """Step 3 for one W: init, eligibility, assumption and step commute with the projection."""
    fe, ow = FrontEnd(config.with_(warps=warps)), OpenWarp(config)
    u = Unrolling(fe, "pr.")
    A, s, i = u.A, u.state(0), u.input(0)
    nxt, iw = fe.step(A, s, i), fe.issue_choice(A, s)
    ref_w = [_ref_eligible(fe.c, prop, A, s, w) for w in range(warps)]
    sol = z3.Solver()
    if timeout_ms is not None:
        sol.set("timeout", timeout_ms)
    sol.add(u.domain(0), *[term(v.domain(A, i[v.name])) for v in fe.input_vars()], term(fe.assume(A, s, i)))
    p = u.params
    bad = []
    for w in range(warps):
        ps, p_w = _project(fe, A, s, w), {k.replace(f"w{w}.", "w0.", 1): v for k, v in p.items() if k.startswith(f"w{w}.")}
        i_w = {**{k: i[k] for k in i}, "sel": A.eq(iw, A.const(w)),
               **{f"u_next.{c}": nxt[f"u.{c}"] for c in config.unpipelined}}
        ref_o = _ref_eligible(ow.c, prop, A, ps, 0)
        bad += [z3.Not(_same(ow, _project(fe, A, fe.init(A, p), w), ow.init(A, p_w))),
                term(fe.issue_eligible(A, s)[w]) != term(ow.issue_eligible(A, ps)[0]),
                term(ref_w[w]) != term(ref_o),
                z3.Not(term(ow.assume(A, ps, i_w))),
                z3.Not(_same(ow, _project(fe, A, nxt, w), ow.step(A, ps, i_w)))]
    sol.add(z3.Or(bad))
    r = check(sol)
    return None if r == z3.unknown else r == z3.unsat


def prove_parametric(config: SMConfig, prop: str = "oracle", max_w: int = 32, max_proj: int = 4,
                     timeout: float | None = 300.0) -> Result:
    """Prove the property for W = 1 .. min(max_w, max_proj) at once; PASS only if all three steps hold."""
    if prop not in VIEWS:
        raise OptionError("property", prop, "the parametric proof (all_warps) is for 'oracle' or 'ideal'; "
                                            "prove 'exact' for a given number of warps")
    if config.budgets:
        raise ConfigError(f"the parametric proof is for SMs without kernel budgets (got budgets = {list(config.budgets)!r}); "
                          "prove a given number of warps for qaws with two kernels")
    if config.design != "swas":
        raise ConfigError(f"the parametric proof is for design 'swas' (got {config.design!r}); "
                          "the baseline does not follow its policy even at W = 1")
    dl = Deadline(timeout)
    comp = component(config, prop, None if dl.end is None else max(0.001, dl.end - time.monotonic()))
    if comp.status is not Status.PASS:  # the environment is over-approximated: no real FAIL here
        status = Status.UNKNOWN if comp.status is Status.FAIL else comp.status
        return Result(status, "parametric", comp.depth, seconds=dl.elapsed(),
                      message=(f"the one-warp component fails against an arbitrary scheduler at depth {comp.depth}; "
                               "prove a given number of warps to get a real counterexample")
                      if comp.status is Status.FAIL else f"component: {comp.label}: {comp.message}")
    policy, covered = config.issue_policy, min(max_w, max_proj)
    for w in range(1, max_w + 1):
        ok = picks_only_eligible(policy, w, dl.left_ms())
        if ok is None or dl.expired():
            return _unfinished(dl, f"step 2 (the policy picks only eligible warps) undecided at W = {w}")
        if not ok:
            return Result(Status.FAIL, "parametric", 0, seconds=dl.elapsed(),
                          message=f"policy {policy!r} can pick a warp that is not eligible at W = {w}")
    for w in range(1, max_proj + 1):
        ok = projection_holds(config, prop, w, dl.left_ms())
        if ok is None or dl.expired():
            return _unfinished(dl, f"step 3 (projection) undecided at W = {w}")
        if not ok:
            return Result(Status.ERROR, "parametric", 0, seconds=dl.elapsed(),
                          message=f"the W = {w} front end is not a composition of OpenWarp components (a kit bug)")
    return Result(Status.PASS, "parametric", comp.depth, seconds=dl.elapsed(), lemmas=comp.lemmas, warps=(1, covered),
                  message=(f"W = 1..{covered} only: component proved unbounded for any W ({comp.message}); "
                           f"policy picks only eligible warps checked for W <= {max_w}; projection checked for "
                           f"W <= {max_proj}; larger W are not covered"))


def policy_disagreement(config: SMConfig, policy: Policy, upto: int, dl: Deadline) -> int | None | str:
    """The least W in 1..upto at which ``policy`` (the design's) chooses unlike the reference policy of its name.

    None: it agrees at every such W (checked by SMT, :mod:`verify.frontend.policy_equivalence`); a string:
    why the check is undecided.
    """
    for w in range(1, upto + 1):
        status, why = policy_agrees(config.issue_policy, w, dl.left_ms(), model=policy)
        if dl.expired() or status is Status.UNKNOWN:
            return f"the design's policy against the reference undecided at W = {w} ({why})"
        if status is Status.FAIL:
            return w
    return None


def _unfinished(dl: Deadline, why: str) -> Result:
    """A step the solver did not decide: TIMEOUT past the deadline, UNKNOWN otherwise; never FAIL."""
    return Result(Status.TIMEOUT if dl.expired() else Status.UNKNOWN, "parametric", 0, seconds=dl.elapsed(),
                  message=why)
