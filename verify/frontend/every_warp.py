"""``exact`` on SWaS for every number of warps: one inductive invariant over a warp sort, checked in EPR.

The design (``models/frontend/swas_every_warp.py``) and the static analysis
machine (``spec/frontend/analysis_every_warp.py``) run side by side over an
uninterpreted sort of warps, strictly and totally ordered by axioms.  The
invariant is universally quantified over the warps: for every warp w, the
design's per-warp facts (occupancy, pending, empty slots, ranges) and its
link to the machine (scoreboard, suspension, refetch, wrong path, exit, and
the machine's items = the design's ibuffer followed by its fetch-pipe slots),
plus the link of the pointers, of the units and of the issue records.

Two checks, each the unsatisfiability of an exists-forall formula (EPR over
the warps; the integers appear only as values of functions of warps):

- *initiation*: the initial states (any program) satisfy the invariant;
- *consecution*: the invariant, one step of each (their choices being action
  parameters constrained by universally quantified guards) and the negated
  invariant of the next states.

Both unsat: for every finite W >= 1 every reachable state satisfies the
invariant, whose last conjunct is the property (the issue records agree).  A
satisfiable check has a model with at most as many warps as the formula has
warp constants (the small-model property of EPR): :func:`prove_every_warp`
reports that W, and ``bmc_every_warp`` searches a run from the initial state
for the W at which a design breaks.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import z3

from warpcheck.encodings.warp_sort import WarpSort
from warpcheck.encodings.z3_algebra import Sym, check, term
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.swas_every_warp import (INSTR, SORT_POLICIES, Action, QState, SortPolicy, SwasEveryWarp,
                                                       ring_successor)
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES
from warpcheck.spec.frontend.analysis_every_warp import RANK_POLICIES, AnalysisEveryWarp, SortState

POLICIES_EVERY_W = tuple(SORT_POLICIES)
# how the design's pointer reads in the machine's state (the same links Houdini keeps per W)
POINTER_LINKS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "gtlrr": lambda A, ptr, last: A.eq(ptr, last),
    "gtlo": lambda A, ptr, last: A.eq(ptr, last),
    "lrr": lambda A, ptr, last: ring_successor(A, last, ptr),
}


@dataclass(frozen=True)
class Pair:
    """The design and the machine for one configuration (their policies given, or the configuration's)."""

    design: SwasEveryWarp
    machine: AnalysisEveryWarp
    link: Callable[[Any, Any, Any], Any]

    @staticmethod
    def of(config: SMConfig, policy: SortPolicy | None = None) -> "Pair":
        name = config.issue_policy
        return Pair(SwasEveryWarp(config, policy), AnalysisEveryWarp(config, RANK_POLICIES[name]), POINTER_LINKS[name])


# -- states, inputs, parameters over the sort ---------------------------------------------------
def design_state(A: Any, pair: Pair, tag: str) -> QState:
    d, s = pair.design, QState()
    s.warp = {k: A.per_warp(f"{tag}.{k}", kind) for k, (kind, _, _) in d.fields.items()}
    for k in range(d.P):
        s.shared.update({f"p{k}.v": A.var(f"{tag}.p{k}.v", "bool"), f"p{k}.w": A.warp(f"{tag}.p{k}.w"),
                         f"p{k}.cls": A.var(f"{tag}.p{k}.cls", "int"), f"p{k}.dep": A.var(f"{tag}.p{k}.dep", "bool"),
                         f"p{k}.tk": A.var(f"{tag}.p{k}.tk", "bool")})
    s.shared["ptr"] = A.warp(f"{tag}.ptr")
    s.shared.update({f"u.{c}": A.var(f"{tag}.u.{c}", "int") for c in d.c.unpipelined})
    s.shared.update(_record(A, f"{tag}.o"))
    return s


def machine_state(A: Any, pair: Pair, tag: str) -> SortState:
    m, r = pair.machine, SortState()
    for j in range(m.B):
        r.warp.update({f"q{j}.{f}": A.per_warp(f"{tag}.q{j}.{f}", "int" if f == "cls" else "bool") for f in INSTR})
    r.warp.update({k: A.per_warp(f"{tag}.{k}", kind) for k, kind in
                   (("sb", "int"), ("susp", "int"), ("refetch", "bool"), ("wrong", "bool"), ("done", "bool"))})
    r.shared.update({f"u.{c}": A.var(f"{tag}.u.{c}", "int") for c in m.c.unpipelined})
    r.shared["last"] = A.warp(f"{tag}.last")
    r.shared.update(_record(A, f"{tag}.o"))
    return r


def _record(A: Any, tag: str) -> dict[str, Any]:
    return {"o.some": A.var(f"{tag}.some", "bool"), "o.w": A.warp(f"{tag}.w"), "o.cls": A.var(f"{tag}.cls", "int"),
            "o.dep": A.var(f"{tag}.dep", "bool"), "o.tk": A.var(f"{tag}.tk", "bool")}


def program(A: Any, pair: Pair, tag: str) -> dict[str, Any]:
    """The warps' first instructions: per-warp functions (the solver's choice)."""
    return {f"b{j}.{f}": A.per_warp(f"{tag}.b{j}.{f}", "int" if f == "cls" else "bool")
            for j in range(pair.design.B) for f in INSTR}


def program_domain(A: Any, pair: Pair, p: dict[str, Any]) -> Any:
    return A.forall(lambda w: A.and_(*[A.and_(A.le(A.const(0), p[f"b{j}.cls"](w)),
                                               A.lt(p[f"b{j}.cls"](w), A.const(len(CLASSES))))
                                       for j in range(pair.design.B)]))


def inputs(A: Any, tag: str) -> dict[str, Any]:
    return {"f.cls": A.var(f"{tag}.cls", "int"), "f.dep": A.var(f"{tag}.dep", "bool"),
            "f.tk": A.var(f"{tag}.tk", "bool"), "f.hit": A.var(f"{tag}.hit", "bool")}


def input_assumption(A: Any, i: dict[str, Any]) -> Any:
    """The kit's: only branches are taken, the stream holds no NOP of the design's own, classes in range."""
    return A.and_(A.le(A.const(0), i["f.cls"]), A.lt(i["f.cls"], A.const(len(CLASSES))),
                  A.implies(i["f.tk"], A.eq(i["f.cls"], A.const(CLASS_INDEX["branch"]))),
                  A.ne(i["f.cls"], A.const(CLASS_INDEX["nop"])))


# -- the invariant ------------------------------------------------------------------------------
def design_queue(A: Any, pair: Pair, s: QState, w: Any) -> list[dict[str, Any]]:
    """The design's items of warp w in issue order: its ibuffer, then its fetch-pipe slots, oldest first."""
    d = pair.design
    older, slots = A.const(0), []
    for k in reversed(range(d.P)):
        x = d.slot(s, k)
        mine = A.and_(x["v"], A.eq(x["w"], w))
        slots.append((mine, A.add(s.warp["n"](w), older), x))
        older = A.add(older, A.ite(mine, A.const(1), A.const(0)))
    out = []
    for j in range(d.B):
        e = d.nop(A)
        for mine, pos, x in slots:
            e = d.pick(A, A.and_(mine, A.eq(pos, A.const(j))), {f: x[f] for f in INSTR}, e)
        out.append(d.pick(A, A.lt(A.const(j), s.warp["n"](w)), d.entry(s, j, w), e))
    return out


def warp_lemmas(A: Any, pair: Pair, s: QState, r: SortState, w: Any) -> dict[str, Any]:
    """Every lemma about warp w: the design's facts, the machine's ranges, the link of the two."""
    out = {**pair.design.lemmas(A, s, w), **{f"ref.{k}": v for k, v in pair.machine.ranges(A, r, w).items()}}
    for mine, theirs in (("sb", "sb"), ("miss", "susp"), ("refetch", "refetch"), ("pend", "wrong"), ("done", "done")):
        out[f"link.{theirs}"] = A.eq(s.warp[mine](w), r.warp[theirs](w))
    for j, e in enumerate(design_queue(A, pair, s, w)):
        out[f"link.q{j}"] = A.and_(*[A.eq(e[f], r.warp[f"q{j}.{f}"](w)) for f in INSTR])
    return out


def agree(A: Any, s: QState, r: SortState) -> Any:
    """The property ``exact``: the issue records are equal (the warp, when one issues, and the instruction)."""
    d, m = s.shared, r.shared
    return A.and_(A.eq(d["o.some"], m["o.some"]), A.implies(d["o.some"], A.eq(d["o.w"], m["o.w"])),
                  *[A.eq(d[f"o.{f}"], m[f"o.{f}"]) for f in INSTR])


def shared_lemmas(A: Any, pair: Pair, s: QState, r: SortState) -> dict[str, Any]:
    out = dict(pair.design.shared_lemmas(A, s))
    out["link.ptr"] = pair.link(A, s.shared["ptr"], r.shared["last"])
    out.update({f"link.u.{c}": A.eq(s.shared[f"u.{c}"], r.shared[f"u.{c}"]) for c in pair.design.c.unpipelined})
    out["agree"] = agree(A, s, r)
    return out


def invariant(A: Any, pair: Pair, s: QState, r: SortState) -> Any:
    """For every warp its lemmas, and the shared ones."""
    per = A.forall(lambda w: A.and_(*warp_lemmas(A, pair, s, r, w).values()))
    return A.and_(per, *shared_lemmas(A, pair, s, r).values())


# -- the checks ---------------------------------------------------------------------------------
@dataclass
class Check:
    """One EPR check: its name, its answer and, when satisfiable, the number of warps of its model."""

    name: str
    answer: str  # "unsat", "sat", "unknown"
    warps: int | None = None
    seconds: float = 0.0
    failed: list[str] | None = None  # for a sat consecution: the lemmas the model's next state breaks


def _solver(A: WarpSort, timeout_ms: int | None) -> z3.Solver:
    s = z3.Solver()
    s.set("smt.mbqi", True)
    if timeout_ms is not None:
        s.set("timeout", timeout_ms)
    return s


def initiation(pair: Pair, timeout_ms: int | None = None) -> Check:
    """The initial states of the design and the machine (one program) satisfy the invariant."""
    A = WarpSort()
    p = program(A, pair, "p")
    s, r = pair.design.init(A, p), pair.machine.init(A, p)
    return _run("initiation", A, [program_domain(A, pair, p), A.not_(invariant(A, pair, s, r))], timeout_ms)


def consecution(pair: Pair, timeout_ms: int | None = None, explain: bool = True) -> Check:
    """The invariant, one step of each (same input) and the negated invariant of the next states: unsat."""
    A = WarpSort()
    s, r, i = design_state(A, pair, "d"), machine_state(A, pair, "r"), inputs(A, "i")
    a = Action(A.var("a.some", "bool"), A.warp("a.g"), A.warp("a.succ"))
    some_r, h = A.var("h.some", "bool"), A.warp("h.w")
    s2, r2 = pair.design.step(A, s, i, a), pair.machine.step(A, r, i, some_r, h)
    facts = [invariant(A, pair, s, r), input_assumption(A, i), pair.design.choice(A, s, a),
             pair.machine.choice(A, r, some_r, h)]
    out = _run("consecution", A, facts + [A.not_(invariant(A, pair, s2, r2))], timeout_ms)
    if out.answer == "sat" and explain:
        out.failed = _broken(A, pair, facts, s2, r2, timeout_ms)
    return out


def _broken(A: WarpSort, pair: Pair, facts: list[Any], s2: QState, r2: SortState,
            timeout_ms: int | None) -> list[str]:
    """The names of the next-state lemmas that a model of the step breaks (what to refine)."""
    names = []
    w = A.warp("cti.w")
    lemmas = {**warp_lemmas(A, pair, s2, r2, w), **shared_lemmas(A, pair, s2, r2)}
    for name, lemma in lemmas.items():
        if _run(name, A, facts + [A.not_(lemma)], timeout_ms).answer == "sat":
            names.append(name)
    return names


def _run(name: str, A: WarpSort, formulas: list[Any], timeout_ms: int | None) -> Check:
    t0 = time.monotonic()
    s = _solver(A, timeout_ms)
    s.add(*A.axioms(), *[term(f) for f in formulas])
    r = check(s)
    warps = len(A.warps_of(s.model())) if r == z3.sat else None
    return Check(name, str(r), warps, time.monotonic() - t0)


def consistency(pair: Pair, timeout_ms: int | None = None) -> Check:
    """The hypotheses of consecution are satisfiable (answer ``sat``): its unsat is not vacuous."""
    A = WarpSort()
    s, r, i = design_state(A, pair, "d"), machine_state(A, pair, "r"), inputs(A, "i")
    a = Action(A.var("a.some", "bool"), A.warp("a.g"), A.warp("a.succ"))
    some_r, h = A.var("h.some", "bool"), A.warp("h.w")
    facts = [invariant(A, pair, s, r), input_assumption(A, i), pair.design.choice(A, s, a),
             pair.machine.choice(A, r, some_r, h), a.some]  # and some warp issues
    return _run("consistency", A, facts, timeout_ms)


# -- a run from the initial state, for a design that breaks ---------------------------------------
@dataclass
class Run:
    """A violating run read off a model of the bounded check: its W, program and inputs (kit names)."""

    warps: int
    params: dict[str, Any]
    inputs: list[dict[str, Any]]
    frame: int  # the state whose records differ


def _fix(A: WarpSort, s: QState | SortState, tag: str, facts: list[Any]) -> None:
    """Give each per-warp function of ``s`` a name of its own (so that steps do not nest)."""
    for name, fn in list(s.warp.items()):
        kind = "bool" if z3.is_bool(term(fn(A.least))) else "int"
        new = A.per_warp(f"{tag}.{name}", kind)
        facts.append(A.forall(lambda w, new=new, fn=fn: A.eq(new(w), fn(w))))
        s.warp[name] = new


def bmc_every_warp(pair: Pair, depth: int, timeout_ms: int | None = None) -> Run | None | str:
    """The shortest run (up to ``depth`` cycles) whose records differ, for any W; None: none; a string: undecided."""
    A = WarpSort()
    p = program(A, pair, "p")
    s, r = pair.design.init(A, p), pair.machine.init(A, p)
    facts: list[Any] = [program_domain(A, pair, p)]
    ins = []
    sol = _solver(A, timeout_ms)
    sol.add(*A.axioms())
    for t in range(depth):
        i = inputs(A, f"i{t}")
        a = Action(A.var(f"a{t}.some", "bool"), A.warp(f"a{t}.g"), A.warp(f"a{t}.succ"))
        some_r, h = A.var(f"h{t}.some", "bool"), A.warp(f"h{t}.w")
        facts += [input_assumption(A, i), pair.design.choice(A, s, a), pair.machine.choice(A, r, some_r, h)]
        s, r = pair.design.step(A, s, i, a), pair.machine.step(A, r, i, some_r, h)
        _fix(A, s, f"d{t + 1}", facts)
        _fix(A, r, f"r{t + 1}", facts)
        ins.append(i)
        sol.add(*[term(f) for f in facts], *A.axioms())
        facts = []
        got = check(sol, z3.Not(term(agree(A, s, r))))
        if got == z3.unknown:
            return f"the bounded check undecided at depth {t + 1} ({sol.reason_unknown()})"
        if got == z3.sat:
            return _read_run(A, sol.model(), p, ins, t + 1)
    return None


def _read_run(A: WarpSort, model: z3.ModelRef, p: dict[str, Any], ins: list[dict[str, Any]], frame: int) -> Run:
    """The model's program and inputs under the kit's names, its warps numbered in their order."""
    warps = A.warps_of(model)
    val = lambda x: model.eval(term(x), model_completion=True)
    py = lambda v: z3.is_true(v) if z3.is_bool(v) else v.as_long()
    params = {f"w{k}.{name}": py(val(fn(Sym(e)))) for name, fn in p.items() for k, e in enumerate(warps)}
    inputs_ = [{k: py(val(v)) for k, v in i.items()} for i in ins]
    return Run(len(warps), params, inputs_, frame)
