"""The reference's own reading of a PTX entry: its instructions, in order, and the role of each.

Written again from the documentation (the "Units" table of
``docs/makespan-interval.md``, section "Kernels from PTX", and the instruction
table of ``docs/kernels.md`` where that one is silent), importing nothing of
``models/makespan`` or ``models/kernels``: the design's mapping
(``models/makespan/ptx_units.py`` over the opcode table) is checked against it
(``api/_makespan/ptx_check.py``), so that a bug in that mapping cannot hide
behind the same bug in the code that judges it.

The roles, as this module applies them, first match wins:

- ``tensor``: ``mma`` and ``wmma.mma`` (and ``movmatrix``, which the docs leave out);
- ``ldst``: memory instructions (``ld``, ``st``, ``atom``, ``red``, ``tex``, ...),
  fragment loads and stores, the asynchronous copies (``cp.async``, bulk copies, TMA);
- ``sfu``: special functions and division (``rcp``, ``sqrt``, ``ex2``, ``div``, ...);
- ``fp64`` / ``float``: float arithmetic, compares and conversions, fp64 on ``.f64``;
- ``int``: every other instruction the tables name (integer, bit, move, integer
  compare and conversion, warp exchanges, barriers and fences, branches, exit).

An opcode neither table names is refused by name, never given a role.
"""
from __future__ import annotations

import bisect
import re
import tomllib
from dataclasses import dataclass

from warpcheck.models.errors import ConfigError, InputFileError

ROLES = ("ldst", "int", "float", "fp64", "sfu", "tensor")

# Docs row ldst: "memory classes (ld, st, atom, tex, ...)"; the rest of the family from docs/kernels.md's
# memory rows (loads, stores, atomics and reductions, prefetches, textures and surfaces, mbarrier objects).
_MEMORY = {"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "tex", "tld4", "suld", "sust", "sured",
           "mbarrier", "ldmatrix", "stmatrix"}
# Docs row sfu: "rcp, sqrt, rsqrt, sin, cos, ex2, lg2, div/sqrt on floats"; tanh is one of docs/kernels.md's
# special functions.
_SPECIAL = {"rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh"}
# Docs rows float / fp64: the add, multiply and multiply-add classes, compares included (on integers they
# are int: the docs' int row says "compare" and the module docs "compare on integers").
_ARITHMETIC = {"add", "sub", "mul", "mad", "fma", "min", "max", "abs", "neg", "setp", "set", "copysign", "testp"}
# Docs row int, opcode by opcode (docs/kernels.md's integer, exchange, barrier, branch and query rows).
_INTEGER = {"mul24", "mad24", "sad", "addc", "subc", "madc", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi",
            "dp4a", "dp2a", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "prmt", "mov",
            "cvta", "isspacep", "mapa", "getctarank", "createpolicy", "bmsk", "szext",
            "selp", "slct",  # a select moves one of its sources: "move" (no float class of its own)
            "shfl", "vote", "match", "activemask", "elect", "redux",
            "bar", "barrier", "membar", "fence", "griddepcontrol", "setmaxnreg", "pmevent", "trap", "brkpt",
            "bra", "brx", "ret", "exit",
            "call",  # the branch to a function; the function's body is read as one of its own
            "txq", "suq"}  # texture / surface queries read no memory
_FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "e4m3", "e5m2", "e4m3x2", "e5m2x2"}
_INT_TYPES = {f"{k}{n}" for k in "sub" for n in (8, 16, 32, 64)} | {"b128", "pred"}
# The commit and the waits of asynchronous copies order them like a fence: docs row int ("barriers and fences"),
# while the copies themselves are ldst.
_COPY_WAITS = {"commit_group", "wait_group", "wait_all", "arrive"}


def role(opcode: str) -> str:
    """The documented role of one PTX opcode (with its dotted modifiers); a ConfigError for one no table names."""
    parts = opcode.lower().split(".")
    base = parts[0]
    types = [p for p in parts[1:] if p in _FLOAT_TYPES or p in _INT_TYPES]
    floats = [t for t in types if t in _FLOAT_TYPES]
    if base == "wmma" and parts[1:2] in (["load"], ["store"]):
        return "ldst"  # docs row tensor: "fragment loads and stores are ldst"
    if base == "mma" or parts[:2] == ["wmma", "mma"] or base == "movmatrix":
        # movmatrix (a fragment transpose in registers): the docs name no role; docs/kernels.md gives it the
        # tensor cores' matrix class and no memory access, so the tensor row, not ldst
        return "tensor"
    if base == "cp" and parts[1:2] in (["async"], ["reduce"]):
        return "int" if _COPY_WAITS & set(parts) else "ldst"
    if base in _MEMORY:
        return "ldst"
    if base in _SPECIAL and floats:
        return "sfu"
    if base in ("div", "rem"):
        # docs row sfu takes the fdiv class; docs/kernels.md puts integer div and rem in it too
        return "sfu"
    if base in _ARITHMETIC and types and types[-1] in _FLOAT_TYPES:  # the operation's type is its last
        return "fp64" if types[-1] == "f64" else "float"
    if base == "cvt":  # docs row fp64: "the same on .f64" operands, the converted one or the result
        return ("fp64" if "f64" in floats else "float") if floats else "int"
    if base in _INTEGER or (base in _ARITHMETIC and types):
        return "int"
    raise ConfigError(f"opcode {opcode!r} is in no row of the documented unit table (docs/makespan-interval.md) "
                      "and the reference gives it no role; add it to the table first")


