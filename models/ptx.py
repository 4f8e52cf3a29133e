"""The PTX front end: the subset of PTX that nvcc emits, into the kernel IR.

Module directives (``.version``, ``.target``, ``.global``...) are accepted and
skipped; each ``.entry`` becomes a :class:`Kernel`.  Inside a body: ``.reg``,
``.shared``/``.local`` declarations, ``.pragma``, labels, and instructions
``[@[!]%p] opcode operands;``.  Operands are kept as written (registers,
immediates, ``[%rd1+4]`` addresses, symbols), so every analysis sees the
same text.  An opcode that is not recognised is an opaque ALU op with its
defs and uses.
"""
from __future__ import annotations

from typing import Any

import re
from dataclasses import replace

from warpcheck.models.errors import InputFileError
from warpcheck.models.kernel import Instruction, Kernel

_INS = re.compile(r"^(?:@(?P<neg>!?)(?P<guard>%[\w.]+)\s+)?(?P<op>[a-z][a-z0-9_.]*)(?:\s+(?P<args>.*?))?\s*;$")
_LABEL = re.compile(r"^(?P<label>[$%\w][\w$]*)\s*:\s*(?P<rest>.*)$")
_ENTRY = re.compile(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?P<kind>entry|func)\s+(?:\([^)]*\)\s*)?(?P<name>[\w$]+)")
_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.\w+\s+(?:\.ptr\S*\s+)*(?P<name>[\w$]+)")
_STATES = ("global", "shared", "local", "param", "const", "generic", "tex")
_NO_DST = ("st", "bra", "ret", "exit", "bar", "barrier", "membar", "fence", "red", "prefetch", "trap", "brkpt")
_FLOAT_CLASS = {"add": "fadd", "sub": "fadd", "min": "fadd", "max": "fadd", "abs": "fadd", "neg": "fadd",
                "setp": "fadd", "mul": "fmul", "fma": "fmadd", "mad": "fmadd", "div": "fdiv", "rcp": "fdiv",
                "sqrt": "fsqrt", "rsqrt": "fsqrt", "ex2": "fsqrt", "lg2": "fsqrt", "sin": "fsqrt", "cos": "fsqrt"}
_MEM = ("ld", "st", "ldu", "atom", "red", "tex", "tld4", "suld", "sust", "prefetch")


def parse_ptx(text: str, filename: str = "<ptx>") -> list[Kernel]:
    """Parse a PTX module into its kernels (``.entry`` functions), in file order."""
    return _Parser(text, filename).run()


def operand_registers(operand: str) -> list[str]:
    """The registers (``%name``) an operand reads, including address bases."""
    return re.findall(r"%[A-Za-z_$][\w$]*(?:\.[xyz])?", operand)


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        self.lines = text.splitlines()
        self.filename = filename
        self.kernels: list[Kernel] = []

    def error(self, lineno: int, column: int, token: str, what: str) -> InputFileError:
        return InputFileError(f"{self.filename}:{lineno}:{column}: cannot parse {token!r}: {what}")

    def run(self) -> list[Kernel]:
        lines = _strip_comments(self.lines)
        i = 0
        while i < len(lines):
            lineno, line = lines[i]
            m = _ENTRY.match(line)
            if m:
                i = self._function(lines, i, m.group("name"), m.group("kind"))
                continue
            if line and not line.startswith(".") and line not in ("{", "}"):
                raise self.error(lineno, 1, line.split()[0], "expected a module directive or an .entry")
            i += 1
        return self.kernels

    def _function(self, lines, i: int, name: str, kind: str) -> int:
        params: list[str] = []
        while i < len(lines) and "{" not in lines[i][1]:
            params += [m.group("name") for m in _PARAM.finditer(lines[i][1]) if m.group("name") != name]
            i += 1
        if i == len(lines):
            raise self.error(lines[-1][0], 1, name, "the function body has no '{'")
        body, i = self._body(lines, i + 1)
        if kind == "entry":
            self.kernels.append(self._kernel(name, tuple(params), body))
        return i

    def _body(self, lines, i: int):
        body: list[Any] = []
        depth = 1
        while i < len(lines):
            lineno, line = lines[i]
            if line == "}" and depth == 1:
                return body, i + 1
            depth += line.count("{") - line.count("}")
            if line not in ("{", "}"):
                body.append((lineno, line))
            i += 1
        raise self.error(lines[-1][0], 1, "}", "the function body is not closed")

    def _kernel(self, name: str, params: tuple[str, ...], body) -> Kernel:
        instructions: list[Instruction] = []
        labels: dict[str, int] = {}
        call_params: set[str] = set()
        for lineno, line in _statements(body):
            m = _LABEL.match(line)
            while m and not line.startswith("@"):
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
        return Kernel(name, tuple(instructions), labels, params, syntax="ptx")

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
        return _make(op, args, guard, line, lineno)

    def _fail(self, lineno: int, column: int, token: str, what: str):
        raise self.error(lineno, column, token, what)


def _statements(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Join statements that nvcc spreads over several lines (call sequences) into one.

    A line continues on the next one only when it ends with ``,`` or ``(`` or
    leaves a parenthesis open, so a statement that merely lacks its ``;`` is
    still reported on its own line.
    """
    out, pending, start = [], "", 0
    for lineno, line in body:
        if not pending and not line.endswith((",", "(")):
            out.append((lineno, line))
            continue
        pending, start = (pending + " " + line, start) if pending else (line, lineno)
        if pending.endswith(";") or (pending.count("(") == pending.count(")") and not line.endswith((",", "("))):
            out.append((start, re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", pending))))
            pending = ""
    if pending:
        out.append((start, pending))
    return out


def _per_thread_params(ins: Instruction, call_params: set[str]) -> Instruction:
    """Accesses to call-sequence parameters hold per-thread values: give them the local space."""
    if ins.space == "param" and any(re.search(rf"\[{re.escape(p)}\b", op) for op in ins.srcs for p in call_params):
        return replace(ins, space="local")
    return ins


def _make(op: str, args: list[str], guard: str | None, line: str, lineno: int) -> Instruction:
    parts = op.split(".")
    base = parts[0]
    space = next((p for p in parts[1:] if p in _STATES), "generic") if base in _MEM else None
    dtype = next((p for p in reversed(parts[1:]) if re.fullmatch(r"[sbuf]\d+|pred", p)), None)
    target = None
    dst: tuple[str, ...]
    srcs: tuple[str, ...]
    if base in ("bra", "brx"):
        target, dst, srcs = args[-1], (), tuple(args[:-1])
    elif base in _NO_DST or not args:
        dst, srcs = (), tuple(args)
    else:
        dst, srcs = _defs(args[0]), tuple(args[1:])
    return Instruction(op, dst, srcs, guard, target, _class(base, parts, dtype), line, space, dtype, None, lineno)


def _defs(operand: str) -> tuple[str, ...]:
    """The registers an instruction's first operand writes (``%p|%q``, ``{%f1, %f2}``)."""
    return tuple(r for r in re.split(r"[|{},\s]+", operand) if r and r != "_")


def _class(base: str, parts: list[str], dtype: str | None) -> str:
    if base in _MEM:
        return "mem"
    if base in ("bra", "brx"):
        return "branch"
    if base in ("ret", "exit"):
        return "exit"
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
    lines = [".version 7.0", ".target sm_75", ".address_size 64", "",
             f".visible .entry {kernel.name}(" + ("\n" + params + "\n" if params else "") + ")", "{"]
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
