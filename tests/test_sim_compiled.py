"""The traced and emitted step equals the model's step over the concrete algebra, state by state."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.oracles import osched1_choice, osched2_choice
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.models.frontend.stream import Instr
from warpcheck.sim.frontend.compiled import CompiledFrontEnd, TraceAlgebra
from warpcheck.sim.frontend.driver import list_source, run_iter

instrs = st.builds(Instr, st.sampled_from(["int", "fadd", "fdiv", "mem", "branch", "fsqrt"]),
                   st.booleans(), st.just(False), st.booleans())


def _fix(i: Instr) -> Instr:
    return Instr(i.cls, i.dep, i.cls == "branch" and i.dep, i.miss)  # only branches are taken


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.sampled_from(["baseline", "swas"]), st.sampled_from(list(POLICIES)),
       st.sampled_from(list(POLICIES)), st.lists(instrs, min_size=4, max_size=30), st.integers(1, 3))
def test_compiled_functions_equal_the_model_on_random_streams(warps, design, fetch, issue, stream, miss):
    fe = FrontEnd(SMConfig(warps=warps, design=design, fetch_policy=fetch, issue_policy=issue, miss_latency=miss))
    c = CompiledFrontEnd(fe)
    streams = [[_fix(x) for x in stream[w:] + stream[:w]] for w in range(warps)]
    ibufs = [[Instr("int")] * fe.B for _ in range(warps)]
    for t, (s, i) in enumerate(run_iter(fe, ibufs, list_source(streams))):
        if t == 40:
            break
        assert c.step(s, i) == fe.step(CONCRETE, s, i), f"cycle {t}"
        assert c.fetch_choice(s, i) == fe.fetch_choice(CONCRETE, s)
        assert c.issue_choice(s, i) == fe.issue_choice(CONCRETE, s)
        assert c.osched1(s, i) == osched1_choice(fe, CONCRETE, s)
        assert c.osched2(s, i) == osched2_choice(fe, CONCRETE, s)


def test_trace_shares_subexpressions_and_folds_constants():
    T = TraceAlgebra()
    x, y = T.var("s:x", "int"), T.var("s:y", "int")
    assert T.add(x, y) is T.add(x, y)
    assert T.and_(T.eq(x, y), False) is False
    assert T.ite(True, x, y) is x and T.add(2, 3) == 5
    assert T.not_(T.not_(T.lt(x, y))) is T.lt(x, y)
