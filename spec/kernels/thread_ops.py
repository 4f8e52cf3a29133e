"""Per-thread semantics of kernel instructions (PTX subset and SASS-style).

Integers wrap to their type's width (``s32`` signed, ``u32``/``b32``
unsigned, 64-bit likewise); floats are Python floats.  Memory has state
spaces: global, shared, param and const memory is one byte-addressed
dictionary shared by the warp (variables of different spaces get addresses
in different windows), local memory is one dictionary per lane.  Local
variables (the local depot) live in the window ``[LOCAL_BASE, LOCAL_END)``,
so that a *generic* address there reaches the lane's own local memory, as on
the GPU.  A location never stored reads a pseudo-random value fixed by the
input seed and the address (and the lane, for local memory: an integer in
``[0, int_max]`` or a float in ``[-1, 1)``), so a run is a pure function of
its inputs.  Atomics and ``red`` update memory lane by lane, in lane order.  An opcode without semantics here is an opaque ALU operation: its
result is a deterministic hash of its operands (and of the lane, for those whose
result differs per lane, such as tensor-core fragments); fragment stores and
bulk copies do not write their data; ``cp.async`` copies its words at issue.
"""
from __future__ import annotations

import hashlib
import math
import re
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Instruction

_SASS_ALIAS = {"iadd": "add", "iadd3": "add", "imul": "mul", "imad": "mad", "isetp": "setp", "fadd": "add",
               "fmul": "mul", "ffma": "fma", "fsetp": "setp", "ldg": "ld", "lds": "ld", "ldl": "ld", "ldc": "ld",
               "stg": "st", "sts": "st", "stl": "st", "s2r": "mov", "sel": "sel", "imnmx": "min", "lop": "lop"}
# Results that differ per lane whatever the sources (tensor-core fragments, matches, barrier states).
_PER_LANE = ("wmma", "mma", "ldmatrix", "movmatrix", "match", "redux", "mbarrier", "hmma", "ldsm")
_CMP = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
        "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lo": lambda a, b: a < b, "ls": lambda a, b: a <= b,
        "hi": lambda a, b: a > b, "hs": lambda a, b: a >= b}


@dataclass
class WarpInputs:
    """What one warp run depends on: parameters, block index and size, memory seed."""

    params: dict = field(default_factory=dict)
    ctaid: tuple = (0, 0, 0)
    ntid: tuple = (32, 1, 1)
    nctaid: tuple = (1, 1, 1)
    seed: int = 0
    int_max: int = 8
    memory: dict = field(default_factory=dict)  # byte address -> value


class ThreadState:
    """Registers and special registers of one thread."""

    def __init__(self, lane: int, inputs: WarpInputs, warp: int = 0, width: int = 32) -> None:
        self.lane = lane
        self.regs: dict[str, object] = {}
        self.special = _specials(lane, inputs, warp, width)


@lru_cache(maxsize=None)
def _operand_kind(op: str) -> tuple[str, object]:
    """Classify an operand once: register, negated, not, constant, address, symbol."""
    if op in ("RZ",):
        return "const", 0
    if op == "PT":
        return "const", True
    if op.startswith("!"):
        return "not", op[1:]
    if op.startswith("-") and not re.fullmatch(r"-[\d.]+(e[-+]?\d+)?|-0x[0-9a-fA-F]+", op):
        return "neg", op[1:]
    if op.startswith("%") or re.fullmatch(r"[RP]\d+|SR_[A-Z_]+(\.[XYZ])?", op):
        return "reg", op
    if op.startswith("["):
        return "addr", op
    if re.fullmatch(r"[A-Za-z_$][\w$]*", op):
        return "symbol", op
    return "const", _immediate(op, None)


def _specials(lane: int, inputs: WarpInputs, warp: int = 0, width: int = 32) -> dict:
    s = {"%laneid": lane, "SR_LANEID": lane, "%warpid": warp}
    for i, axis in enumerate("xyz"):
        tid = warp * width + lane if axis == "x" else 0
        for name, val in (("tid", tid), ("ntid", inputs.ntid[i]), ("ctaid", inputs.ctaid[i]),
                          ("nctaid", inputs.nctaid[i])):
            s[f"%{name}.{axis}"] = val
            s[f"SR_{name.upper()}.{axis.upper()}"] = val
    return s


