"""The concrete algebra: plain Python ints and bools, so a step function runs as a simulator."""
from __future__ import annotations

from typing import Any, Sequence

from warpcheck.encodings.algebra import Algebra


class ConcreteAlgebra(Algebra):
    """Plain Python values; derived operations get fast direct versions."""

    name = "concrete"
    symbolic = False

    def const(self, value: int | bool) -> Any:
        return value

    def var(self, name: str, kind: str) -> Any:
        raise TypeError(f"the concrete algebra has no free variables (asked for {name!r})")

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        return a - b

    def eq(self, a: Any, b: Any) -> Any:
        return a == b

    def lt(self, a: Any, b: Any) -> Any:
        return a < b

    def and_(self, *xs: Any) -> Any:
        return all(xs)

    def or_(self, *xs: Any) -> Any:
        return any(xs)

    def not_(self, x: Any) -> Any:
        return not x

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        return a if c else b

    # A concrete condition picks a branch whole: no need to walk records.
    def ite(self, c: Any, a: Any, b: Any) -> Any:
        return a if c else b

    # Fast versions of derived operations; the conformance suite checks them
    # against the generic definitions of the base class.
    def le(self, a: Any, b: Any) -> Any:
        return a <= b

    def max(self, a: Any, b: Any) -> Any:
        return a if a >= b else b

    def min(self, a: Any, b: Any) -> Any:
        return a if a <= b else b

    def dec_sat(self, a: Any) -> Any:
        return a - 1 if a > 0 else 0

    def count(self, bits: Sequence[Any]) -> Any:
        return sum(1 for b in bits if b)

    def select(self, items: Sequence[Any], index: Any) -> Any:
        return items[index] if 0 <= index < len(items) else items[-1]

    def first_true(self, bits: Sequence[Any], none: int = -1) -> Any:
        for i, b in enumerate(bits):
            if b:
                return i
        return none

    def first_from(self, bits: Sequence[Any], start: Any, none: int = -1) -> Any:
        n = len(bits)
        if not 0 <= start < n:  # no position to start from: none, as in every algebra (algebra.py)
            return none
        for j in range(n):
            if bits[(start + j) % n]:
                return (start + j) % n
        return none

    def argmin_true(self, bits: Sequence[Any], keys: Sequence[Any], none: int = -1) -> Any:
        best, best_key, found = none, 0, False
        for i, bit in enumerate(bits):
            if bit and (not found or keys[i] < best_key):
                best, best_key, found = i, keys[i], True
        return best


CONCRETE = ConcreteAlgebra()
