"""A transition system and its property as a BTOR2 model, for hardware model checkers (rIC3, Pono, AVR, BtorMC).

The conventions of the hardware model checking competition: one ``bad``
(the property's negation), ``constraint`` lines that hold in every cycle
(the input ranges and the model's input assumption), ``input`` lines for a
cycle's free inputs, ``state`` lines with ``init`` and ``next``.  Integers are
signed bit-vectors of one width, booleans ``bitvec 1``.

The initial state may depend on free parameters (a program's first
instructions): each parameter is a state without ``init`` that keeps its
value, and a state whose initial value is not a constant gets no ``init`` but
the constraint ``first -> state = value``, where ``first`` is a state that is
1 in cycle 0 only.

Lines come in the order the btor2tools parser (BtorMC, Pono, Boolector) requires:
every operand before its user, and an ``init``'s value before its state (the
constants of the initial values are written first).
"""
from __future__ import annotations

from typing import Any, Callable

from warpcheck.encodings.netlist import Net, NetAlgebra, net_model
from warpcheck.models.ts import TransitionSystem

Prop = Callable[[Any, dict], Any]
_OPS = {"add": "add", "sub": "sub", "eq": "eq", "slt": "slt", "not": "not", "ite": "ite"}


class _Writer:
    """BTOR2 lines for the nodes of one netlist, each node written once."""

    def __init__(self, A: NetAlgebra) -> None:
        self.A, self.lines, self.ids = A, ["1 sort bitvec 1", f"2 sort bitvec {A.width}"], {}  # type: ignore[var-annotated]
        self.names: dict[str, int] = {}

    def emit(self, text: str) -> int:
        n = len(self.lines) + 1
        self.lines.append(f"{n} {text}")
        return n

    def sid(self, sort: str) -> int:
        return 1 if sort == "bool" else 2

    def of(self, x: Any) -> int:
        """The line of a value (a node or a Python constant)."""
        if not isinstance(x, Net):
            return self.emit(f"constd 1 {int(x)}") if isinstance(x, bool) else self.emit(f"constd 2 {x}")
        for k in self.A.below(x.t, self.ids):
            self.ids[k] = self._line(self.A.nodes[k])
        return self.ids[x.t]

    def _line(self, node: tuple[Any, ...]) -> int:
        op, sort, *args = node
        if op == "const":
            return self.emit(f"constd {self.sid(sort)} {int(args[0])}")
        if op == "var":
            return self.names[args[0]]
        if op in ("and", "or"):  # n-ary in the netlist, binary in BTOR2
            acc = self.ids[args[0]]
            for a in args[1:]:
                acc = self.emit(f"{op} 1 {acc} {self.ids[a]}")
            return acc
        return self.emit(f"{_OPS[op]} {self.sid(sort)} " + " ".join(str(self.ids[a]) for a in args))


def to_btor2(ts: TransitionSystem, prop: Prop, width: int) -> str:
    """The BTOR2 model of ``ts`` whose ``bad`` is reachable exactly when ``prop`` can be violated."""
    m = net_model(ts, prop, width)
    sv, iv, pv, w = m.sv, m.iv, m.pv, _Writer(m.A)
    sort = {v.name: "bool" if v.kind == "bool" else "bv" for v in sv + iv + pv}
    # btor2tools (BtorMC, Pono) read an init only after its value: constants first, then the states
    values = {name: w.of(v) for name, v in m.start.items() if not isinstance(v, Net)}
    on, off = w.of(True), w.of(False)
    for prefix, vs, kind in (("p.", pv, "state"), ("i.", iv, "input"), ("s.", sv, "state")):
        for v in vs:
            w.names[prefix + v.name] = w.emit(f"{kind} {w.sid(sort[v.name])} {prefix}{v.name}")
    first = w.names["first"] = w.emit("state 1 first")
    w.emit(f"init 1 {first} {on}")
    w.emit(f"next 1 {first} {off}")
    for v in pv:  # a parameter keeps its value; its range holds from the start
        w.emit(f"next {w.sid(sort[v.name])} {w.names['p.' + v.name]} {w.names['p.' + v.name]}")
        w.emit(f"constraint {w.of(m.param_ranges[v.name])}")
    for name in m.start:  # ``init`` for a constant initial value, else ``first -> state = value``
        if name in values:
            w.emit(f"init {w.sid(sort[name])} {w.names['s.' + name]} {values[name]}")
        else:
            w.emit(f"constraint {w.of(m.initial[name])}")
    for v in sv:
        w.emit(f"next {w.sid(sort[v.name])} {w.names['s.' + v.name]} {w.of(m.nxt[v.name])}")
    for c in m.input_ranges:
        w.emit(f"constraint {w.of(c)}")
    w.emit(f"constraint {w.of(m.assume)}")
    w.emit(f"bad {w.of(m.bad)}")
    return "\n".join(w.lines) + "\n"
