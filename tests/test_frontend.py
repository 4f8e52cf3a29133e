"""The front end's cycle conventions, hand-worked, and concrete == symbolic."""
from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import term
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.kernels.kernel import CLASSES
from warpcheck.models.frontend.stream import Instr, instr_of
from warpcheck.models.ts import check_state
from warpcheck.sim.frontend.driver import list_source, run


def issued(config, ibuffers, streams, cycles):
    """(warp, instruction class) issued at each cycle."""
    fe = FrontEnd(config)
    r = run(fe, ibuffers, list_source(streams), cycles)
    out = []
    for s in r.states[:cycles]:
        check_state(fe, s)
        w = fe.issue_choice(A, s)
        out.append((w, instr_of(s, f"w{w}.b0").cls if w >= 0 else "-"))
    return out


NOPS = [Instr("nop")] * 4
STREAM = [Instr(c) for c in ("fadd", "fmul", "fcvt", "int", "mem", "fadd", "fmul", "fcvt")]


def test_swas_issues_an_instruction_requested_at_t_at_t_plus_tf_plus_one():
    got = issued(SMConfig(warps=1, design="swas", issue_policy="gtlrr"), [NOPS], [STREAM], 8)
    assert [c for _, c in got] == ["nop"] * 4 + ["fadd", "fmul", "fcvt", "int"]


def test_one_more_pipeline_cycle_leaves_swas_without_an_instruction():
    cfg = SMConfig(warps=1, design="swas", issue_policy="gtlrr", t_decode=2, check_buffer=False)
    got = issued(cfg, [NOPS], [STREAM], 6)
    assert got[4] == (-1, "-") and got[5] == (0, "fadd")


def test_baseline_with_a_full_ibuffer_cannot_prefetch_and_runs_dry():
    got = issued(SMConfig(warps=1, design="baseline", fetch_policy="lrr", issue_policy="lrr"), [NOPS], [STREAM], 6)
    assert [w for w, _ in got] == [0, 0, 0, 0, -1, 0]


def test_swas_replaces_a_taken_branch_shadow_with_four_nops():
    ibuf = [[Instr("branch", taken=True), Instr("int"), Instr("int"), Instr("int")]]
    got = issued(SMConfig(warps=1, design="swas", issue_policy="gtlrr"), ibuf, [STREAM], 7)
    assert [c for _, c in got] == ["branch", "nop", "nop", "nop", "nop", "fadd", "fmul"]


def test_swas_suspends_a_warp_during_its_miss_and_the_other_warp_issues():
    cfg = SMConfig(warps=2, design="swas", issue_policy="lrr", miss_latency=5)
    streams = [[Instr("fadd", miss=True)] + STREAM, STREAM]
    got = issued(cfg, [NOPS, NOPS], streams, 9)
    assert [w for w, _ in got] == [0, 1, 1, 1, 1, 1, 0, 1, 0]


def test_dependent_instruction_waits_for_the_latency():
    ibuf = [[Instr("fadd"), Instr("int", dep=True), Instr("int"), Instr("int")]]
    got = issued(SMConfig(warps=1, design="swas", issue_policy="lrr"), ibuf, [STREAM], 5)
    assert [w for w, _ in got] == [0, -1, -1, -1, 0]


def test_swas_rejects_an_ibuffer_shorter_than_the_pipeline():
    with pytest.raises(ConfigError, match=r"ibuffer = 3 is too short for design 'swas': it needs at least "
                                          r"t_fetch \+ t_decode = 4 entries"):
        SMConfig(design="swas", ibuffer=3)


@pytest.mark.parametrize("field,value,message", [
    ("warps", 0, r"warps = 0 is not allowed; it must be an integer >= 1"),
    ("t_fetch", 0, r"t_fetch = 0 is not allowed"),
    ("design", "fast", r"design = 'fast' is not allowed; choose one of: baseline, swas"),
])
def test_bad_configuration_fields_are_named(field, value, message):
    with pytest.raises(ConfigError, match=message):
        SMConfig(**{field: value})


# -- concrete == symbolic ------------------------------------------------------------------

instr = st.builds(lambda c, d, t: {"cls": CLASSES.index(c), "dep": d, "tk": t and c == "branch"},
                  st.sampled_from([c for c in CLASSES if c != "nop"]), st.booleans(), st.booleans())
configs = st.builds(lambda w, d, f, i: SMConfig(warps=w, design=d, fetch_policy=f, issue_policy=i, miss_latency=3),
                    st.integers(1, 3), st.sampled_from(["baseline", "swas"]),
                    st.sampled_from(["lrr", "gtlrr", "gtlo", "icount"]), st.sampled_from(["lrr", "gtlrr", "gtlo", "srr"]))


@pytest.mark.parametrize("bitvector", [True, False], ids=["bv", "int"])
@settings(max_examples=20, deadline=None)
@given(configs, st.data())
def test_concrete_run_equals_the_solvers_evaluation_of_the_unrolling(bitvector, config, data):
    fe = FrontEnd(config)
    params = {}
    for w in range(fe.W):
        for j in range(fe.B):
            params.update({f"w{w}.b{j}.{k}": v for k, v in data.draw(instr).items()})
    n = data.draw(st.integers(1, 5))
    inputs = [{**{f"f.{k}": v for k, v in data.draw(instr).items()}, "f.hit": data.draw(st.booleans())}
              for _ in range(n)]
    states = [fe.init(A, params)]
    for i in inputs:
        states.append(fe.step(A, states[-1], i))
    u, s = Unrolling(fe, "d.", bitvector=bitvector), z3.Solver()
    s.add(u.init(), *[u.trans(t) for t in range(n)])
    s.add(*[term(u.params[k]) == v for k, v in params.items()])
    s.add(*[term(u.input(t)[k]) == v for t, i in enumerate(inputs) for k, v in i.items()])
    assert s.check() == z3.sat
    assert u.trace(s.model(), n).states == states
