"""The public API (``import warpcheck``): proofs, a user's own policy, makespan, errors, exports."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

import warpcheck
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.verify.frontend.properties import default_property, get_property

import btor2_interp


def test_import_is_light_and_versioned():
    code = ("import sys, warpcheck, warpcheck.models.frontend.design; "
            "print(warpcheck.__version__, 'z3' in sys.modules, callable(warpcheck.prove))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] != "0+unknown" and out[1:] == ["False", "True"]
    assert warpcheck.__doc__ and set(warpcheck.__all__) <= set(dir(warpcheck))


@pytest.fixture(scope="module")
def baseline_fail(tmp_path_factory):
    """The baseline's shortest violation at W = 2 (shared by the cross-checks below)."""
    where = tmp_path_factory.mktemp("w") / "w.json"
    f = warpcheck.prove(design="baseline", policy="gtlrr", warps=2, engine="bmc", depth=8, witness=where)
    assert (f.status, f.code, f.witness) == ("FAIL", 1, str(where))
    return f


def test_prove_swas_passes_and_baseline_fails_with_a_replayed_witness(baseline_fail):
    r = warpcheck.prove(design="swas", policy="gtlrr", warps=2, engine="kind")
    assert (r.status, r.bounded, r.code) == ("PASS", False, 0) and r.lemmas and r.witness is None
    f = baseline_fail
    again = warpcheck.replay(f)
    assert again.reproduced and again.designs == {"baseline": f.depth - 1, "swas": None}
    assert f.to_dict()["status"] == "FAIL"


def _oldest_choose(A, st, elig):
    pick = A.const(-1)
    for w in reversed(range(len(elig))):
        pick = A.ite(elig[w], A.const(w), pick)
    return pick


def _last_update(A, st, chosen, elig):
    return {"last": A.ite(A.lt(chosen, A.const(0)), st["last"], chosen)}


OLDEST = warpcheck.UserPolicy("test-oldest", lambda W: {"last": (0, W - 1, 0)}, _oldest_choose, _last_update)


@pytest.fixture
def forget():
    yield
    for name in ("test-oldest", "test-bad"):
        warpcheck.unregister_policy(name)


def test_a_users_policy_proves_on_swas_and_fails_on_the_baseline(forget):
    assert warpcheck.prove(design="swas", policy=OLDEST, warps=2, engine="kind").status == "PASS"
    f = warpcheck.prove(design="baseline", policy=OLDEST, warps=2, engine="bmc")
    assert f.status == "FAIL" and warpcheck.replay(f, policy=OLDEST).reproduced


def test_the_users_policy_is_the_spec_a_design_that_runs_another_fails(forget):
    """Mutant: the design schedules greedy-then-oldest while the spec says oldest first."""
    warpcheck.register_policy(OLDEST)
    POLICIES["test-oldest"] = POLICIES["gtlo"]
    assert warpcheck.prove(design="swas", policy="test-oldest", warps=2, engine="bmc", depth=8).status == "FAIL"


def test_a_wrong_policy_is_refused_in_one_line(forget):
    bad = warpcheck.UserPolicy("test-bad", {"last": (0, 1, 0)}, lambda A, st, e: A.const(0), _last_update)
    with pytest.raises(warpcheck.ConfigError, match="must return an eligible warp") as e:
        warpcheck.prove(policy=bad, warps=2)
    assert e.value.code == 2 and "\n" not in str(e.value)
    with pytest.raises(warpcheck.ConfigError, match="taken by the kit"):
        warpcheck.register_policy(warpcheck.UserPolicy("gto", {"x": (0, 1, 0)}, _oldest_choose, _last_update))
    with pytest.raises(warpcheck.WarpcheckError, match="not a known policy") as e:
        warpcheck.prove(policy="nope", warps=2)
    assert e.value.code == 2 and warpcheck.KitError.code == 5


def _late_wrong_choose(A, st, elig):
    """Oldest first for two issues, then warp 0 whether it is eligible or not: right from the initial state."""
    return A.ite(A.lt(st["c"], A.const(2)), _oldest_choose(A, st, elig), A.const(0))


