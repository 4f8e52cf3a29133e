"""The makespan machine: the same step runs concretely and symbolically, and the two agree."""
import pytest
import z3

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import term
from warpcheck.models.makespan.sm import CountSM, WarpSM, phases
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.verify.makespan.search import complete_run


def _concrete_states(ts, inputs):
    s = ts.init(CONCRETE, {})
    out = [s]
    for inp in inputs:
        assert ts.assume(CONCRETE, s, inp)
        s = ts.step(CONCRETE, s, inp)
        out.append(s)
    return out


def _check_unrolling_agrees(ts, inputs):
    states = _concrete_states(ts, inputs)
    u = Unrolling(ts, "d.")
    solver = z3.Solver()
    solver.add(u.init())
    for t, inp in enumerate(inputs):
        solver.add(u.trans(t))
        solver.add(z3.And([term(u.input(t)[k]) == (z3.BoolVal(v) if isinstance(v, bool) else v)
                           for k, v in inp.items()]))
    assert solver.check() == z3.sat
    model = solver.model()
    assert u.trace(model, len(inputs)).states == states


@pytest.mark.parametrize("text,sigma,warps", [("LLCLL", {"L": 1, "C": 1}, 3), ("L C3 L2p", {"L": 2, "C": 1}, 3)])
def test_counter_machine_concrete_and_symbolic_agree(text, sigma, warps):
    sm = CountSM(make_kernel(text, sigma), warps)
    _check_unrolling_agrees(sm, complete_run(sm, []))


def test_per_warp_machine_concrete_and_symbolic_agree():
    ws = WarpSM(make_kernel("LCL", {"L": 1, "C": 1}), 2)
    run = [{"go0": True, "go1": False}, {"go0": True, "go1": True}, {"go0": True, "go1": True},
           {"go0": False, "go1": True}]
    _check_unrolling_agrees(ws, run)
    assert ws.finished(CONCRETE, _concrete_states(ws, run)[-1])


def test_lazy_warp_is_refused_by_work_conservation():
    ws = WarpSM(make_kernel("LC", {"L": 1, "C": 1}), 2)
    s = ws.init(CONCRETE, {})
    assert not ws.assume(CONCRETE, s, {"go0": False, "go1": False})
    assert not ws.assume(CONCRETE, s, {"go0": True, "go1": True})  # sigma_L = 1


def test_phases_follow_latencies():
    ph = phases(make_kernel("L C3", {"L": 1, "C": 1}))
    assert [(p.instr, p.stage) for p in ph] == [(0, 0), (1, 0), (1, 1), (1, 2), (-1, 0)]


def test_non_pipelined_instruction_holds_its_slot():
    sm = CountSM(make_kernel("C3", {"C": 1}), 2)
    s = sm.init(CONCRETE, {})
    s = sm.step(CONCRETE, s, next(sm.choices(s)))
    assert sm.free_slots(CONCRETE, s, "C") == 0 and list(sm.choices(s)) == [{"a0": 0}]
