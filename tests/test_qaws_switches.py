"""K2's wait under QAWS is bounded in K1's context switches: proved unbounded, tight, broken by budget-blind policies."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.verify.qaws.switches import bound_is_reached, prove_switch_bound

QAWS = POLICIES["qaws"]


def _config(kow=(0, 0, 1, 1), budgets=(1, 4), policy="qaws") -> SMConfig:
    return SMConfig(warps=len(kow), design="swas", issue_policy=policy, kernel_of_warp=kow, budgets=budgets)


def _k1_budget_ignored(config: SMConfig) -> FrontEnd:
    """QAWS whose K1 count never grows (K1 ignores its budget); K2 still hands the SM over."""
    def update(A, st, c, e, ctx):
        return {**QAWS.update(A, st, c, e, ctx), "c1": st["c1"]}
    fe = FrontEnd(config)
    fe.issue_policy = fe.fetch_policy = replace(QAWS, update=update)
    return fe


@pytest.mark.parametrize("kow, budgets", [((0, 0, 1, 1), (1, 4)), ((0, 0, 1, 1), (2, 3)), ((0, 0, 0, 1, 1), (2, 5))])
def test_switch_bound_is_proved_for_every_run(kow, budgets):
    r = prove_switch_bound(FrontEnd(_config(kow, budgets)), timeout=HANG_GUARD)
    assert r.status.value == "PASS" and not r.bounded


@pytest.mark.parametrize("budgets, depth", [((1, 4), 11), pytest.param((2, 3), 12, marks=pytest.mark.slow)])
def test_the_bound_is_reached(budgets, depth):
    """A window with exactly b(K1) switches exists: the bound cannot be lowered."""
    r = bound_is_reached(FrontEnd(_config(budgets=budgets)), depth + 2)
    assert r.status.value == "FAIL" and r.trace.states[-1]["mon.sw"] == budgets[0]


@pytest.mark.parametrize("make", [lambda c: FrontEnd(c.with_(issue_policy="gtlo")), _k1_budget_ignored],
                         ids=["gto", "qaws-k1-budget-ignored"])
def test_a_policy_that_ignores_the_budget_fails_with_a_replayed_run(make):
    r = prove_switch_bound(make(_config(budgets=(1, 2))), max_k=1, timeout=HANG_GUARD)
    assert r.status.value == "FAIL" and r.trace.states[-1]["mon.sw"] == 2  # replayed inside prove_switch_bound


def test_cli_switches_pass_fail_and_bad_input(capsys):
    assert main(["qaws", "switches", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "PASS" and not out["bounded"] and out["policy"] == "qaws"
    assert main(["qaws", "switches", "--policy", "gto", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["schedule"]
    assert main(["qaws", "switches", "--budget", "K1=4", "--budget", "K2=2"]) == 2
    assert "--budget K1=4 K2=2: K2's budget (2) is not larger than K1's (4)" in capsys.readouterr().err
