"""One conformance suite over every algebra: each operation against plain Python."""
from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.encodings.algebra import Algebra, StructureError
from warpcheck.encodings.concrete import CONCRETE, ConcreteAlgebra
from warpcheck.encodings.z3_algebra import Z3Algebra, term
from warpcheck.models.errors import SymbolicBoolError

ints = st.integers(-5, 5)
bits = st.lists(st.booleans(), min_size=1, max_size=6)


class Generic(ConcreteAlgebra):
    """The concrete core with the base class's generic derived operations."""

    for _name in ("ite", "le", "max", "min", "dec_sat", "count", "select", "first_true", "first_from"):
        locals()[_name] = getattr(Algebra, _name)


def z3_eval(x):
    v = z3.simplify(term(x))
    return z3.is_true(v) if z3.is_bool(v) else v.as_long()


def run_all(fn):
    """fn(A, lift) under the concrete, generic and Z3 algebras, evaluated to Python values."""
    z = Z3Algebra()
    return [fn(CONCRETE, lambda v: v), fn(Generic(), lambda v: v),
            z3_eval(fn(z, lambda v: z.const(v) if not isinstance(v, list) else [z.const(x) for x in v]))]


@given(ints, ints)
def test_core_and_derived_match_python(a, b):
    cases = {
        "add": (lambda A, L: A.add(L(a), L(b)), a + b), "sub": (lambda A, L: A.sub(L(a), L(b)), a - b),
        "lt": (lambda A, L: A.lt(L(a), L(b)), a < b), "le": (lambda A, L: A.le(L(a), L(b)), a <= b),
        "eq": (lambda A, L: A.eq(L(a), L(b)), a == b), "max": (lambda A, L: A.max(L(a), L(b)), max(a, b)),
        "min": (lambda A, L: A.min(L(a), L(b)), min(a, b)), "dec_sat": (lambda A, L: A.dec_sat(L(a)), max(a - 1, 0)),
    }
    for name, (fn, want) in cases.items():
        assert run_all(fn) == [want] * 3, name


@given(bits, st.integers(0, 5))
def test_selection_operations_match_python(bs, start):
    start %= len(bs)
    first = next((i for i, b in enumerate(bs) if b), -1)
    rot = next(((start + j) % len(bs) for j in range(len(bs)) if bs[(start + j) % len(bs)]), -1)
    assert run_all(lambda A, L: A.first_true(L(bs))) == [first] * 3
    assert run_all(lambda A, L: A.first_from(L(bs), L(start))) == [rot] * 3
    assert run_all(lambda A, L: A.count(L(bs))) == [sum(bs)] * 3
    assert run_all(lambda A, L: A.select(L(bs), L(start))) == [bs[start]] * 3


def test_symbolic_value_refuses_bool_with_advice():
    x = Z3Algebra().var("x", "int")
    with pytest.raises(SymbolicBoolError, match=r"use A.ite\(cond, a, b\)"):
        if Z3Algebra().lt(x, Z3Algebra().const(3)):
            pass


def test_structural_ite_names_the_mismatched_field():
    A = Z3Algebra()
    c = A.var("c", "bool")
    with pytest.raises(StructureError, match=r"ibuffer\[1\]"):
        A.ite(c, {"ibuffer": [A.const(1), A.const(2)]}, {"ibuffer": [A.const(1), {"x": A.const(0)}]})
