"""The numpy algebra: a value is one number per simulation of a batch, run in lockstep.

The same step function that the concrete algebra runs as one simulation runs
here over arrays of shape ``(batch,)``: element ``e`` of every value belongs
to simulation ``e``.  Constants stay plain Python values and fold (``and_``
with a false constant is false, ``ite`` on a constant condition picks a
branch), so configuration-level structure costs nothing per element.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from warpcheck.encodings.algebra import Algebra

INT = np.int32


def _arr(x: Any) -> bool:
    return isinstance(x, np.ndarray)


class NumpyAlgebra(Algebra):
    """Values are Python constants or numpy arrays of one batch size."""

    name = "numpy"
    symbolic = False

    def __init__(self, batch: int) -> None:
        self.batch = batch
        self.lanes = np.arange(batch)

    # -- core ------------------------------------------------------------------
    def const(self, value: int | bool) -> Any:
        return value

    def var(self, name: str, kind: str) -> Any:
        raise TypeError(f"the numpy algebra has no free variables (asked for {name!r})")

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        return a - b

    def eq(self, a: Any, b: Any) -> Any:
        return np.equal(a, b) if _arr(a) or _arr(b) else a == b

    def lt(self, a: Any, b: Any) -> Any:
        return np.less(a, b) if _arr(a) or _arr(b) else a < b

    def and_(self, *xs: Any) -> Any:
        out: Any = True
        for x in xs:
            if _arr(x):
                out = x if out is True else out & x
            elif not x:
                return False
        return out

    def or_(self, *xs: Any) -> Any:
        out: Any = False
        for x in xs:
            if _arr(x):
                out = x if out is False else out | x
            elif x:
                return True
        return out

    def not_(self, x: Any) -> Any:
        return ~x if _arr(x) else not x

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        if not _arr(c):
            return a if c else b
        if not _arr(a) and not _arr(b) and a == b and type(a) is type(b):
            return a
        return np.where(c, a, b)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if not _arr(c):
            return a if c else b
        if isinstance(a, dict):
            return {k: self._ite(c, a[k], b[k]) if not isinstance(a[k], dict) else self.ite(c, a[k], b[k])
                    for k in a}
        return self._ite_at(c, a, b, "")

    # -- derived, vectorised ------------------------------------------------------
    def le(self, a: Any, b: Any) -> Any:
        return np.less_equal(a, b) if _arr(a) or _arr(b) else a <= b

    def max(self, a: Any, b: Any) -> Any:
        return np.maximum(a, b) if _arr(a) or _arr(b) else max(a, b)

    def min(self, a: Any, b: Any) -> Any:
        return np.minimum(a, b) if _arr(a) or _arr(b) else min(a, b)

    def dec_sat(self, a: Any) -> Any:
        return np.maximum(a - 1, 0) if _arr(a) else max(a - 1, 0)

    def _stack(self, items: Sequence[Any], dtype: Any) -> np.ndarray:
        out = np.empty((len(items), self.batch), dtype=dtype)
        for i, x in enumerate(items):
            out[i] = x
        return out

    def count(self, bits: Sequence[Any]) -> Any:
        consts = sum(1 for b in bits if not _arr(b) and b)
        arrays = [b for b in bits if _arr(b)]
        if not arrays:
            return consts
        total = arrays[0].astype(INT)
        for b in arrays[1:]:
            total += b
        return total + consts if consts else total

    def select(self, items: Sequence[Any], index: Any) -> Any:
        n = len(items)
        if not _arr(index):
            return items[index] if 0 <= index < n else items[-1]
        idx = np.where((index < 0) | (index >= n), n - 1, index)
        if isinstance(items[0], dict):
            return {k: self.select([x[k] for x in items], idx) for k in items[0]}
        if not any(_arr(x) for x in items) and len(set(items)) == 1:
            return items[0]
        kind = bool if all(isinstance(x, (bool, np.bool_)) or (_arr(x) and x.dtype == bool) for x in items) else INT
        return self._stack(items, kind)[idx, self.lanes]

    def _bits(self, bits: Sequence[Any]) -> np.ndarray:
        return self._stack(bits, bool)

    def first_true(self, bits: Sequence[Any], none: int = -1) -> Any:
        if not any(_arr(b) for b in bits):
            return next((i for i, b in enumerate(bits) if b), none)
        m = self._bits(bits)
        return np.where(m.any(axis=0), m.argmax(axis=0), none).astype(INT)

    def first_from(self, bits: Sequence[Any], start: Any, none: int = -1) -> Any:
        n = len(bits)
        m = self._bits(bits)
        begin = np.asarray(start)
        order = (begin[None] + np.arange(n)[:, None]) % n
        if order.shape[1] != self.batch:
            order = np.broadcast_to(order, (n, self.batch))
        rotated = np.take_along_axis(m, order, axis=0)
        j = rotated.argmax(axis=0)
        found = rotated.any(axis=0) & (begin >= 0) & (begin < n)  # a start out of range finds none (algebra.py)
        return np.where(found, order[j, self.lanes], none).astype(INT)

    def argmin_true(self, bits: Sequence[Any], keys: Sequence[Any], none: int = -1) -> Any:
        m = self._bits(bits)
        k = self._stack(keys, np.int64)
        k = np.where(m, k, np.iinfo(np.int64).max)
        return np.where(m.any(axis=0), k.argmin(axis=0), none).astype(INT)


def lane(value: Any, e: int) -> Any:
    """Element ``e`` of a value as a plain Python int or bool."""
    if _arr(value):
        value = value[e]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return int(value)
