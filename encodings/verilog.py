"""A transition system and its property as one synthesizable Verilog module, for yosys and SymbiYosys.

The module has a clock ``clk`` and an input port per free input of a cycle
(``i_`` and the input's name, dots as underscores); a state variable is
``s_...``, a free parameter of the initial state (a program's first
instructions) ``p_...``.  Under ```ifdef FORMAL`` a parameter is an
``anyconst`` register (free, fixed for the run) and one ``always @*`` block
assumes the parameters' and the inputs' ranges and the model's input
assumption, and asserts the property, in every cycle; without ``FORMAL`` (a
simulation) the parameters are module parameters ``P_...``.

Integers are signed bit-vectors of one width, as in the netlist: the signed
comparison is ``$signed(a) < $signed(b)``, constants are written in two's
complement.  A state whose initial value is a constant is a register with that
initial value; any other (one that depends on the parameters) reads
``first ? value : r_...``, where ``first`` is a register that is 1 in cycle 0
only (the BTOR2 export's ``first``, as a multiplexer rather than a constraint).
"""
from __future__ import annotations

import re
from typing import Any, Callable

from warpcheck.encodings import netlist
from warpcheck.encodings.netlist import Net, NetAlgebra
from warpcheck.models.errors import KitError
from warpcheck.models.ts import TransitionSystem

Prop = Callable[[Any, dict], Any]
_INFIX = {"add": "+", "sub": "-", "eq": "==", "and": "&", "or": "|"}


class _Writer:
    """Verilog wires for the nodes of one netlist, each node declared once, operands first."""

    def __init__(self, A: NetAlgebra) -> None:
        self.A = A
        self.lines: list[str] = []
        self.names: dict[str, str] = {}  # a variable's netlist name -> its Verilog name
        self.done: set[int] = set()

    def range(self, sort: str) -> str:
        """The declared range of a sort: one bit for a bool, the width for an integer."""
        return "" if sort == "bool" else f"[{self.A.width - 1}:0] "

    def literal(self, x: Any) -> str:
        """A constant in two's complement."""
        if isinstance(x, bool):
            return "1'b1" if x else "1'b0"
        return f"{self.A.width}'h{x % (1 << self.A.width):x}"

    def of(self, x: Any) -> str:
        """The expression of a value (a node or a Python constant), declaring the wires below it first."""
        if not isinstance(x, Net):
            return self.literal(x)
        for k in self.A.below(x.t, self.done):
            self.done.add(k)
            op, sort, *args = self.A.nodes[k]
            if op not in ("const", "var"):
                self.lines.append(f"  wire {self.range(sort)}n{k} = {self._expression(op, args)};")
        return self._operand(x.t)

    def _operand(self, k: int) -> str:
        op, _, *args = self.A.nodes[k]
        return self.literal(args[0]) if op == "const" else self.names[args[0]] if op == "var" else f"n{k}"

    def _expression(self, op: str, args: list[int]) -> str:
        a = [self._operand(k) for k in args]
        if op == "slt":
            return f"$signed({a[0]}) < $signed({a[1]})"
        if op == "not":
            return f"!{a[0]}"
        if op == "ite":
            return f"{a[0]} ? {a[1]} : {a[2]}"
        return f" {_INFIX[op]} ".join(a)


def signal(prefix: str, name: str) -> str:
    """The Verilog name of a variable: ``prefix`` and its name, every other character than [A-Za-z0-9_] as ``_``."""
    return prefix + re.sub(r"\W", "_", name)


def module_name(name: str) -> str:
    """A run's name as a Verilog identifier (``swas-gtlrr-W2-exact`` is ``swas_gtlrr_W2_exact``)."""
    return signal("", name)


