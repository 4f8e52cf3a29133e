"""A compiled step: the model's step function traced once, simplified, and emitted as Python.

The front end's ``step`` (and its ``fetch_choice``, ``issue_choice`` and the
oracles) is run once over :class:`TraceAlgebra`, whose values are nodes of a
shared DAG: identical nodes are built once (common subexpressions), constant
operands fold, and only what the outputs need is emitted.  The result is
straight-line Python over plain values (scalar dialect) or over the numpy
algebra's arrays (numpy dialect), with the concrete or numpy algebra's own
operations for the derived ones, so its semantics are the algebra's.
``tests/test_sim_compiled.py`` checks it state by state against the model run
through the concrete algebra.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from warpcheck.encodings.algebra import Algebra, refuse_bool
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.oracles import osched1_choice, osched2_choice


class Ref:
    """A node of the traced DAG (never a Python bool)."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __bool__(self) -> bool:
        refuse_bool(self)
        return False  # unreachable

    def __repr__(self) -> str:
        return f"t{self.n}"


def _is_ref(x: Any) -> bool:
    return isinstance(x, Ref)


def _key(x: Any) -> Any:
    return ("r", x.n) if _is_ref(x) else ("c", type(x).__name__, x)


class TraceAlgebra(Algebra):
    """Builds a hash-consed DAG; folds constants and trivial cases."""

    name = "trace"
    symbolic = True

    def __init__(self) -> None:
        self.nodes: list[tuple[str, tuple[Any, ...], Any]] = []  # (op, args, extra)
        self.table: dict[Any, Ref] = {}

    def node(self, op: str, args: Sequence[Any], extra: Any = None) -> Ref:
        """The node ``op(args)``, built once."""
        key = (op, tuple(_key(a) if not isinstance(a, tuple) else tuple(map(_key, a)) for a in args), extra)
        if key not in self.table:
            self.table[key] = Ref(len(self.nodes))
            self.nodes.append((op, tuple(args), extra))
        return self.table[key]

    def _fold(self, op: str, args: Sequence[Any], extra: Any = None) -> Any:
        flat = [x for a in args for x in (a if isinstance(a, tuple) else (a,))]
        if not any(_is_ref(x) for x in flat):
            return getattr(CONCRETE, op)(*args) if extra is None else getattr(CONCRETE, op)(*args, extra)
        return self.node(op, args, extra)

    def var(self, name: str, kind: str) -> Any:
        return self.node("var", (), name)

    def const(self, value: int | bool) -> Any:
        return value

    def add(self, a: Any, b: Any) -> Any:
        if not _is_ref(b) and b == 0 and not isinstance(b, bool):
            return a
        return self._fold("add", (a, b))

    def sub(self, a: Any, b: Any) -> Any:
        if not _is_ref(b) and b == 0 and not isinstance(b, bool):
            return a
        return self._fold("sub", (a, b))

    def eq(self, a: Any, b: Any) -> Any:
        if _is_ref(a) and _is_ref(b) and a.n == b.n:
            return True
        return self._fold("eq", (a, b))

    def lt(self, a: Any, b: Any) -> Any:
        return self._fold("lt", (a, b))

    def le(self, a: Any, b: Any) -> Any:
        return self._fold("le", (a, b))

    def and_(self, *xs: Any) -> Any:
        refs: list[Any] = []
        for x in xs:
            if not _is_ref(x):
                if not x:
                    return False
            elif all(r.n != x.n for r in refs):
                refs.append(x)
        return True if not refs else refs[0] if len(refs) == 1 else self.node("and_", tuple(refs))

    def or_(self, *xs: Any) -> Any:
        refs: list[Any] = []
        for x in xs:
            if not _is_ref(x):
                if x:
                    return True
            elif all(r.n != x.n for r in refs):
                refs.append(x)
        return False if not refs else refs[0] if len(refs) == 1 else self.node("or_", tuple(refs))

    def not_(self, x: Any) -> Any:
        if _is_ref(x) and self.nodes[x.n][0] == "not_":
            return self.nodes[x.n][1][0]
        return self._fold("not_", (x,))

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        if not _is_ref(c):
            return a if c else b
        if _key(a) == _key(b):
            return a
        if a is True and b is False:
            return c
        return self.node("ite", (c, a, b))

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if not _is_ref(c):
            return a if c else b
        return self._ite_at(c, a, b, "")

    def max(self, a: Any, b: Any) -> Any:
        return self._fold("max", (a, b))

    def min(self, a: Any, b: Any) -> Any:
        return self._fold("min", (a, b))

    def dec_sat(self, a: Any) -> Any:
        return self._fold("dec_sat", (a,))

    def count(self, bits: Sequence[Any]) -> Any:
        consts = sum(1 for b in bits if not _is_ref(b) and b)
        refs = tuple(b for b in bits if _is_ref(b))
        if not refs:
            return consts
        return self.add(self.node("count", (refs,)), consts)

    def select(self, items: Sequence[Any], index: Any) -> Any:
        if not _is_ref(index):
            return CONCRETE.select(list(items), index)
        if isinstance(items[0], dict):
            return {k: self.select([x[k] for x in items], index) for k in items[0]}
        if len({_key(x) for x in items}) == 1:
            return items[0]
        return self.node("select", (tuple(items), index))

    def first_true(self, bits: Sequence[Any], none: int = -1) -> Any:
        return self._fold("first_true", (tuple(bits),), none)

    def first_from(self, bits: Sequence[Any], start: Any, none: int = -1) -> Any:
        return self._fold("first_from", (tuple(bits), start), none)

    def argmin_true(self, bits: Sequence[Any], keys: Sequence[Any], none: int = -1) -> Any:
        return self._fold("argmin_true", (tuple(bits), tuple(keys)), none)


