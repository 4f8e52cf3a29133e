"""The SASS-style front end: Pascal-like listings with SSY / SYNC / BRA / EXIT.

Syntax, one statement per line (``#`` and ``//`` start comments, an address
comment such as ``/*0040*/`` is ignored)::

    .kernel slides              # the kernel's name: once, before the first instruction
    .param n                    # uniform kernel parameters, usable as operands
    A:  S2R R0, SR_TID.X ;
        ISETP.LT P0, R0, n ;
        SSY TARGET2 ;
        @P0 BRA TARGET1 ;
        ...
        SYNC ;
    TARGET2:
        EXIT ;

Registers are ``R<n>`` (``RZ`` reads 0), predicates ``P<n>`` (``PT`` is
true); special registers ``SR_TID.X``, ``SR_LANEID``, ``SR_CTAID.X``,
``SR_NTID.X``; immediates are integers or floats.  The first operand is the
destination except for stores, branches, SSY, SYNC, EXIT and BAR.
"""
from __future__ import annotations

import re
from pathlib import PurePath

from warpcheck.models.errors import InputFileError
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.opcodes import SASS_TABLE, sass_spec, supported_names

_LINE = re.compile(r"^(?:(?P<label>[A-Za-z_.$][\w.$]*)\s*:)?\s*(?P<rest>.*)$")
_INS = re.compile(r"^(?:@(?P<neg>!?)(?P<guard>P\d+|PT)\s+)?(?P<op>[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)"
                  r"(?:\s+(?P<args>[^;]*?))?\s*;?$")
_OPERAND = re.compile(r"^-?(?:R\d+|RZ|P\d+|PT|!P\d+|SR_[A-Z_]+(?:\.[XYZ])?|c\[[^\]]*\]\[[^\]]*\]|"
                      r"\[[^\]]*\]|0x[0-9a-fA-F]+|-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[A-Za-z_$][\w$]*)$")
# Operands an instruction cannot run without (an arithmetic one missing sources is refused when it runs).
_OPERANDS_NEEDED = {**dict.fromkeys(("BRA", "SSY"), (1, "a target label")),
                    **dict.fromkeys(("STG", "STS", "STL", "ST", "RED"), (2, "an [address] and a value")),
                    **dict.fromkeys(("LDG", "LDS", "LDL", "LD", "LDC"), (2, "a destination and an [address]")),
                    **dict.fromkeys(("ATOM", "ATOMS"), (3, "a destination, an [address] and a value"))}


def parse_sass(text: str, filename: str = "<sass>", named: bool = False) -> list[Kernel]:
    """Parse a SASS-style listing into its kernel (a one-element list).

    ``named``: the listing must name its kernel (``.kernel NAME``), as a file given to a verb must;
    without it a listing built in code is called after ``filename``'s stem (``kernel`` for none).
    """
    name = PurePath(filename).stem if filename != "<sass>" else "kernel"
    named_at: int | None = None
    params: list[str] = []
    instructions: list[Instruction] = []
    labels: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"/\*.*?\*/", " ", raw).split("#")[0].split("//")[0].strip()
        if not line:
            continue
        if line.startswith(".kernel"):
            name = _directive_value(line, filename, lineno)
            _check_kernel_line(named_at, bool(instructions), filename, lineno)
            named_at = lineno
            continue
        if line.startswith(".param"):
            params += [p.strip() for p in _directive_value(line, filename, lineno).split(",") if p.strip()]
            continue
        m = _LINE.match(line)
        if m is None:  # the pattern's parts are all optional, so this cannot happen
            raise InputFileError(f"{filename}:{lineno}:1: cannot parse {line!r}")
        if m.group("label") in labels:
            raise InputFileError(f"{filename}:{lineno}:1: label {m.group('label')!r} is defined twice; "
                                 "rename one of them")
        if m.group("label"):
            labels[m.group("label")] = len(instructions)
        rest = m.group("rest").strip()
        if rest:
            instructions.append(_instruction(rest, raw, filename, lineno))
    if not instructions:
        raise InputFileError(f"{filename}: no instruction in this SASS listing; give at least one (e.g. EXIT ;)")
    if named and named_at is None:
        raise InputFileError(f"{filename}: no .kernel directive in this SASS listing; name its kernel (.kernel NAME) "
                             "before its first instruction; the kit does not guess it")
    if any(pc == len(instructions) for pc in labels.values()) \
            or instructions[-1].base not in ("exit", "ret", "bra", "sync") or instructions[-1].guard is not None:
        instructions.append(Instruction("EXIT", cls="exit", text="EXIT ; // implicit"))
    for ins in instructions:
        if ins.target is not None and ins.target not in labels:
            col = ins.text.find(ins.target) + 1
            raise InputFileError(f"{filename}:{ins.line}:{col}: {ins.opcode} branches to unknown label "
                                 f"{ins.target!r}; define the label or fix the branch")
    _check_syncs(instructions, labels, filename)
    return [Kernel(name, tuple(instructions), labels, tuple(params), syntax="sass", filename=filename)]