def _count_issues(A, st, chosen, elig):
    return {"c": A.ite(A.lt(chosen, A.const(0)), st["c"], A.min(A.add(st["c"], A.const(1)), A.const(3)))}


@pytest.mark.parametrize("name, state, choose, says", [
    ("test-late", {"c": (0, 3, 0)}, _late_wrong_choose, "chose a warp that is not eligible"),
    ("test-count", {"c": (0, 1, 0)}, _oldest_choose, "set c outside its range 0 .. 1"),
])
def test_a_policy_that_breaks_its_contract_after_the_initial_state_fails_with_a_witness(name, state, choose, says):
    """The static check sees only the initial state; the proof checks the contract in every reachable state: a FAIL
    naming the policy, whose witness replays to the same cycle (not a PASS, as before: the reference runs the same
    policy, so the issue records alone agree)."""
    bad = warpcheck.UserPolicy(name, state, choose, _count_issues)
    try:
        r = warpcheck.prove(design="swas", policy=bad, warps=4, engine="bmc", depth=4)
        assert r.status == "FAIL" and f"policy {name!r} (issue) {says}" in r.message, r.message
        assert warpcheck.replay(r, policy=bad).reproduced and f"VIOLATION: policy {name!r}" in r.report()
    finally:
        warpcheck.unregister_policy(name)


def _if_choose(A, st, elig):
    pick = A.const(-1)
    for w in reversed(range(len(elig))):
        if elig[w]:  # the mistake: a Python if on a value that is symbolic in a proof
            pick = A.const(w)
    return pick


@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("choose, update, says", [
    (_if_choose, _last_update, "choose uses a Python if/and/or/not .* write A.ite"),
    (_oldest_choose, lambda A, st, c, e: {"lost": c}, "update must return the fields \\['last'\\]"),
    (lambda A, st, e: A.const(len(e)), _last_update, "choose returned \\d+ .* an eligible warp"),
    (_oldest_choose, lambda A, st, c, e: {"last": st["nope"]}, "update raised KeyError: 'nope'"),
])
def test_a_mistake_in_a_users_policy_is_the_users_error_before_any_proof(forget, warps, choose, update, says):
    bad = warpcheck.UserPolicy("test-mistake", lambda W: {"last": (0, W - 1, 0)}, choose, update)
    with pytest.raises(warpcheck.ConfigError, match=f"policy 'test-mistake': {says}") as e:
        warpcheck.prove(design="swas", policy=bad, warps=warps, engine="bmc", depth=1)
    assert e.value.code == 2 and "\n" not in str(e.value)


def test_makespan_of_600_warps_is_exact():
    r = warpcheck.makespan("LLCLL", warps=600, sigma={"L": 1, "C": 1})
    assert (r.makespan, r.exact, r.upper) == (2401, True, 2401) and r.schedule is not None
    small = warpcheck.makespan("LLCLL", warps=3, sigma={"L": 1, "C": 1}, method="enumerate", certificate=True)
    assert small.exact and small.certificate is not None and small.to_dict()["makespan"] == small.makespan


def _checked(design: str, warps: int):
    return get_property(default_property(design)).checked(FrontEnd(SMConfig(design=design, warps=warps)))


def _random_run(ts, rng: random.Random, cycles: int):
    """The kit's simulator (the concrete algebra) on random parameters and allowed random inputs."""
    pick = lambda v: rng.random() < 0.3 if v.kind == "bool" else rng.randint(v.lo, v.hi)
    p = {v.name: pick(v) for v in ts.param_vars()}
    states, inputs, s = [ts.init(CONCRETE, p)], [], ts.init(CONCRETE, p)
    for _ in range(cycles):
        i = next(i for i in ({v.name: pick(v) for v in ts.input_vars()} for _ in range(200))
                 if ts.assume(CONCRETE, s, i))
        s = ts.step(CONCRETE, s, i)
        states.append(s)
        inputs.append(i)
    return p, states, inputs


