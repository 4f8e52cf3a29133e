"""Kernel instruction strings, sigmas, and the transformation to integer sigmas.

A kernel instruction string is a sequence of unit symbols: one upper-case
letter per instruction ("L" load/store, "C" CUDA core, any other letter a unit
type of your own).  A symbol may carry a latency suffix: ``C4`` takes four
cycles and holds its unit for all four (not pipelined); ``C4p`` takes the unit
for its issue cycle only, and its warp waits three more cycles for the result
(pipelined).  Spaces are ignored.

sigma_u is how many warps may use unit type u in one cycle: a positive integer
n, or a fraction 1/n (a warp needs n cycles of the unit per instruction).  The
transformation of the paper turns every instruction of a unit with sigma 1/n
into n consecutive instructions with sigma 1.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Mapping

from warpcheck.models.errors import ConfigError

_TOKEN = re.compile(r"([A-Z])(\d*)(p?)")
MAX_SIGMA = 16  # sigma n or 1/n with n up to this: a warp's phases grow with n, the searches with phases^W
MAX_LATENCY = 64


@dataclass(frozen=True)
class MkInstr:
    """One kernel instruction: its unit type, its latency in cycles, whether it is pipelined."""

    unit: str
    latency: int = 1
    pipelined: bool = False

    def text(self) -> str:
        """The instruction as written in a kernel string."""
        if self.latency == 1:
            return self.unit
        return f"{self.unit}{self.latency}{'p' if self.pipelined else ''}"


@dataclass(frozen=True)
class MkKernel:
    """A kernel instruction string with integer sigmas, ready for the makespan machine."""

    instrs: tuple[MkInstr, ...]
    sigma: tuple[tuple[str, int], ...]

    @property
    def units(self) -> tuple[str, ...]:
        """The unit types, in order of first use."""
        return tuple(dict.fromkeys(ins.unit for ins in self.instrs))

    def sigma_of(self, unit: str) -> int:
        """How many warps may use ``unit`` in one cycle."""
        return dict(self.sigma)[unit]

    def text(self) -> str:
        """The kernel as a string (single-cycle instructions run together)."""
        return "".join(ins.text() if ins.latency == 1 else f" {ins.text()} " for ins in self.instrs).strip()

    @property
    def single_cycle(self) -> bool:
        """Whether every instruction takes one cycle (the paper's assumption)."""
        return all(ins.latency == 1 for ins in self.instrs)


def parse_kernel(text: str) -> tuple[MkInstr, ...]:
    """Parse a kernel instruction string such as ``"LLCLL"`` or ``"L C4 Lp"``."""
    compact = "".join(text.split())
    if not compact:
        raise ConfigError(f"kernel {text!r} is empty; give at least one unit symbol, e.g. 'LLCLL'")
    out, pos = [], 0
    while pos < len(compact):
        m = _TOKEN.match(compact, pos)
        if not m:
            raise ConfigError(f"kernel {text!r} has {compact[pos]!r} at position {pos + 1}; "
                              "use upper-case unit letters, each with an optional latency such as C4 or C4p")
        latency = int(m.group(2)) if m.group(2) else 1
        if not 1 <= latency <= MAX_LATENCY:
            raise ConfigError(f"kernel {text!r}: latency {m.group(2)!r} of {m.group(0)!r} must be from 1 to "
                              f"{MAX_LATENCY}")
        if m.group(3) and latency == 1:
            raise ConfigError(f"kernel {text!r}: {m.group(0)!r} is pipelined without a latency; write e.g. "
                              f"{m.group(1)}4p, or {m.group(1)} for one cycle")
        out.append(MkInstr(m.group(1), latency, bool(m.group(3)) and latency > 1))
        pos = m.end()
    return tuple(out)


def parse_sigma(text: str) -> Fraction:
    """Parse one sigma value: a positive integer ``n`` or a fraction ``1/n``."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:/\s*(\d+)\s*)?", text)
    if not m:
        raise ConfigError(f"sigma {text!r} is not of the form n or 1/n; write e.g. 2 or 1/2")
    num, den = int(m.group(1)), int(m.group(2) or 1)
    if num == 0 or den == 0:
        raise ConfigError(f"sigma {text!r} must be positive; write e.g. 1, 2 or 1/2")
    if den != 1 and num != 1:
        raise ConfigError(f"sigma {text!r} is not of the form n or 1/n; write e.g. 2 or 1/2")
    if max(num, den) > MAX_SIGMA:
        raise ConfigError(f"sigma {text!r} is out of range; use n or 1/n with n from 1 to {MAX_SIGMA}")
    return Fraction(num, den)


def parse_sigmas(items: Iterable[str]) -> dict[str, Fraction]:
    """Parse ``U=v`` items (``L=1/2``) into a dict unit -> sigma."""
    out: dict[str, Fraction] = {}
    for item in items:
        unit, sep, value = item.partition("=")
        unit = unit.strip()
        if not sep or not re.fullmatch(r"[A-Z]", unit):
            raise ConfigError(f"sigma {item!r} is not of the form U=n or U=1/n with U an upper-case unit letter; "
                              "write e.g. L=1/2")
        if unit in out:
            raise ConfigError(f"sigma of unit {unit!r} is given twice; give one sigma per unit")
        out[unit] = parse_sigma(value)
    return out


def transform(instrs: tuple[MkInstr, ...], sigma: Mapping[str, Fraction]) -> MkKernel:
    """Validate and apply the transformation to integer sigmas.

    An instruction of a unit with sigma 1/n becomes n instructions with sigma
    1: n copies when it is not pipelined; for a pipelined one, n - 1 single
    cycle issues followed by one issue that waits for the full latency.
    """
    if not instrs:
        raise ConfigError("kernel is empty; give at least one unit symbol, e.g. 'LLCLL'")
    for ins in instrs:
        if ins.unit not in sigma:
            raise ConfigError(f"unit {ins.unit!r} of the kernel has no sigma; give it one: {ins.unit}=1 (or n, or 1/n)")
    out: list[MkInstr] = []
    for ins in instrs:
        n = sigma[ins.unit].denominator
        if ins.pipelined:
            out += [MkInstr(ins.unit)] * (n - 1) + [ins]
        else:
            out += [ins] * n
    used = dict.fromkeys(ins.unit for ins in instrs)
    return MkKernel(tuple(out), tuple((u, int(sigma[u]) if sigma[u].denominator == 1 else 1) for u in used))


def make_kernel(text: str, sigmas: Mapping[str, Fraction | int | str]) -> MkKernel:
    """Parse, validate and transform a kernel string and its sigmas in one call."""
    sig = {u: v if isinstance(v, Fraction) else parse_sigma(str(v)) for u, v in sigmas.items()}
    return transform(parse_kernel(text), sig)


def pessimistic(kernel: MkKernel, warps: int) -> int:
    """The paper's pessimistic bound (Eq. 5-7): sum over units of ceil(W / sigma_u) * I_u.

    An instruction of latency d counts as d instructions, as the paper does for
    multi-cycle instructions.
    """
    total = 0
    for unit in kernel.units:
        count = sum(ins.latency for ins in kernel.instrs if ins.unit == unit)
        total += math.ceil(warps / kernel.sigma_of(unit)) * count
    return total


def pessimistic_bound(kernel: MkKernel, warps: int) -> int | None:
    """Eq. 5-7 where it is a proved upper bound: every unit serves one warp a cycle after the transform; else None.

    With every sigma 1, each cycle before the end moves some warp on by one of its sum-of-latencies cycles (a
    waiting warp's unit is free, so it issues one, or it is held by a busy warp, which moves), and Eq. 5-7 is
    W times that sum.  With a unit of sigma 2 or more the paper's count is not a bound: ``LL`` (sigma_L = 2),
    W = 4 gives 4, and the worst case is 5: the slots go to three warps' phases while the fourth waits, and it
    then runs its two phases alone.
    """
    if any(sigma != 1 for _, sigma in kernel.sigma):
        return None
    return pessimistic(kernel, warps)


def approximation(warps: int, x: int, exact: Callable[[int], int]) -> tuple[int, int]:
    """The paper's estimate (Eq. 42-43): min over y <= x of ceil(W / y) * T(y).

    ``exact(y)`` is the exact worst-case makespan of y warps.  Return the
    estimate and the y that reaches it.
    """
    x = max(1, min(x, warps))
    best = min((math.ceil(warps / y) * exact(y), y) for y in range(1, x + 1))
    return best
