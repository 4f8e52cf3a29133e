"""The instruction reference: what each PTX and SASS-style opcode is, written again from the PTX ISA.

This is the second writing of the instruction table (``models/kernels/opcodes.py``):
it imports nothing of it, is organised by the chapters of the PTX ISA (and the
Pascal SASS listing of the warp-level CFG paper, Jeanmougin et al. 2023) instead of
by prefixes, and decides an opcode by reading its modifiers, not by a longest-prefix
look-up.  For one opcode it says:

* the *pipeline class* (``int``, ``fadd``, ``fmul``, ``fmadd``, ``fcvt``, ``fdiv``,
  ``fsqrt``, ``mem``, ``branch``, ``exit``): arithmetic takes the class of its
  operation when its operand type is a float (ISA 9.7.3 to 9.7.5: ``add.f32`` is a
  float add, ``rcp.rn.f32`` a reciprocal, which the cost model puts with division);
* the *functional unit* with a latency of its own (``tensor`` for the matrix
  multiply-accumulate of 9.7.14/9.7.15, ``matrix`` for fragment loads, stores and
  transposes, ``cp_async``, ``bulk_copy`` and ``tma`` for the asynchronous copies of
  9.7.9.25 and 9.7.9.27), ``""`` when none;
* the *memory access* (load, store, atomic, copy, bulk, prefetch) and the *state
  space* it reaches (5.1: ``global``, ``local``, ``shared``, ``param``, ``const``;
  ``generic`` when none is written, 6.4.1);
* whether its result differs from lane to lane whatever its sources (fragments,
  shuffles, votes, atomics' old values);
* its *latency classes*: the terms of its cost for one warp in isolation.  A memory
  access costs the latency of its space (local memory is off-chip DRAM, like global
  memory: both are ``mem``; a generic address may reach either, so it costs ``mem``
  too), plus that of its unit; another instruction costs its unit's latency if it has
  one, else its class's.

:data:`DEFAULT_CYCLES` states the cost model's default cycles per latency class (the
table of ``docs/kernels.md``) a second time; :func:`cycles` charges an instruction
with them, from its opcode text alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

# The cycles of each latency class for one warp in isolation (docs/kernels.md, "Cost model").
DEFAULT_CYCLES: Mapping[str, int] = {
    "nop": 1, "int": 1, "branch": 1, "exit": 1, "fadd": 4, "fmul": 4, "fmadd": 4, "fcvt": 5, "fdiv": 16,
    "fsqrt": 16, "mem": 100, "shared": 20, "param": 4, "const": 4,
    "tensor": 32, "matrix": 16, "cp_async": 20, "bulk_copy": 200, "tma": 200,
}

# State space -> latency class (5.1 of the ISA: local memory lives in device memory, off chip).
SPACE_LATENCY = {"global": "mem", "local": "mem", "generic": "mem", "tex": "mem", "shared": "shared",
                 "param": "param", "const": "const"}


@dataclass(frozen=True)
class Reference:
    """What one opcode is: pipeline class, unit, memory access and space, per-lane result."""

    cls: str
    unit: str = ""
    access: str = ""
    space: str | None = None
    per_lane: bool = False

    @property
    def latency(self) -> tuple[str, ...]:
        """The latency classes whose cycles make the opcode's cost, in order."""
        if self.access:
            return (SPACE_LATENCY[self.space or "generic"],) + ((self.unit,) if self.unit else ())
        return (self.unit or self.cls,)


def cycles(opcode: str, table: Mapping[str, int] = DEFAULT_CYCLES) -> int:
    """The cycles ``opcode`` costs one warp with ``table``'s cycles per latency class."""
    ref = reference(opcode)
    if ref is None:
        raise ValueError(f"opcode {opcode!r} is not in the instruction reference")
    return sum(table[c] for c in ref.latency)


def reference(opcode: str) -> Reference | None:
    """The reference entry of a PTX (lower case) or SASS-style (upper case) opcode; None if unknown."""
    return _sass(opcode) if opcode[:1].isupper() else _ptx(opcode.lower())


# -- PTX -----------------------------------------------------------------------------------------------------------
_FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "tf32"}
_SPACES = ("global", "shared", "local", "param", "const", "tex")

