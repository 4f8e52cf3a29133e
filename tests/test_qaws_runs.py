"""QAWS in proofs and in the two-kernel simulation: prove PASS, the budget matters, bad input is one line."""
from __future__ import annotations

import json

import pytest

from warpcheck.cli.main import main
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.policies import PolicyContext
from warpcheck.sim.qaws.kernels_run import Kernel, run_kernels
from warpcheck.sim.frontend.suite import builtin
from warpcheck.verify.frontend.policy_equivalence import policy_agrees

from conftest import assert_status

QAWS_SM = {"issue_policy": "qaws", "kernel_of_warp": (0, 0, 1, 1), "budgets": (1, 4)}


def test_swas_with_qaws_follows_the_oracle_unbounded():
    r = assert_status(SMConfig(warps=4, design="swas", **QAWS_SM), "oracle", "PASS")
    assert not r.bounded


@pytest.mark.slow
def test_swas_with_qaws_is_exact_against_the_analysis_machine():
    assert not assert_status(SMConfig(warps=4, design="swas", **QAWS_SM), "exact", "PASS").bounded


@pytest.mark.parametrize("kow, budgets", [((0, 0, 1, 1), (4, 1)), ((0, 1, 0, 1), (2, 2)), ((1, 0, 0), (1, 3))])
def test_qaws_equals_its_reference_for_other_groupings(kow, budgets):
    assert policy_agrees("qaws", len(kow), ctx=PolicyContext(len(kow), kow, budgets))[0].value == "PASS"


def _kernels(b2: int) -> list[Kernel]:
    return [Kernel("K1", builtin("sgemm").scaled(0.25), 4, 1, 0), Kernel("K2", builtin("hotspot").scaled(0.25), 4, b2, 1)]


def test_gto_inverts_priority_and_qaws_gives_k2_the_sm():
    gto = run_kernels(_kernels(4), SMConfig(), "gto")
    qaws = run_kernels(_kernels(4), SMConfig(), "qaws")
    assert gto.kernels[1].response > gto.kernels[0].response  # K2 finishes after K1 under GTO
    assert qaws.kernels[1].response < gto.kernels[1].response
    equal = run_kernels(_kernels(1), SMConfig(), "qaws")  # equal budgets: GTO
    assert equal.order == gto.order


def test_compiled_and_reference_engines_agree_on_two_kernels():
    ks = [Kernel("K1", builtin("psort").scaled(0.1), 2, 1, 0), Kernel("K2", builtin("kmeans").scaled(0.1), 2, 3, 2)]
    a, b = (run_kernels(ks, SMConfig(), "qaws", engine=e) for e in ("compiled", "reference"))
    assert a == b


def test_simulate_kernels_json_has_each_policy_and_kernel(capsys):
    code = main(["simulate", "--kernels", "sgemm,hotspot", "--scale", "0.25", "--budget", "K1=1", "--budget", "K2=4",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["policy"] for r in out["runs"]] == ["lrr", "gto", "qaws"]
    assert [k["launch"] for k in out["kernels"]] == [0, 1] and out["note"] is None
    assert all(r["average_execution_time"] > 0 for r in out["runs"])


def test_simulate_one_kernel_with_qaws_says_it_is_gto(capsys):
    assert main(["simulate", "--kernels", "sgemm", "--scale", "0.25", "--policy", "qaws"]) == 0
    assert "qaws with one kernel or equal budgets is GTO" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--budget", "K3=2"], "--budget K3=2: names an unknown kernel 'K3'; the kernels are K1, K2"),
    (["--budget", "K2=0"], "--budget K2=0: K2=0 is not allowed; it must be >= 1"),
    (["--launch", "K2=-1"], "--launch K2=-1: K2=-1 is not allowed; it must be >= 0"),
    (["--launch", "K2=late"], "--launch K2=late: K2='late' is not an integer"),
    (["--warps", "3"], "--warps 3: does not split evenly over 2 kernel(s)"),
    (["--policy", "icount"], "--policy icount: not one of lrr, gto, gtlo, qaws"),
])
def test_bad_multi_kernel_input_is_one_line_exit_2(args, message, capsys):
    code = main(["simulate", "--kernels", "sgemm,hotspot", *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_prove_takes_kernels_and_budgets(capsys):
    code = main(["prove", "--design", "swas", "--policy", "qaws", "--warps", "2", "--kernel-of-warp", "0,1",
                 "--budgets", "1,2", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["config"]["budgets"] == [1, 2]
    assert main(["prove", "--policy", "qaws", "--warps", "2", "--kernel-of-warp", "0,0", "--budgets", "1,2"]) == 2


def test_k2_waiting_is_not_bounded_in_cycles_by_the_budgets():
    from warpcheck.verify.qaws.wait import k2_wait_search
    cfg = SMConfig(warps=3, design="swas", issue_policy="qaws", kernel_of_warp=(0, 1, 1), budgets=(1, 2), miss_latency=3)
    r = k2_wait_search(cfg, 2, 12, 120)
    assert r.status.value == "FAIL" and r.trace is not None
    last = r.trace.states[-3:]  # K1 (warp 0) issues three cycles in a row while a K2 warp is eligible
    assert [s["o.w"] for s in last] == [0, 0, 0] and r.trace.states[-1]["mon.wait"] == 3


def test_paper_look_alikes_split_into_compute_and_memory_bound():
    """Issue-slot use of each look-alike alone (4 warps, memory 60 cycles): every CI kernel above every MI kernel."""
    from warpcheck.models.frontend.config import DEFAULT_LATENCY
    from warpcheck.sim.qaws.workloads import COMPUTE_BOUND, MEMORY_BOUND, PAPER_WORKLOADS
    sm = SMConfig(latency={**DEFAULT_LATENCY, "mem": 60})
    use = {}
    for name, w in PAPER_WORKLOADS.items():
        r = run_kernels([Kernel("K1", w, 4, 1, 0)], sm, "gto")
        use[name] = sum(1 for x in r.order if x >= 0) / r.cycles
    assert min(use[n] for n in COMPUTE_BOUND) > max(use[n] for n in MEMORY_BOUND) + 0.1
