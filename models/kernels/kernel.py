"""The kernel IR shared by every analysis: instructions, labels, and their classes.

One representation serves the simulator's workloads, the PTX and SASS-style
front ends, the SIMT activation stack and the warp-level CFG.  An instruction
keeps what every consumer needs: its opcode, registers, guard, branch target,
and its *class*, which fixes its latency on an SM configuration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

from warpcheck.models.errors import ConfigError

# Instruction classes, in a fixed order: a class is an int in the SMT models.
CLASSES = ("nop", "int", "fadd", "fmul", "fmadd", "fcvt", "fdiv", "fsqrt", "mem", "branch", "exit")
CLASS_INDEX = {name: i for i, name in enumerate(CLASSES)}


def class_index(name: str) -> int:
    """The index of an instruction class, or a ConfigError naming the known ones."""
    if name not in CLASS_INDEX:
        raise ConfigError(f"unknown instruction class {name!r}; known classes: {', '.join(CLASSES)}")
    return CLASS_INDEX[name]


@dataclass(frozen=True)
class Instruction:
    """One instruction of a kernel.

    ``dst`` and ``srcs`` are register (or predicate) names; ``guard`` is a
    predicate register, prefixed with ``!`` when negated; ``target`` is the
    label of a branch (or of an SSY reconvergence point).  The front ends
    also fill ``space`` (state space of a memory access: global, shared,
    param, ...), ``dtype`` (the type suffix, e.g. ``s32`` or ``f32``),
    ``latency`` (an override of the class latency), ``line`` (the source
    line, for messages) and ``unit`` (a latency class of its own, such as
    ``tensor`` or ``cp_async``, see :mod:`warpcheck.models.kernels.opcodes`;
    empty: its class's latency) and ``column`` (where the statement starts
    on its line; 0 when unknown).  ``text`` is the statement as written.
    """

    opcode: str
    dst: tuple[str, ...] = ()
    srcs: tuple[str, ...] = ()
    guard: str | None = None
    target: str | None = None
    cls: str = "int"
    text: str = ""
    space: str | None = None
    dtype: str | None = None
    latency: int | None = None
    line: int = 0
    unit: str = ""
    column: int = 0

    def __post_init__(self) -> None:
        class_index(self.cls)

    @property
    def is_branch(self) -> bool:
        return self.cls == "branch"

    @cached_property
    def base(self) -> str:
        """The opcode without its modifiers, lower case (``setp.lt.s32`` -> ``setp``)."""
        return self.opcode.split(".")[0].lower()


@dataclass(frozen=True)
class Kernel:
    """A kernel: straight-line instruction list plus labels (label -> instruction index).

    ``syntax`` says which reconvergence discipline the control flow follows:
    ``"ptx"`` (reconvergence at immediate post-dominators, as GPGPU-Sim does)
    or ``"sass"`` (explicit SSY / SYNC, as on Pascal).  ``symbols`` maps the
    variables the module and the kernel declare (arrays, the local depot) to
    their state space (``global``, ``shared``, ``local``, ``const``);
    ``filename`` is the file it was read from ("" when built in memory).
    """

    name: str
    instructions: tuple[Instruction, ...]
    labels: Mapping[str, int] = field(default_factory=dict)
    params: tuple[str, ...] = ()
    syntax: str = "ptx"
    symbols: Mapping[str, str] = field(default_factory=dict)
    filename: str = ""

    def __post_init__(self) -> None:
        if not self.instructions:
            raise ConfigError(f"kernel {self.name!r} has no instructions")
        for pc, ins in enumerate(self.instructions):
            if ins.target is not None and ins.target not in self.labels:
                raise ConfigError(f"kernel {self.name!r}: instruction {pc} ({ins.opcode}) branches to "
                                  f"unknown label {ins.target!r}; known labels: {', '.join(sorted(self.labels)) or 'none'}")

    def param_named(self, key: str, where: str) -> str:
        """The parameter ``key`` names: its full name, a unique ``_key`` suffix, or its index ``_param_N``.

        ``where`` starts the error line (e.g. ``--param``, or ``FILE: parameter``).
        """
        if key in self.params:
            return key
        matches = [p for p in self.params if p.endswith("_" + key) or (key.isdigit() and p.endswith(f"_param_{key}"))]
        if len(matches) != 1:
            raise ConfigError(f"{where} {key!r} is not a parameter of kernel {self.name!r}; "
                              f"its parameters: {', '.join(self.params) or 'none'}")
        return matches[0]

    def target_pc(self, pc: int) -> int:
        """The instruction index a branch at ``pc`` jumps to."""
        target = self.instructions[pc].target
        if target is None:
            raise ConfigError(f"kernel {self.name!r}: instruction {pc} has no branch target")
        return self.labels[target]

    def __len__(self) -> int:
        return len(self.instructions)

    def where(self, ins: Instruction) -> str:
        """Where ``ins`` was written: ``FILE:LINE:COL`` (as much of it as the front end knew)."""
        parts = [self.filename or "line", str(ins.line)] + ([str(ins.column)] if ins.column else [])
        return ":".join(parts) if self.filename else " ".join(parts[:2]) + (f":{ins.column}" if ins.column else "")
