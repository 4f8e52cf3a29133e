"""The checker's own reading of a makespan instance: kernel string, sigmas, and the paper's transformation.

Written again from paper 002 (Section 3) and the kit's documented extension to
latencies, importing nothing of ``models/makespan``: the certificate checker,
the replay and the reference enumeration build their kernel here, so that a
bug in the design's transformation (``models/makespan/kernel.py``) cannot hide
behind the same bug in the code that judges it.

The rules, as this module applies them:

- a kernel is a string of unit letters (upper case), each optionally followed
  by a latency d (1 .. 64) and a ``p`` (pipelined: the unit is taken only in
  the issue cycle); blanks are ignored;
- sigma_u is a positive integer n or a fraction 1/n, n from 1 to 16;
- the transformation (the paper's Fig. 1): when sigma_u = 1/n, the n
  sub-warps of a warp use u one after another, so every instruction on u is
  written n times and sigma_u becomes 1.  Extended to latencies: a
  non-pipelined instruction is written n times whole; a pipelined one as
  n - 1 one-cycle issues and then itself, whose result is what the warp
  waits for.  An integer sigma is kept as it is.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

from warpcheck.models.errors import ConfigError

SIGMA_LIMIT = 16  # n of sigma = n or 1/n
LATENCY_LIMIT = 64


@dataclass(frozen=True)
class RefInstr:
    """One instruction of a (transformed) kernel: unit letter, cycles, and whether it frees its unit at once."""

    unit: str
    latency: int = 1
    pipelined: bool = False


@dataclass(frozen=True)
class RefKernel:
    """A transformed kernel: its instructions and one integer sigma per unit (in order of first use)."""

    instrs: tuple[RefInstr, ...]
    sigma: tuple[tuple[str, int], ...]

    @property
    def units(self) -> tuple[str, ...]:
        """The unit letters, in the order of ``sigma``."""
        return tuple(u for u, _ in self.sigma)

    def sigma_of(self, unit: str) -> int:
        """Warps that may use ``unit`` in one cycle."""
        for u, s in self.sigma:
            if u == unit:
                return s
        raise KeyError(unit)

    @property
    def single_cycle(self) -> bool:
        """Every instruction takes one cycle."""
        return all(i.latency == 1 for i in self.instrs)


def read_kernel(text: str) -> list[RefInstr]:
    """Read a kernel string letter by letter into instructions (not yet transformed)."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        raise ConfigError(f"kernel {text!r} is empty; give at least one unit letter, e.g. 'LLCLL'")
    out: list[RefInstr] = []
    pos = 0
    while pos < len(chars):
        unit = chars[pos]
        if not ("A" <= unit <= "Z"):
            raise ConfigError(f"kernel {text!r}: {unit!r} is not an upper-case unit letter")
        pos += 1
        digits = ""
        while pos < len(chars) and chars[pos].isdigit() and chars[pos].isascii():
            digits, pos = digits + chars[pos], pos + 1
        piped = pos < len(chars) and chars[pos] == "p"
        pos += piped
        latency = int(digits) if digits else 1
        if latency < 1 or latency > LATENCY_LIMIT:
            raise ConfigError(f"kernel {text!r}: latency {latency} of unit {unit!r} is not in 1 .. {LATENCY_LIMIT}")
        if piped and latency == 1:
            raise ConfigError(f"kernel {text!r}: a pipelined {unit!r} needs a latency above 1")
        out.append(RefInstr(unit, latency, piped))
    return out


def read_sigma(text: str) -> Fraction:
    """Read ``n`` or ``1/n`` (n from 1 to 16)."""
    num, slash, den = text.replace(" ", "").partition("/")
    if not num.isdigit() or (slash and not den.isdigit()) or not num.isascii() or not den.isascii():
        raise ConfigError(f"sigma {text!r} is not n or 1/n")
    n, d = int(num), int(den) if slash else 1
    if n < 1 or d < 1 or (n != 1 and d != 1) or max(n, d) > SIGMA_LIMIT:
        raise ConfigError(f"sigma {text!r} is not n or 1/n with n from 1 to {SIGMA_LIMIT}")
    return Fraction(n, d)


def read_sigmas(pairs: Mapping[str, object]) -> dict[str, Fraction]:
    """Read a mapping unit -> sigma (ints, strings or Fractions)."""
    out = {}
    for unit, value in pairs.items():
        if not (isinstance(unit, str) and len(unit) == 1 and "A" <= unit <= "Z"):
            raise ConfigError(f"sigma of {unit!r}: a unit is one upper-case letter")
        out[unit] = value if isinstance(value, Fraction) else read_sigma(str(value))
    return out


def to_integer_sigmas(instrs: Iterable[RefInstr], sigma: Mapping[str, Fraction]) -> RefKernel:
    """The paper's transformation: every instruction on a unit of sigma 1/n written n times; sigma 1/n -> 1."""
    out: list[RefInstr] = []
    order: list[str] = []
    for ins in instrs:
        if ins.unit not in sigma:
            raise ConfigError(f"unit {ins.unit!r} of the kernel has no sigma")
        if ins.unit not in order:
            order.append(ins.unit)
        copies = sigma[ins.unit].denominator  # 1 for an integer sigma
        if ins.pipelined:
            out.extend(RefInstr(ins.unit) for _ in range(copies - 1))
            out.append(ins)
        else:
            out.extend(ins for _ in range(copies))
    if not out:
        raise ConfigError("kernel is empty")
    return RefKernel(tuple(out), tuple((u, sigma[u].numerator if sigma[u].denominator == 1 else 1) for u in order))


def reference_kernel(text: str, sigmas: Mapping[str, object]) -> RefKernel:
    """Read and transform an instance's kernel and sigmas."""
    return to_integer_sigmas(read_kernel(text), read_sigmas(sigmas))


def check_warps(warps: object) -> int:
    """W must be an int of at least 1."""
    if type(warps) is not int or warps < 1:
        raise ConfigError(f"warps {warps!r} must be an integer of at least 1")
    return warps


def last_cycle(kernel: RefKernel, issue: Iterable[Iterable[int]]) -> int:
    """The makespan of issue cycles: the last cycle in which a warp still runs its last instruction."""
    tail = kernel.instrs[-1].latency - 1
    return max(list(row)[-1] + tail for row in issue)