# -- code generation ---------------------------------------------------------------
_SIMPLE = {"add": "{0} + {1}", "sub": "{0} - {1}", "eq": "{0} == {1}", "lt": "{0} < {1}", "le": "{0} <= {1}",
           "not_": "not {0}", "ite": "{1} if {0} else {2}", "max": "{0} if {0} >= {1} else {1}",
           "min": "{0} if {0} <= {1} else {1}", "dec_sat": "{0} - 1 if {0} > 0 else 0"}
MAX_NESTING = 40  # an expression nested deeper is given a name (Python's parser limits nesting)


def _emit_scalar(op: str, a: list[str], extra: Any) -> str:
    """One node as a Python expression over plain values (CONCRETE's semantics)."""
    if op in _SIMPLE:
        return _SIMPLE[op].format(*a)
    if op == "and_":
        return "(" + " and ".join(a) + ")"
    if op == "or_":
        return "(" + " or ".join(a) + ")"
    if op == "count":
        return "0 + " + " + ".join(a[0])
    if op == "select":  # CONCRETE.select inline: the last item for an index out of range
        return f"({', '.join(a[0])},)[{a[1]}] if 0 <= {a[1]} < {len(a[0])} else {a[0][-1]}"
    if op in ("first_true",):
        return f"_first_true(({', '.join(a[0])},), {extra})"
    if op == "first_from":
        return f"_first_from(({', '.join(a[0])},), {a[1]}, {extra})"
    if op == "argmin_true":
        return f"_argmin_true(({', '.join(a[0])},), ({', '.join(a[1])},), {extra})"
    raise ValueError(f"no scalar code for {op!r}")


def _emit_numpy(op: str, a: list[str], extra: Any) -> str:
    """One node as a call of the numpy algebra."""
    if op in ("and_", "or_"):
        return f"A.{op}({', '.join(a)})"
    if op in ("count", "first_true"):
        return f"A.{op}([{', '.join(a[0])}]" + (f", {extra})" if op == "first_true" else ")")
    if op == "select":
        return f"A.select([{', '.join(a[0])}], {a[1]})"
    if op == "first_from":
        return f"A.first_from([{', '.join(a[0])}], {a[1]}, {extra})"
    if op == "argmin_true":
        return f"A.argmin_true([{', '.join(a[0])}], [{', '.join(a[1])}], {extra})"
    return f"A.{op}({', '.join(a)})"


def _arg(x: Any) -> Any:
    if isinstance(x, tuple):
        return [_arg(y) for y in x]
    return repr(x)


def _needed(T: TraceAlgebra, outputs: Mapping[str, Any]) -> list[int]:
    """The nodes the outputs depend on, in creation order (operands before their users)."""
    need: set[int] = set()
    stack = [x for x in outputs.values() if _is_ref(x)]
    while stack:
        r = stack.pop()
        if r.n in need:
            continue
        need.add(r.n)
        for a in T.nodes[r.n][1]:
            stack += [y for y in (a if isinstance(a, tuple) else (a,)) if _is_ref(y)]
    return sorted(need)


def _operand_uses(T: TraceAlgebra, need: Sequence[int], outputs: Mapping[str, Any]) -> dict[int, int]:
    """How many times each node is read in the scalar code (a template may read an operand twice: max)."""
    uses: dict[int, int] = {}
    for n in need:
        op, args, _ = T.nodes[n]
        for k, a in enumerate(args):
            times = _SIMPLE[op].count("{%d}" % k) if op in _SIMPLE else 2 if op == "select" and k == 1 else 1
            items = a if isinstance(a, tuple) else (a,)
            for y in items + (items[-1:] if op == "select" and k == 0 else ()):  # select reads its last item twice
                if _is_ref(y):
                    uses[y.n] = uses.get(y.n, 0) + times
    for v in outputs.values():
        if _is_ref(v):
            uses[v.n] = uses.get(v.n, 0) + 1
    return uses


