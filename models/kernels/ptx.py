"""The PTX front end: the subset of PTX that nvcc emits, into the kernel IR.

Module directives (``.version``, ``.target``, ``.global``...) are accepted and
skipped; each ``.entry`` becomes a :class:`Kernel`.  Inside a body: ``.reg``,
``.shared``/``.local`` declarations, ``.pragma``, labels, and instructions
``[@[!]%p] opcode operands;``.  Operands are kept as written (registers,
immediates, ``[%rd1+4]`` addresses, symbols), so every analysis sees the
same text.  Every opcode is looked up in the instruction table
(:mod:`warpcheck.models.kernels.opcodes`), which fixes its class, latency
class and memory access; an opcode the table does not hold is refused by name.
"""
from __future__ import annotations

from typing import Any, NoReturn

import re
from dataclasses import replace

from warpcheck.models.errors import InputFileError
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.opcodes import OpSpec, PTX_TABLE, ptx_spec, refused_reason, supported_names, wmma_tile
from warpcheck.models.kernels.ptx_calls import SPECIAL_REGISTER, PtxModule, call_site
from warpcheck.models.kernels.ptx_text import Statement, body_statements, skip_block, source_lines

_INS = re.compile(r"^(?:@(?P<neg>!?)(?P<guard>%?[\w.$]+)\s+)?(?P<op>[a-z][A-Za-z0-9_.:]*)"
                  r"(?:(?:\s+|(?=[(\[{]))(?P<args>.*?))?\s*;$")
_REGISTER = re.compile(r"%[A-Za-z_$][\w$]*")
# What an operand is once its [...], {...} and (...) parts are set aside: a register, number or name,
# negated or offset (``!%p1``, ``-1``, ``sym+8``), or a predicate pair ``%p|%q``.
_BRACKETED = re.compile(r"\[[^\]]*\]|\{[^}]*\}|\([^)]*\)")
_OPERAND = re.compile(r"[!-]?[\w$%.:]+(?:\s*[|+-]\s*[\w$%.:]+)*")
_RUNTIME = ("_optix_",)  # callees the OptiX runtime supplies: PTX calls them undeclared (inline asm)
_ENTRY = re.compile(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?P<kind>entry|func)\s+(?:\([^)]*\)\s*)?(?P<name>[\w$]+)")
_LABEL_ONLY = re.compile(r"[$%\w][\w$]*\s*:(?=\s*\{|\s*$)")
_HEADER = re.compile(r"\.(?:entry|func)\s+(?:\((?P<rets>[^)]*)\)\s*)?(?P<name>[\w$]+)")
_TOKEN = re.compile(r"(?<![\w$.%])%?[A-Za-z_$][\w$]*")
# ``.param .type [.ptr [.space] [.align N]] NAME`` (Triton writes ``.param .u64 .ptr .global .align 1 x``)
_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.\w+\s+(?:\.ptr\S*\s+(?:\.(?:global|shared|const|local)\s+)?"
                    r"(?:\.align\s+\d+\s+)?)?(?P<name>[\w$]+)")
_STATES = ("global", "shared", "local", "param", "const", "generic", "tex")
_FLOAT_CLASS = {"add": "fadd", "sub": "fadd", "min": "fadd", "max": "fadd", "abs": "fadd", "neg": "fadd",
                "setp": "fadd", "mul": "fmul", "fma": "fmadd", "mad": "fmadd", "div": "fdiv", "rcp": "fdiv",
                "sqrt": "fsqrt", "rsqrt": "fsqrt", "ex2": "fsqrt", "lg2": "fsqrt", "sin": "fsqrt", "cos": "fsqrt",
                "tanh": "fsqrt", "copysign": "fadd", "testp": "fadd", "set": "fadd"}
_PACKED_FLOATS = {"f16x2", "bf16", "bf16x2"}  # float types the operand-type pattern [sbuf]N does not name


