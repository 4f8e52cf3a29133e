"""Proofs and counterexamples of the front-end properties, and the lemma discipline."""
from __future__ import annotations

import pytest

from conftest import assert_status
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.sim.frontend.replay import replay
from warpcheck.verify.frontend import witness as wit
from warpcheck.verify.engines import bmc, kinduction
from warpcheck.verify.lemmas import prove_lemmas
from warpcheck.verify.frontend.properties import get_property


def _design_lemmas_rejected(r):
    """Rejected lemmas other than the alternative pointer links (only one of which can hold)."""
    return [n for n in r.rejected_lemmas if not n.startswith("link.ptr")]


@pytest.mark.parametrize("policy", ["gtlrr", "gtlo", "lrr", "srr", "lo", "icount"])
@pytest.mark.parametrize("prop", ["exact", "oracle", "ideal"])
def test_swas_follows_every_policy_unbounded(policy, prop):
    r = assert_status(SMConfig(warps=3, design="swas", issue_policy=policy), prop, "PASS")
    assert not r.bounded and not _design_lemmas_rejected(r)
    assert any(n.startswith("range:") for n in r.lemmas)  # ranges are proved, not assumed


def test_exact_is_not_defined_for_the_baseline():
    from warpcheck.models.errors import ConfigError
    with pytest.raises(ConfigError, match="property='exact': defined for design swas, not 'baseline'; use oracle or ideal"):
        get_property("exact").checked(FrontEnd(SMConfig(design="baseline")))


@pytest.mark.parametrize("fetch,issue", [("lrr", "gtlrr"), ("gtlo", "lrr"), ("gtlrr", "gtlo")])
def test_baseline_leaves_the_policy_and_the_witness_replays_at_the_same_cycle(fetch, issue, tmp_path):
    cfg = SMConfig(warps=4, design="baseline", fetch_policy=fetch, issue_policy=issue)
    r = assert_status(cfg, "oracle", "FAIL", engine_name="bmc", depth=12)
    w = wit.from_trace(FrontEnd(cfg), r.trace, "oracle")
    w.save(tmp_path / "w.json")
    back = wit.load(tmp_path / "w.json")
    mine = replay(back.config, back.initial_ibuffer, back.streams, "oracle", r.depth + 3)
    assert mine.first_violation == r.depth - 1 == back.cycle  # the record of cycle t is read in state t + 1
    swas = replay(wit.on_design(back, "swas"), back.initial_ibuffer, back.streams, "oracle", r.depth + 3)
    assert swas.first_violation is None


@pytest.mark.parametrize("mutant", [
    dict(ibuffer=3),            # one ibuffer slot short
    dict(t_decode=2),           # one pipeline cycle more than the ibuffer hides
])
def test_broken_swas_fails(mutant):
    cfg = SMConfig(warps=2, design="swas", issue_policy="gtlrr", check_buffer=False, **mutant)
    assert_status(cfg, "oracle", "FAIL", engine_name="kind", depth=8)
    assert_status(cfg, "exact", "FAIL", engine_name="bmc", depth=8)


def test_swas_counterexample_of_a_mutant_replays():
    cfg = SMConfig(warps=2, design="swas", issue_policy="gtlrr", ibuffer=3, check_buffer=False)
    ts = get_property("exact").checked(FrontEnd(cfg))
    r = bmc(ts, ts.agree, 8)
    w = wit.from_trace(ts.design, r.trace, "exact")
    assert replay(cfg, w.initial_ibuffer, w.streams, "exact", r.depth + 2).first_violation == r.depth - 1


class WrongLemma(FrontEnd):
    """SWaS with two extra candidate lemmas that do not hold."""

    def lemmas(self, A, s):
        out = super().lemmas(A, s)
        out["wrong.never-fdiv-at-head"] = A.ne(s["w0.b0.cls"], A.const(6))
        out["wrong.scoreboard-idle"] = A.eq(s["w0.sb"], A.const(0))
        return out


def test_a_wrong_lemma_is_rejected_and_not_assumed():
    fe = WrongLemma(SMConfig(warps=2, design="swas", issue_policy="gtlrr"))
    proved, rejected = prove_lemmas(fe)
    assert set(rejected) == {"wrong.never-fdiv-at-head", "wrong.scoreboard-idle"}
    assert all(not n.startswith("wrong") for n, _ in proved)


def test_without_lemmas_swas_is_not_provable_by_plain_k_induction():
    ts = get_property("oracle").checked(FrontEnd(SMConfig(warps=2, design="swas", issue_policy="gtlrr")))
    r = kinduction(ts, ts.agree, 2, use_lemmas=False)
    assert r.status.value == "UNKNOWN" and "no violation up to depth 2" in r.message


def test_bmc_pass_is_reported_as_bounded():
    r = assert_status(SMConfig(warps=2, design="swas", issue_policy="lrr"), "oracle", "PASS", engine_name="bmc",
                      depth=3)
    assert r.bounded and r.label == "PASS (up to depth 3)"


