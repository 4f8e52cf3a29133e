"""QAWS (Singh et al., Alg. 1): hand-worked sequences for each branch, equal budgets == GTO, concrete == symbolic."""
from __future__ import annotations

import random

import pytest
import z3
from hypothesis import given, settings, strategies as st

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.encodings.z3_algebra import Z3Algebra, term
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES, PolicyContext, kernel_groups
from warpcheck.spec.frontend.priority_lists import ref_policy
from warpcheck.models.frontend.stream import Instr
from warpcheck.sim.frontend.driver import list_source, run

T, F = True, False
QAWS = POLICIES["qaws"]
# w0, w1 run K1 (budget 1); w2, w3 run K2 (budget 4): group 0 is K2 (the larger budget), group 1 is K1.
PAPER = PolicyContext(4, (0, 0, 1, 1), (1, 4))


def trace(ctx, eligs):
    """(choice, state after) for each eligibility vector, from the initial state."""
    st_, out = QAWS.init(A, ctx), []
    for elig in eligs:
        c = QAWS.choose(A, st_, elig, [0] * ctx.warps, ctx)
        st_ = QAWS.update(A, st_, c, elig, ctx)
        out.append((c, dict(st_)))
    return out


def test_groups_are_formed_by_budget_largest_first():
    assert kernel_groups(PAPER) == ((1, 1, 0, 0), (4, 1))
    assert kernel_groups(PolicyContext(4, (0, 0, 1, 1), (2, 2))) == ((0, 0, 0, 0), (2,))
    assert [f.name for f in QAWS.fields(PAPER)] == ["ptr", "grp", "c0", "c1"]


def test_each_branch_of_algorithm_1_by_hand():
    got = trace(PAPER, [
        [T, T, F, F],  # no history, K2 not ready: K1's oldest; K1 becomes the current group
        [T, T, T, T],  # lines 11-12: the greedy warp issues, K1 stays in front
        [F, T, T, T],  # lines 14-17: w0 stalls, w1 of the same group is ready: switch, K1's count 0 -> 1
        [T, F, T, T],  # lines 18-20: w1 stalls, K1's count is at its budget: reset, K2 in front (oldest: w2)
        [T, T, T, T],  # lines 11-12 in K2
        [T, T, F, T],  # lines 14-17: w2 stalls, w3 ready: K2's count 0 -> 1
        [T, T, F, F],  # lines 22-23: all of K2 stalled: K1's oldest issues, nothing counted, K2 keeps the front
        [T, T, T, F],  # K2 ready again: it goes first (w3 stalled, the oldest w2)
        [F, F, F, F],  # idle: nothing changes
    ])
    assert [c for c, _ in got] == [0, 0, 1, 2, 2, 3, 0, 2, -1]
    assert [(s["grp"], s["c0"], s["c1"]) for _, s in got] == [
        (1, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 0), (0, 0, 0), (0, 1, 0), (0, 1, 0), (0, 1, 0), (0, 1, 0)]


def test_no_history_puts_the_larger_budget_first():
    assert trace(PAPER, [[T, T, T, T]])[0] == (2, {"ptr": 2, "grp": 0, "c0": 0, "c1": 0})


def test_the_larger_budget_tolerates_more_context_switches():
    ctx = PolicyContext(4, (0, 0, 1, 1), (1, 2))
    stall2, stall3 = [T, T, F, T], [T, T, T, F]
    got = [c for c, _ in trace(ctx, [[F, F, T, T], stall2, stall3, stall2, stall3])]
    assert got == [2, 3, 2, 0, 0]  # two switches inside K2 (w3, w2), the third stall hands over to K1


def test_budget_spent_with_the_other_group_stalled_falls_back_to_the_current_group():
    ctx = PolicyContext(4, (0, 0, 1, 1), (1, 4))
    got = trace(ctx, [[T, T, F, F], [F, T, F, F], [T, F, F, F], [T, T, T, T]])
    assert [c for c, _ in got] == [0, 1, 0, 2]  # K2 has the front from the third cycle on, but issues only when ready
    assert got[2][1]["grp"] == 0


def test_equal_budgets_and_one_kernel_are_gto():
    for ctx in (PolicyContext(4, (0, 0, 1, 1), (3, 3)), PolicyContext(4)):
        assert [f.name for f in QAWS.fields(ctx)] == ["ptr"]
        eligs = [[T, T, T, T], [F, F, T, T], [T, T, T, T], [T, T, F, F]]
        gto = [POLICIES["gtlo"].choose(A, {"ptr": p}, e, [0] * 4, ctx) for p, e in zip([0, 0, 2, 2], eligs)]
        assert [c for c, _ in trace(ctx, eligs)] == gto == [0, 2, 2, 0]