LOCAL_BASE, LOCAL_END = 1 << 44, 1 << 45
_ATOMIC_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas")


def _symbol_address(name: str, space: str | None) -> int:
    """A fixed address for a variable: local ones in the local window, the others below it."""
    digest = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "little")
    return (LOCAL_BASE if space == "local" else 1 << 40) + (digest << 12)


class Machine:
    """Executes instructions of one kernel for single threads over the warp's memory (per-lane local memory)."""

    def __init__(self, params: tuple[str, ...], inputs: WarpInputs, symbols: dict[str, int],
                 spaces: dict[str, str] | None = None, where: Callable[[Instruction], str] | None = None) -> None:
        self.where = where or (lambda ins: f"line {ins.line}")  # FILE:LINE:COL of an instruction, for refusals
        self.inputs = inputs
        self.memory = dict(inputs.memory)
        self.local: dict[int, dict[int, object]] = {}
        self.params = {name: inputs.params.get(name, 0) for name in params}
        self.params.update(inputs.params)
        self.symbols = symbols
        for name, space in (spaces or {}).items():
            self.symbols.setdefault(name, _symbol_address(name, space))
        self.active = 0  # the lanes running the current instruction (for elect.sync, activemask)

    # -- operands ---------------------------------------------------------
    def value(self, t: ThreadState, operand: str, dtype: str | None = None):
        """The value of one source operand for thread ``t``."""
        return self._raw(t, operand, dtype)

    def _raw(self, t: ThreadState, op: str, dtype: str | None):
        kind, payload = _operand_kind(op)
        if kind == "reg":
            if op in t.special:
                return t.special[op]
            return t.regs.get(op, False if op.startswith(("%p", "P")) else 0)
        if kind == "neg":
            return -self._raw(t, str(payload), dtype)
        if kind == "not":
            return not self._raw(t, str(payload), dtype)
        if kind == "const":
            return payload
        if kind == "addr":
            return self.address(t, op)
        if op in t.special:
            return t.special[op]
        if op in self.params:
            return self.params[op]
        if op in self.symbols:
            return self.symbols[op]
        if kind == "symbol":  # a symbol (shared array): a fixed address of its own
            return self.symbols.setdefault(op, _symbol_address(op, None))
        return _immediate(op, dtype)

    def address(self, t: ThreadState, operand: str) -> int:
        """The byte address of ``[base+offset]``."""
        total = 0
        for sign, term in _address_terms(operand):
            v = self._raw(t, term, "s64")
            total += -int(v) if sign == "-" else int(v)
        return total

    def guard(self, t: ThreadState, guard: str | None) -> bool:
        """Say whether the guard holds for thread ``t``."""
        if guard is None:
            return True
        return bool(self._raw(t, guard, "pred"))

    # -- memory -----------------------------------------------------------
    def space_of(self, addr: int, space: str | None, t: ThreadState) -> dict:
        """The memory an access reaches: the lane's local memory, or the warp's memory."""
        if space == "local" or (space in (None, "generic") and LOCAL_BASE <= addr < LOCAL_END):
            return self.local.setdefault(t.lane, {})
        return self.memory

    def load(self, addr: int, dtype: str | None, space: str | None, t: ThreadState):
        """Read memory in ``space`` (per lane for local memory and generic addresses into it)."""
        memory = self.space_of(addr, space, t)
        if addr in memory:
            v = memory[addr]
            return v if isinstance(v, bool) else float(v) if _is_float(dtype) else int(v)  # type: ignore[call-overload]
        lane = f"{t.lane}:" if memory is not self.memory else ""
        h = int.from_bytes(hashlib.blake2b(f"{self.inputs.seed}:{lane}{addr}".encode(), digest_size=8).digest(),
                           "little")
        if _is_float(dtype):
            return (h % 2000) / 1000.0 - 1.0
        return h % (self.inputs.int_max + 1)

    def store(self, addr: int, value, space: str | None, t: ThreadState) -> None:
        """Write memory in ``space``."""
        self.space_of(addr, space, t)[addr] = value

    def execute(self, t: ThreadState, ins: Instruction) -> None:
        """Run ``ins`` for thread ``t`` (its guard already checked)."""
        base, parts, dtype = _decode(ins)
        if base in ("bar", "bra", "ssy", "sync", "exit", "ret", "membar", "fence", "nop", "pragma"):
            return
        if base == "st":
            addr_op = ins.srcs[0]
            self.store(self.address(t, addr_op), self.value(t, ins.srcs[-1], dtype), ins.space, t)
            return
        if base == "ld" or base == "ldu":
            src = ins.srcs[0]
            if ins.space == "param":
                name = src.strip("[]").split("+")[0]
                val = self.params.get(name, self.load(self.address(t, src), dtype, ins.space, t))
            else:
                val = self.load(self.address(t, src), dtype, ins.space, t)
            self._write(t, ins.dst, val, dtype)
            return
        if base in ("atom", "red") and ins.srcs:
            self._atomic(t, ins, parts, dtype)
            return
        if base in ("elect", "activemask"):
            self._warp_query(t, ins, base)
            return
        if base == "cp" and ins.opcode.startswith(("cp.async.ca", "cp.async.cg")) and len(ins.srcs) >= 3:
            self._copy(t, ins)
            return
        if base in _PER_LANE:  # fragments: every lane holds its own part of the tile
            args = [self.value(t, s, dtype) for s in ins.srcs]
            self._write(t, ins.dst, _opaque(ins, args + [t.lane]), dtype)
            return
        if base == "mov" and dtype[:1] == "b" and ins.srcs:
            self._bit_move(t, ins, dtype)
            return
        args = [self.value(t, s, dtype) for s in ins.srcs]
        if base == "setp":
            self._setp(t, ins, parts, args, dtype)
            return
        try:
            value = _compute(base, parts, args, dtype, ins)
        except ConfigError as e:
            raise ConfigError(f"{self.where(ins)}: {e}") from None
        self._write(t, ins.dst, value, dtype)

    def _copy(self, t: ThreadState, ins: Instruction) -> None:
        """``cp.async``: the src-size bytes (all when none is given) of the global source, word by word, to
        shared memory, the rest zero (taken at issue: one warp in isolation never sees it in flight)."""
        dst, src = self.address(t, ins.srcs[0]), self.address(t, ins.srcs[1])
        size = int(self.value(t, ins.srcs[2], "u32"))
        given = len(ins.srcs) - ("cache_hint" in ins.opcode) >= 4
        read = min(size, int(self.value(t, ins.srcs[3], "u32"))) if given else size
        for k in range(0, size, 4):
            self.store(dst + k, self.load(src + k, "b32", "global", t) if k < read else 0, "shared", t)

    def _bit_move(self, t: ThreadState, ins: Instruction, dtype: str) -> None:
        """``mov.bN``: a bit-cast, packing ``{lo, hi}`` or unpacking into ``{lo, hi}``.

        Float registers are told by nvcc's names (``%fd``: f64, ``%f``: f32): an integer moved
        into one is read as IEEE bits, a float moved out of one becomes its bits.
        """
        width = _width(dtype)
        parts = [p for p in re.split(r"[{},\s]+", ins.srcs[0]) if p]
        if len(parts) > 1:
            step = width // len(parts)
            bits = sum(_to_bits(self.value(t, p, None), step) << (k * step) for k, p in enumerate(parts))
        else:
            bits = _to_bits(self.value(t, parts[0], None), width)
        step = width // len(ins.dst)
        for k, d in enumerate(ins.dst):
            t.regs[d] = _from_bits(bits >> (k * step) & ((1 << step) - 1), step, d)

    def execute_warp(self, lanes: list[ThreadState], ins: Instruction) -> None:
        """Run a warp-wide instruction (``shfl``, ``vote``) for the lanes whose guard holds, reading
        every lane's sources before any lane writes."""
        base, parts, dtype = _decode(ins)
        by_lane = {t.lane: t for t in lanes}
        if base == "vote":
            flags = {t.lane: bool(self.value(t, ins.srcs[0], "pred")) for t in lanes}
            mode = next((p for p in parts[1:] if p in ("all", "any", "uni", "ballot")), "any")
            result = {"all": all(flags.values()), "any": any(flags.values()),
                      "uni": len(set(flags.values())) <= 1,
                      "ballot": sum(1 << lane for lane, f in flags.items() if f)}[mode]
            for t in lanes:
                self._write(t, ins.dst, result, "b32" if mode == "ballot" else "pred")
            return
        values = {t.lane: self.value(t, ins.srcs[0], dtype) for t in lanes}
        mode = next((p for p in parts[1:] if p in ("up", "down", "bfly", "idx")), "idx")
        for t in lanes:
            b, c = int(self.value(t, ins.srcs[1], "b32")), int(self.value(t, ins.srcs[2], "b32"))
            src, valid = _shfl_source(mode, t.lane, b, c)
            t.regs[ins.dst[0]] = values[src] if valid and src in by_lane else values[t.lane]
            if len(ins.dst) > 1:
                t.regs[ins.dst[1]] = valid

    def _atomic(self, t: ThreadState, ins: Instruction, parts: list[str], dtype: str) -> None:
        """``atom``/``red``: read the old value, write the combined one, return the old one (``atom``)."""
        addr = self.address(t, ins.srcs[0])
        old = self.load(addr, dtype, ins.space, t)
        args = [self.value(t, s, dtype) for s in ins.srcs[1:]] or [0]
        op = next((p for p in parts[1:] if p in _ATOMIC_OPS), "add")
        b = _as(args[0], dtype)
        new = {"add": lambda: old + b, "min": lambda: min(_as(old, dtype), b), "max": lambda: max(_as(old, dtype), b),
               "inc": lambda: 0 if old >= b else old + 1, "dec": lambda: b if old == 0 or old > b else old - 1,
               "and": lambda: int(old) & int(b), "or": lambda: int(old) | int(b), "xor": lambda: int(old) ^ int(b),
               "exch": lambda: b, "cas": lambda: (args[1] if len(args) > 1 else b) if old == b else old}[op]()
        self.store(addr, _wrap(new, dtype), ins.space, t)
        if ins.dst:
            self._write(t, ins.dst, old, dtype)

    def _warp_query(self, t: ThreadState, ins: Instruction, base: str) -> None:
        """``activemask`` (the running lanes) or ``elect.sync`` (the lowest running lane of the member mask)."""
        if base == "activemask":
            t.regs[ins.dst[0]] = self.active
            return
        members = self.active & int(self.value(t, ins.srcs[0], "b32")) if ins.srcs else self.active
        leader = (members & -members).bit_length() - 1
        for d in ins.dst:
            t.regs[d] = (t.lane == leader) if d.startswith("%p") else max(leader, 0)

    def _setp(self, t: ThreadState, ins: Instruction, parts: list[str], args: list, dtype: str) -> None:
        cmp = next((p for p in parts[1:] if p in _CMP), "eq")
        if len(args) < 2 or not ins.dst:
            raise ConfigError(f"{self.where(ins)}: instruction {ins.opcode!r} needs a destination predicate and two "
                              f"sources to compare; it has {len(ins.dst)} and {len(args)}")
        a, b = (_as(x, dtype) for x in args[:2])
        r = _CMP[cmp](a, b)
        boolop = next((p for p in parts[1:] if p in ("and", "or", "xor")), None)
        if boolop and len(args) > 2 and ins.opcode[:1].islower():
            c = bool(args[2])
            r = {"and": r and c, "or": r or c, "xor": r != c}[boolop]
        t.regs[ins.dst[0]] = r
        if len(ins.dst) > 1:
            t.regs[ins.dst[1]] = not r

    def _write(self, t: ThreadState, dst: tuple[str, ...], val, dtype: str) -> None:
        for d in dst:
            if d.startswith(("%p", "P")) and not d.startswith("%pd"):
                t.regs[d] = bool(val)
            else:
                t.regs[d] = _wrap(val, dtype)