def parse_ptx(text: str, filename: str = "<ptx>") -> list[Kernel]:
    """Parse a PTX module into its kernels (``.entry`` functions), in file order, calls inlined.

    ``call``s of ``.func`` functions defined in the module are inlined (see
    :mod:`warpcheck.models.kernels.ptx_calls`); a call of a function without a body stays
    an opaque ``call``.  An entry that cannot be inlined (recursion) raises for the
    whole module: use :func:`parse_ptx_module` and ``PtxModule.inlined`` per entry.
    """
    module = parse_ptx_module(text, filename)
    return [module.inlined(k) for k in module.entries]


def parse_ptx_module(text: str, filename: str = "<ptx>") -> PtxModule:
    """Parse a PTX module into its entries and functions, without inlining calls."""
    parser = _Parser(text, filename)
    parser.run()
    parser.check_callees()
    return PtxModule(tuple(parser.kernels), dict(parser.functions), dict(parser.returns),
                     frozenset(parser.prototypes), filename)


def operand_registers(operand: str) -> list[str]:
    """The registers (``%name``) an operand reads, including address bases."""
    return re.findall(r"%[A-Za-z_$][\w$]*(?:\.[xyz])?", operand)


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        self.lines = source_lines(text)
        self.filename = filename
        self.kernels: list[Kernel] = []
        self.functions: dict[str, Kernel] = {}
        self.returns: dict[str, tuple[str, ...]] = {}
        self.prototypes: set[str] = set()
        self.symbols: dict[str, str] = {}  # module-level variables -> state space
        self.calls: list[tuple[str, int, int, str]] = []  # (callee, line, column, caller) of direct calls

    def error(self, lineno: int, column: int, token: str, what: str) -> InputFileError:
        return InputFileError(f"{self.filename}:{lineno}:{column}: cannot parse {token!r}: {what}")

    def run(self) -> list[Kernel]:
        lines, i = self.lines, 0
        while i < len(lines):
            lineno, col, line = lines[i]
            m = _ENTRY.match(line)
            if m:
                i = self._function(lines, i, m.group("kind"))
            elif line.startswith(".section"):
                i = self._section(lines, i)
            elif line in ("{", "}"):
                i += 1
            elif not line.startswith("."):
                raise self.error(lineno, col, line.split()[0], "expected a module directive (.version, .target, "
                                 ".global, .section, ...), an .entry or a .func")
            else:
                i = self._directive(lines, i)
        return self.kernels

    def _section(self, lines, i: int) -> int:
        """Skip a ``.section`` block (DWARF data of ``-lineinfo`` / ``-G`` builds: labels and ``.b8``s)."""
        nxt = skip_block(lines, i)
        if nxt is None:
            raise self.error(lines[i][0], lines[i][1], lines[i][2], "the .section block is never closed by its '}'")
        return nxt

    def _directive(self, lines, i: int) -> int:
        """A module directive; an initializer spread over lines (``= {1, 2,`` ... ``};``) is joined."""
        start, text = i, lines[i][2]
        while text.count("{") > text.count("}") and i + 1 < len(lines):
            i += 1
            text += " " + lines[i][2]
        if text.count("{") > text.count("}"):
            raise self.error(lines[start][0], lines[start][1], text.split()[0], "its '{' initializer is never closed")
        self.symbols.update(_symbol(text))
        return i + 1

    def check_callees(self) -> None:
        """Refuse a direct call of a function the module neither defines nor declares."""
        for callee, lineno, col, caller in self.calls:
            if callee not in self.functions and callee not in self.prototypes and not callee.startswith(_RUNTIME):
                raise InputFileError(f"{self.filename}:{lineno}:{col}: {caller!r} calls {callee!r}, which the "
                                     f"module neither defines (.func with a body) nor declares (.extern .func or "
                                     f"a prototype); define or declare it (OptiX intrinsics {_RUNTIME[0]}* need "
                                     f"neither)")

    def _function(self, lines, i: int, kind: str) -> int:
        """Parse one ``.entry``/``.func``: a prototype (ends with ';') or a definition; the next index."""
        header, first = "", i
        while i < len(lines):
            text = lines[i][2]
            brace = text.find("{")
            if brace >= 0:
                header += " " + text[:brace]
                break
            header += " " + text
            if text.endswith(";") and header.count("(") == header.count(")"):
                return self._prototype(header, first, kind, i + 1)
            i += 1
        name, returns, params = _signature(header)
        self._check_params(header, name, params, lines[first:i + 1])
        if i == len(lines):
            raise self.error(lines[first][0], lines[first][1], name,
                             "the function has no body ('{') and no ';' ending a prototype")
        lineno, col, text = lines[i]
        brace = text.find("{")
        rest = text[brace + 1:]
        first_line = (lineno, col + brace + 1 + len(rest) - len(rest.lstrip()), rest.strip())
        body, nxt, declared = self._body(lines, i, first_line, name, (lineno, col + brace))
        if kind == "entry" and all(stmt.is_label or text.startswith(".") for stmt, text in body):
            raise InputFileError(f"{self.filename}:{lines[first][0]}:{lines[first][1]}: kernel {name!r} has no "
                                 "instruction in its body; an .entry runs at least 'ret;' (the kit does not make "
                                 "one up)")
        kernel = self._kernel(name, params, body, declared)
        if kind == "entry":
            self.kernels.append(kernel)
        else:
            self.functions[name] = kernel
            self.returns[name] = returns
        return nxt

    def _check_params(self, header: str, name: str, params: tuple[str, ...], lines) -> None:
        """Refuse a parameter declaration the signature does not name (never drop a parameter)."""
        m = _HEADER.search(header)
        written = re.findall(r"\.param\b[^,)]*", header[m.end():]) if m else []
        if len(written) != len(params):
            bad = " ".join(next((w for w in written if not _PARAM.match(w)), written[-1] if written else "").split())
            lineno, col, text = next(((n, c, t) for n, c, t in lines if bad.split()[-1:] and bad.split()[-1] in t),
                                     lines[0])
            raise self.error(lineno, col + text.find(".param") if ".param" in text else col, bad,
                             f"a parameter of {name!r} that is not '.param [.align N] .type [.ptr [.space] [.align N]] NAME'")

    def _prototype(self, header: str, first: int, kind: str, nxt: int) -> int:
        """A declaration without a body (``.func`` prototype, ``.extern .func``): remembered, no kernel."""
        self.prototypes.add(_signature(header)[0])
        return nxt

    def _body(self, lines, i: int, first_line, name: str, brace: tuple[int, int]):
        """Statements of a function body, scoped names renamed: ((statement, renamed text) list, next index, declared)."""
        found = body_statements(lines, i, first_line)
        if found is None:
            raise self.error(brace[0], brace[1], "{", f"the body of {name!r} that opens here is never closed by its '}}'")
        statements, nxt = found
        scopes = _Scopes()
        body: list[tuple[Statement, str]] = []
        depth = 0
        for stmt in statements:
            text = stmt.text
            if text == "{":
                depth += 1
                scopes.push()
            elif text == "}":
                depth -= 1
                scopes.pop()
            elif text.startswith((".reg", ".param")) and (depth > 0 or text.startswith(".reg")):
                body.append((stmt, scopes.declare(text, depth)))
            else:
                body.append((stmt, text if stmt.is_label else scopes.rename(text)))
        return body, nxt, scopes.declared

    def _kernel(self, name: str, params: tuple[str, ...], body, declared: "_Declared") -> Kernel:
        instructions: list[Instruction] = []
        labels: dict[str, int] = {}
        call_params: set[str] = set()
        symbols = dict(self.symbols)
        for stmt, line in body:
            if stmt.is_label:
                label = line[:-1]
                if label in labels:
                    raise self.error(stmt.line, stmt.col, label, f"label {label!r} is defined twice in {name!r}; a "
                                     f"branch to it would be ambiguous: rename one")
                labels[label] = len(instructions)
                continue
            if line.startswith("."):
                symbols.update(_symbol(line))
                if line.startswith(".param"):
                    call_params.update(m.group("name") for m in _PARAM.finditer(line))
                continue
            ins = self._instruction(stmt, line)
            self._check_registers(name, stmt, ins, declared)
            instructions.append(_per_thread_params(ins, call_params))
        last = body[-1][0].line if body else 0
        dangling = any(pc == len(instructions) for pc in labels.values())
        if dangling or not instructions or instructions[-1].base not in ("ret", "exit", "bra") or instructions[-1].guard:
            instructions.append(Instruction("ret", cls="exit", text="ret; // implicit", line=last))
        self._check_targets(name, instructions, labels)
        return Kernel(name, tuple(instructions), labels, params, syntax="ptx", symbols=symbols, filename=self.filename)

    def _check_registers(self, name: str, stmt: Statement, ins: Instruction, declared: "_Declared") -> None:
        """Refuse a register no ``.reg`` declares (a typo would otherwise be a fresh, unconstrained value)."""
        operands = ins.dst + ins.srcs + ((ins.guard,) if ins.guard else ())
        for operand in operands:
            for reg in _REGISTER.findall(operand):
                if reg not in declared and not SPECIAL_REGISTER.match(reg):
                    line, col = stmt.locate(reg)
                    raise InputFileError(f"{self.filename}:{line}:{col}: register {reg!r} is not declared in "
                                         f"{name!r}; declare it with .reg (e.g. '.reg .b32 {reg};') or use a "
                                         f"special register (%tid, %ctaid, %laneid, ...)")
        site = call_site(ins) if ins.base == "call" else None
        if site is not None:
            self.calls.append((site.callee, *stmt.locate(site.callee), name))

    def _check_targets(self, name: str, instructions, labels) -> None:
        for ins in instructions:
            if ins.target is not None and ins.target not in labels:
                col = ins.column + max(ins.text.find(ins.target), 0)
                raise InputFileError(f"{self.filename}:{ins.line}:{col}: {ins.base} in kernel {name!r} branches to "
                                     f"unknown label {ins.target!r}; define the label or fix the branch")

    def _instruction(self, stmt: Statement, line: str) -> Instruction:
        """One instruction: fields from ``line`` (scoped names renamed), errors quoting ``stmt`` as written."""
        if not stmt.ended:
            lineno, col, word = stmt.end()
            where = "" if len(stmt.pieces) == 1 else f" (the {stmt.text.split()[0]!r} that starts at line {stmt.line})"
            self._fail((lineno, col), word, f"an instruction must end with ';'{where}")
        m, written = _INS.match(line), _INS.match(stmt.text)
        if not m or not written:
            self._fail((stmt.line, stmt.col), stmt.text.split()[0], "expected '[@[!]%pred] opcode operands;'")
        if m.group("guard") is not None and not m.group("guard").startswith("%"):
            self._fail(stmt.locate(written.group("guard")), written.group("guard"),
                       "a guard is a predicate register (.reg .pred) that the function declares")
        op = m.group("op")
        args = _split_operands(m.group("args") or "")
        guard = None if m.group("guard") is None else m.group("neg") + m.group("guard")
        spec = ptx_spec(op)
        if spec is None:
            self._unknown(stmt.locate(op), op)
        needed, what = _OPERANDS_NEEDED.get(spec.name, _OPERANDS_NEEDED.get(op.split(".")[0], (0, "")))
        at = stmt.locate(op)
        if len(args) < needed:
            self._fail(at, op, f"it needs {what} (operands separated by ','), got {len(args)} operand(s)")
        if spec.name in ("wmma.load", "wmma.store"):
            try:
                wmma_tile(op)
            except ValueError as e:
                self._fail(at, op, str(e))
        if spec.name in _ADDRESSED and not any(a.startswith("[") for a in args):
            self._fail(at, op, f"it needs {_OPERANDS_NEEDED[spec.name][1]}; no operand is an [address]")
        for operand, as_written in zip(args, _split_operands(written.group("args") or "")):
            if not _OPERAND.fullmatch(_BRACKETED.sub("x", operand)):
                self._fail(stmt.locate(as_written), as_written, "an operand is a register, a number, a name, an "
                           "[address], a {vector}, a pair p|q or a (call list); is a ',' or ';' missing?")
        return _make(op, args, guard, stmt.text, stmt.line, spec, stmt.col)

    def _unknown(self, at: tuple[int, int], op: str) -> NoReturn:
        reason = refused_reason(op)
        what = f"{reason}, which the kit does not model" if reason else "an instruction the kit does not know"
        raise InputFileError(f"{self.filename}:{at[0]}:{at[1]}: PTX instruction {op!r} is {what}; supported: "
                             f"{supported_names(PTX_TABLE)} (see docs/kernels.md)")

    def _fail(self, at: tuple[int, int], token: str, what: str) -> NoReturn:
        raise self.error(at[0], at[1], token, what)


