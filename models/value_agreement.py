"""Value agreement: which registers are provably equal across a thread group.

A register *agrees* in a group when every thread of the group holds the same
value in it.  Agreement is tracked per group of the abstract stack as the set
of registers that *may differ* (``varying``); everything else agrees.

Sources that agree: immediates, kernel parameters, symbols (shared arrays),
``%ctaid``, ``%ntid``, ``%nctaid``, and loads from ``param``/``const`` space or
from an address that agrees (one instruction, one address, one value).
Sources that differ: ``%tid``, ``%laneid``, clocks, lane masks, local-memory
loads, atomics, shuffles, votes and ``elect.sync``.  A result may differ when a source, the
guard, or (under a guard) the old value may differ.  Registers never written
hold the same initial value in every thread.
"""
from __future__ import annotations

import re

from warpcheck.models.kernel import Instruction

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


def result_varies(ins: Instruction, varying: frozenset) -> bool:
    """Say whether the registers ``ins`` writes may differ across the group afterwards."""
    if ins.base in _ALWAYS_VARYING or ins.space == "local":
        return True
    guard = guard_register(ins)
    if guard is not None and (guard in varying or any(d in varying for d in ins.dst)):
        return True
    return any(source_varies(r, varying) for r in registers_read(ins, ins.srcs))


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


def transfer(ins: Instruction, facts: dict[int, frozenset], group: int) -> dict[int, frozenset]:
    """Facts after the group ``group`` executes ``ins``.

    Groups inside the running one (itself included) learn the result's
    agreement; groups strictly containing it may now differ on every written
    register (only part of their threads wrote); disjoint groups are untouched.
    """
    regs = written(ins)
    if not regs:
        return facts
    varies = result_varies(ins, facts.get(group, frozenset()))
    out = {}
    for key, var in facts.items():
        if key & group == key:
            out[key] = (var | frozenset(regs)) if varies else (var - frozenset(regs))
        elif key & group:
            out[key] = var | frozenset(regs)
        else:
            out[key] = var
    return out