def to_verilog(ts: TransitionSystem, prop: Prop, width: int, module: str) -> str:
    """The Verilog module ``module`` of ``ts`` whose assertion fails in some run exactly when ``prop`` can be violated."""
    m = netlist.net_model(ts, prop, width)
    w = _Writer(m.A)
    _name_all(w, m)
    ports = ["input wire clk"] + [f"input wire {w.range(_sort(v))}{w.names['i.' + v.name]}" for v in m.iv]
    head = [f"module {module} (", ",\n".join(f"  {p}" for p in ports), ");"]
    head += _parameters(w, m) + ["  reg first = 1'b1;"]
    start = {name: w.of(value) for name, value in m.start.items()}  # over the parameters only
    head += w.lines
    w.lines = []
    clocked = ["    first <= 1'b0;"]
    for v in m.sv:
        head += _state(w, v.name, _sort(v), start[v.name], m.start[v.name])
    nxt = m.nxt
    for v in m.sv:
        target = w.names["s." + v.name] if not isinstance(m.start[v.name], Net) else signal("r_", v.name)
        clocked.append(f"    {target} <= {w.of(nxt[v.name])};")
    checks = _checks(w, m, ts, prop)
    body = w.lines + ["", "  always @(posedge clk) begin", *clocked, "  end", "", "`ifdef FORMAL",
                      "  always @* begin", *checks, "  end", "`endif", "endmodule"]
    return "\n".join(_preamble(ts, module) + head + body) + "\n"


def _sort(v: Any) -> str:
    return "bool" if v.kind == "bool" else "bv"


def _name_all(w: _Writer, m: netlist.NetModel) -> None:
    """Every variable's Verilog name; two variables of one name after the replacement are a fault of the kit."""
    for prefix, vs in (("s.", m.sv), ("i.", m.iv), ("p.", m.pv)):
        for v in vs:
            w.names[prefix + v.name] = signal(prefix[0] + "_", v.name)
    if len(set(w.names.values())) != len(w.names):
        raise KitError("two variables of the model have one Verilog name; the Verilog export cannot tell them apart")


def _parameters(w: _Writer, m: netlist.NetModel) -> list[str]:
    """The parameters: ``anyconst`` under FORMAL, module parameters (their lowest value by default) otherwise."""
    if not m.pv:
        return []
    formal = [f"  (* anyconst *) reg {w.range(_sort(v))}{w.names['p.' + v.name]};" for v in m.pv]
    fixed = []
    for v in m.pv:
        name, low = w.names["p." + v.name], False if v.kind == "bool" else v.lo
        fixed += [f"  parameter {w.range(_sort(v))}{name.upper()} = {w.literal(low)};",
                  f"  wire {w.range(_sort(v))}{name} = {name.upper()};"]
    return ["`ifdef FORMAL", *formal, "`else", *fixed, "`endif"]


def _state(w: _Writer, name: str, sort: str, value: str, folded: Any) -> list[str]:
    """A state's register, with its constant initial value, or read through ``first`` from the parameters."""
    s = w.names["s." + name]
    if not isinstance(folded, Net):
        return [f"  reg {w.range(sort)}{s} = {value};"]
    r = signal("r_", name)
    return [f"  reg {w.range(sort)}{r};", f"  wire {w.range(sort)}{s} = first ? {value} : {r};"]


def _checks(w: _Writer, m: netlist.NetModel, ts: TransitionSystem, prop: Prop) -> list[str]:
    """The assumptions (parameters' and inputs' ranges, the model's assumption) and the property's assertion."""
    A, out = m.A, []
    for what, vs, values in (("the parameters' ranges", m.pv, m.p), ("the inputs' ranges", m.iv, m.i)):
        ranges = [w.of(v.domain(A, values[v.name])) for v in vs if v.kind != "bool"]
        out += [f"    assume ({r});  // {what}" for r in ranges]
    out.append(f"    assume ({w.of(ts.assume(A, m.s, m.i))});  // the model's assumption on a cycle's inputs")
    out.append(f"    agree: assert ({w.of(prop(A, m.s))});  // the property")
    return out


def _preamble(ts: TransitionSystem, module: str) -> list[str]:
    return [f"// {module}: a warpcheck model ({ts.name}) and its property, for yosys and SymbiYosys.",
            "// Read it with read_verilog -formal -sv; the assumptions and the assertion are under `ifdef FORMAL.",
            "// s_*: states, i_*: a cycle's free inputs, p_*: the initial state's free parameters, n*: the step's logic.",
            ""]
