"""``exact`` for every number of warps: the EPR checks, the encoding against the kit's per-W step, the mutants."""
from __future__ import annotations

import pytest

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.mutants import MUTANTS, WIDE_MUTANTS
from warpcheck.models.frontend.swas_every_warp import SORT_POLICIES
from warpcheck.verify.frontend.every_warp import Pair, consecution, consistency, initiation
from warpcheck.verify.frontend.every_warp_encoding import encoding_agrees

POLICIES = ("gtlrr", "gtlo", "lrr")


def _pair(policy: str, **kw) -> Pair:
    return Pair.of(SMConfig(design="swas", issue_policy=policy), **kw)


def test_the_invariant_of_gtlrr_holds_for_every_w_and_is_not_vacuous():
    pair = _pair("gtlrr")
    assert initiation(pair).answer == "unsat"
    assert consistency(pair).answer == "sat"  # the hypotheses of consecution have models
    assert consecution(pair).answer == "unsat"


@pytest.mark.slow
def test_a_design_with_another_policy_breaks_the_invariant_in_a_finite_model():
    # lrr's machine beside a gtlrr design: the pointers part at once; the model has finitely many warps
    pair = Pair.of(SMConfig(design="swas", issue_policy="lrr"), policy=SORT_POLICIES["gtlrr"])
    got = consecution(pair)
    assert got.answer == "sat" and got.warps is not None and got.failed == ["link.ptr"]


def test_the_quantified_step_is_the_kits_at_two_warps_and_tells_a_step_mutant_apart():
    cfg = SMConfig(design="swas", issue_policy="gtlrr", warps=2)
    assert encoding_agrees(_pair("gtlrr"), FrontEnd(cfg))[0] is True
    one = cfg.with_(warps=1)
    assert encoding_agrees(_pair("gtlrr"), MUTANTS["scoreboard-short"].make(one)) == (False, "step differs at W = 1")


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
def test_the_quantified_step_is_the_kits_for_one_to_six_warps(policy):
    for w in range(1, 7):
        cfg = SMConfig(design="swas", issue_policy=policy, warps=w)
        assert encoding_agrees(_pair(policy), FrontEnd(cfg))[0] is True, (policy, w)


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
def test_prove_all_warps_exact_passes_for_every_w(policy):
    import warpcheck
    r = warpcheck.prove(design="swas", policy=policy, all_warps=True, property="exact", timeout=900)
    out = r.to_dict()
    assert r.status == "PASS" and "PASS (unbounded, every W >= 1)" in r.report(), out["message"]
    assert out["warps_covered"] == [1, None]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WIDE_MUTANTS))
def test_a_policy_that_breaks_only_at_many_warps_fails_there_with_a_replayed_witness(name, tmp_path):
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    m = WIDE_MUTANTS[name]
    cfg = SMConfig(design="swas", issue_policy=m.policy)
    o = ProveOptions(config=cfg, property="exact", all_warps=True, witness=str(tmp_path / "w.json"), timeout=1200)
    out = prove_run(o, model=m.make(cfg))
    assert out.result.status.value == "FAIL", out.result.message
    assert f"breaks at W = {m.breaks_at}" in out.result.message
    mine = out.replays[0]
    assert mine.config.warps == m.breaks_at and mine.first_violation is not None and out.witness_path


def test_every_w_refuses_what_it_does_not_cover():
    from warpcheck._frontend.options import ProveOptions
    from warpcheck.models.errors import ConfigError
    with pytest.raises(ConfigError, match="for design 'swas' with policy gtlrr, gtlo, lrr"):
        ProveOptions(design="swas", policy="icount", all_warps=True, property="exact")
