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

from typing import Any

import re
from dataclasses import replace

from warpcheck.models.errors import InputFileError
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.opcodes import OpSpec, PTX_TABLE, ptx_spec, refused_reason, supported_names, wmma_tile
from warpcheck.models.kernels.ptx_calls import PtxModule

_INS = re.compile(r"^(?:@(?P<neg>!?)(?P<guard>%[\w.$]+)\s+)?(?P<op>[a-z][A-Za-z0-9_.:]*)(?:\s+(?P<args>.*?))?\s*;$")
_LABEL = re.compile(r"^(?P<label>[$%\w][\w$]*)\s*:\s*(?P<rest>.*)$")
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
    return PtxModule(tuple(parser.kernels), dict(parser.functions), dict(parser.returns),
                     frozenset(parser.prototypes), filename)


def operand_registers(operand: str) -> list[str]:
    """The registers (``%name``) an operand reads, including address bases."""
    return re.findall(r"%[A-Za-z_$][\w$]*(?:\.[xyz])?", operand)


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        self.lines = text.splitlines()
        self.filename = filename
        self.kernels: list[Kernel] = []
        self.functions: dict[str, Kernel] = {}
        self.returns: dict[str, tuple[str, ...]] = {}
        self.prototypes: set[str] = set()
        self.symbols: dict[str, str] = {}  # module-level variables -> state space

    def error(self, lineno: int, column: int, token: str, what: str) -> InputFileError:
        return InputFileError(f"{self.filename}:{lineno}:{column}: cannot parse {token!r}: {what}")

    def run(self) -> list[Kernel]:
        lines = _strip_comments(self.lines)
        i = 0
        while i < len(lines):
            lineno, line = lines[i]
            m = _ENTRY.match(line)
            if m:
                i = self._function(lines, i, m.group("kind"))
                continue
            if line and not line.startswith(".") and line not in ("{", "}"):
                raise self.error(lineno, 1, line.split()[0], "expected a module directive or an .entry")
            self.symbols.update(_symbol(line))
            i += 1
        return self.kernels

    def _function(self, lines, i: int, kind: str) -> int:
        """Parse one ``.entry``/``.func``: a prototype (ends with ';') or a definition; the next index."""
        header, first = "", i
        while i < len(lines):
            text = lines[i][1]
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
            raise self.error(lines[first][0], 1, name, "the function has no body ('{') and no ';' ending a prototype")
        rest = lines[i][1][lines[i][1].find("{") + 1:].strip()
        body, used = self._body(([(lines[i][0], rest)] if rest else []) + lines[i + 1:], name)
        kernel = self._kernel(name, params, body)
        if kind == "entry":
            self.kernels.append(kernel)
        else:
            self.functions[name] = kernel
            self.returns[name] = returns
        return i + used if rest else i + 1 + used

    def _check_params(self, header: str, name: str, params: tuple[str, ...], lines) -> None:
        """Refuse a parameter declaration the signature does not name (never drop a parameter)."""
        m = _HEADER.search(header)
        written = re.findall(r"\.param\b[^,)]*", header[m.end():]) if m else []
        if len(written) != len(params):
            bad = " ".join(next((w for w in written if not _PARAM.match(w)), written[-1] if written else "").split())
            lineno, text = next(((n, t) for n, t in lines if bad.split()[-1:] and bad.split()[-1] in t), lines[0])
            raise self.error(lineno, text.find(".param") + 1 if ".param" in text else 1, bad,
                             f"a parameter of {name!r} that is not '.param [.align N] .type [.ptr [.space] [.align N]] NAME'")

    def _prototype(self, header: str, first: int, kind: str, nxt: int) -> int:
        """A declaration without a body (``.func`` prototype, ``.extern .func``): remembered, no kernel."""
        self.prototypes.add(_signature(header)[0])
        return nxt

    def _body(self, lines, name: str):
        """Statements of a function body up to its closing brace, scoped names renamed; (body, lines used)."""
        scopes = _Scopes()
        body: list[tuple[int, str]] = []
        depth = 0
        statements, used = _statements_until_close(lines)
        if statements is None:
            raise self.error(lines[-1][0] if lines else 0, 1, "}", f"the body of {name!r} is not closed")
        for lineno, stmt in statements:
            if stmt == "{":
                depth += 1
                scopes.push()
            elif stmt == "}":
                depth -= 1
                scopes.pop()
            elif stmt.startswith((".reg", ".param")) and (depth > 0 or stmt.startswith(".reg")):
                body.append((lineno, scopes.declare(stmt, depth)))
            else:
                body.append((lineno, scopes.rename(stmt)))
        return body, used

    def _kernel(self, name: str, params: tuple[str, ...], body) -> Kernel:
        instructions: list[Instruction] = []
        labels: dict[str, int] = {}
        call_params: set[str] = set()
        symbols = dict(self.symbols)
        for lineno, line in body:
            symbols.update(_symbol(line))
            m = _LABEL.match(line)
            while m and not line.startswith("@"):
                if m.group("label") in labels:
                    raise self.error(lineno, 1, m.group("label"), f"label {m.group('label')!r} is defined twice in "
                                     f"{name!r}; a branch to it would be ambiguous: rename one")
                labels[m.group("label")] = len(instructions)
                line = m.group("rest")
                m = _LABEL.match(line)
            if line.startswith(".param"):
                call_params.update(m.group("name") for m in _PARAM.finditer(line))
            if not line or line.startswith("."):
                continue
            instructions.append(_per_thread_params(self._instruction(lineno, line), call_params))
        dangling = any(pc == len(instructions) for pc in labels.values())
        if dangling or not instructions or instructions[-1].base not in ("ret", "exit", "bra") or instructions[-1].guard:
            instructions.append(Instruction("ret", cls="exit", text="ret; // implicit", line=body[-1][0] if body else 0))
        self._check_targets(name, instructions, labels)
        return Kernel(name, tuple(instructions), labels, params, syntax="ptx", symbols=symbols)

    def _check_targets(self, name: str, instructions, labels) -> None:
        for ins in instructions:
            if ins.target is not None and ins.target not in labels:
                col = ins.text.find(ins.target) + 1
                raise InputFileError(f"{self.filename}:{ins.line}:{col}: {ins.base} in kernel {name!r} branches to "
                                     f"unknown label {ins.target!r}; define the label or fix the branch")

    def _instruction(self, lineno: int, line: str) -> Instruction:
        m = _INS.match(line)
        if not m:
            bad = line if not line.endswith(";") else line.split()[0]
            column = 1
            if line.endswith(";") and line.startswith("@"):
                bad, column = line.split()[0], 1
            elif not line.endswith(";"):
                bad, column = line.split()[-1], len(line) - len(line.split()[-1]) + 1
                return self._fail(lineno, column, bad, "an instruction must end with ';'")
            return self._fail(lineno, column, bad, "expected '[@[!]%pred] opcode operands;'")
        op = m.group("op")
        args = _split_operands(m.group("args") or "")
        guard = None if m.group("guard") is None else m.group("neg") + m.group("guard")
        spec = ptx_spec(op)
        if spec is None:
            self._unknown(lineno, line.find(op) + 1, op)
        needed, what = _OPERANDS_NEEDED.get(spec.name, _OPERANDS_NEEDED.get(op.split(".")[0], (0, "")))
        if len(args) < needed:
            self._fail(lineno, 1, op, f"it needs {what} (operands separated by ','), got {len(args)} operand(s)")
        if spec.name in ("wmma.load", "wmma.store"):
            try:
                wmma_tile(op)
            except ValueError as e:
                self._fail(lineno, 1, op, str(e))
        if spec.name in _ADDRESSED and not any(a.startswith("[") for a in args):
            self._fail(lineno, 1, op, f"it needs {_OPERANDS_NEEDED[spec.name][1]}; no operand is an [address]")
        return _make(op, args, guard, line, lineno, spec)

    def _unknown(self, lineno: int, column: int, op: str):
        reason = refused_reason(op)
        what = f"{reason}, which the kit does not model" if reason else "an instruction the kit does not know"
        raise InputFileError(f"{self.filename}:{lineno}:{column}: PTX instruction {op!r} is {what}; supported: "
                             f"{supported_names(PTX_TABLE)} (see docs/kernels.md)")

    def _fail(self, lineno: int, column: int, token: str, what: str):
        raise self.error(lineno, column, token, what)