def _stream(rng: random.Random, n: int) -> list[Instr]:
    classes = ["int", "fadd", "mem", "fdiv", "branch"]
    return [Instr(rng.choice(classes), dep=rng.random() < 0.4, miss=rng.random() < 0.1) for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_qaws_with_equal_budgets_issues_like_gto_on_random_runs(seed):
    rng = random.Random(seed)
    streams = [_stream(rng, 40) for _ in range(4)]
    ibufs = [s[:4] for s in streams]
    records = []
    for changes in ({"issue_policy": "qaws", "kernel_of_warp": (0, 0, 1, 1), "budgets": (2, 2)},
                    {"issue_policy": "gtlo"}):
        fe = FrontEnd(SMConfig(warps=4, design="swas", miss_latency=3, **changes))
        r = run(fe, ibufs, list_source([s[4:] for s in streams]), 60)
        records.append([s["o.w"] for s in r.states])
    assert records[0] == records[1]


@pytest.mark.parametrize("seed", range(3))
def test_model_and_reference_qaws_choose_alike_on_random_eligibility(seed):
    rng = random.Random(seed)
    for budgets in [(1, 4), (3, 1), (2, 2)]:
        ctx = PolicyContext(5, (0, 1, 0, 1, 1), budgets)
        ref = ref_policy("qaws", ctx.kernel_of_warp, ctx.budgets)
        mst, rst = QAWS.init(A, ctx), ref.init(A, 5)
        for _ in range(200):
            elig = [rng.random() < 0.6 for _ in range(5)]
            c = QAWS.choose(A, mst, elig, [0] * 5, ctx)
            assert c == ref.choose(A, rst, elig, [0] * 5)
            mst, rst = QAWS.update(A, mst, c, elig, ctx), ref.next(A, rst, c, 5, elig)
            assert mst["ptr"] == rst["last"] and all(mst[k] == rst[k] for k in mst if k != "ptr")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_concrete_and_symbolic_qaws_agree(data):
    ctx = PolicyContext(4, (0, 0, 1, 1), (data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))))
    fields = QAWS.fields(ctx)
    conc = {f.name: data.draw(st.integers(f.lo, f.hi)) for f in fields}
    elig = [data.draw(st.booleans()) for _ in range(4)]
    Z = Z3Algebra()
    sym = {k: Z.var(k, "int") for k in conc}
    e_sym = [Z.var(f"e{w}", "bool") for w in range(4)]
    c_sym = QAWS.choose(Z, sym, e_sym, [Z.const(0)] * 4, ctx)
    nxt = QAWS.update(Z, sym, c_sym, e_sym, ctx)
    c = QAWS.choose(A, conc, elig, [0] * 4, ctx)
    want = QAWS.update(A, conc, c, elig, ctx)
    sub = [(term(sym[k]), z3.IntVal(v)) for k, v in conc.items()] + \
          [(term(e), z3.BoolVal(b)) for e, b in zip(e_sym, elig)]
    ev = lambda x: z3.simplify(z3.substitute(term(x), *sub)).as_long()
    assert ev(c_sym) == c
    assert {k: ev(v) for k, v in nxt.items()} == want


@pytest.mark.parametrize("changes, message", [
    ({"kernel_of_warp": (0, 0, 1, 1), "budgets": (0, 2)}, r"budgets\[0\] = 0 is not allowed; it must be an integer >= 1"),
    ({"kernel_of_warp": (0, 0, 0, 0), "budgets": (1, 2)}, r"budgets\[1\] is a budget for kernel 1, but no warp runs it"),
    ({"budgets": (1, 2)}, r"budgets = \[1, 2\] are given but no warp has a kernel; set kernel_of_warp"),
    ({"kernel_of_warp": (0, 0, 1, 2), "budgets": (1, 2)}, r"kernel 2 has no budget"),
    ({"kernel_of_warp": (0, 1, 2, 2), "budgets": (1, 2, 3)}, r"policy 'qaws' groups warps by budget into two groups"),
    ({"kernel_of_warp": (0, -1, 1, 1), "budgets": (1, 2)}, r"kernel_of_warp\[1\] = -1 is not allowed"),
])
def test_bad_kernels_and_budgets_are_one_line_errors(changes, message):
    with pytest.raises(ConfigError, match=message) as e:
        SMConfig(warps=4, issue_policy="qaws", **changes)
    assert "\n" not in str(e.value)


def test_the_front_end_keeps_qaws_state_as_a_record():
    fe = FrontEnd(SMConfig(warps=4, issue_policy="qaws", kernel_of_warp=(0, 0, 1, 1), budgets=(1, 4)))
    assert [v.name for v in fe.state_vars() if v.name.startswith("is.")] == ["is.ptr", "is.grp", "is.c0", "is.c1"]
    fe1 = FrontEnd(SMConfig(warps=4, issue_policy="qaws"))
    assert [v.name for v in fe1.state_vars() if v.name.startswith("is.")] == ["is.ptr"]


@pytest.mark.parametrize("design", ["baseline", "swas"])
@pytest.mark.parametrize("launches", [(), (0, 3)], ids=["launched-together", "K2-launch-counter"])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_front_end_with_qaws_concrete_run_equals_the_solvers_unrolling(design, launches, data):
    from warpcheck.encodings.unroll import Unrolling
    from warpcheck.models.kernels.kernel import CLASSES
    cfg = SMConfig(warps=3, design=design, fetch_policy="qaws", issue_policy="qaws", miss_latency=3,
                   kernel_of_warp=(0, 1, 1), budgets=(1, 2), launches=launches)
    fe = FrontEnd(cfg)
    instr = st.builds(lambda c, d, t: {"cls": CLASSES.index(c), "dep": d, "tk": t and c == "branch"},
                      st.sampled_from([c for c in CLASSES if c != "nop"]), st.booleans(), st.booleans())
    params = {f"w{w}.b{j}.{k}": v for w in range(fe.W) for j in range(fe.B) for k, v in data.draw(instr).items()}
    inputs = [{**{f"f.{k}": v for k, v in data.draw(instr).items()}, "f.hit": data.draw(st.booleans())}
              for _ in range(data.draw(st.integers(1, 6)))]
    states = [fe.init(A, params)]
    for i in inputs:
        states.append(fe.step(A, states[-1], i))
    u, s = Unrolling(fe, "q."), z3.Solver()
    s.add(u.init(), *[u.trans(t) for t in range(len(inputs))])
    s.add(*[term(u.params[k]) == v for k, v in params.items()])
    s.add(*[term(u.input(t)[k]) == v for t, i in enumerate(inputs) for k, v in i.items()])
    assert s.check() == z3.sat
    assert u.trace(s.model(), len(inputs)).states == states
