"""The certificate of the proof for every W (``prove --all-warps --property exact``): quantified SMT-LIB2.

The proof (``every_warp.py``) is an invariant universally quantified over an
uninterpreted, totally ordered sort ``Warp``; the state holds functions of
warps (a warp's ibuffer entries, its scoreboard, ...).  SMT-LIB2 has no
function-valued arguments, so the certificate names two frames of the state
as declared symbols (``d0.*``, ``r0.*`` the design's and the machine's state
now, ``d1.*``, ``r1.*`` after one step; ``p.*`` the program; ``i.*``, ``a.*``,
``h.*`` the input and both schedulers' choices) and states, over them:

- the system: the order's axioms (asserted), ``init`` (frame 0 is an initial
  state of some program), ``trans`` (frame 1 is one step of frame 0), ``prop``
  (the issue records agree in frame 0), each a ``define-fun`` without arguments;
- the invariant: ``inv``, frame 0's per-warp lemmas for every warp and the
  shared ones (the last of which is ``prop``);
- the obligations: ``initiation`` (``init`` and not ``inv``: unsat), one
  ``consecution.NAME`` per lemma (``inv``, ``trans`` and lemma NAME broken in
  frame 1, at a warp ``w.cti`` for a per-warp lemma: unsat; together: ``inv``
  holds in frame 1, split so that a solver's instantiation finds each),
  ``safety`` (``inv`` and not ``prop``: unsat), ``initial-states`` (``init``:
  sat) and ``non-vacuity`` (``inv``, ``trans`` and a warp issuing: sat).

Every part is the kit's own rebuild: ``warpcheck check`` compares the whole
file but its header with what the kit builds for the configuration it names,
so a lemma dropped or weakened, a transition changed or an obligation dropped is
refused before any solver runs; the solver then decides the obligations.  The
terms are printed by Z3's SMT-LIB2 printer (the same Z3 version prints them
the same), with ``let`` for shared subterms.
"""
from __future__ import annotations

from typing import Any

import z3

from warpcheck.encodings import certificate as cert
from warpcheck.encodings.certificate import Sections
from warpcheck.encodings.warp_sort import WarpSort
from warpcheck.encodings.z3_algebra import term
from warpcheck.models.frontend.swas_every_warp import Action
from warpcheck.verify.frontend.every_warp import (Pair, agree, design_state, input_assumption, inputs, invariant,
                                                  machine_state, program, program_domain, shared_lemmas, warp_lemmas)

LOGIC = "UFLIA"  # functions of an uninterpreted sort into integers and booleans, with quantifiers


def _equal(A: WarpSort, x: Any, y: Any) -> Any:
    """Two states equal: every per-warp function at every warp, every shared value."""
    per = A.forall(lambda w: A.and_(*[A.eq(f(w), y.warp[k](w)) for k, f in x.warp.items()]))
    return A.and_(per, *[A.eq(v, y.shared[k]) for k, v in x.shared.items()])


def _printed(formulas: dict[str, Any], decls: dict[str, str]) -> dict[str, str]:
    """Each formula's SMT-LIB2 text (a tree: their trees are small); ``decls`` gets the symbols they use."""
    return {name: _text(term(f), [], decls) for name, f in formulas.items()}


_OPS = {z3.Z3_OP_AND: "and", z3.Z3_OP_OR: "or", z3.Z3_OP_NOT: "not", z3.Z3_OP_IMPLIES: "=>", z3.Z3_OP_EQ: "=",
        z3.Z3_OP_ITE: "ite", z3.Z3_OP_ADD: "+", z3.Z3_OP_SUB: "-", z3.Z3_OP_LT: "<", z3.Z3_OP_LE: "<=",
        z3.Z3_OP_GT: ">", z3.Z3_OP_GE: ">=", z3.Z3_OP_DISTINCT: "distinct", z3.Z3_OP_MUL: "*", z3.Z3_OP_UMINUS: "-"}


