"""A proof's certificate as one SMT-LIB2 script (QF_BV) that any solver checks without the kit.

The script states a transition system as three functions over its variables
(``init`` of the parameters and a state, ``trans`` of a state, an input and
the next state, ``prop`` of a state), an inductive invariant as one function
``inv`` of a state (the proved lemmas and the property), and the obligations,
each its own ``(check-sat)`` between ``push`` and ``pop``, preceded by a
comment naming it and the answer it must give:

- ``initiation``: an initial state outside ``inv`` (must be unsat);
- ``consecution``: a step from ``inv`` to a state outside it (must be unsat);
- ``safety``: a state of ``inv`` that violates ``prop`` (must be unsat);
- ``initial-states``: an initial state exists (must be sat);
- ``non-vacuity``: a state of ``inv`` with a step (must be sat), so that the
  unsat answers above are not those of an empty ``inv`` or an empty ``trans``.

A k-inductive proof (k > 1: the engine's step case needed k states of the
property before the next) gets the same five checks over k steps, and a header
line ``; induction: k = K``: ``base`` (a run of k - 1 steps from an initial
state leaves ``inv`` in one of its k states), ``step`` (k steps through
pairwise distinct states, ``inv`` on the first k, to a state outside ``inv``:
the simple-path rule of k-induction, sound because a shortest run to a state
outside ``inv`` visits no state twice), ``safety``, ``initial-states`` and
``non-vacuity`` (k steps through distinct states of ``inv``).

Integers are signed bit-vectors of one width, as in the engines' unrolling
(``encodings.unroll``) and the SMT-LIB2 export (``encodings.smt2``).  The
system and the obligations depend on the system alone: :func:`sections` gives
them, so a checker rebuilds them and compares; only ``inv`` is the proof's own.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from warpcheck.encodings.netlist import Net, NetAlgebra
from warpcheck.models.ts import TransitionSystem, Var

Pred = Callable[[Any, dict], Any]
FORMAT = "warpcheck certificate 1"
SYSTEM = "; -- the system: init, trans, prop"
INVARIANT = "; -- the invariant: the proved lemmas and the property"
OBLIGATIONS = "; -- the obligations: each (check-sat) must give the answer its comment names"
# (name, what it asks, the answer it must give, the assertions: (negated, function, frames))
_CHECKS = (("initiation", "an initial state outside inv", "unsat",
            ((False, "init", ("P", "S0")), (True, "inv", ("S0",)))),
           ("consecution", "a step from inv to a state outside it", "unsat",
            ((False, "inv", ("S0",)), (False, "trans", ("S0", "I0", "S1")), (True, "inv", ("S1",)))),
           ("safety", "a state of inv that violates prop", "unsat", ((False, "inv", ("S0",)), (True, "prop", ("S0",)))),
           ("initial-states", "an initial state", "sat", ((False, "init", ("P", "S0")),)),
           ("non-vacuity", "a state of inv and a step from it", "sat",
            ((False, "inv", ("S0",)), (False, "trans", ("S0", "I0", "S1")))))
OBLIGATION_NAMES = tuple(c[0] for c in _CHECKS)  # a 1-inductive certificate's; obligation_names(k) for any k
EXPECTED = tuple(c[2] for c in _CHECKS)  # the answer each must give, whatever k
K_LINE = "; induction: k = "  # the header line of a k-inductive certificate (k > 1)
MAX_K = 64
_OPS = {"add": "bvadd", "sub": "bvsub", "eq": "=", "slt": "bvslt", "and": "and", "or": "or", "not": "not",
        "ite": "ite"}


@dataclass(frozen=True)
class Sections:
    """What a certificate of a system must hold but its header: the system's text, the invariant's (its
    ``define-fun`` head, or with ``exact_invariant`` its whole text: the kit's own), the obligations' text and
    their names in order (each answers as :data:`EXPECTED`-like ``answers`` say)."""

    system: str
    invariant: str
    obligations: str
    names: tuple[str, ...]
    answers: tuple[str, ...]
    exact_invariant: bool = False
    logic: str = "QF_BV"


def sections_of(ts: TransitionSystem, prop: Pred, width: int, k: int = 1) -> Sections:
    """:func:`sections` as a :class:`Sections` (the invariant's head only: the invariant is the proof's own)."""
    system, head, obligations = sections(ts, prop, width, k)
    return Sections(system, head, obligations, obligation_names(k), EXPECTED)


def assemble(header: Sequence[str], system: str, inv: str, obligations: str) -> str:
    """The file: the format line, ``header`` (comment lines without their ``;``), the three sections."""
    head = [f"; {FORMAT}", *[f"; {line}" for line in header]]
    return "\n".join([*head, system, INVARIANT, inv, obligations]) + "\n"


def _sort(kind: str, width: int) -> str:
    return "Bool" if kind in ("bool",) else f"(_ BitVec {width})"


def _lit(x: Any, width: int) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    return f"(_ bv{x % (1 << width)} {width})"


def define_fun(A: NetAlgebra, name: str, args: Sequence[tuple[str, str]], root: Any) -> str:
    """``(define-fun name (args) Bool body)``: ``args`` are (netlist variable name, kind); the body's shared
    nodes are bound by one ``let`` per level of the graph (operands in earlier levels), so nothing is repeated."""
    params = " ".join(f"(|{n}| {_sort(k, A.width)})" for n, k in args)
    head = f"(define-fun {name} ({params}) Bool "
    if not isinstance(root, Net):
        return head + _lit(root, A.width) + ")"
    allowed, level = {n for n, _ in args}, _levels(A, root.t)

    def ref(k: int) -> str:
        op, _, *xs = A.nodes[k]
        if op == "var":
            if xs[0] not in allowed:
                raise ValueError(f"{name} reads {xs[0]!r}, which is not one of its arguments")
            return f"|{xs[0]}|"
        return _lit(xs[0], A.width) if op == "const" else f"|n{k}|"
    by_level: dict[int, list[int]] = {}
    for k, lv in level.items():
        by_level.setdefault(lv, []).append(k)
    lets = []
    for lv in sorted(by_level):
        binds = " ".join(f"(|n{k}| ({_OPS[A.nodes[k][0]]} {' '.join(ref(a) for a in A.nodes[k][2:])}))"
                         for k in sorted(by_level[lv]))
        lets.append(f"(let ({binds})")
    return head + "\n  ".join(lets) + f"\n  {ref(root.t)}" + ")" * len(lets) + ")"


def _levels(A: NetAlgebra, root: int) -> dict[int, int]:
    """The operation nodes below ``root``, each with its level: 1 + the highest level of its operands."""
    level: dict[int, int] = {}
    stack = [(root, False)]
    while stack:
        k, ready = stack.pop()
        op, _, *xs = A.nodes[k]
        if op in ("var", "const") or k in level:
            continue
        if not ready:
            stack.append((k, True))
            stack += [(a, False) for a in xs if a not in level]
            continue
        level[k] = 1 + max((level.get(a, 0) for a in xs), default=0)
    return level


class _Vars:
    """The netlist variables of one system: parameters p., state s., inputs i., next state n."""

    def __init__(self, ts: TransitionSystem, A: NetAlgebra) -> None:
        self.sv, self.iv, self.pv = ts.state_vars(), ts.input_vars(), ts.param_vars()
        self.p, self.s, self.i, self.n = ({v.name: A.var(f"{t}.{v.name}", v.kind) for v in vs}
                                          for t, vs in (("p", self.pv), ("s", self.sv), ("i", self.iv), ("n", self.sv)))

    def args(self, tag: str) -> list[tuple[str, str]]:
        vs = {"p": self.pv, "s": self.sv, "i": self.iv, "n": self.sv}[tag]
        return [(f"{tag}.{v.name}", v.kind) for v in vs]


def sections(ts: TransitionSystem, prop: Pred, width: int, k: int = 1) -> tuple[str, str, str]:
    """The system's text, the head every ``inv`` must have, and the obligations' text of a ``k``-inductive proof."""
    A = NetAlgebra(width)
    V = _Vars(ts, A)
    start, nxt = ts.init(A, V.p), ts.step(A, V.s, V.i)
    init = A.and_(*[v.domain(A, V.p[v.name]) for v in V.pv], *[A.eq(V.s[v.name], start[v.name]) for v in V.sv])
    trans = A.and_(*[v.domain(A, V.i[v.name]) for v in V.iv], ts.assume(A, V.s, V.i),
                   *[A.eq(V.n[v.name], nxt[v.name]) for v in V.sv])
    system = [SYSTEM, "(set-logic QF_BV)",
              define_fun(A, "init", V.args("p") + V.args("s"), init),
              define_fun(A, "trans", V.args("s") + V.args("i") + V.args("n"), trans),
              define_fun(A, "prop", V.args("s"), prop(A, V.s))]
    inv_head = define_fun(A, "inv", V.args("s"), True)[: -len("true)")]
    if k == 1:
        return "\n".join(system), inv_head, _obligations(V, width)
    same = define_fun(A, "same", V.args("s") + V.args("n"), A.and_(*[A.eq(V.s[v.name], V.n[v.name]) for v in V.sv]))
    return "\n".join(system), inv_head, _k_obligations(V, width, k, same)


def obligation_names(k: int) -> tuple[str, ...]:
    """The obligations' names, in the file's order, of a ``k``-inductive certificate."""
    return OBLIGATION_NAMES if k == 1 else ("base", "step", "safety", "initial-states", "non-vacuity")


def _frames(V: _Vars, width: int, k: int) -> tuple[dict[str, list[str]], list[str]]:
    """The constants of frames P, S0..Sk, I0..I(k-1) (by frame name) and their declarations."""
    def frame(vs: list[Var], tag: str, t: str) -> list[str]:
        return [f"|{tag}.{v.name}{t}|" for v in vs]
    names = {"P": frame(V.pv, "p", "")}
    names.update({f"S{t}": frame(V.sv, "s", f"@{t}") for t in range(k + 1)})
    names.update({f"I{t}": frame(V.iv, "i", f"@{t}") for t in range(k)})
    kinds = {"P": V.pv, "S": V.sv, "I": V.iv}
    order = ["P", "S0", "I0", "S1"] if k == 1 else ["P"] + [f"S{t}" for t in range(k + 1)] + [f"I{t}" for t in range(k)]
    decls = [f"(declare-fun {n} () {_sort(v.kind, width)})" for f in order for n, v in zip(names[f], kinds[f[0]])]
    return names, decls


def _call(fn: str, names: dict[str, list[str]], *frames: str) -> str:
    return f"({fn} {' '.join(x for f in frames for x in names[f])})"


def _obligations(V: _Vars, width: int) -> str:
    names, decls = _frames(V, width, 1)
    lines = [OBLIGATIONS, *decls]
    for name, what, answer, asserts in _CHECKS:
        lines += [f"; obligation {name}: {what}? must be {answer}", "(push 1)"]
        for negated, fn, frames in asserts:
            call = _call(fn, names, *frames)
            lines.append(f"(assert (not {call}))" if negated else f"(assert {call})")
        lines += [f"(set-info :status {answer})", "(check-sat)", "(pop 1)"]
    return "\n".join(lines + ["(exit)"])


def _k_obligations(V: _Vars, width: int, k: int, same: str) -> str:
    """The five checks of a ``k``-inductive invariant (``same``: two states equal, for the simple path)."""
    names, decls = _frames(V, width, k)

    def steps(n: int) -> list[str]:
        return [f"(assert {_call('trans', names, f'S{t}', f'I{t}', f'S{t + 1}')})" for t in range(n)]

    def invs(n: int) -> list[str]:
        return [f"(assert {_call('inv', names, f'S{t}')})" for t in range(n)]
    distinct = [f"(assert (not {_call('same', names, f'S{a}', f'S{b}')}))" for b in range(k + 1) for a in range(b)]
    base = "(assert (not (and " + " ".join(_call("inv", names, f"S{t}") for t in range(k)) + ")))"
    init = f"(assert {_call('init', names, 'P', 'S0')})"
    checks = (("base", f"a run of {k - 1} steps from an initial state that leaves inv in one of its {k} states",
               "unsat", [init, *steps(k - 1), base]),
              ("step", f"{k} steps through distinct states, inv on the first {k}, to a state outside inv", "unsat",
               [*invs(k), *steps(k), *distinct, f"(assert (not {_call('inv', names, f'S{k}')}))"]),
              ("safety", "a state of inv that violates prop", "unsat",
               [f"(assert {_call('inv', names, 'S0')})", f"(assert (not {_call('prop', names, 'S0')}))"]),
              ("initial-states", "an initial state", "sat", [init]),
              ("non-vacuity", f"{k} steps through distinct states, inv on the first {k}", "sat",
               [*invs(k), *steps(k), *distinct]))
    lines = [OBLIGATIONS, same, *decls]
    for name, what, answer, asserts in checks:
        lines += [f"; obligation {name}: {what}? must be {answer}", "(push 1)", *asserts,
                  f"(set-info :status {answer})", "(check-sat)", "(pop 1)"]
    return "\n".join(lines + ["(exit)"])


def invariant(ts: TransitionSystem, prop: Pred, lemmas: Sequence[str], width: int) -> str:
    """``(define-fun inv ...)``: the named lemmas of ``ts`` (``range:NAME`` is NAME's declared range) and ``prop``."""
    A = NetAlgebra(width)
    V = _Vars(ts, A)
    named, kinds = ts.lemmas(A, V.s), {v.name: v for v in V.sv}
    terms = [kinds[n[6:]].domain(A, V.s[n[6:]]) if n.startswith("range:") else named[n] for n in lemmas]
    return define_fun(A, "inv", V.args("s"), A.and_(*terms, prop(A, V.s)))


def not_certifiable(status: str, bounded: bool, depth: int) -> str | None:
    """Why a proof result (its status, whether bounded, its induction depth) gets no certificate; None: it gets one."""
    if status != "PASS" or bounded:
        return f"a certificate is written only for an unbounded PASS (this run ended {status}" + \
            (", bounded)" if status == "PASS" else ")")
    if not 1 <= depth <= MAX_K:
        return f"the proof's induction depth {depth} is not 1..{MAX_K}; no file written"
    return None


def certificate(ts: TransitionSystem, prop: Pred, lemmas: Sequence[str], width: int, header: Sequence[str],
                k: int = 1) -> str:
    """The whole script: ``header`` (comment lines without their ``;``), the system, ``inv``, the obligations of a
    ``k``-inductive proof (k > 1 adds the header line ``; induction: k = K``)."""
    system, _, obligations = sections(ts, prop, width, k)
    more = [f"{K_LINE[2:]}{k} (k-induction: inv holds in the first {k} states of every run, and {k} states of inv "
            "on a path without repeats are followed by one of inv)"] if k > 1 else []
    return assemble([*header, *more], system, invariant(ts, prop, lemmas, width), obligations)
