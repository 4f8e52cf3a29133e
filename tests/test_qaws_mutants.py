"""QAWS's mutation suite: every single-point bug of Alg. 1 ends FAIL with a replayed witness (README's command)."""
from __future__ import annotations

import pytest

from conftest import HANG_GUARD
from warpcheck._qaws.mutation import MUTANTS, kill
from warpcheck.models.frontend.config import SMConfig
from warpcheck.verify.qaws.switches import prove_switch_bound

# Bugs that show only after a group has spent its budget of four context switches: found by the random
# runs of the auto portfolio (tens of cycles deep), then BMC gets its grace for a shorter one.
DEEP = {"qaws-budget-minus-one", "qaws-budget-plus-one", "qaws-handover-to-group-1", "qaws-count-not-reset"}
# About 14 and 20 s: group 0 handing over (budgets 1, 2, found by the random runs at cycle 11 while BMC clears depth 6),
# and GTO inside a group of three warps (W = 6).
LONG = {"qaws-front-fixed-to-group-0", "qaws-round-robin-in-group"}


def _killed(name, tmp_path):
    k = kill(name, tmp_path)
    assert k.verdict == "killed", f"{name} ({k.breaks}) survives: {k.status} {k.evidence}"
    assert k.replayed and "violation at cycle" in k.evidence


@pytest.mark.parametrize("name", [n for n in MUTANTS if n not in DEEP | LONG])
def test_shallow_qaws_mutant_is_killed(name, tmp_path):
    _killed(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEEP | LONG))
def test_deep_qaws_mutant_is_killed(name, tmp_path):
    _killed(name, tmp_path)


def test_the_suite_has_ten_observable_mutants_and_names_the_issues_four():
    assert len(MUTANTS) >= 10 and not any(m.equivalent for m in MUTANTS.values())
    assert DEEP <= set(MUTANTS) and "qaws-other-greedy-stall-counted" in MUTANTS


def test_a_late_launch_is_what_shows_a_front_fixed_to_group_0(tmp_path):
    m = MUTANTS["qaws-front-fixed-after-first-issue"]
    assert dict(m.config)["launches"] == (0, 2)  # K1 issues first: its group, not group 0, must lead
    k = kill(m.name, tmp_path)
    assert k.verdict == "killed" and "--launches 0,2" in k.check


def test_a_round_robin_inside_a_group_differs_from_gto_only_with_three_warps_a_group():
    """The within-group choice over one group's eligible warps (the others masked), for every mask and pointer: equal
    to GTO's with two warps a group (so the W = 4 proof of kernels 0, 0, 1, 1 cannot see the mutant), not with three
    (its configuration: W = 6, kernels 0, 0, 0, 1, 1, 1)."""
    from itertools import product

    from warpcheck.encodings.concrete import CONCRETE as A
    from warpcheck.models.frontend.policies import QawsRules
    from warpcheck.models.qaws.mutants import RoundRobinInGroup

    def differ(groups, warps):
        return [(bits, ptr) for group in groups for mask in product([False, True], repeat=len(group))
                for bits in [[w in group and mask[group.index(w)] for w in range(warps)]] for ptr in range(warps)
                if QawsRules().within(A, ptr, bits, [0] * warps) != RoundRobinInGroup().within(A, ptr, bits, [0] * warps)]
    assert differ([[0, 1], [2, 3]], 4) == []
    assert ([False, True, True, False, False, False], 0) not in differ([[0, 1, 2], [3, 4, 5]], 6)
    assert ([True, False, True, False, False, False], 1) in differ([[0, 1, 2], [3, 4, 5]], 6)
    m = MUTANTS["qaws-round-robin-in-group"]
    assert dict(m.config)["kernel_of_warp"] == (0, 0, 0, 1, 1, 1)


def test_a_front_fixed_to_group_0_is_shown_where_group_0_hands_over_within_bmc_reach():
    m = MUTANTS["qaws-front-fixed-to-group-0"]
    assert dict(m.config)["budgets"] == (1, 2)


@pytest.mark.slow
def test_qaws_is_proved_with_three_warps_a_group(tmp_path):
    """The README's QAWS proof with groups of three warps (W = 6; about 30 s): the configuration in which a round robin
    inside a group is not GTO."""
    import warpcheck

    r = warpcheck.prove(design="swas", policy="qaws", warps=6, kernel_of_warp=(0, 0, 0, 1, 1, 1), budgets=(1, 4),
                        launches=(0, 2), lemma_cache=None, timeout=HANG_GUARD)
    assert r.status == "PASS" and not r.bounded


def test_switches_takes_k1_from_the_budgets_not_from_the_policys_groups():
    """Groups relabelled inside the policy give K1 the budget 4: the switch bound of b(K1) = 1 breaks."""
    m = MUTANTS["qaws-groups-swapped"]
    cfg = SMConfig(design="swas", issue_policy="qaws").with_(**dict(m.config))
    r = prove_switch_bound(m.make(cfg), max_k=1, timeout=HANG_GUARD)
    assert r.status.value == "FAIL" and r.trace.states[-1]["mon.sw"] == 2