def _text(t: z3.ExprRef, bound: list[str], decls: dict[str, str]) -> str:
    """``t`` printed by the kit (Z3's own printer names shared subterms after its term ids, which depend on what
    the process built before; this text depends on the term alone).  ``bound``: the names of the variables bound
    around ``t``, innermost last."""
    if z3.is_quantifier(t):
        names = [f"{t.var_name(k)}" for k in range(t.num_vars())]
        head = " ".join(f"({n} {t.var_sort(k).sexpr()})" for k, n in enumerate(names))
        word = "forall" if t.is_forall() else "exists"
        return f"({word} ({head}) {_text(t.body(), bound + names, decls)})"
    if z3.is_var(t):
        return bound[-1 - z3.get_var_index(t)]
    if z3.is_true(t) or z3.is_false(t):
        return "true" if z3.is_true(t) else "false"
    if z3.is_int_value(t):
        v = t.as_long()
        return str(v) if v >= 0 else f"(- {-v})"
    kind, args = t.decl().kind(), [_text(c, bound, decls) for c in t.children()]
    if kind == z3.Z3_OP_UNINTERPRETED:
        f = t.decl()
        domain = " ".join(f.domain(k).sexpr() for k in range(f.arity()))
        decls.setdefault(f.name(), f"(declare-fun {f.name()} ({domain}) {f.range().sexpr()})")
        return f"({f.name()} {' '.join(args)})" if args else f.name()
    if kind not in _OPS:
        raise ValueError(f"the certificate's printer does not know {t.decl().name()!r}")
    return f"({_OPS[kind]} {' '.join(args)})"


def sections(pair: Pair) -> Sections:
    """The system's text, the invariant's (the kit's, whole), the obligations' and their names and answers."""
    A = WarpSort()
    p = program(A, pair, "p")
    s0, r0, s1, r1 = design_state(A, pair, "d0"), machine_state(A, pair, "r0"), design_state(A, pair, "d1"), \
        machine_state(A, pair, "r1")
    i = inputs(A, "i")
    a = Action(A.var("a.some", "bool"), A.warp("a.g"), A.warp("a.succ"))
    some_r, h = A.var("h.some", "bool"), A.warp("h.w")
    init = A.and_(program_domain(A, pair, p), _equal(A, s0, pair.design.init(A, p)),
                  _equal(A, r0, pair.machine.init(A, p)))
    trans = A.and_(input_assumption(A, i), pair.design.choice(A, s0, a), pair.machine.choice(A, r0, some_r, h),
                   _equal(A, s1, pair.design.step(A, s0, i, a)), _equal(A, r1, pair.machine.step(A, r0, i, some_r, h)))
    w = A.warp("w.cti")
    after = {**warp_lemmas(A, pair, s1, r1, w), **shared_lemmas(A, pair, s1, r1)}
    decls: dict[str, str] = {}
    text = _printed({"init": init, "trans": trans, "prop": agree(A, s0, r0), "inv": invariant(A, pair, s0, r0),
                     **{f"next.{n}": f for n, f in after.items()}}, decls)
    ax = [f"(assert {_text(x, [], decls)})" for x in A.axioms()]
    system = [cert.SYSTEM, f"(set-logic {LOGIC})", "(declare-sort Warp 0)", *sorted(decls.values()), *ax,
              *[f"(define-fun {n} () Bool\n {text[n]})" for n in ("init", "trans", "prop")]]
    checks = _checks(text, list(after))
    lines = [cert.OBLIGATIONS]
    for name, what, answer, asserts in checks:
        lines += [f"; obligation {name}: {what}? must be {answer}", "(push 1)", *[f"(assert {x})" for x in asserts],
                  f"(set-info :status {answer})", "(check-sat)", "(pop 1)"]
    return Sections("\n".join(system), f"(define-fun inv () Bool\n {text['inv']})", "\n".join(lines + ["(exit)"]),
                    tuple(c[0] for c in checks), tuple(c[2] for c in checks), exact_invariant=True, logic=LOGIC)


def _checks(text: dict[str, str], lemmas: list[str]) -> list[tuple[str, str, str, list[str]]]:
    """Each obligation: its name, what it asks, the answer it must give, what it asserts."""
    step = [(f"consecution.{n}", f"a step from inv that breaks {n}", "unsat",
             ["inv", "trans", f"(not {text[f'next.{n}']})"]) for n in lemmas]
    return [("initiation", "an initial state outside inv", "unsat", ["init", "(not inv)"]), *step,
            ("safety", "a state of inv that violates prop", "unsat", ["inv", "(not prop)"]),
            ("initial-states", "an initial state", "sat", ["init"]),
            ("non-vacuity", "a state of inv and a step from it in which a warp issues", "sat",
             ["inv", "trans", "a.some"])]
