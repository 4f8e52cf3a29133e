"""A small BTOR2 interpreter for the tests, written from the format's definition, importing nothing of the kit.

It reads a model's text and runs it: concretely (Python ints modulo 2^width,
signed where the operator says so), or symbolically over bitwuzla terms to
ask whether ``bad`` is reachable within a bound (a bounded model check that
shares no code with the kit's exporters or engines).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Model:
    """The lines of a BTOR2 model, by id."""

    width: dict[int, int] = field(default_factory=dict)  # sort id -> bit-vector width
    nodes: dict[int, tuple[str, int, list[int], str]] = field(default_factory=dict)  # id -> (op, sort, args, name)
    init: dict[int, int] = field(default_factory=dict)
    next: dict[int, int] = field(default_factory=dict)
    constraints: list[int] = field(default_factory=list)
    bads: list[int] = field(default_factory=list)

    def states(self) -> list[int]:
        return [n for n, (op, *_) in self.nodes.items() if op == "state"]

    def inputs(self) -> list[int]:
        return [n for n, (op, *_) in self.nodes.items() if op == "input"]

    def name(self, n: int) -> str:
        return self.nodes[n][3]


def parse(text: str) -> Model:
    """The model of ``text``, refusing what the btor2tools parser (BtorMC, Pono, Boolector) refuses about order:
    ids that do not increase, an operand, sort or state not defined before its use, an ``init`` before its value."""
    m = Model()
    last = 0
    for line in text.splitlines():
        tok = line.split(";")[0].split()
        if not tok:
            continue
        nid, op, rest = int(tok[0]), tok[1], tok[2:]
        assert nid > last, f"line {nid}: ids must increase (after {last})"
        last = nid
        _check_order(m, nid, op, rest, line)
        if op == "sort":
            assert rest[0] == "bitvec", line
            m.width[nid] = int(rest[1])
        elif op in ("init", "next"):
            getattr(m, op)[int(rest[1])] = int(rest[2])
        elif op in ("constraint", "bad"):
            (m.constraints if op == "constraint" else m.bads).append(int(rest[0]))
        elif op in ("constd", "state", "input"):
            m.nodes[nid] = (op, int(rest[0]), [int(rest[1])] if op == "constd" else [], rest[1] if op != "constd" else "")
        else:
            m.nodes[nid] = (op, int(rest[0]), [int(a) for a in rest[1:]], "")
    return m


def _check_order(m: Model, nid: int, op: str, rest: list[str], line: str) -> None:
    """The btor2tools rules of order for one line (``m`` holds the lines before it)."""
    if op == "sort":
        return
    assert op in ("constraint", "bad") or int(rest[0]) in m.width, f"{line!r}: sort {rest[0]} is not defined before"
    if op in ("constd", "state", "input"):
        return
    args = [int(a) for a in rest[1:]] if op not in ("constraint", "bad") else [int(rest[0])]
    for a in args:
        assert a in m.nodes, f"{line!r}: operand {a} is not defined before"
    if op in ("init", "next"):
        assert m.nodes[args[0]][0] == "state", f"{line!r}: {args[0]} is no state"
    if op == "init":
        assert args[0] > args[1], f"{line!r}: state id must be greater than id of second operand (its value)"


class Concrete:
    """Bit-vectors as unsigned Python ints."""

    def __init__(self, m: Model) -> None:
        self.m = m

    def const(self, w: int, v: int) -> int:
        return v % (1 << w)

    def apply(self, op: str, w: int, a: list[Any], ws: list[int]) -> Any:
        mask = (1 << w) - 1
        signed = [x - (1 << k) if x >> (k - 1) else x for x, k in zip(a, ws)]
        table = {"add": lambda: (a[0] + a[1]) & mask, "sub": lambda: (a[0] - a[1]) & mask,
                 "eq": lambda: int(a[0] == a[1]), "neq": lambda: int(a[0] != a[1]),
                 "slt": lambda: int(signed[0] < signed[1]), "and": lambda: a[0] & a[1], "or": lambda: a[0] | a[1],
                 "not": lambda: ~a[0] & mask, "ite": lambda: a[1] if a[0] else a[2],
                 "implies": lambda: int(not a[0] or a[1])}
        return table[op]()


class Symbolic:
    """Bit-vectors as bitwuzla terms."""

    def __init__(self, m: Model) -> None:
        import bitwuzla as bz
        self.bz, self.m = bz, m
        self.tm = bz.TermManager()
        self.sorts = {w: self.tm.mk_bv_sort(w) for w in set(m.width.values())}

    def const(self, w: int, v: int) -> Any:
        return self.tm.mk_bv_value(self.sorts[w], v % (1 << w))

    def fresh(self, w: int, name: str) -> Any:
        return self.tm.mk_const(self.sorts[w], name)

    def apply(self, op: str, w: int, a: list[Any], ws: list[int]) -> Any:
        K = self.bz.Kind
        kinds = {"add": K.BV_ADD, "sub": K.BV_SUB, "slt": K.BV_SLT, "and": K.BV_AND, "or": K.BV_OR,
                 "not": K.BV_NOT, "ite": None, "eq": K.EQUAL, "neq": K.DISTINCT, "implies": None}
        if op == "ite":
            return self.tm.mk_term(K.ITE, [self.bit(a[0]), a[1], a[2]])
        if op == "implies":
            return self.tm.mk_term(K.BV_OR, [self.tm.mk_term(K.BV_NOT, [a[0]]), a[1]])
        t = self.tm.mk_term(kinds[op], a)
        return self.tm.mk_term(K.ITE, [t, self.const(1, 1), self.const(1, 0)]) if op in ("eq", "neq", "slt") else t

    def bit(self, x: Any) -> Any:
        return self.tm.mk_term(self.bz.Kind.EQUAL, [x, self.const(1, 1)])


def _init(m: Model, s: int) -> int:
    op, _, args, _ = m.nodes[m.init[s]]
    assert op == "constd", f"state {m.name(s)}: init from a non-constant node"
    return args[0]


def evaluate(m: Model, ops: Any, env: dict[int, Any]) -> dict[int, Any]:
    """Every node's value in one cycle, given the states' and inputs' values in ``env``."""
    val = dict(env)
    for n in sorted(m.nodes):  # BTOR2 defines operands before their users
        op, sort, args, _ = m.nodes[n]
        if n in val:
            continue
        w = m.width[sort]
        if op == "constd":
            val[n] = ops.const(w, args[0])
        else:
            val[n] = ops.apply(op, w, [val[a] for a in args], [m.width[m.nodes[a][1]] for a in args])
    return val