@lru_cache(maxsize=4096)
def _decode(ins: Instruction) -> tuple[str, list[str], str]:
    """The semantic opcode, the opcode's parts and the operand type of ``ins``."""
    base = _SASS_ALIAS.get(ins.base, ins.base)
    dtype = ins.dtype or ("f32" if ins.base in ("fadd", "fmul", "ffma", "fsetp") else "s32")
    return base, ins.opcode.lower().split("."), dtype


def _mul(a: list, dtype: str, parts: list[str]):
    r = _as(a[0], dtype) * _as(a[1], dtype)
    return r >> _width(dtype) if "hi" in parts and not _is_float(dtype) else r


def _logic(op: str, x, y):
    if isinstance(x, bool) or isinstance(y, bool):
        return {"and": x and y, "or": x or y, "xor": x != y}[op]
    return {"and": x & y, "or": x | y, "xor": x ^ y}[op]


# base opcode -> result from (operand values, type, opcode parts)
_OPS = {
    "mov": lambda a, t, p: _convert(a[0], p), "cvta": lambda a, t, p: _convert(a[0], p),
    "cvt": lambda a, t, p: _convert(a[0], p),
    "add": lambda a, t, p: a[0] + a[1] + (a[2] if len(a) > 2 and "iadd3" in p else 0),
    "sub": lambda a, t, p: a[0] - a[1],
    "mul": _mul,
    "mad": lambda a, t, p: _as(a[0], t) * _as(a[1], t) + a[2],
    "fma": lambda a, t, p: _as(a[0], t) * _as(a[1], t) + a[2],
    "div": lambda a, t, p: a[0] / a[1] if _is_float(t) else _trunc_div(a[0], a[1]),
    "rem": lambda a, t, p: a[0] - _trunc_div(a[0], a[1]) * a[1] if a[1] else 0,
    "min": lambda a, t, p: min(_as(a[0], t), _as(a[1], t)),
    "max": lambda a, t, p: max(_as(a[0], t), _as(a[1], t)),
    "and": lambda a, t, p: _logic("and", a[0], a[1]), "or": lambda a, t, p: _logic("or", a[0], a[1]),
    "xor": lambda a, t, p: _logic("xor", a[0], a[1]),
    "lop": lambda a, t, p: _logic(next((x for x in p if x in ("and", "or", "xor")), "and"), a[0], a[1]),
    "not": lambda a, t, p: (not a[0]) if isinstance(a[0], bool) else ~a[0],
    "neg": lambda a, t, p: -a[0],
    "abs": lambda a, t, p: abs(a[0]),
    "shl": lambda a, t, p: int(a[0]) << (int(a[1]) & 63),
    "shr": lambda a, t, p: _as(a[0], t) >> (int(a[1]) & 63),
    "selp": lambda a, t, p: a[0] if a[2] else a[1], "sel": lambda a, t, p: a[0] if a[2] else a[1],
    "rcp": lambda a, t, p: 1.0 / a[0],
    "sqrt": lambda a, t, p: math.sqrt(a[0]),
    "rsqrt": lambda a, t, p: 1.0 / math.sqrt(a[0]),
    "ex2": lambda a, t, p: 2.0 ** min(a[0], 1000.0),
    "lg2": lambda a, t, p: math.log2(a[0]),
}


