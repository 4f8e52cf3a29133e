"""The proof for every number of warps: its component, policy and projection steps."""
from __future__ import annotations

import pytest

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.policies import POLICIES, ptr_policy
from warpcheck.verify.frontend.parametric import picks_only_eligible, projection_holds, prove_parametric


def test_swas_gtlo_parametric_proof_states_the_warp_counts_it_covers():
    r = prove_parametric(SMConfig(design="swas", issue_policy="gtlo"), "oracle", max_w=8, max_proj=3)
    assert r.label == "PASS (unbounded, W = 1..3 only)" and "larger W are not covered" in r.message
    assert "every W" not in r.label and r.to_json()["warps_covered"] == [1, 3]


def test_the_parametric_proof_never_fails_on_an_undecided_step():
    # how soon it stops after its deadline is a wall-clock goal: benchmarks/contract_timing.py measures it
    r = prove_parametric(SMConfig(design="swas", issue_policy="gtlrr"), "oracle", timeout=0.05)
    assert r.status.value in ("TIMEOUT", "UNKNOWN")


def test_all_warps_with_recheck_is_refused_not_silently_skipped():
    from warpcheck._frontend.options import ProveOptions
    from warpcheck.models.errors import ConfigError
    with pytest.raises(ConfigError, match="recheck=True: re-checks a proof for one number of warps; it is not "
                                          "available with all_warps"):
        ProveOptions(all_warps=True, recheck=True)


def test_a_too_short_ibuffer_breaks_the_component_and_is_not_a_pass():
    r = prove_parametric(SMConfig(design="swas", issue_policy="gtlo", ibuffer=3, check_buffer=False), "oracle",
                         max_w=4, max_proj=2)
    assert r.status.value == "UNKNOWN" and "one-warp component fails" in r.message


@pytest.mark.parametrize("policy", list(POLICIES))
def test_every_policy_picks_only_eligible_warps(policy):
    assert all(picks_only_eligible(policy, w) for w in (1, 2, 5))


def test_a_policy_that_ignores_eligibility_is_caught(monkeypatch):
    blind = ptr_policy("blind", "always warp 0", lambda A, ptr, elig, keys: A.const(0), lambda A, p, c, n: p)
    monkeypatch.setitem(POLICIES, "blind", blind)
    assert not picks_only_eligible("blind", 2)


@pytest.mark.parametrize("prop", ["oracle", "ideal"])
def test_a_two_warp_sm_is_a_composition_of_open_warps(prop):
    assert projection_holds(SMConfig(design="swas", issue_policy="gtlrr"), prop, 2)


def test_the_parametric_proof_refuses_the_baseline():
    from warpcheck.models.errors import ConfigError
    with pytest.raises(ConfigError, match="the parametric proof is for design 'swas'"):
        prove_parametric(SMConfig(design="baseline"), "oracle")


def test_all_warps_never_passes_what_a_proof_at_one_w_refutes(tmp_path):
    # a GTLO that falls back to round robin FAILs at W = 3 and 4; --all-warps used to PASS it (W = 1..4)
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    from warpcheck.models.frontend.mutants import MUTANTS
    cfg = SMConfig(warps=4, design="swas", issue_policy="gtlo")
    o = ProveOptions(config=cfg, property="oracle", all_warps=True, witness=str(tmp_path / "w.json"))
    out = prove_run(o, model=MUTANTS["gtlo-falls-back-to-rr"].make(cfg))
    assert out.result.status.value == "FAIL", out.result.message
    assert "chooses unlike the reference policy at W = 3" in out.result.message
    assert out.witness_path and out.replays[0].first_violation is not None and out.replays[0].config.warps == 3


def test_all_warps_refuses_a_model_changed_beyond_its_policy():
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    from warpcheck.models.errors import ConfigError
    from warpcheck.models.frontend.mutants import MUTANTS
    cfg = SMConfig(warps=4, design="swas", issue_policy="gtlrr")
    with pytest.raises(ConfigError, match="changes the design itself"):
        prove_run(ProveOptions(config=cfg, all_warps=True), model=MUTANTS["pick-when-none"].make(cfg))