def run(m: Model, states: dict[str, int], inputs: list[dict[str, int]]) -> list[dict[str, Any]]:
    """Concrete cycles: ``states`` gives the states without ``init``; each cycle's values by name, bad, constraints."""
    ops, out = Concrete(m), []
    cur: dict[int, int] = {}
    for s in m.states():
        w = m.width[m.nodes[s][1]]
        cur[s] = ops.const(w, _init(m, s)) if s in m.init else ops.const(w, states[m.name(s)])
    for t in range(len(inputs) + 1):
        ins = inputs[t] if t < len(inputs) else {m.name(i): 0 for i in m.inputs()}
        env = {**cur, **{i: ops.const(m.width[m.nodes[i][1]], int(ins[m.name(i)])) for i in m.inputs()}}
        val = evaluate(m, ops, env)
        out.append({"values": {m.name(s): cur[s] for s in m.states()}, "bad": any(val[b] for b in m.bads),
                    "constraints": all(val[c] for c in m.constraints) if t < len(inputs) else None})
        cur = {s: val[m.next[s]] for s in m.next} | {s: cur[s] for s in m.states() if s not in m.next}
    return out


def bad_reachable(m: Model, bound: int) -> bool:
    """Whether some run of at most ``bound`` steps meets the constraints in every cycle and reaches ``bad``."""
    ops = Symbolic(m)
    bz = ops.bz
    solver = bz.Bitwuzla(ops.tm, bz.Options())
    cur = {}
    for s in m.states():
        w = m.width[m.nodes[s][1]]
        cur[s] = ops.const(w, _init(m, s)) if s in m.init else ops.fresh(w, f"{m.name(s)}@0")
    bads = []
    for t in range(bound + 1):
        env = {**cur, **{i: ops.fresh(m.width[m.nodes[i][1]], f"{m.name(i)}@{t}") for i in m.inputs()}}
        val = evaluate(m, ops, env)
        for c in m.constraints:
            solver.assert_formula(ops.bit(val[c]))
        bads += [ops.bit(val[b]) for b in m.bads]
        cur = {s: val[m.next[s]] for s in m.next} | {s: cur[s] for s in m.states() if s not in m.next}
    solver.assert_formula(ops.tm.mk_term(bz.Kind.OR, bads) if len(bads) > 1 else bads[0])
    return str(solver.check_sat()) == "sat"
