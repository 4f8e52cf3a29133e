"""Inlining of PTX calls: each ``call`` of a ``.func`` of the same module is replaced by its body.

nvcc keeps libdevice slow paths (``__internal_accurate_pow``, the trigonometric
argument reduction) as ``.func`` functions called through a *call sequence*::

    { .param .b64 param0; st.param.f64 [param0+0], %fd2;
      .param .b64 retval0;
      call.uni (retval0), f, (param0);
      ld.param.f64 %fd62, [retval0+0]; }

Inlining turns every parameter slot ``(name, byte offset)`` of a call site
into a register ``%cs$name$offset``: the caller's ``st.param`` into an
argument and the callee's ``ld.param`` of the matching parameter become
``mov``s through that register, and likewise for return values, so values
keep their agreement across lanes.  The callee's registers and labels get the
suffix ``$cK`` (K numbering the inlined copies), its ``ret`` becomes a branch
to the return point, and the ``call`` becomes a ``bra.uni`` to the inlined
body (so a call costs one branch).  Callees are inlined recursively; a
recursive call is refused.  A call of a function without a body in the module
(``.extern``, a prototype only, an indirect call) stays an opaque ``call``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Mapping

from warpcheck.models.errors import InputFileError
from warpcheck.models.kernels.kernel import Instruction, Kernel

MAX_INLINED = 200000  # instructions of one kernel after inlining
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_REG = re.compile(r"%[A-Za-z_$][\w$]*")
SPECIAL_REGISTER = re.compile(r"%(tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|lanemask_\w+|"
                              r"clock(64|_hi)?|globaltimer(_lo|_hi)?|pm\d+(_64)?|envreg\d+|\w*smem_size|"
                              r"reserved_smem_offset\w*|is_explicit_cluster|n?cluster\w*|current_graph_exec)$")
_SPECIAL = SPECIAL_REGISTER
_SLOT = re.compile(r"^\[\s*(?P<name>[A-Za-z_$][\w$]*)\s*(?:\+\s*(?P<off>\d+))?\s*\]$")


@dataclass(frozen=True)
class CallSite:
    """A direct call: its callee, argument and return parameter names (in order)."""

    callee: str
    args: tuple[str, ...]
    rets: tuple[str, ...]


def call_site(ins: Instruction) -> CallSite | None:
    """The call site of a ``call`` instruction, or None for an indirect or unreadable call.

    Its operands are ``[(rets),] callee[, (args)][, prototype]`` (see the PTX front end).
    """
    ops = ins.srcs
    rets = ops[0] if ops and ops[0].startswith("(") else None
    rest = ops[1:] if rets is not None else ops
    if ins.base != "call" or not rest or not _NAME.fullmatch(rest[0]):
        return None
    args = rest[1] if len(rest) > 1 and rest[1].startswith("(") else "()"
    return CallSite(rest[0], _names(args), _names(rets or "()"))


def _names(group: str) -> tuple[str, ...]:
    """The names of a parenthesised call list ``(a, b)``."""
    return tuple(x.strip() for x in group.strip()[1:-1].split(",") if x.strip())


@dataclass(frozen=True)
class PtxModule:
    """A parsed PTX module: its entries (calls not inlined) and its ``.func`` functions."""

    entries: tuple[Kernel, ...]
    functions: Mapping[str, Kernel]
    returns: Mapping[str, tuple[str, ...]]
    prototypes: frozenset[str] = frozenset()
    filename: str = "<ptx>"

    def inlined(self, kernel: Kernel) -> Kernel:
        """``kernel`` with every call of a function defined in the module inlined."""
        return _Inliner(self).inline(kernel, ())


class _Inliner:
    def __init__(self, module: PtxModule) -> None:
        self.module = module
        self.copies = 0
        self.symbols: dict[str, str] = {}

    def inline(self, kernel: Kernel, chain: tuple[str, ...]) -> Kernel:
        """``kernel`` with its calls inlined; ``chain`` names the functions being inlined around it."""
        if not any(ins.base == "call" for ins in kernel.instructions):
            return kernel
        out: list[Instruction] = []
        labels: dict[str, int] = {}
        at = _labels_at(kernel)
        sites = [call_site(ins) if ins.base == "call" else None for ins in kernel.instructions]
        slots = {n for site in sites if site and site.callee in self.module.functions for n in site.args + site.rets}
        for pc, ins in enumerate(kernel.instructions):
            for label in at.get(pc, []):
                labels[label] = len(out)
            site = sites[pc]
            if site is None or site.callee not in self.module.functions:
                out.extend(_slot_moves(ins, slots, {}))
                continue
            self._check(kernel, ins, site, chain)
            self._splice(out, labels, ins, site, chain)
        symbols = {**self.symbols, **kernel.symbols}
        return Kernel(kernel.name, tuple(out), labels, kernel.params, kernel.syntax, symbols, kernel.filename)

    def _check(self, kernel: Kernel, ins: Instruction, site: CallSite, chain: tuple[str, ...]) -> None:
        if site.callee in chain:
            path = " -> ".join(chain[chain.index(site.callee):] + (site.callee,))
            raise InputFileError(f"{kernel.where(ins)}: call of {site.callee!r} is recursive ({path}); "
                                 f"recursive calls cannot be inlined, so kernel code reaching it is not analysed")
        callee = self.module.functions[site.callee]
        if len(site.args) != len(callee.params) or len(site.rets) != len(self.module.returns[site.callee]):
            raise InputFileError(f"{kernel.where(ins)}: call of {site.callee!r} passes {len(site.args)} "
                                 f"arguments and {len(site.rets)} return values; the function takes "
                                 f"{len(callee.params)} and {len(self.module.returns[site.callee])}")

    def _splice(self, out: list[Instruction], labels: dict[str, int], call: Instruction, site: CallSite,
                chain: tuple[str, ...]) -> None:
        body = self.inline(self.module.functions[site.callee], chain + (site.callee,))
        self.symbols.update(body.symbols)
        self.copies += 1
        suffix = f"$c{self.copies}"
        entry, back = f"{site.callee}{suffix}", f"{site.callee}$ret{suffix}"
        if call.guard is not None:
            negated = call.guard[1:] if call.guard.startswith("!") else "!" + call.guard
            out.append(_branch(negated, back, call))
        out.append(_branch(None, entry, call))
        labels[entry] = len(out)
        names = dict(zip(self.module.functions[site.callee].params, site.args))
        names.update(zip(self.module.returns[site.callee], site.rets))
        start = len(out)
        for label, pc in body.labels.items():
            labels[label + suffix] = start + pc
        for ins in body.instructions:
            ins = _rename(ins, suffix)
            if ins.base == "ret":
                ins = replace(_branch(ins.guard, back, ins), text=f"bra.uni {back}; // ret of {site.callee}")
            out.extend(_slot_moves(ins, set(names), names) if ins.space in ("param", "local") else [ins])
        labels[back] = len(out)
        if len(out) > MAX_INLINED:
            raise InputFileError(f"{self.module.filename}:{call.line}:{call.column}: inlining {site.callee!r} makes the kernel "
                                 f"longer than {MAX_INLINED} instructions; it is too large to analyse")


def _labels_at(kernel: Kernel) -> dict[int, list[str]]:
    at: dict[int, list[str]] = {}
    for label, pc in kernel.labels.items():
        at.setdefault(pc, []).append(label)
    return at


def _branch(guard: str | None, target: str, origin: Instruction) -> Instruction:
    text = f"{'@' + guard + ' ' if guard else ''}bra.uni {target}; // inlined call, line {origin.line}"
    return Instruction("bra.uni", (), (), guard, target, "branch", text, None, None, None, origin.line, "",
                       origin.column)


def _rename(ins: Instruction, suffix: str) -> Instruction:
    """``ins`` with its registers (not special registers) and branch target suffixed."""
    def sub(m: re.Match) -> str:
        return m.group(0) if _SPECIAL.match(m.group(0)) else m.group(0) + suffix

    def ren(x: str) -> str:
        return _REG.sub(sub, x)

    return replace(ins, dst=tuple(map(ren, ins.dst)), srcs=tuple(map(ren, ins.srcs)),
                   guard=None if ins.guard is None else ren(ins.guard),
                   target=None if ins.target is None else ins.target + suffix)  # text: as written in the callee


def _slot_moves(ins: Instruction, slots: set[str], names: Mapping[str, str]) -> list[Instruction]:
    """``ld``/``st`` of a call-sequence parameter in ``slots`` as ``mov``s through slot registers.

    ``names`` maps a callee's parameter names to the caller's; other instructions come back unchanged.
    """
    m = _SLOT.match(ins.srcs[0]) if ins.base in ("ld", "st") and ins.srcs else None
    if m is None or m.group("name") not in slots:
        return [ins]
    name = names.get(m.group("name"), m.group("name"))
    values = list(ins.dst) if ins.base == "ld" else [v for v in re.split(r"[{},\s]+", ins.srcs[-1]) if v]
    dtype = ins.dtype or "b32"
    width, offset = max(1, _width(dtype) // 8), int(m.group("off") or 0)
    moves = []
    for k, value in enumerate(values):
        slot = f"%cs${name}${offset + k * width}"
        dst, src = (value, slot) if ins.base == "ld" else (slot, value)
        text = f"mov.{dtype} {dst}, {src}; // {' '.join(ins.text.split())}"
        moves.append(Instruction(f"mov.{dtype}", (dst,), (src,), ins.guard, None, "int", text, None, dtype,
                                 None, ins.line, "", ins.column))
    return moves


def _width(dtype: str | None) -> int:
    m = re.fullmatch(r"[sbuf](\d+)", dtype or "")
    return int(m.group(1)) if m else 32
