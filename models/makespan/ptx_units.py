"""Which unit of the makespan machine runs each PTX instruction, and each unit's sigma on an SM.

The makespan machine (paper 002) knows unit types and, per type, sigma: how
many warps one cycle serves (the unit's lanes over the warp size: 16
load/store units for 32 threads give sigma 1/2).  A PTX instruction gets a
*role* from its pipeline class and latency class in the opcode table
(``models/kernels/opcodes.py``):

===========  ===========================================================
role         instructions
===========  ===========================================================
``ldst``     memory classes (``ld``, ``st``, ``atom``, ``tex``, ...) and the
             asynchronous copies (``cp.async``, bulk copies, TMA)
``int``      integer, bit, move, conversion without floats, compare on
             integers, warp exchanges, barriers and fences, branches, exit
``float``    single-precision float classes (fadd, fmul, fmadd, fcvt)
``fp64``     the same on ``.f64`` operands (a conversion from or to ``.f64``)
``sfu``      the fdiv / fsqrt classes (rcp, sqrt, rsqrt, sin, cos, ex2,
             lg2, div and sqrt on floats): the special function units
``tensor``   tensor-core instructions (``wmma.mma``, ``mma``; fragment
             loads and stores are ``ldst``)
===========  ===========================================================

The SM file (``examples/sm/*-makespan.toml``) names a unit letter and its
lanes per role; a role the SM does not name (tensor cores on Fermi) is
refused by name, with the instruction.  Latencies are not part of this
model: as in the paper, an instruction costs its unit's occupancy (1/sigma
cycles), which the sigma transform turns into one-cycle phases.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Instruction

ROLES = ("ldst", "int", "float", "fp64", "sfu", "tensor")
_FLOAT = {"fadd", "fmul", "fmadd", "fcvt"}
_SFU = {"fdiv", "fsqrt"}
_LDST_UNITS = {"cp_async", "bulk_copy", "tma"}
_TENSOR_UNITS = {"tensor", "matrix"}


def role_of(ins: Instruction) -> str:
    """The role of one instruction (see the module docstring)."""
    if ins.cls == "mem" or ins.unit in _LDST_UNITS:
        return "ldst"
    if ins.unit in _TENSOR_UNITS:
        return "tensor"
    if ins.cls in _SFU:
        return "sfu"
    if ins.cls in _FLOAT:
        return "fp64" if _on_f64(ins) else "float"
    return "int"  # int, branch, exit, nop: the integer pipeline issues them


def _on_f64(ins: Instruction) -> bool:
    """An .f64 operand: the operation's type, or either side of a conversion (dtype is only its source)."""
    return (ins.dtype or "").endswith("f64") or (ins.cls == "fcvt" and "f64" in ins.opcode.lower().split("."))


@dataclass(frozen=True)
class SmUnits:
    """An SM for the makespan machine: warp size, lanes per unit letter, and the unit letter of each role."""

    name: str
    warp_size: int
    lanes: Mapping[str, int]
    roles: Mapping[str, str]

    def __post_init__(self) -> None:
        if self.warp_size < 1:
            raise ConfigError(f"SM {self.name!r}: warp_size {self.warp_size!r} must be at least 1")
        for role, letter in self.roles.items():
            if role not in ROLES:
                raise ConfigError(f"SM {self.name!r}: role {role!r} is not one of {', '.join(ROLES)}")
            if letter not in self.lanes:
                raise ConfigError(f"SM {self.name!r}: role {role!r} runs on unit {letter!r}, which has no lanes; "
                                  f"units: {', '.join(sorted(self.lanes))}")
        for letter in self.lanes:
            self.sigma(letter)

    def sigma(self, letter: str) -> Fraction:
        """Warps served per cycle: lanes / warp size, which must be n or 1/n."""
        lanes = self.lanes[letter]
        s = Fraction(lanes, self.warp_size) if lanes >= 1 else Fraction(0)
        if s <= 0 or (s.numerator != 1 and s.denominator != 1):
            raise ConfigError(f"SM {self.name!r}: unit {letter!r} has {lanes!r} lanes for warps of {self.warp_size}; "
                              "the makespan machine needs lanes / warp size = n or 1/n (e.g. 16 lanes: 1/2)")
        return s

    def unit_of(self, ins: Instruction, where: str) -> str:
        """The unit letter of ``ins``; a ConfigError naming it when the SM has no unit for its role."""
        role = role_of(ins)
        if role not in self.roles:
            raise ConfigError(f"{where}: {ins.opcode!r} is a {role} instruction and SM {self.name!r} maps no unit to "
                              f"{role}; its roles: {', '.join(sorted(self.roles))}")
        return self.roles[role]


def kernel_string(letters: list[str]) -> str:
    """The kernel instruction string of a list of unit letters (one-cycle instructions)."""
    return "".join(letters)