def test_a_prologue_skips_early_violations_and_the_witness_replays_after_it(tmp_path):
    from warpcheck.models.ts import Prologue
    cfg = SMConfig(warps=2, design="baseline", fetch_policy="lrr", issue_policy="gtlrr")
    fe = FrontEnd(cfg)
    checked = get_property("oracle").checked(fe)
    ts = Prologue(checked, 6 + 1)
    r = bmc(ts, ts.guard(checked.agree), 14)
    assert r.status.value == "FAIL" and r.depth - 1 >= 6
    w = wit.from_trace(fe, r.trace, "oracle", prologue=6)
    w.save(tmp_path / "w.json")
    back = wit.load(tmp_path / "w.json")
    rep = replay(back.config, back.initial_ibuffer, back.streams, "oracle", r.depth + 2, back.prologue)
    assert rep.first_violation == r.depth - 1 == back.cycle


def test_swas_stays_proved_with_a_prologue():
    from warpcheck.models.ts import Prologue
    checked = get_property("exact").checked(FrontEnd(SMConfig(warps=2, design="swas", issue_policy="gtlrr")))
    ts = Prologue(checked, 5)
    r = kinduction(ts, ts.guard(checked.agree), 3)
    assert r.label == "PASS (unbounded)"



def test_a_baseline_counterexample_at_eight_warps_is_written_full_size_and_replays(tmp_path):
    """auto races lifting a small counterexample, BMC and random runs: whichever answers first, the answer is
    FAIL with a witness of the size asked for that the simulator replays (the lifting itself is checked below)."""
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    cfg = SMConfig(warps=8, design="baseline", fetch_policy="lrr", issue_policy="lrr")
    out = prove_run(ProveOptions(config=cfg, witness=str(tmp_path / "w.json")))
    assert out.result.status.value == "FAIL" and out.result.engine.startswith("auto:")
    assert len(out.result.trace.states[0]) == len(get_property("oracle").checked(FrontEnd(cfg)).state_vars())
    back = wit.load(tmp_path / "w.json")
    assert back.config.warps == 8  # a witness of the size asked for, replayed by the simulator
    again = replay(back.config, back.initial_ibuffer, back.streams, "oracle", out.result.depth + 3)
    assert again.first_violation == back.cycle == out.result.depth - 1


def test_lifting_claims_nothing_without_a_confirming_full_size_run():
    from dataclasses import replace
    from warpcheck.verify.frontend import lift
    cfg = SMConfig(warps=6, design="baseline", fetch_policy="lrr", issue_policy="lrr")
    oracle = get_property("oracle").checked
    trace, frame = lift.lift_violation(cfg, oracle, 19, 30)
    assert lift.replay_to_disagreement(oracle(FrontEnd(cfg)), trace.params, trace.inputs)[1] == frame
    swas = replace(cfg, design="swas")  # the same run on SWaS keeps to the oracle: nothing to claim
    assert lift.replay_to_disagreement(oracle(FrontEnd(swas)), trace.params, trace.inputs) is None
    assert lift.lift_violation(swas, oracle, 8, 30) is None  # no violation at 4 warps: nothing lifted


def test_a_counterexample_at_few_warps_lifts_to_eight_and_replays_there():
    """What auto:lift answers when it wins the race, called on its own: a violation at eight warps."""
    from warpcheck.verify.frontend import lift
    cfg = SMConfig(warps=8, design="baseline", fetch_policy="lrr", issue_policy="lrr")
    oracle = get_property("oracle").checked
    lifted = lift.lift_violation(cfg, oracle, 19, None)  # bounded by depth, not by the clock
    assert lifted is not None
    trace, frame = lifted
    assert lift.replay_to_disagreement(oracle(FrontEnd(cfg)), trace.params, trace.inputs)[1] == frame


def test_a_step_case_unsat_only_because_its_hypotheses_are_is_no_pass():
    """A model whose input assumption admits no input has no step at all: every step case is unsat, and
    k-induction must say the proof is vacuous instead of PASS (the same checked model with its real
    assumption PASSes, so the difference is the vacuity check)."""
    checked = get_property("exact").checked(FrontEnd(SMConfig(warps=2, design="swas", issue_policy="gtlrr")))

    class NoStep(type(checked)):  # type: ignore[misc]
        def assume(self, A, s, i):
            return A.false

    vacuous = NoStep.__new__(NoStep)
    vacuous.__dict__.update(checked.__dict__)
    r = kinduction(vacuous, vacuous.agree, 2, use_lemmas=False)
    assert r.status.value == "ERROR" and "vacuous" in r.message, r
    real = kinduction(checked, checked.agree, 2)
    assert real.status.value == "PASS" and "hypotheses satisfiable" in real.message