def _compute(base: str, parts: list[str], a: list, dtype: str, ins: Instruction):
    """The result of an arithmetic or logic instruction (an opaque hash for unknown opcodes)."""
    op = _OPS.get(base)
    if op is not None:
        try:
            return op(a, dtype, parts)
        except (ZeroDivisionError, ValueError, OverflowError):
            return math.nan if _is_float(dtype) else 0
        except IndexError:  # too few source operands: the listing's fault, not the simulator's
            raise ConfigError(f"instruction {ins.opcode!r} has {len(a)} source operand(s), too few for "
                              f"'{base}'; give its destination and every source") from None
    return _opaque(ins, a)


def _opaque(ins: Instruction, a: list) -> int:
    """A deterministic value for an instruction whose data the simulator does not compute (fragments, hashes)."""
    digest = hashlib.blake2b(repr((ins.opcode, a)).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") % 1024


def _convert(v, parts: list[str]):
    types = [p for p in parts[1:] if re.fullmatch(r"[sbuf]\d+", p)]
    if not types:
        return v
    to = types[0]
    if _is_float(to):
        return float(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return 0
        return int(v)
    return v


def _shfl_source(mode: str, lane: int, b: int, c: int) -> tuple[int, bool]:
    """The lane ``shfl.sync`` reads for ``lane`` and whether it is in range (PTX ISA semantics)."""
    clamp, segmask = c & 0x1F, (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (clamp & ~segmask)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - b
        return j, j >= max_lane
    j = {"down": lane + b, "bfly": lane ^ b, "idx": min_lane | (b & ~segmask)}[mode]
    return j, j <= max_lane


def _to_bits(v, width: int) -> int:
    """The ``width``-bit pattern of a value (IEEE for floats)."""
    if isinstance(v, float):
        if width == 64:
            return int.from_bytes(struct.pack("<d", v), "little")
        if width == 32:
            try:
                return int.from_bytes(struct.pack("<f", v), "little")
            except OverflowError:
                return 0x7F800000 if v > 0 else 0xFF800000
        v = int(v) if math.isfinite(v) else 0
    return int(v) & ((1 << width) - 1)


def _from_bits(bits: int, width: int, reg: str):
    """A register value from bits: a float for nvcc's float registers of that width, else the integer."""
    if width == 64 and reg.startswith("%fd"):
        return struct.unpack("<d", bits.to_bytes(8, "little"))[0]
    if width == 32 and reg.startswith("%f") and not reg.startswith("%fd"):
        return struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    return bits


def _trunc_div(a, b) -> int:
    if not b:
        return 0
    q = abs(int(a)) // abs(int(b))
    return q if (a >= 0) == (b >= 0) else -q


def _is_float(dtype: str | None) -> bool:
    return dtype is not None and dtype[:1] == "f"


@lru_cache(maxsize=None)
def _address_terms(operand: str) -> tuple[tuple[str, str], ...]:
    """The signed terms of ``[base+offset]`` (the same text is parsed once)."""
    return tuple(re.findall(r"([+-]?)([^+-]+)", operand.strip("[]").replace(" ", "")))


@lru_cache(maxsize=None)
def _width(dtype: str | None) -> int:
    m = re.fullmatch(r"[sbu](\d+)", dtype or "")
    return int(m.group(1)) if m else 32


def _as(v, dtype: str | None):
    """``v`` read as a value of ``dtype`` (signedness matters for comparisons)."""
    if isinstance(v, bool) or dtype == "pred":
        return v
    if _is_float(dtype):
        return float(v)
    return _wrap(v, dtype)


def _wrap(v, dtype: str | None):
    if isinstance(v, bool) or _is_float(dtype) or dtype == "pred":
        return v
    if isinstance(v, float):
        v = 0 if math.isnan(v) or math.isinf(v) else int(v)
    w = _width(dtype)
    v = int(v) & ((1 << w) - 1)
    if dtype and dtype[0] == "s" and v >> (w - 1):
        v -= 1 << w
    return v


def _immediate(op: str, dtype: str | None):
    """An immediate operand: ``0f``/``0d`` hex floats, hex or decimal numbers."""
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}", op):
        return struct.unpack(">f", bytes.fromhex(op[2:]))[0]
    if re.fullmatch(r"0[dD][0-9a-fA-F]{16}", op):
        return struct.unpack(">d", bytes.fromhex(op[2:]))[0]
    try:
        return int(op, 0)
    except ValueError:
        pass
    try:
        return float(op)
    except ValueError:
        return 0
