"""The every-W model checked against the kit's per-W model: at W warps the quantified step *is* the kit's step.

For one W, the warp sort is interpreted as the integers 0..W-1
(:class:`~warpcheck.encodings.warp_sort.FiniteWarps`) and every per-warp
function of the quantified design and machine reads the kit's own variables
(``w{k}.n``, ``ref.w{k}.q0.cls``, ...).  Then, with Z3, for every state in the
kit's variable ranges and every input the kit assumes:

- *init*: the quantified initial states are the kit's (``FrontEnd.init``,
  ``AnalysisMachine.init``), for every program;
- *choice*: the kit's issued warps satisfy the quantified guards (so the
  quantified step is never empty where the kit steps);
- *unique*: any actions the guards allow are the kit's (a step reads ``g`` and
  ``succ`` only when a warp issues);
- *step*: under the kit's actions every next-state value is the kit's;
- *property*: the quantified ``exact`` of the next states is the kit's ``agree``.

So a proof of the quantified model is a proof of the kit's, at each W checked.
"""
from __future__ import annotations

from typing import Any

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.warp_sort import FiniteWarps
from warpcheck.encodings.z3_algebra import check, term
from warpcheck.models.frontend.checked import Checked
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.swas_every_warp import INSTR, Action, QState
from warpcheck.spec.frontend.analysis_every_warp import SortState
from warpcheck.spec.frontend.issue_reference import AnalysisMachine
from warpcheck.verify.frontend.every_warp import Pair, agree


def kit_design(A: FiniteWarps, pair: Pair, s: dict[str, Any]) -> QState:
    """The kit's design state ``s`` read as a state over the warps 0..W-1."""
    q = QState()
    q.warp = {name: A.reading({k: s[f"w{k}.{name}"] for k in range(A.W)}) for name in pair.design.fields}
    q.shared = {k: s[k] for k in s if k.startswith(("p", "u."))}
    q.shared["ptr"] = s["is.ptr"]
    q.shared.update(_record(A, s, ""))
    return q


def kit_machine(A: FiniteWarps, pair: Pair, s: dict[str, Any]) -> SortState:
    """The kit's analysis machine (``ref.*`` of the product) read as a state over the warps 0..W-1."""
    r, names = SortState(), [f"q{j}.{f}" for j in range(pair.machine.B) for f in INSTR]
    names += ["sb", "susp", "refetch", "wrong", "done"]
    r.warp = {name: A.reading({k: s[f"ref.w{k}.{name}"] for k in range(A.W)}) for name in names}
    r.shared = {k[4:]: s[k] for k in s if k.startswith("ref.u.")}
    r.shared["last"] = s["ref.pol.last"]
    r.shared.update(_record(A, s, "ref."))
    return r


def _record(A: FiniteWarps, s: dict[str, Any], pre: str) -> dict[str, Any]:
    w = s[f"{pre}o.w"]
    return {"o.some": A.le(A.const(0), w), "o.w": w, **{f"o.{f}": s[f"{pre}o.{f}"] for f in INSTR}}


def _same(A: FiniteWarps, mine: QState | SortState, kit: QState | SortState) -> Any:
    """Equal on every field (the record's warp only when a warp issued)."""
    eqs = [A.eq(f(A.const(k)), kit.warp[name](A.const(k))) for name, f in mine.warp.items() for k in range(A.W)]
    for name, v in mine.shared.items():
        same = A.eq(v, kit.shared[name])
        eqs.append(A.implies(mine.shared["o.some"], same) if name == "o.w" else same)
    return A.and_(*eqs)


def _ring_next(A: FiniteWarps, w: Any) -> Any:
    return A.ite(A.eq(w, A.top), A.least, A.add(w, A.const(1)))


def encoding_agrees(pair: Pair, kit: FrontEnd, timeout_ms: int | None = None) -> tuple[bool | None, str]:
    """Whether the quantified design and machine at ``kit.W`` warps are the kit's (None: undecided), and what differs."""
    ts = Checked(kit, AnalysisMachine(kit.c))
    u = Unrolling(ts, "enc.")
    A = FiniteWarps(kit.W, u.A.width)
    s, i, p = u.state(0), u.input(0), u.params
    nxt = ts.step(u.A, s, i)
    prog = {k: A.reading({w: p[f"w{w}.{k}"] for w in range(A.W)}) for k in
            {v.name.split(".", 1)[1] for v in kit.param_vars()}}
    d, r = kit_design(A, pair, s), kit_machine(A, pair, s)
    d2, r2 = kit_design(A, pair, nxt), kit_machine(A, pair, nxt)
    kit_init = ts.init(u.A, p)
    init_ok = A.and_(_same(A, pair.design.init(A, prog), kit_design(A, pair, kit_init)),
                     _same(A, pair.machine.init(A, prog), kit_machine(A, pair, kit_init)))
    g_kit, h_kit = nxt["o.w"], nxt["ref.o.w"]
    chosen = A.ite(d2.shared["o.some"], g_kit, A.least)
    a_kit = Action(d2.shared["o.some"], chosen, _ring_next(A, chosen))
    h = A.ite(r2.shared["o.some"], h_kit, A.least)
    choice_ok = A.and_(pair.design.choice(A, d, a_kit), pair.machine.choice(A, r, r2.shared["o.some"], h))
    a = Action(A.var("enc.a.some", "bool"), A.warp("enc.a.g"), A.warp("enc.a.succ"))
    some_r, h_any = A.var("enc.h.some", "bool"), A.warp("enc.h.w")
    guards = A.and_(pair.design.choice(A, d, a), pair.machine.choice(A, r, some_r, h_any))
    unique = A.implies(guards, A.and_(
        A.eq(a.some, a_kit.some), A.implies(a.some, A.and_(A.eq(a.g, a_kit.g), A.eq(a.succ, a_kit.succ))),
        A.eq(some_r, r2.shared["o.some"]), A.implies(some_r, A.eq(h_any, h))))
    step_ok = A.and_(_same(A, pair.design.step(A, d, i, a_kit), d2),
                     _same(A, pair.machine.step(A, r, i, r2.shared["o.some"], h), r2))
    prop_ok = A.eq(agree(A, d2, r2), ts.agree(u.A, nxt))
    context = [u.domain(0), *[term(v.domain(u.A, i[v.name])) for v in ts.input_vars()],
               *[term(v.domain(u.A, p[v.name])) for v in ts.param_vars()], term(ts.assume(u.A, s, i))]
    for name, claim in (("init", init_ok), ("choice", choice_ok), ("unique", unique), ("step", step_ok), ("property", prop_ok)):
        sol = z3.Solver()
        if timeout_ms is not None:
            sol.set("timeout", timeout_ms)
        sol.add(*context, *A.axioms(), z3.Not(term(claim)))
        r_ = check(sol)
        if r_ == z3.unknown:
            return None, f"{name} undecided at W = {kit.W}"
        if r_ == z3.sat:
            return False, f"{name} differs at W = {kit.W}"
    return True, f"init, choice, unique, step and property equal the kit's at W = {kit.W}"
