"""Value agreement: which registers are provably equal across a thread group.

A register *agrees* in a group when every thread of the group holds the same
value in it.  Agreement is tracked per group of the abstract stack as the set
of registers that *may differ* (``varying``); everything else agrees.

Sources that agree: immediates, kernel parameters, symbols (shared arrays),
``%ctaid``, ``%ntid``, ``%nctaid``, and loads from ``param``/``const`` space or
from an address that agrees (one instruction, one address, one value).
Sources that differ: ``%tid``, ``%laneid``, clocks, lane masks, local-memory
loads, atomics, shuffles, votes, ``elect.sync``, and every instruction the
instruction table marks per-lane (tensor-core fragments: ``wmma.load`` hands
each lane its own part of the tile, even at one address).

State spaces: local memory is per lane, so a load from it never agrees, and
neither does a *generic* load through a pointer that may point into local
memory (:func:`local_pointers`: registers derived from a ``.local`` variable
or ``cvta.local``, and anything loaded from memory once such a pointer has
been stored), even at a lane-invariant address.  Global, shared, param and
const memory are one per warp: one address, one value.  A result may differ when a source, the
guard, or (under a guard) the old value may differ.  Registers never written
hold the same initial value in every thread.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.opcodes import spec_of

_VARYING_SPECIAL = re.compile(r"^(%tid|%laneid|%clock|%globaltimer|%lanemask|%warpid|SR_TID|SR_LANEID|SR_CLOCK)",
                              re.IGNORECASE)
_PTX_REG = re.compile(r"%[A-Za-z_$][\w$]*(?:\.[xyz])?")
_SASS_REG = re.compile(r"\b(?:R\d+|P\d+|SR_[A-Z_]+(?:\.[XYZ])?)\b")
_ALWAYS_VARYING = ("atom", "atoms", "red", "shfl", "vote", "activemask", "match", "elect")


def registers_read(ins: Instruction, operands: tuple[str, ...]) -> list[str]:
    """The registers (and special registers) named in ``operands``."""
    pattern = _SASS_REG if _is_sass(ins) else _PTX_REG
    return [r for op in operands for r in pattern.findall(op)]


def _is_sass(ins: Instruction) -> bool:
    return ins.opcode[:1].isupper()


def guard_register(ins: Instruction) -> str | None:
    """The predicate register of the guard, without its ``!``."""
    return None if ins.guard is None else ins.guard.lstrip("!")


def source_varies(reg: str, varying: frozenset) -> bool:
    """Say whether a source register may differ across the group."""
    if reg.startswith("%") or reg.startswith("SR_"):
        if _VARYING_SPECIAL.match(reg):
            return True
        if "." in reg and reg.split(".")[0] in ("%tid", "%ntid", "%ctaid", "%nctaid"):
            return False
    return reg in varying


def local_pointers(kernel: Kernel) -> frozenset[str]:
    """The registers that may hold an address of per-lane local memory (a flow-insensitive fixpoint)."""
    local = {name for name, space in kernel.symbols.items() if space == "local"}
    tainted: set[str] = set()
    escaped = False  # a possibly-local pointer was stored to memory: every load may return one
    changed = True
    while changed:
        changed = False
        for ins in kernel.instructions:
            reads = set(registers_read(ins, ins.srcs))
            if ins.base == "st" and reads & tainted and not escaped:
                escaped = changed = True
            new = (bool(reads & tainted) or any(_names(op) & local for op in ins.srcs)
                   or (ins.base == "cvta" and ".local" in ins.opcode)
                   or (escaped and ins.base in ("ld", "ldu", "atom") and ins.space not in ("param", "const")))
            if new and not set(written(ins)) <= tainted:
                tainted.update(written(ins))
                changed = True
    return frozenset(tainted)


def per_lane_loads(kernel: Kernel) -> frozenset[int]:
    """The pcs of generic loads whose address may lie in local memory (their result never agrees)."""
    tainted = local_pointers(kernel)
    return frozenset(pc for pc, ins in enumerate(kernel.instructions)
                     if ins.base in ("ld", "ldu") and ins.space == "generic"
                     and set(registers_read(ins, ins.srcs[:1])) & tainted)


def _names(operand: str) -> set[str]:
    return set(re.findall(r"(?<![%\w$])[A-Za-z_$][\w$]*", operand))


def result_varies(ins: Instruction, varying: frozenset, per_lane: bool = False) -> bool:
    """Say whether the registers ``ins`` writes may differ across the group afterwards.

    ``per_lane`` says that ``ins`` reads per-lane memory through a generic address.
    """
    if _per_lane_result(ins) or ins.space == "local" or per_lane:
        return True
    guard = guard_register(ins)
    if guard is not None and (guard in varying or any(d in varying for d in ins.dst)):
        return True
    return any(source_varies(r, varying) for r in registers_read(ins, ins.srcs))


def _per_lane_result(ins: Instruction) -> bool:
    """Whether each lane gets its own result whatever the sources (atomics, shuffles, fragments)."""
    spec = spec_of(ins.opcode)
    return ins.base in _ALWAYS_VARYING or (spec is not None and spec.varies)


def guard_varies(ins: Instruction, varying: frozenset) -> bool:
    """Say whether the guard of ``ins`` may differ across the group (False if unguarded)."""
    guard = guard_register(ins)
    return guard is not None and source_varies(guard, varying)


def written(ins: Instruction) -> tuple[str, ...]:
    """The registers ``ins`` writes."""
    if ins.base in ("st", "bra", "ssy", "sync", "exit", "ret", "bar"):
        return ()
    pattern = _SASS_REG if _is_sass(ins) else _PTX_REG
    return tuple(r for d in ins.dst for r in pattern.findall(d))


def transfer(ins: Instruction, facts: dict[int, frozenset], group: int,
             per_lane: bool = False) -> dict[int, frozenset]:
    """Facts after the group ``group`` executes ``ins``.

    Groups inside the running one (itself included) learn the result's
    agreement; groups strictly containing it may now differ on every written
    register (only part of their threads wrote); disjoint groups are untouched.
    """
    regs = written(ins)
    if not regs:
        return facts
    varies = result_varies(ins, facts.get(group, frozenset()), per_lane)
    out = {}
    for key, var in facts.items():
        if key & group == key:
            out[key] = (var | frozenset(regs)) if varies else (var - frozenset(regs))
        elif key & group:
            out[key] = var | frozenset(regs)
        else:
            out[key] = var
    return out


class _Decoded(NamedTuple):
    always: bool      # the result differs whatever the facts (special registers, local memory, atomics...)
    sources: int      # source registers
    guard: int        # the guard register
    guard_special: bool
    guarded: int      # guard and destinations: under a guard, the old value matters
    written: int


class RegisterBits:
    """Value agreement over bitsets, for large kernels: register ``r`` is bit ``index[r]``.

    The same rules as :func:`transfer` and :func:`guard_varies`, with each group's
    possibly-differing registers as one Python int instead of a frozenset, and
    each instruction's registers decoded once: joins and comparisons become
    integer operations, and a fact costs a few bytes per register.
    """

    def __init__(self, kernel: Kernel, per_lane: frozenset[int] = frozenset()) -> None:
        self.index: dict[str, int] = {}
        self.info = [self._decode(pc, ins, per_lane) for pc, ins in enumerate(kernel.instructions)]

    def bits(self, regs) -> int:
        """The bitset of the registers ``regs``."""
        out = 0
        for r in regs:
            out |= 1 << self.index.setdefault(r, len(self.index))
        return out

    def names(self, bits: int) -> frozenset[str]:
        """The registers of a bitset."""
        return frozenset(r for r, i in self.index.items() if bits >> i & 1)

    def _decode(self, pc: int, ins: Instruction, per_lane: frozenset[int]) -> _Decoded:
        """What the bitset rules need of ``ins``, decoded once."""
        reads = registers_read(ins, ins.srcs)
        always = (_per_lane_result(ins) or ins.space == "local" or pc in per_lane
                  or any(source_varies(r, frozenset()) for r in reads))
        sources = self.bits(r for r in reads if source_varies(r, frozenset({r})))
        guard = guard_register(ins)
        guard_bits = self.bits([guard]) if guard is not None else 0
        guarded = guard_bits | self.bits(ins.dst) if guard is not None else 0
        special = guard is not None and source_varies(guard, frozenset())
        return _Decoded(always, sources, guard_bits, special, guarded, self.bits(written(ins)))

    def guard_varies(self, pc: int, varying: int) -> bool:
        """:func:`guard_varies` of the instruction at ``pc`` over a bitset."""
        info = self.info[pc]
        return info.guard_special or bool(varying & info.guard)

    def transfer(self, pc: int, facts: dict[int, int], group: int) -> dict[int, int]:
        """:func:`transfer` of the instruction at ``pc`` over bitsets."""
        always, sources, _, _, guarded, regs = self.info[pc]
        if not regs:
            return facts
        var = facts.get(group, 0)
        varies = always or bool(var & sources) or bool(var & guarded)
        out = {}
        for key, v in facts.items():
            if key & group == key:
                out[key] = (v | regs) if varies else (v & ~regs)
            elif key & group:
                out[key] = v | regs
            else:
                out[key] = v
        return out