@dataclass(frozen=True)
class RefInstruction:
    """One static instruction of an entry as the reference reads it: line, opcode (with modifiers), role."""

    line: int
    opcode: str
    role: str


_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_LABEL = re.compile(r"[A-Za-z_$%][\w$]*\s*:(?!:)")
_GUARD = re.compile(r"@!?%?[\w$]+\s+")
_OPCODE = re.compile(r"[a-z][\w.:]*")  # ends at a blank, an operand's '(' or '{', or the ';'


def entry_instructions(text: str, entry: str | None = None, where: str = "<ptx>") -> list[RefInstruction]:
    """The instructions, with their roles, of the body of ``.entry entry`` or ``.func entry`` (default: the only entry).

    Labels, directives, scope braces, comments and guards (``@%p1``) are not
    instructions; a call stays one instruction (its function's body is read
    by naming the function).
    """
    return _Reader(text, where).body(entry)


class _Reader:
    """One PTX text without its comments (blanked, so that positions keep their lines), read statement by statement."""

    def __init__(self, text: str, where: str) -> None:
        self.text = _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
        self.where = where
        self.ends = [i for i, c in enumerate(self.text) if c == "\n"]

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self.ends, pos) + 1

    def body(self, name: str | None) -> list[RefInstruction]:
        """The instructions between the body's '{' and its matching '}'."""
        text, start = self.text, _body_start(self.text, name, self.where)
        out: list[RefInstruction] = []
        depth, i = 1, start
        while depth:
            while i < len(text) and text[i].isspace():
                i += 1
            label = _LABEL.match(text, i)
            if i == len(text):
                raise InputFileError(f"{self.where}: the body that opens on line {self.line(start)} is never closed")
            if text[i] in "{}":
                depth, i = depth + (1 if text[i] == "{" else -1), i + 1
            elif label:
                i = label.end()
            elif text[i] == ".":  # a directive: it ends at its ';' or, like .loc, at the end of its line
                i = min(_find(text, ";", i) + 1, _find(text, "\n", i))
            else:
                i = self.statement(i, out)
        return out

    def statement(self, i: int, out: list[RefInstruction]) -> int:
        """Read one instruction from ``i`` to its ';' into ``out``; the position after it."""
        end = self.text.find(";", i)
        if end < 0:
            raise InputFileError(f"{self.where}:{self.line(i)}: an instruction that never ends with ';'")
        guard = _GUARD.match(self.text, i)
        at = guard.end() if guard else i
        opcode = _OPCODE.match(self.text, at, end)
        if opcode is None:
            raise InputFileError(f"{self.where}:{self.line(i)}: {self.text[i:end].strip()!r} is no instruction")
        try:
            out.append(RefInstruction(self.line(at), opcode.group(), role(opcode.group())))
        except ConfigError as e:
            raise ConfigError(f"{self.where}:{self.line(at)}: {e}") from None
        return end + 1


def _body_start(text: str, name: str | None, where: str) -> int:
    """The position just after the '{' that opens the body of entry or function ``name`` (or of the only entry)."""
    heads = list(re.finditer(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", text))
    entries = [h.group(2) for h in heads if h.group(1) == "entry"]
    if name is None and len(entries) != 1:
        raise ConfigError(f"{where} holds {len(entries)} entries; name one: {', '.join(entries) or 'none'}")
    name = entries[0] if name is None else name
    for head in (h for h in heads if h.group(2) == name):
        i, depth = head.end(), 0
        while i < len(text):  # past the parameter list (parentheses), to the body's '{' or a prototype's ';'
            depth += (text[i] == "(") - (text[i] == ")")
            if depth == 0 and text[i] in "{;":
                break
            i += 1
        if i < len(text) and text[i] == "{":
            return i + 1
    raise ConfigError(f"{where} holds no entry or function {name!r} with a body; its entries: "
                      f"{', '.join(entries) or 'none'}")


def _find(text: str, what: str, i: int) -> int:
    j = text.find(what, i)
    return len(text) if j < 0 else j


def sm_roles(path: str) -> dict[str, str]:
    """The unit letter of each role in an SM file's ``[makespan.roles]`` table, read here again."""
    try:
        with open(path, "rb") as f:
            table = tomllib.load(f).get("makespan", {}).get("roles")
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise InputFileError(f"SM file {path!r} cannot be read: {e}") from None
    if not isinstance(table, dict) or not all(r in ROLES and isinstance(u, str) for r, u in table.items()):
        raise InputFileError(f"SM file {path!r}: [makespan.roles] must map roles ({', '.join(ROLES)}) to unit letters")
    return dict(table)
