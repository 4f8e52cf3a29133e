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


# -- every algebra, every argument: in range or not ------------------------------------------------------------------
def _pysmt_eval(x):
    from warpcheck.encodings.pysmt_algebra import fnode

    v = fnode(x).simplify()
    return bool(v.constant_value()) if v.is_bool_constant() else int(v.constant_value())


def _z3bv_eval(x):
    v = z3.simplify(term(x))
    return z3.is_true(v) if z3.is_bool(v) else v.as_signed_long()


def _numpy_eval(x):
    import numpy as np

    if not isinstance(x, np.ndarray):
        return x
    assert (x == x[0]).all()  # every lane got the same arguments
    return bool(x[0]) if x.dtype == bool else int(x[0])


def _algebras():
    """(name, algebra, lift a Python value into it, read one back) for every algebra of the kit."""
    import numpy as np

    from warpcheck.encodings.numpy_algebra import INT, NumpyAlgebra
    from warpcheck.encodings.pysmt_algebra import PysmtAlgebra
    from warpcheck.encodings.z3_algebra import Z3BVAlgebra

    def symbolic(A):
        return lambda v: [A.const(x) for x in v] if isinstance(v, list) else A.const(v)

    N = NumpyAlgebra(3)

    def lanes(v):
        if isinstance(v, list):
            return [lanes(x) for x in v]
        return np.full(3, v, dtype=bool if isinstance(v, bool) else INT)
    z, bv, ps = Z3Algebra(), Z3BVAlgebra(), PysmtAlgebra()
    return [("concrete", CONCRETE, lambda v: v, lambda x: x), ("generic", Generic(), lambda v: v, lambda x: x),
            ("z3", z, symbolic(z), z3_eval), ("z3-bv", bv, symbolic(bv), _z3bv_eval),
            ("pysmt", ps, symbolic(ps), _pysmt_eval), ("numpy", N, lanes, _numpy_eval)]


def _native_helpers():
    """The native simulator's helpers (sim/frontend/native.py), run as plain Python (numba only compiles them)."""
    from warpcheck.sim.frontend.native import HELPERS

    ns = {"njit": lambda **_: (lambda f: f), "CACHE": False}
    exec(HELPERS, ns)  # noqa: S102 - the kit's own source text
    return ns


def _each(fn):
    """{algebra: fn(A, lift) read back as a Python value}."""
    return {name: read(fn(A, lift)) for name, A, lift, read in _algebras()}


@settings(max_examples=60, deadline=None)
@given(bits, st.integers(-8, 8), st.integers(-2, 7))
def test_every_algebra_agrees_on_selection_for_every_start_in_range_or_not(bs, start, none):
    """first_from with a start outside 0 .. n - 1 answers ``none`` everywhere (it wrapped concretely and answered
    none symbolically: a policy whose pointer left its range gave a proof's witness the simulator did not
    reproduce); select takes the last item out of range everywhere."""
    n = len(bs)
    want_from = none if not 0 <= start < n else \
        next(((start + j) % n for j in range(n) if bs[(start + j) % n]), none)
    want_sel = bs[start] if 0 <= start < n else bs[-1]
    assert set(_each(lambda A, L: A.first_from(L(bs), L(start), none)).values()) == {want_from}
    assert set(_each(lambda A, L: A.select(L(bs), L(start))).values()) == {want_sel}
    assert set(_each(lambda A, L: A.first_true(L(bs), none)).values()) == {next((i for i, b in enumerate(bs) if b),
                                                                                 none)}
    native = _native_helpers()
    assert native["_first_from"](tuple(bs), start, none) == want_from
    assert native["_sel"](tuple(bs), start) == want_sel


@settings(max_examples=60, deadline=None)
@given(bits, st.lists(st.integers(-6, 6), min_size=6, max_size=6), st.integers(-2, 7))
def test_every_algebra_agrees_on_argmin_for_every_none(bs, keys, none):
    """The true bit of least key, lowest index on ties, or ``none`` (even a ``none`` that is also an index: the
    native helper took ``best == none`` for "nothing found yet")."""
    ks = keys[:len(bs)]
    cands = [i for i, b in enumerate(bs) if b]
    want = min(cands, key=lambda i: (ks[i], i)) if cands else none
    assert set(_each(lambda A, L: A.argmin_true(L(bs), L(ks), none)).values()) == {want}
    assert _native_helpers()["_argmin_true"](tuple(bs), tuple(ks), none) == want


@settings(max_examples=60, deadline=None)
@given(st.integers(-200, 200), st.integers(-200, 200), st.lists(st.booleans(), min_size=0, max_size=5))
def test_every_algebra_agrees_on_arithmetic_and_logic_at_the_edges(a, b, bs):
    """Negative values, zero, values past any range a model declares; empty and/or/any/all/count."""
    cases = [(lambda A, L: A.add(L(a), L(b)), a + b), (lambda A, L: A.sub(L(a), L(b)), a - b),
             (lambda A, L: A.lt(L(a), L(b)), a < b), (lambda A, L: A.le(L(a), L(b)), a <= b),
             (lambda A, L: A.eq(L(a), L(b)), a == b), (lambda A, L: A.ne(L(a), L(b)), a != b),
             (lambda A, L: A.max(L(a), L(b)), max(a, b)), (lambda A, L: A.min(L(a), L(b)), min(a, b)),
             (lambda A, L: A.dec_sat(L(a)), max(a - 1, 0)), (lambda A, L: A.ite(L(a < b), L(a), L(b)), min(a, b)),
             (lambda A, L: A.count(L(bs)), sum(bs)), (lambda A, L: A.any_(L(bs)), any(bs)),
             (lambda A, L: A.all_(L(bs)), all(bs)), (lambda A, L: A.implies(L(a < 0), L(b < 0)), a >= 0 or b < 0)]
    for k, (fn, want) in enumerate(cases):
        got = _each(fn)
        assert set(got.values()) == {want}, (k, got)


def test_a_pointer_that_leaves_its_range_gives_a_witness_that_replays(tmp_path):
    """LRR whose pointer never wraps (warp W - 1 is followed by W): the proof's violation (the design issues nothing
    from pointer W while warps are eligible) is the simulator's too, a FAIL whose witness replays at the same cycle;
    it was ERROR "witness does not reproduce" at W = 4 and 8 while the concrete first_from wrapped the pointer."""
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    from warpcheck.models.frontend.config import SMConfig
    from warpcheck.models.frontend.mutants import _ptr_update, _with_policy
    from warpcheck.models.frontend.policies import POLICIES

    never = _ptr_update(POLICIES["lrr"], lambda A, ptr, c, n: A.ite(A.lt(c, A.const(0)), ptr, A.add(c, A.const(1))))
    cfg = SMConfig(warps=4, design="swas", issue_policy="lrr", check_buffer=False)
    o = ProveOptions(config=cfg, engine="bmc", depth=8, witness=str(tmp_path / "w.json"))
    run = prove_run(o, model=_with_policy(never)(cfg))
    assert run.result.status.value == "FAIL", run.result.message
    assert run.replays[0].first_violation == run.result.depth - 1 and run.witness_path
