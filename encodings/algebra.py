"""The value algebra protocol: a few core operations, everything else derived.

A model's step function receives an algebra ``A`` and builds every value
through it.  Plain Python values (the concrete algebra) make the step an
explicit-state simulator; solver terms (the Z3 and pySMT algebras) make it a
transition relation.  Each algebra implements only the core:

    const, var, add, sub, eq, lt, and_, or_, not_, _ite

Derived operations (le, max, select, first_from, ...) are written once here.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from warpcheck.models.errors import SymbolicBoolError, WarpcheckError


class StructureError(WarpcheckError, TypeError):
    """Two branches of a structural ite do not have the same shape."""


class Algebra:
    """Base class of the value algebras; subclasses implement the core."""

    name = "abstract"
    symbolic = True

    # -- core (each algebra implements these) -----------------------------
    def const(self, value: int | bool) -> Any:
        raise NotImplementedError

    def var(self, name: str, kind: str) -> Any:
        raise NotImplementedError

    def add(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def sub(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def eq(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def lt(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def and_(self, *xs: Any) -> Any:
        raise NotImplementedError

    def or_(self, *xs: Any) -> Any:
        raise NotImplementedError

    def not_(self, x: Any) -> Any:
        raise NotImplementedError

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        raise NotImplementedError

    # -- structural ite ----------------------------------------------------
    def ite(self, c: Any, a: Any, b: Any) -> Any:
        """Choose ``a`` if ``c`` else ``b``, field by field over records."""
        return self._ite_at(c, a, b, "")

    def _ite_at(self, c: Any, a: Any, b: Any, path: str) -> Any:
        if isinstance(a, dict):
            return self._ite_dict(c, a, b, path)
        if isinstance(a, (tuple, list)):
            return self._ite_seq(c, a, b, path)
        if dataclasses.is_dataclass(a) and not isinstance(a, type):
            return self._ite_record(c, a, b, path)
        if isinstance(b, (dict, tuple, list)):
            raise StructureError(f"{path or 'value'}: a scalar and a {type(b).__name__} cannot be merged by ite")
        return self._ite(c, a, b)

    def _ite_dict(self, c: Any, a: dict, b: Any, path: str) -> dict:
        if not isinstance(b, dict) or a.keys() != b.keys():
            raise StructureError(f"{path or 'record'}: ite branches have different fields")
        return {k: self._ite_at(c, a[k], b[k], f"{path}.{k}" if path else str(k)) for k in a}

    def _ite_seq(self, c: Any, a: Sequence, b: Any, path: str) -> Any:
        if not isinstance(b, (tuple, list)) or len(a) != len(b):
            raise StructureError(f"{path or 'sequence'}: ite branches have different lengths")
        out = [self._ite_at(c, x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
        return tuple(out) if isinstance(a, tuple) else out

    def _ite_record(self, c: Any, a: Any, b: Any, path: str) -> Any:
        if type(a) is not type(b):
            raise StructureError(f"{path or 'record'}: ite of {type(a).__name__} and {type(b).__name__}")
        fields = {f.name: self._ite_at(c, getattr(a, f.name), getattr(b, f.name),
                                       f"{path}.{f.name}" if path else f.name)
                  for f in dataclasses.fields(a)}
        return dataclasses.replace(a, **fields)

    # -- derived -------------------------------------------------------------
    @property
    def true(self) -> Any:
        return self.const(True)

    @property
    def false(self) -> Any:
        return self.const(False)

    def le(self, a: Any, b: Any) -> Any:
        return self.not_(self.lt(b, a))

    def gt(self, a: Any, b: Any) -> Any:
        return self.lt(b, a)

    def ge(self, a: Any, b: Any) -> Any:
        return self.not_(self.lt(a, b))

    def ne(self, a: Any, b: Any) -> Any:
        return self.not_(self.eq(a, b))

    def implies(self, a: Any, b: Any) -> Any:
        return self.or_(self.not_(a), b)

    def max(self, a: Any, b: Any) -> Any:
        return self.ite(self.lt(a, b), b, a)

    def min(self, a: Any, b: Any) -> Any:
        return self.ite(self.lt(b, a), b, a)

    def dec_sat(self, a: Any) -> Any:
        """``max(a - 1, 0)``: a countdown that stops at zero."""
        return self.ite(self.lt(self.const(0), a), self.sub(a, self.const(1)), self.const(0))

    def count(self, bits: Sequence[Any]) -> Any:
        """How many of ``bits`` are true."""
        total = self.const(0)
        for bit in bits:
            total = self.add(total, self.ite(bit, self.const(1), self.const(0)))
        return total

    def any_(self, bits: Sequence[Any]) -> Any:
        return self.or_(*bits) if bits else self.false

    def all_(self, bits: Sequence[Any]) -> Any:
        return self.and_(*bits) if bits else self.true

    def select(self, items: Sequence[Any], index: Any) -> Any:
        """``items[index]`` for a possibly symbolic index (the last item if out of range, in every algebra)."""
        out = items[-1]
        for i in range(len(items) - 2, -1, -1):
            out = self.ite(self.eq(index, self.const(i)), items[i], out)
        return out

    def first_true(self, bits: Sequence[Any], none: int = -1) -> Any:
        """Index of the first true bit, or ``none``."""
        out: Any = self.const(none)
        for i in range(len(bits) - 1, -1, -1):
            out = self.ite(bits[i], self.const(i), out)
        return out

    def first_from(self, bits: Sequence[Any], start: Any, none: int = -1) -> Any:
        """Index of the first true bit at or after ``start``, wrapping around, or ``none``.

        A ``start`` outside 0 .. len(bits) - 1 is no position: the answer is ``none``, in every algebra (the
        concrete and numpy ones and the native simulator's helper do not wrap it around: a policy whose pointer
        leaves its range then issues nothing, in the simulator as in a proof, and the witness replays).
        """
        n = len(bits)
        out: Any = self.const(none)
        for k in range(n):  # candidate start positions, each a rotation
            rotated = [(k + j) % n for j in range(n)]
            pick: Any = self.const(none)
            for j in reversed(rotated):
                pick = self.ite(bits[j], self.const(j), pick)
            out = self.ite(self.eq(start, self.const(k)), pick, out)
        return out

    def argmin_true(self, bits: Sequence[Any], keys: Sequence[Any], none: int = -1) -> Any:
        """Index of the true bit with the smallest key (lowest index on ties), or ``none``."""
        best_i: Any = self.const(none)
        best_k: Any = self.const(0)
        found: Any = self.false
        for i, (bit, key) in enumerate(zip(bits, keys)):
            better = self.and_(bit, self.or_(self.not_(found), self.lt(key, best_k)))
            best_i = self.ite(better, self.const(i), best_i)
            best_k = self.ite(better, key, best_k)
            found = self.or_(found, bit)
        return best_i


class SymbolicValue:
    """A solver term wrapped so that Python cannot mistake it for a bool."""

    __slots__ = ("t",)

    def __init__(self, t: Any) -> None:
        self.t = t

    def __bool__(self) -> bool:
        refuse_bool(self.t)
        return False  # unreachable

    def __eq__(self, other: object) -> bool:
        refuse_bool(self.t)
        return False  # unreachable

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.t})"


def refuse_bool(value: object) -> None:
    """Raise the error every symbolic value gives when asked for a Python bool."""
    raise SymbolicBoolError(
        f"symbolic value {value!r} has no concrete truth value; "
        "use A.ite(cond, a, b) instead of a Python if/and/or on it")
