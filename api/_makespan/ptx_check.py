"""Does the design put each PTX instruction on its documented unit?  Checked against a reference reading the PTX.

The design's mapping is ``role_of`` (``models/makespan/ptx_units.py``) over the
design's parse of the PTX; the reference (``spec/makespan/ptx_roles.py``) reads
the text again and gives each instruction its role from the documented table.
Two comparisons, each ending at the first disagreement:

- :func:`first_disagreement`: the role of every static instruction of one
  entry or function, in order (:func:`module_disagreement`: of every one);
- :func:`first_kernel_disagreement`: the kernel string ``makespan --ptx``
  builds, letter by letter along its worst path, against the SM file's unit of
  the reference's role of that instruction (the reference reads the SM's
  roles again).  Letters the design writes for code no source line holds as
  such (a call's branch and parameter moves, once inlined) are counted as
  not checked.

The design's parser ends a body that falls off its end with a ``ret`` no line
writes (its text says ``// implicit``); it is compared with the reference's
role of ``ret``.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import Mapping

from warpcheck._makespan.ptx import load_entry, ptx_kernel
from warpcheck.models.files import read_text
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.ptx import parse_ptx_module
from warpcheck.models.makespan.ptx_units import role_of
from warpcheck.spec.makespan.ptx_roles import RefInstruction, entry_instructions, role, sm_roles

__all__ = ["Disagreement", "first_disagreement", "module_disagreement", "first_kernel_disagreement"]


@dataclass(frozen=True)
class Disagreement:
    """Where the design and the reference first differ: the instruction, and what each side says of it.

    ``what`` is ``role`` (the role of a static instruction), ``unit`` (a letter
    of the kernel string) or ``instruction`` (the two read different instructions).
    """

    line: int
    opcode: str
    design: str
    reference: str
    what: str = "role"

    def __str__(self) -> str:
        return f"line {self.line}: {self.opcode}: design {self.what} {self.design}, reference {self.reference}"


def _bodies(text: str, where: str) -> dict[str, Kernel]:
    module = parse_ptx_module(text, where)
    return {**{k.name: k for k in module.entries}, **module.functions}


def _implicit(ins: Instruction) -> bool:
    return ins.base == "ret" and ins.text.endswith("// implicit")


def _compare(design: list[Instruction], ref: list[RefInstruction]) -> Disagreement | None:
    """The first instruction whose role differs, or the first the two sides do not both read."""
    if design and _implicit(design[-1]) and len(design) == len(ref) + 1:
        ref = ref + [RefInstruction(design[-1].line, "ret", role("ret"))]
    for ins, r in zip_longest(design, ref):
        if ins is None or r is None or (ins.line, ins.opcode) != (r.line, r.opcode):
            line = min(x.line for x in (ins, r) if x is not None)
            return Disagreement(line, (ins or r).opcode, f"{ins.opcode} (line {ins.line})" if ins else "nothing",
                                f"{r.opcode} (line {r.line})" if r else "nothing", "instruction")
        if role_of(ins) != r.role:
            return Disagreement(r.line, r.opcode, role_of(ins), r.role)
    return None


def first_disagreement(ptx: str, entry: str | None = None) -> Disagreement | None:
    """The first static instruction of ``entry`` (an entry or function; default: the only entry) mapped otherwise."""
    text = read_text(ptx, "PTX file", lenient=True)
    bodies = _bodies(text, ptx)
    name = entry if entry in bodies else load_entry(ptx, entry).name
    return _compare(list(bodies[name].instructions), entry_instructions(text, name, ptx))


def module_disagreement(ptx: str) -> Disagreement | None:
    """The first disagreement over every entry and function of a PTX file, in the design's order."""
    text = read_text(ptx, "PTX file", lenient=True)
    for name, body in _bodies(text, ptx).items():
        found = _compare(list(body.instructions), entry_instructions(text, name, ptx))
        if found is not None:
            return found
    return None


def first_kernel_disagreement(ptx: str, sm: str, entry: str | None = None, bounds: str | None = None,
                              loop_bound: Mapping[str, int] | None = None, max_loop_bound: int | None = None
                              ) -> tuple[Disagreement | None, int]:
    """The first letter of the PTX kernel string off the reference's unit, and how many letters were checked.

    The keywords are the makespan options of the same names (:func:`warpcheck._makespan.ptx.ptx_kernel`).
    """
    pk = ptx_kernel(ptx, sm, entry, bounds, loop_bound, max_loop_bound)
    kernel = load_entry(ptx, pk.entry)
    text = read_text(ptx, "PTX file", lenient=True)
    ref = {(r.line, r.opcode): r.role for name in _bodies(text, ptx) for r in entry_instructions(text, name, ptx)}
    letters, checked = sm_roles(sm), 0
    for pc, got in zip(pk.pcs, pk.text):
        ins = kernel.instructions[pc]
        want = ref.get((ins.line, ins.opcode), role("ret") if _implicit(ins) else None)
        if want is None:
            continue  # a branch or move the inlining of a call wrote
        checked += 1
        if got != letters.get(want):
            return Disagreement(ins.line, ins.opcode, f"{got} ({role_of(ins)})",
                                f"{letters.get(want, 'none')} ({want})", "unit"), checked
    return None, checked