# 9.7.1 to 9.7.5: arithmetic, comparison and special functions; the float class of each on a float type.
_ON_FLOATS = {
    **dict.fromkeys(("add", "sub", "min", "max", "abs", "neg", "copysign", "testp", "setp", "set"), "fadd"),
    "mul": "fmul", "fma": "fmadd", "mad": "fmadd", "div": "fdiv", "rcp": "fdiv",
    **dict.fromkeys(("sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"), "fsqrt"),
}
_SELECTS = ("selp", "slct")  # 9.7.6: a selection moves one of its sources whatever their type
_INTEGER_ONLY = set("mul24 mad24 sad addc subc madc popc clz bfind fns brev bfe bfi dp4a dp2a bmsk szext "
                    "and or xor not cnot lop3 shf shl shr prmt mov cvta isspacep mapa getctarank createpolicy "
                    "txq suq".split())  # 9.7.1, 9.7.7, 9.7.8, 9.7.9 (moves, address conversions), 9.7.10 queries
_CONTROL_SLOTS = set("bar barrier membar fence griddepcontrol setmaxnreg pmevent trap brkpt call".split())
_EXCHANGES = set("shfl vote match activemask elect redux".split())  # 9.7.12: per-lane results


def _ptx(op: str) -> Reference | None:
    parts = op.split(".")
    base = parts[0]
    for decide in (_ptx_async_copy, _ptx_matrix, _ptx_memory, _ptx_control, _ptx_arithmetic):
        found = decide(base, parts)
        if found is not None:
            return found
    return None


def _type_of(parts: list[str]) -> str | None:
    """The operand type that decides the arithmetic: the last type written (a source type after a destination)."""
    types = [p for p in parts[1:] if re.fullmatch(r"[sbuf]\d+|pred", p) or p in _FLOAT_TYPES]
    packed = [p for p in parts[1:] if p in ("f16x2", "bf16", "bf16x2")]
    return packed[-1] if packed else (types[-1] if types else None)


def _ptx_arithmetic(base: str, parts: list[str]) -> Reference | None:
    if base == "cvt":  # 9.7.9.21: a conversion is float work as soon as one of its two types is a float
        return Reference("fcvt" if any(p in _FLOAT_TYPES or p.startswith("f") for p in parts[1:]) else "int")
    if base in _EXCHANGES:
        return Reference("int", per_lane=True)
    if base in _INTEGER_ONLY or base in _SELECTS:
        return Reference("int")
    if base in _ON_FLOATS:
        kind = _type_of(parts)
        if kind is not None and kind in _FLOAT_TYPES:
            return Reference(_ON_FLOATS[base])
        return Reference("fdiv" if base in ("div", "rem") else "int")
    if base == "rem":  # 9.7.1.9: an integer remainder costs a division
        return Reference("fdiv")
    return None


def _ptx_control(base: str, parts: list[str]) -> Reference | None:
    if base in ("bra", "brx"):
        return Reference("branch")
    if base in ("ret", "exit"):
        return Reference("exit")
    if base in _CONTROL_SLOTS:  # one issue slot: a warp in isolation never waits at a barrier
        return Reference("int")
    return None


def _named_space(parts: list[str]) -> str:
    """The state space the modifiers name (``shared::cta`` is shared); a copy is taken at its global side."""
    named = [p.split("::")[0] for p in parts[1:] if p.split("::")[0] in _SPACES]
    return "global" if "global" in named else (named[0] if named else "generic")


def _ptx_memory(base: str, parts: list[str]) -> Reference | None:
    """9.7.9 (data movement), 9.7.13 (mbarrier), 9.7.10 (texture and surface)."""
    if base in ("ld", "ldu"):
        return Reference("mem", access="load", space=_named_space(parts))
    if base == "st":
        if parts[1:2] == ["async"]:  # st.async: into a cluster CTA's shared memory
            return Reference("mem", access="store", space="shared")
        return Reference("mem", access="store", space=_named_space(parts))
    if base == "red":
        if parts[1:2] == ["async"]:
            return Reference("mem", access="atomic", space="shared")
        return Reference("mem", access="atomic", space=_named_space(parts))
    if base == "atom":  # the old value of each lane's location comes back
        return Reference("mem", access="atomic", space=_named_space(parts), per_lane=True)
    if base in ("prefetch", "prefetchu"):
        return Reference("mem", access="prefetch", space=_named_space(parts))
    if base in ("tex", "tld4", "suld"):  # texture and surface memory live in global memory
        return Reference("mem", access="load", space="global")
    if base in ("sust", "sured"):
        return Reference("mem", access="store", space="global")
    if base == "mbarrier":
        if parts[1:2] in (["init"], ["inval"]):
            return Reference("mem", access="store", space="shared")
        return Reference("mem", access="atomic", space="shared", per_lane=True)
    return None