def _check_syncs(instructions: list[Instruction], labels: dict[str, int], filename: str) -> None:
    """Refuse a SYNC that some path from the entry reaches without passing an SSY.

    Such a SYNC would pop the kernel's base entry of the activation stack: no
    compiler emits it, and the stack model has no meaning for it.
    """
    seen, todo = set(), [0]
    while todo:
        pc = todo.pop()
        if pc in seen or pc >= len(instructions):
            continue
        seen.add(pc)
        ins = instructions[pc]
        if ins.base == "sync":
            raise InputFileError(f"{filename}:{ins.line}:{ins.text.find('SYNC') + 1}: SYNC without a matching SSY "
                                 "(a path from the entry reaches it through no SSY); add the SSY that names its "
                                 "reconvergence point")
        if ins.base == "ssy":
            continue  # what follows is inside an SSY region
        if ins.base == "bra":
            todo.append(labels[ins.target])  # type: ignore[index]
        if ins.guard is not None or ins.base not in ("bra", "exit", "ret"):
            todo.append(pc + 1)


def _check_kernel_line(before: int | None, after_code: bool, filename: str, lineno: int) -> None:
    """Refuse a second ``.kernel`` (a listing holds one kernel) and one after the first instruction."""
    if before is not None:
        raise InputFileError(f"{filename}:{lineno}:1: a second .kernel (the first is on line {before}); a SASS "
                             "listing holds one kernel: put each in a file of its own")
    if after_code:
        raise InputFileError(f"{filename}:{lineno}:1: .kernel after the first instruction; name the kernel before "
                             "its code")


def _directive_value(line: str, filename: str, lineno: int) -> str:
    parts = line.split(None, 1)
    if len(parts) < 2:
        raise InputFileError(f"{filename}:{lineno}:1: cannot parse {line!r}: the directive needs a value")
    return parts[1].strip()


def _instruction(text: str, raw: str, filename: str, lineno: int) -> Instruction:
    m = _INS.match(text)
    column = raw.find(text) + 1
    if not m:
        token = text.split()[0]
        raise InputFileError(f"{filename}:{lineno}:{column}: cannot parse {token!r}: expected "
                             f"'[@[!]P<n>] OPCODE operands ;' with an upper-case opcode")
    op = m.group("op")
    args = [a.strip() for a in (m.group("args") or "").split(",") if a.strip()]
    for a in args:
        if not _OPERAND.match(a):
            raise InputFileError(f"{filename}:{lineno}:{raw.find(a) + 1}: cannot parse {a!r}: expected a register, "
                                 f"predicate, special register, immediate, [address] or label")
    base = op.split(".")[0]
    spec = sass_spec(op)
    if spec is None:
        raise InputFileError(f"{filename}:{lineno}:{column}: SASS instruction {op!r} is an instruction the kit does "
                             f"not know; supported: {supported_names(SASS_TABLE)} (see docs/kernels.md)")
    needed, what = _OPERANDS_NEEDED.get(base, (0, ""))
    if len(args) < needed:
        raise InputFileError(f"{filename}:{lineno}:{column}: {op} needs {what}; it has {len(args)} operand(s)")
    guard = None if m.group("guard") in (None, "PT") else m.group("neg") + m.group("guard")
    target = args[0] if base in ("BRA", "SSY") else None
    dst: tuple[str, ...]
    srcs: tuple[str, ...]
    if base in ("BRA", "SSY"):
        dst, srcs = (), ()
    elif not spec.dst or not args:
        dst, srcs = (), tuple(args)
    else:
        dst, srcs = (args[0],), tuple(args[1:])
    cls = "fdiv" if base == "MUFU" and "RCP" in op else spec.cls
    return Instruction(op, dst, srcs, guard, target, cls, text, spec.space or None, None, None, lineno, spec.unit,
                       column)


def format_sass(kernel: Kernel) -> str:
    """SASS-style text of a kernel that parses back to the same instructions and labels."""
    lines = [f".kernel {kernel.name}"] + ([f".param {', '.join(kernel.params)}"] if kernel.params else [])
    at: dict[int, list[str]] = {}
    for label, pc in kernel.labels.items():
        at.setdefault(pc, []).append(label)
    for pc, ins in enumerate(kernel.instructions):
        lines += [f"{label}:" for label in sorted(at.get(pc, []))]
        operands = ([ins.target] if ins.target else []) + list(ins.dst) + list(ins.srcs)
        guard = f"@{ins.guard} " if ins.guard else ""
        lines.append(f"        {guard}{ins.opcode}" + (" " + ", ".join(operands) if operands else "") + " ;")
    lines += [f"{label}:" for label in sorted(at.get(len(kernel.instructions), []))]
    return "\n".join(lines) + "\n"