def _statements_until_close(lines: list[tuple[int, str]]):
    """Statements of a body up to the brace that closes it: ((line, text) list, lines used).

    ``{`` and ``}`` that open a statement are scope braces and come out as
    statements of their own, so a one-line scoped block splits; braces inside
    an instruction's operands (``{%f1, %f2}``) stay in it.  A statement that
    nvcc spreads over several lines (call sequences) is joined: a piece
    continues on the next line only when it ends with ``,`` or ``(`` or leaves
    a parenthesis open, so a statement that merely lacks its ``;`` is still
    reported on its own line.  Returns (None, n) when the body never closes.
    """
    out: list[tuple[int, str]] = []
    pending, start, depth = "", 0, 0
    for used, (lineno, line) in enumerate(lines, 1):
        rest = line.strip()
        while rest:
            if not pending and rest[0] in "{}":
                depth += 1 if rest[0] == "{" else -1
                if depth < 0:
                    return _flush(out, pending, start), used
                out.append((lineno, rest[0]))
                rest = rest[1:].strip()
                continue
            label = _LABEL_ONLY.match(rest) if not pending else None
            if label:
                out.append((lineno, label.group(0).strip()))
                rest = rest[label.end():].strip()
                continue
            end = rest.find(";")
            piece, rest = (rest, "") if end < 0 else (rest[:end + 1], rest[end + 1:].strip())
            pending, start = (pending + " " + piece, start) if pending else (piece, lineno)
            if pending.endswith(";") or (pending.count("(") == pending.count(")") and not piece.endswith((",", "("))):
                out.append((start, re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", pending))))
                pending = ""
    return None, len(lines)


def _flush(out: list[tuple[int, str]], pending: str, start: int) -> list[tuple[int, str]]:
    return out + ([(start, pending)] if pending else [])


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
            names = [m.group(1)] if m.group(2) is None else [f"{m.group(1)}{k}" for k in range(int(m.group(2)))]
            for name in names:
                if depth > 0:
                    self.stack[-1][name] = self._new_name(name, is_pred, stmt.startswith(".param"))
                elif _bare_register(name, is_pred) != name:
                    self.stack[-1][name] = _bare_register(name, is_pred)
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


def _make(op: str, args: list[str], guard: str | None, line: str, lineno: int, spec: OpSpec) -> Instruction:
    parts = op.split(".")
    base = parts[0]
    space = (spec.space or _space(parts)) if spec.access else None
    dtype = next((p for p in reversed(parts[1:]) if re.fullmatch(r"[sbuf]\d+|pred", p)), None)
    target = None
    dst: tuple[str, ...]
    srcs: tuple[str, ...]
    if base in ("bra", "brx"):
        target, dst, srcs = args[-1], (), tuple(args[:-1])
    elif not spec.dst or not args:
        dst, srcs = (), tuple(args)
    else:
        dst, srcs = _defs(args[0]), tuple(args[1:])
    cls = _class(base, parts, dtype) if spec.cls == "by type" else spec.cls
    return Instruction(op, dst, srcs, guard, target, cls, line, space, dtype, None, lineno, spec.unit)


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
    if dtype and dtype.startswith("f") and base in _FLOAT_CLASS:
        return _FLOAT_CLASS[base]
    if base in ("div", "rem"):
        return "fdiv"
    return "int"


def _split_operands(args: str) -> list[str]:
    """Split on commas that are not inside brackets or braces."""
    out, depth, cur = [], 0, ""
    for ch in args:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _strip_comments(lines: list[str]) -> list[tuple[int, str]]:
    """(line number, text) pairs without comments or blank lines."""
    out, in_block = [], False
    for n, raw in enumerate(lines, 1):
        text = ""
        i = 0
        while i < len(raw):
            if in_block:
                end = raw.find("*/", i)
                if end < 0:
                    i = len(raw)
                    continue
                in_block, i = False, end + 2
            elif raw.startswith("/*", i):
                in_block, i = True, i + 2
            elif raw.startswith("//", i):
                break
            else:
                text += raw[i]
                i += 1
        text = text.strip()
        if text:
            out.append((n, text))
    return out


def format_ptx(kernel: Kernel) -> str:
    """PTX text of a kernel that parses back to the same instructions, labels and parameters."""
    params = ",\n".join(f"\t.param .b64 {p}" for p in kernel.params)
    module_vars = [f".{space} .align 8 .b8 {name}[8];" for name, space in kernel.symbols.items()
                   if space in ("global", "const")]
    body_vars = [f"\t.{space} .align 8 .b8 {name}[8];" for name, space in kernel.symbols.items()
                 if space not in ("global", "const")]
    lines = [".version 7.0", ".target sm_75", ".address_size 64", ""] + module_vars + [
             f".visible .entry {kernel.name}(" + ("\n" + params + "\n" if params else "") + ")", "{"] + body_vars
    at: dict[int, list[str]] = {}
    for label, pc in kernel.labels.items():
        at.setdefault(pc, []).append(label)
    for pc, ins in enumerate(kernel.instructions):
        lines += [f"{label}:" for label in sorted(at.get(pc, []))]
        lines.append("\t" + format_instruction(ins))
    lines += [f"{label}:" for label in sorted(at.get(len(kernel.instructions), []))]
    lines.append("}")
    return "\n".join(lines) + "\n"


def format_instruction(ins: Instruction) -> str:
    """One PTX statement for ``ins``."""
    operands = [_join_defs(ins.dst)] if ins.dst else []
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