def _emit_inlined(T: TraceAlgebra, outputs: Mapping[str, Any], name: str) -> str:
    """Scalar code in which a node read once is written inside its reader instead of being named.

    The values are the same (every operation is pure); what changes is when
    they are computed: an operand inside ``and``, ``or`` or a conditional
    expression is computed only when Python's short circuit reaches it.
    """
    need = _needed(T, outputs)
    uses = _operand_uses(T, need, outputs)
    inline: dict[int, tuple[str, int]] = {}  # node -> (its expression, its nesting)

    def text(x: Any) -> Any:
        if isinstance(x, tuple):
            return [text(y) for y in x]
        if _is_ref(x) and x.n in inline:
            return f"({inline[x.n][0]})"
        return repr(x)

    body = []
    for n in need:
        op, args, extra = T.nodes[n]
        if op == "var":
            src, key = extra.split(":", 1)
            code, depth = f"{src}[{key!r}]", 0
        else:
            code = _emit_scalar(op, [text(a) for a in args], extra)
            depth = 1 + max((inline[y.n][1] for a in args for y in (a if isinstance(a, tuple) else (a,))
                             if _is_ref(y) and y.n in inline), default=0)
        if uses.get(n, 0) == 1 and depth < MAX_NESTING:
            inline[n] = (code, depth)
        else:
            body.append(f"    t{n} = {code}")
    return _function(name, body, outputs, text)


def _function(name: str, body: list[str], outputs: Mapping[str, Any], text: Callable[[Any], str]) -> str:
    """``def name(s, i)`` with ``body``, returning ``outputs`` (a dict, or the value of key '') as ``text`` writes them."""
    if list(outputs) == [""]:
        body.append(f"    return {text(outputs[''])}")
    else:
        body.append("    return {" + ", ".join(f"{k!r}: {text(v)}" for k, v in outputs.items()) + "}")
    return f"def {name}(s, i):\n" + "\n".join(body) + "\n"


def emit(T: TraceAlgebra, outputs: Mapping[str, Any], dialect: str, name: str) -> str:
    """Python source of ``def name(s, i)`` returning ``outputs`` (a dict, or the value of key '')."""
    if dialect == "scalar":
        return _emit_inlined(T, outputs, name)
    body = []
    for n in _needed(T, outputs):
        op, args, extra = T.nodes[n]
        if op == "var":
            src, key = extra.split(":", 1)
            body.append(f"    t{n} = {src}[{key!r}]")
        else:
            body.append(f"    t{n} = {_emit_numpy(op, [_arg(a) for a in args], extra)}")
    return _function(name, body, outputs, repr)


class CompiledFrontEnd:
    """The front end's step and choices as generated Python functions (one dialect)."""

    def __init__(self, fe: FrontEnd, dialect: str = "scalar", A: Any = None) -> None:
        self.fe, self.dialect = fe, dialect
        env: dict[str, Any] = {"A": A, "_select": CONCRETE.select, "_first_true": CONCRETE.first_true,
                               "_first_from": CONCRETE.first_from, "_argmin_true": CONCRETE.argmin_true}
        self.source = ""
        for name, build in self._programs().items():
            T = TraceAlgebra()
            s = {v.name: T.var(f"s:{v.name}", v.kind) for v in fe.state_vars()}
            i = {v.name: T.var(f"i:{v.name}", v.kind) for v in fe.input_vars()}
            out = build(T, s, i)
            code = emit(T, out if isinstance(out, dict) else {"": out}, dialect, name)
            self.source += code + "\n"
            exec(compile(code, f"<compiled {fe.name} {name}>", "exec"), env)  # noqa: S102 - our own generated code
        self.step: Callable[[dict, dict], dict] = env["step"]
        self.fetch_choice: Callable[[dict, dict], Any] = env["fetch_choice"]
        self.issue_choice: Callable[[dict, dict], Any] = env["issue_choice"]
        self.osched1: Callable[[dict, dict], Any] = env["osched1"]
        self.osched2: Callable[[dict, dict], Any] = env["osched2"]

    def _programs(self) -> dict[str, Callable[[Any, dict, dict], Any]]:
        fe = self.fe
        return {"step": lambda T, s, i: fe.step(T, s, i),
                "fetch_choice": lambda T, s, i: fe.fetch_choice(T, s),
                "issue_choice": lambda T, s, i: fe.issue_choice(T, s),
                "osched1": lambda T, s, i: osched1_choice(fe, T, s),
                "osched2": lambda T, s, i: osched2_choice(fe, T, s)}

    def lines(self) -> int:
        """Lines of generated code (a size measure)."""
        return self.source.count("\n")