@pytest.mark.parametrize("design", ["swas", "baseline"])
def test_btor2_runs_cycle_by_cycle_like_the_simulator(design):
    ts = _checked(design, 2)
    text = warpcheck.export("btor2", design=design, warps=2)
    m = btor2_interp.parse(next(iter(text.values())))
    width = m.width[2]
    rng = random.Random(7)
    for _ in range(2):
        p, states, inputs = _random_run(ts, rng, 20)
        # states whose initial value is not a constant start where the kit's do (a constraint checks it)
        given = {f"p.{k}": int(v) for k, v in p.items()} | {f"s.{k}": int(v) for k, v in states[0].items()}
        got = btor2_interp.run(m, given, [{f"i.{k}": int(v) for k, v in i.items()} for i in inputs])
        for t, (mine, theirs) in enumerate(zip(states, got)):
            assert theirs["constraints"] in (True, None), f"cycle {t}: the kit's inputs break a constraint"
            assert theirs["values"] == {f"s.{k}": int(v) % (1 << width) for k, v in mine.items()} | \
                {f"p.{k}": int(v) % (1 << width) for k, v in p.items()} | {"first": int(t == 0)}, f"cycle {t}"
            assert theirs["bad"] == (not ts.agree(CONCRETE, mine)), f"cycle {t}"


@pytest.mark.slow  # 1.4 s; the cycle-by-cycle run above is its cheap sibling
def test_btor2_bad_is_reachable_exactly_when_the_kit_fails(baseline_fail):
    fail = baseline_fail
    m = btor2_interp.parse(next(iter(warpcheck.export("btor2", design="baseline", warps=2).values())))
    assert btor2_interp.bad_reachable(m, fail.depth) and not btor2_interp.bad_reachable(m, fail.depth - 1)
    ok = btor2_interp.parse(next(iter(warpcheck.export("btor2", design="swas", warps=2).values())))
    assert not btor2_interp.bad_reachable(ok, 4)


def _bitwuzla(text: str) -> str:
    bz = pytest.importorskip("bitwuzla", reason="bitwuzla is in the test extra: pip install '.[test]'")
    parser = bz.Parser(bz.TermManager(), bz.Options(), "smt2")
    parser.parse(text, parse_only=True, parse_file=False)
    return str(parser.bitwuzla().check_sat())


def test_smt2_bmc_agrees_with_the_kit_through_bitwuzla(baseline_fail):
    fail = baseline_fail
    for depth, verdict in ((fail.depth, "sat"), (fail.depth - 1, "unsat")):
        files = warpcheck.export("smt2", design="baseline", warps=2, depth=depth, lemmas=False)
        assert _bitwuzla(next(t for n, t in files.items() if ".bmc" in n)) == verdict, depth


@pytest.mark.slow  # 4 s: the lemmas are proved first; the BMC cross-check above is its cheap sibling
def test_smt2_induction_agrees_with_the_kit_through_bitwuzla():
    r = warpcheck.prove(design="swas", warps=2, engine="kind")
    assert r.status == "PASS"
    files = warpcheck.export("smt2", design="swas", warps=2, depth=3, k=r.depth)
    assert {n.split(".")[1]: _bitwuzla(t) for n, t in files.items()} == \
        {"bmc3": "unsat", "lemmas-init": "unsat", "lemmas-step": "unsat", f"step{r.depth}": "unsat"}
    bare = warpcheck.export("smt2", design="swas", warps=2, depth=1, k=r.depth, lemmas=False)
    assert _bitwuzla(next(t for n, t in bare.items() if ".step" in n)) == "sat"  # the lemmas are needed


def test_export_verb_writes_the_files(tmp_path, capsys):
    from warpcheck.cli.main import main
    assert main(["export", "--format", "btor2", "--warps", "2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "swas-gtlrr-W2-exact.btor2").read_text().count(" bad ") == 1
    assert main(["export", "--format", "dimacs", "--warps", "2"]) == 2
