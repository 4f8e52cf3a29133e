"""A proof problem as SMT-LIB2 scripts (QF_BV) any solver reads: the BMC unrolling and the k-induction obligations.

One step of the system is built once as a netlist (``encodings.netlist``) and
printed once per frame, its nodes as ``define-fun`` (shared subterms stay
shared), its state and input variables declared per frame, as the engines'
``Unrolling`` does: frame t+1 equals the step of frame t, the inputs lie in
their ranges and satisfy the model's assumption.

Each script ends in one ``(check-sat)``; *unsat* is what a proof needs:

- ``bmc``: a violation within ``k`` cycles of an initial state (sat: FAIL);
- ``lemmas-init`` / ``lemmas-step``: the lemmas hold initially / are preserved by one step;
- ``step``: ``k`` states on which the property and the lemmas hold, all
  distinct, and a successor that violates the property.

The induction scripts (``lemmas-step``, ``step``) first ask a non-vacuity
``(check-sat)`` that must answer *sat*: their assumptions (the lemmas on every
frame, the steps, the property before the last frame) have a model, so the
final *unsat* is not that of contradictory assumptions.  Each ``check-sat``
is preceded by ``(set-info :status ...)`` naming the answer it must give.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from warpcheck.encodings.netlist import Net, NetAlgebra
from warpcheck.models.ts import TransitionSystem

Pred = Callable[[Any, dict], Any]
_OPS = {"add": "bvadd", "sub": "bvsub", "eq": "=", "slt": "bvslt", "and": "and", "or": "or", "not": "not",
        "ite": "ite"}


class Script:
    """One SMT-LIB2 script over frames of a system; ``holds(pred, t)`` and friends give terms of frame t."""

    def __init__(self, ts: TransitionSystem, width: int, title: str) -> None:
        self.ts, self.A, self.width = ts, NetAlgebra(width), width
        A = self.A
        self.sv, self.iv, self.pv = ts.state_vars(), ts.input_vars(), ts.param_vars()
        self.s = {v.name: A.var(f"s.{v.name}", v.kind) for v in self.sv}
        self.i = {v.name: A.var(f"i.{v.name}", v.kind) for v in self.iv}
        self.p = {v.name: A.var(f"p.{v.name}", v.kind) for v in self.pv}
        self.lines = ["(set-logic QF_BV)", f"(set-info :source |{title}|)"]
        self.defined: set[tuple[int, int]] = set()
        self.frames = 0
        for v in self.pv:
            self.lines.append(f"(declare-fun |p.{v.name}| () {self._sort(v.kind)})")

    # -- printing ------------------------------------------------------------
    def _sort(self, kind: str) -> str:
        return "Bool" if kind in ("bool",) else f"(_ BitVec {self.width})"

    def _lit(self, x: Any) -> str:
        if isinstance(x, bool):
            return "true" if x else "false"
        return f"(_ bv{x % (1 << self.width)} {self.width})"

    def _name(self, k: int, t: int) -> str:
        op, _, *args = self.A.nodes[k]
        if op == "var":
            prefix, _, name = args[0].partition(".")
            return f"|p.{name}|" if prefix == "p" else f"|{args[0]}@{t}|"
        if op == "const":
            return self._lit(args[0])
        return f"|n{k}@{t}|"

    def term(self, x: Any, t: int) -> str:
        """The SMT-LIB2 term of a netlist value at frame ``t`` (defining its nodes first)."""
        if not isinstance(x, Net):
            return self._lit(x)
        self.frame(t)
        stack = [(x.t, False)]
        while stack:
            k, ready = stack.pop()
            op, sort, *args = self.A.nodes[k]
            if op in ("var", "const") or (k, t) in self.defined:
                continue
            if not ready:
                stack.append((k, True))
                stack += [(a, False) for a in args]
                continue
            self.defined.add((k, t))
            body = f"({_OPS[op]} {' '.join(self._name(a, t) for a in args)})"
            self.lines.append(f"(define-fun |n{k}@{t}| () {self._sort(sort)} {body})")
        return self._name(x.t, t)

    def frame(self, t: int) -> None:
        """Declare the state and input variables of frames up to ``t``."""
        while self.frames <= t:
            f = self.frames
            self.lines += [f"(declare-fun |s.{v.name}@{f}| () {self._sort(v.kind)})" for v in self.sv]
            self.lines += [f"(declare-fun |i.{v.name}@{f}| () {self._sort(v.kind)})" for v in self.iv]
            self.frames += 1

    def add(self, x: Any, t: int) -> None:
        """Assert a boolean netlist value at frame ``t``."""
        self.lines.append(f"(assert {self.term(x, t)})")

    # -- the unrolling -------------------------------------------------------
    def init(self) -> None:
        """Frame 0 is an initial state (parameters in their ranges)."""
        A = self.A
        for v in self.pv:
            self.add(v.domain(A, self.p[v.name]), 0)
        start = self.ts.init(A, self.p)
        self.add(A.and_(*[A.eq(self.s[v.name], start[v.name]) for v in self.sv]), 0)

    def trans(self, t: int) -> None:
        """Frame t+1 is the step of frame t under allowed inputs."""
        A, nxt = self.A, self.ts.step(self.A, self.s, self.i)
        self.add(A.and_(*[v.domain(A, self.i[v.name]) for v in self.iv], self.ts.assume(A, self.s, self.i)), t)
        self.frame(t + 1)
        for v in self.sv:
            self.lines.append(f"(assert (= |s.{v.name}@{t + 1}| {self.term(nxt[v.name], t)}))")

    def holds(self, pred: Pred, t: int) -> str:
        return self.term(pred(self.A, self.s), t)

    def distinct(self, t: int, u: int) -> str:
        return "(or false " + " ".join(f"(distinct |s.{v.name}@{t}| |s.{v.name}@{u}|)" for v in self.sv) + ")"

    def nonvacuous(self) -> None:
        """A ``(check-sat)`` that must answer sat: the assertions so far have a model."""
        self.lines += ["; non-vacuity: the assumptions above have a model (must be sat)",
                       "(set-info :status sat)", "(check-sat)"]

    def text(self, status: str = "unsat") -> str:
        return "\n".join([*self.lines, f"(set-info :status {status})", "(check-sat)", "(exit)"]) + "\n"


def bmc(ts: TransitionSystem, prop: Pred, k: int, width: int, title: str = "warpcheck bmc") -> str:
    """Sat exactly when ``prop`` is violated within ``k`` cycles of an initial state."""
    s = Script(ts, width, f"{title}: a violation within {k} cycles?")
    s.init()
    for t in range(k):
        s.trans(t)
    bad = [f"(not {s.holds(prop, t)})" for t in range(k + 1)]
    s.lines.append(f"(assert (or {' '.join(bad)}))" if len(bad) > 1 else f"(assert {bad[0]})")
    return s.text("unknown")  # sat: a FAIL; unsat: none within k cycles


def _all(s: Script, lemmas: Sequence[Pred], t: int) -> str:
    terms = [s.holds(p, t) for p in lemmas]
    return "true" if not terms else terms[0] if len(terms) == 1 else f"(and {' '.join(terms)})"


def lemmas_init(ts: TransitionSystem, lemmas: Sequence[Pred], width: int, title: str = "warpcheck") -> str:
    """Unsat exactly when every lemma holds in every initial state."""
    s = Script(ts, width, f"{title}: a lemma false initially?")
    s.init()
    s.lines.append(f"(assert (not {_all(s, lemmas, 0)}))")
    return s.text()


def lemmas_step(ts: TransitionSystem, lemmas: Sequence[Pred], width: int, title: str = "warpcheck") -> str:
    """Unsat exactly when the lemmas together are preserved by every step."""
    s = Script(ts, width, f"{title}: a step that breaks a lemma?")
    s.lines.append(f"(assert {_all(s, lemmas, 0)})")
    s.trans(0)
    s.nonvacuous()
    s.lines.append(f"(assert (not {_all(s, lemmas, 1)}))")
    return s.text()


def step(ts: TransitionSystem, prop: Pred, k: int, lemmas: Sequence[Pred], width: int,
         title: str = "warpcheck") -> str:
    """Unsat exactly when the property is ``k``-inductive (simple paths, strengthened by the lemmas)."""
    s = Script(ts, width, f"{title}: {k}-induction step case")
    for t in range(k + 1):
        s.frame(t)
        s.lines.append(f"(assert {_all(s, lemmas, t)})")
        s.lines += [f"(assert {s.distinct(u, t)})" for u in range(t)]
        if t < k:
            s.trans(t)
            s.lines.append(f"(assert {s.holds(prop, t)})")
    s.nonvacuous()
    s.lines.append(f"(assert (not {s.holds(prop, k)}))")
    return s.text()
