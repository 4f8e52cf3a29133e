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


def _killed(name, tmp_path):
    k = kill(name, tmp_path)
    assert k.verdict == "killed", f"{name} ({k.breaks}) survives: {k.status} {k.evidence}"
    assert k.replayed and "violation at cycle" in k.evidence


@pytest.mark.parametrize("name", [n for n in MUTANTS if n not in DEEP])
def test_shallow_qaws_mutant_is_killed(name, tmp_path):
    _killed(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEEP))
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


def test_switches_takes_k1_from_the_budgets_not_from_the_policys_groups():
    """Groups relabelled inside the policy give K1 the budget 4: the switch bound of b(K1) = 1 breaks."""
    m = MUTANTS["qaws-groups-swapped"]
    cfg = SMConfig(design="swas", issue_policy="qaws").with_(**dict(m.config))
    r = prove_switch_bound(m.make(cfg), max_k=1, timeout=HANG_GUARD)
    assert r.status.value == "FAIL" and r.trace.states[-1]["mon.sw"] == 2