def _symbol(stmt: str) -> dict[str, str]:
    """{name: state space} for a variable declaration (``.shared .align 4 .b8 tile[128];``), else {}."""
    words = re.split(r"\s+", stmt.split("=")[0].strip().rstrip(";"))
    spaces = [w[1:] for w in words if w in (".global", ".shared", ".local", ".const")]
    names = [w for w in words if re.match(r"[A-Za-z_$][\w$]*", w)]
    if not spaces or not names:
        return {}
    return {re.match(r"[A-Za-z_$][\w$]*", names[0]).group(0): spaces[0]}  # type: ignore[union-attr]


def _signature(header: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(name, return parameters, parameters) of a ``.entry``/``.func`` header."""
    m = _HEADER.search(header)
    if m is None:
        return header.split()[-1].strip("(;"), (), ()
    returns = tuple(p.group("name") for p in _PARAM.finditer(m.group("rets") or ""))
    params = tuple(p.group("name") for p in _PARAM.finditer(header[m.end():]))
    return m.group("name"), returns, params


class _Scopes:
    """Names declared in nested ``{ }`` blocks, renamed so that they cannot clash.

    A register declared in a scoped block (``{ .reg .b32 %temp; ... }``, the
    blocks nvcc and inline asm emit) becomes ``%temp$N``, N numbering the
    declarations of the function; a call sequence's ``.param`` names likewise
    (``param0$N``).  A register declared without ``%`` (inline-asm predicates
    such as ``elect.sync``'s ``P1``) gets one, so that every analysis sees a
    register; predicates are named ``%p$...``, the others never start with
    ``%p`` (the simulator takes ``%p`` names for predicates).
    """

    def __init__(self) -> None:
        self.stack: list[dict[str, str]] = [{}]
        self.count = 0
        self.declared = _Declared()

    def push(self) -> None:
        self.stack.append({})

    def pop(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()

    def declare(self, stmt: str, depth: int) -> str:
        """Record the names a ``.reg``/``.param`` declaration introduces; the declaration renamed."""
        is_pred = ".pred" in stmt.split()
        words = [w for w in re.split(r"[\s,;]+", stmt) if w and not w.startswith(".")]
        self.count += 1
        for word in words:
            m = re.fullmatch(r"(%?[A-Za-z_$][\w$]*)(?:<(\d+)>)?(\[\d*\])?", word)
            if m is None:
                continue
            if m.group(2) is not None and depth == 0 and _bare_register(m.group(1) + "0", is_pred) == m.group(1) + "0":
                self.declared.ranges[m.group(1)] = max(self.declared.ranges.get(m.group(1), 0), int(m.group(2)))
                continue  # %r<200>: %r0 ... %r199, kept as written
            names = [m.group(1)] if m.group(2) is None else [f"{m.group(1)}{k}" for k in range(int(m.group(2)))]
            for name in names:
                if depth > 0:
                    self.stack[-1][name] = self._new_name(name, is_pred, stmt.startswith(".param"))
                elif _bare_register(name, is_pred) != name:
                    self.stack[-1][name] = _bare_register(name, is_pred)
                self.declared.names.add(self.stack[-1].get(name, name))
        return self.rename(stmt)

    def _new_name(self, name: str, is_pred: bool, is_param: bool) -> str:
        if is_param:
            return f"{name}${self.count}"
        return f"{_bare_register(name, is_pred)}${self.count}"

    def rename(self, stmt: str) -> str:
        """``stmt`` with every scoped name replaced by its innermost declaration's new name."""
        if len(self.stack) == 1 and not self.stack[0]:
            return stmt
        return _TOKEN.sub(self._lookup, stmt)

    def _lookup(self, m: re.Match) -> str:
        tok = m.group(0)
        for scope in reversed(self.stack):
            if tok in scope:
                return scope[tok]
        return tok


class _Declared:
    """The registers a function declares: names, and ranges ``%r<N>`` kept as (prefix, N)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.ranges: dict[str, int] = {}

    def __contains__(self, reg: object) -> bool:
        if reg in self.names:
            return True
        m = _NUMBERED.fullmatch(str(reg))
        return m is not None and int(m.group(2)) < self.ranges.get(m.group(1), 0)


_NUMBERED = re.compile(r"(.*?)(\d+)")


def _bare_register(name: str, is_pred: bool) -> str:
    """A register name that starts with ``%`` (``%p`` exactly for predicates)."""
    if name.startswith("%"):
        if is_pred == name.startswith("%p"):
            return name
        name = name[1:]
    return f"%p${name}" if is_pred else (f"%v${name}" if name[:1] in "pP" else f"%{name}")


def _per_thread_params(ins: Instruction, call_params: set[str]) -> Instruction:
    """Accesses to call-sequence parameters hold per-thread values: give them the local space."""
    if ins.space == "param" and any(re.search(rf"\[{re.escape(p)}\b", op) for op in ins.srcs for p in call_params):
        return replace(ins, space="local")
    return ins


# Operands an instruction cannot run without (an arithmetic one missing sources is refused when it runs).
_OPERANDS_NEEDED = {"bra": (1, "a target label"), "ld": (2, "a destination and an [address]"),
                    "ldu": (2, "a destination and an [address]"), "st": (2, "an [address] and a value"),
                    "red": (2, "an [address] and a value"), "atom": (3, "a destination, an [address] and a value"),
                    "wmma.load": (2, "a fragment and an [address]"), "wmma.store": (2, "an [address] and a fragment"),
                    "ldmatrix": (2, "a fragment and an [address]"), "stmatrix": (2, "an [address] and a fragment"),
                    "cp.async": (3, "a [shared] address, a [global] address and a size"),
                    "cp.async.bulk": (3, "a [destination], a [source] and a size"),
                    "mma": (4, "fragments d, a, b and c"), "wmma.mma": (4, "fragments d, a, b and c")}
_ADDRESSED = ("wmma.load", "wmma.store", "ldmatrix", "stmatrix", "cp.async", "cp.async.bulk")


def _make(op: str, args: list[str], guard: str | None, line: str, lineno: int, spec: OpSpec,
          column: int = 0) -> Instruction:
    parts = op.split(".")
    base = parts[0]
    space = (spec.space or _space(parts)) if spec.access else None
    dtype = next((p for p in reversed(parts[1:]) if re.fullmatch(r"[sbuf]\d+|pred", p)), None)
    target = None
    dst: tuple[str, ...]
    srcs: tuple[str, ...]
    if base in ("bra", "brx"):
        target, dst, srcs = args[-1], (), tuple(args[:-1])
    elif base == "call":  # (rets), callee, (args): what it writes are the registers among its rets
        rets = args[0] if args and args[0].startswith("(") else ""
        dst, srcs = tuple(_REGISTER.findall(rets)), tuple(args)
    elif not spec.dst or not args:
        dst, srcs = (), tuple(args)
    else:
        dst, srcs = _defs(args[0]), tuple(args[1:])
    cls = _class(base, parts, dtype) if spec.cls == "by type" else spec.cls
    return Instruction(op, dst, srcs, guard, target, cls, line, space, dtype, None, lineno, spec.unit, column)


def _space(parts: list[str]) -> str:
    """The state space an access names (``shared::cta`` is shared); generic when it names none.

    A copy between two spaces (``cp.async.bulk.shared::cluster.global``) is taken at its global side.
    """
    named = [p.split("::")[0] for p in parts[1:] if p.split("::")[0] in _STATES]
    if "global" in named:
        return "global"
    return named[0] if named else "generic"


def _defs(operand: str) -> tuple[str, ...]:
    """The registers an instruction's first operand writes (``%p|%q``, ``{%f1, %f2}``)."""
    return tuple(r for r in re.split(r"[|{},\s]+", operand) if r and r != "_")


def _class(base: str, parts: list[str], dtype: str | None) -> str:
    """The class of an arithmetic instruction: int, or the float class of its operation on a float type."""
    if base == "cvt":
        return "fcvt" if any(p.startswith("f") for p in parts[1:]) else "int"
    floating = (dtype or "").startswith("f") or any(p in _PACKED_FLOATS for p in parts[1:])
    if floating and base in _FLOAT_CLASS:
        return _FLOAT_CLASS[base]
    if base in ("div", "rem"):
        return "fdiv"
    return "int"


def _split_operands(args: str) -> list[str]:
    """Split on commas that are not inside brackets, braces or parentheses."""
    if "," not in args:
        return [args.strip()] if args.strip() else []
    out, depth, cur = [], 0, ""
    for ch in args:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def format_ptx(kernel: Kernel) -> str:
    """PTX text of a kernel that parses back to the same instructions, labels and parameters."""
    params = ",\n".join(f"\t.param .b64 {p}" for p in kernel.params)
    module_vars = [f".{space} .align 8 .b8 {name}[8];" for name, space in kernel.symbols.items()
                   if space in ("global", "const")]
    body_vars = [f"\t.{space} .align 8 .b8 {name}[8];" for name, space in kernel.symbols.items()
                 if space not in ("global", "const")]
    callees = sorted({site.callee for ins in kernel.instructions if ins.base == "call"
                      for site in [call_site(ins)] if site is not None})
    module_vars += [f".extern .func {callee} ();" for callee in callees]  # opaque callees stay declared
    lines = [".version 7.0", ".target sm_75", ".address_size 64", ""] + module_vars + [
             f".visible .entry {kernel.name}(" + ("\n" + params + "\n" if params else "") + ")", "{"] + body_vars
    lines += _declarations(kernel)
    at: dict[int, list[str]] = {}
    for label, pc in kernel.labels.items():
        at.setdefault(pc, []).append(label)
    for pc, ins in enumerate(kernel.instructions):
        lines += [f"{label}:" for label in sorted(at.get(pc, []))]
        lines.append("\t" + format_instruction(ins))
    lines += [f"{label}:" for label in sorted(at.get(len(kernel.instructions), []))]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _declarations(kernel: Kernel) -> list[str]:
    """``.reg`` lines for every register the kernel names (predicates are the ``%p`` names)."""
    regs = sorted({r for ins in kernel.instructions for op in ins.dst + ins.srcs + ((ins.guard,) if ins.guard else ())
                   for r in _REGISTER.findall(op) if not SPECIAL_REGISTER.match(r)})
    return [f"\t.reg .{'pred' if r.startswith('%p') else 'b64'} {r};" for r in regs]


def format_instruction(ins: Instruction) -> str:
    """One PTX statement for ``ins``."""
    operands = [_join_defs(ins.dst)] if ins.dst and ins.base != "call" else []
    operands += list(ins.srcs)
    if ins.target is not None:
        operands.append(ins.target)
    guard = f"@{ins.guard} " if ins.guard else ""
    return f"{guard}{ins.opcode}" + (" " + ", ".join(operands) if operands else "") + ";"


def _join_defs(dst: tuple[str, ...]) -> str:
    if len(dst) == 1:
        return dst[0]
    if all(d.startswith("%p") for d in dst) and len(dst) == 2:
        return "|".join(dst)
    return "{" + ", ".join(dst) + "}"