def _ptx_matrix(base: str, parts: list[str]) -> Reference | None:
    """9.7.14 (wmma) and 9.7.15 (mma, ldmatrix, stmatrix, movmatrix): tensor cores and fragments."""
    if base == "mma" or (base == "wmma" and parts[1:2] == ["mma"]):
        return Reference("fmadd", unit="tensor", per_lane=True)
    if base == "wmma" and parts[1:2] == ["load"]:
        return Reference("mem", unit="matrix", access="load", space=_named_space(parts), per_lane=True)
    if base == "wmma" and parts[1:2] == ["store"]:
        return Reference("mem", unit="matrix", access="store", space=_named_space(parts))
    if base == "ldmatrix":
        return Reference("mem", unit="matrix", access="load", space="shared", per_lane=True)
    if base == "stmatrix":
        return Reference("mem", unit="matrix", access="store", space="shared")
    if base == "movmatrix":
        return Reference("int", unit="matrix", per_lane=True)
    return None


_GROUP_OPS = ("commit_group", "wait_group", "wait_all")


def _ptx_async_copy(base: str, parts: list[str]) -> Reference | None:
    """9.7.9.25 (cp.async), 9.7.9.27 (bulk and tensor copies): the whole copy is charged at issue."""
    words = parts[1:]
    if base != "cp" or words[:1] not in (["async"], ["reduce"]):
        return None
    reduce = words[0] == "reduce"
    bulk = "bulk" in words[:3]
    if not bulk:
        if reduce:
            return None
        if words[1:2] and (words[1] in _GROUP_OPS or words[1] == "mbarrier"):
            return Reference("int")  # commit, wait, arrive: the copies were charged when issued
        return Reference("mem", unit="cp_async", access="copy", space="global")
    after = words[words.index("bulk") + 1:]
    if after[:1] and after[0] in ("commit_group", "wait_group"):
        return Reference("int")
    unit = "tma" if "tensor" in after[:2] else "bulk_copy"
    if after[:1] == ["prefetch"]:
        return Reference("mem", unit=unit, access="prefetch", space="global")
    return Reference("mem", unit=unit, access="atomic" if reduce else "bulk", space=_named_space(parts))


# -- SASS-style (Pascal) ---------------------------------------------------------------------------------------------
_SASS_CLASSES = {
    **dict.fromkeys("IADD IADD3 IMUL IMAD ISCADD LEA ISETP IMNMX IABS SEL LOP LOP3 SHL SHR SHF POPC FLO BFE BFI "
                    "PRMT XMAD".split(), "int"),                          # integer
    **dict.fromkeys("MOV S2R CS2R P2R R2P PSETP PLOP3".split(), "int"),   # movement, predicates
    **dict.fromkeys("NOP BAR MEMBAR DEPBAR".split(), "int"),              # one issue slot
    **dict.fromkeys("FADD FSETP FMNMX FSET".split(), "fadd"), "FMUL": "fmul", "FFMA": "fmadd",
    **dict.fromkeys("F2I I2F F2F I2I".split(), "fcvt"),
    **dict.fromkeys("BRA SSY SYNC".split(), "branch"), **dict.fromkeys("EXIT RET".split(), "exit"),
}
_SASS_SPACE = {"G": "global", "S": "shared", "L": "local", "C": "const", "": "generic"}


def _sass(op: str) -> Reference | None:
    parts = op.split(".")
    base = parts[0]
    if base == "MUFU":  # the multi-function unit: its reciprocal is a division, the rest square-root-like
        return Reference("fdiv" if any(p.startswith("RCP") for p in parts[1:]) else "fsqrt")
    if base in ("SHFL", "VOTE"):
        return Reference("int", per_lane=True)
    if base in _SASS_CLASSES:
        return Reference(_SASS_CLASSES[base])
    if base == "HMMA":
        return Reference("fmadd", unit="tensor", per_lane=True)
    if base == "LDSM":
        return Reference("mem", unit="matrix", access="load", space="shared", per_lane=True)
    if base == "LDGSTS":
        return Reference("mem", unit="cp_async", access="copy", space="global")
    m = re.fullmatch(r"(LD|ST)([GSLC]?)", base)
    if m and not (m.group(1) == "ST" and m.group(2) == "C"):  # constant memory is read-only
        return Reference("mem", access="load" if m.group(1) == "LD" else "store", space=_SASS_SPACE[m.group(2)])
    if base in ("ATOM", "ATOMS"):
        return Reference("mem", access="atomic", space="shared" if base == "ATOMS" else "global", per_lane=True)
    if base == "RED":
        return Reference("mem", access="atomic", space="global")
    return None
