"""K2's worst-case response time over every stall pattern: SMT bound search == exhaustive enumeration, replayed."""
from __future__ import annotations

import json

import pytest

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck.models.frontend.config import DEFAULT_LATENCY, SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.qaws.response import StallSpace
from warpcheck.sim.qaws.worst import exhaustive_worst, replay
from warpcheck.verify.qaws.wcrt import inversion, worst_response
from warpcheck.verify.result import Status

SMALL = {"t_fetch": 1, "t_decode": 1, "ibuffer": 2, "miss_latency": 2, "unpipelined": (),
         "latency": {**DEFAULT_LATENCY, "fadd": 2, "mem": 3}}


def space(policy: str, programs, kow=(0, 1, 1), budgets=(1, 2), launches=(0, 1), **kw) -> StallSpace:
    cfg = SMConfig(warps=len(kow), design="swas", issue_policy=policy, kernel_of_warp=kow, budgets=budgets,
                   launches=launches, **SMALL)
    return StallSpace(cfg, programs, **kw)


@pytest.mark.parametrize("policy", ["lrr", "gtlo", "qaws"])
def test_smt_worst_response_equals_exhaustive_enumeration(policy):
    ts = space(policy, [("mem",), ("branch", "mem")])
    r = worst_response(ts, 1)
    ex = exhaustive_worst(ts, 1)
    assert r.status is Status.PASS and r.finish == ex.finish[1]
    assert replay(ts, r.params, r.inputs).finish[1] == r.finish  # the solver's worst run, on the simulator


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["lrr", "gtlo", "qaws"])
def test_smt_equals_exhaustive_with_longer_programs(policy):
    ts = space(policy, [("int", "mem", "int"), ("mem", "int", "int")])
    assert worst_response(ts, 1).finish == exhaustive_worst(ts, 1).finish[1]


def test_stalls_lengthen_the_response_and_each_kind_counts():
    progs = [("int", "mem"), ("branch", "mem")]
    free = worst_response(space("qaws", progs), 1).finish
    none = worst_response(space("qaws", progs, misses=False, deps=False, branches=False), 1).finish
    assert none < free
    assert replay(space("qaws", progs, misses=False, deps=False, branches=False), {}, []).finish[1] == none


FAIR = ([("int", "mem", "int")] * 2, (0, 0, 1, 1), (1, 4), (0, 0))  # 2 + 2 warps, one program, launched together


def test_gto_inverts_priority_on_a_fair_pair():
    """GTO lets K1 finish first although K2 has the higher QoS: a replayed counterexample."""
    gto = space("gtlo", *FAIR)
    r = inversion(gto, 30)
    assert r.status is Status.FAIL
    run = replay(gto, r.trace.params, r.trace.inputs)
    assert run.finish[0] < run.finish[1]


@pytest.mark.slow
def test_qaws_never_inverts_priority_on_the_fair_pair():
    """No inversion up to K1's proved worst finish, hence in no run (K1 done and K2 not persists)."""
    qaws = space("qaws", *FAIR)
    k1_worst = worst_response(qaws, 0).finish  # past K1's last possible finish, no inversion can start
    q = inversion(qaws, k1_worst)
    assert q.status is Status.PASS and q.depth >= k1_worst


def test_horizon_and_timeout_are_not_proofs():
    ts = space("lrr", [("int", "mem"), ("branch", "mem")])
    assert worst_response(ts, 1, horizon=5).status is Status.UNKNOWN
    assert worst_response(ts, 1, timeout=1e-6).status is Status.TIMEOUT


def test_bad_programs_and_launches_are_one_line_errors():
    with pytest.raises(ConfigError, match="'exit' in the program of K2"):
        space("qaws", [("int",), ("exit",)])
    with pytest.raises(ConfigError, match="launches\\[1\\] = -1 is not allowed"):
        space("qaws", [("int",), ("int",)], launches=(0, -1))


def test_cli_wcrt_json_is_proved_and_replayed(capsys):
    code = main(["qaws", "wcrt", "--program", "K1=int", "--program", "K2=branch,mem", "--policy", "qaws",
                 "--exhaustive", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["policy"] for r in out["policies"]] == ["qaws"]
    for r in out["policies"]:
        assert r["status"] == "PASS" and r["exact"] and r["replayed"] and r["exhaustive"]["agrees"]
        assert r["response"] == r["finish"] - 1 and len(r["run"]["order"]) == r["finish"]


def test_cli_horizon_is_unknown_and_bad_input_is_exit_2(capsys):
    assert main(["qaws", "wcrt", "--policy", "lrr", "--horizon", "3", "--quiet"]) == 3
    assert main(["qaws", "wcrt", "--budget", "K3=2"]) == 2
    assert main(["qaws", "inversion", "--program", "K2=nop"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "unknown kernel 'K3'" in err[0] and "'nop'" in err[1]


def test_a_launch_later_than_the_scoreboard_counts_is_the_same_in_solver_and_simulator():
    """K2 launched at cycle 25 (the scoreboard counts to 19 at most): the launch counter delays it in both."""
    ts = space("qaws", [("int",), ("mem",)], launches=(0, 25))
    r = worst_response(ts, 1)
    run = replay(ts, r.params, r.inputs)
    assert r.status is Status.PASS and r.finish == exhaustive_worst(ts, 1).finish[1] == run.finish[1]
    assert all(w in (-1, 0) for w in run.order[:25]) and set(run.order[25:]) & {1, 2}


def test_simulate_kernels_launches_k2_at_cycle_60():
    from warpcheck.sim.qaws.kernels_run import Kernel, run_kernels
    from warpcheck.sim.frontend.suite import builtin
    ks = [Kernel("K1", builtin("psort").scaled(0.1), 2, 1, 0), Kernel("K2", builtin("kmeans").scaled(0.1), 2, 3, 60)]
    runs = [run_kernels(ks, SMConfig(), "qaws", engine=e) for e in ("compiled", "reference")]
    assert runs[0] == runs[1]
    first_k2 = min(t for t, w in enumerate(runs[0].order) if w in (2, 3))
    assert first_k2 >= 60 and runs[0].kernels[1].launch == 60 and runs[0].kernels[1].response is not None


LATE = SMConfig(warps=2, issue_policy="qaws", kernel_of_warp=(0, 1), budgets=(1, 2), launches=(0, 3))


@pytest.mark.parametrize("prop", ["exact", pytest.param("oracle", marks=pytest.mark.slow)])
def test_prove_covers_late_launches(prop):
    """The references keep their own launch clock: the design is proved with K2 launched at cycle 3."""
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    r = prove_run(ProveOptions(config=LATE, property=prop, timeout=HANG_GUARD)).result
    assert r.status is Status.PASS and not r.bounded, (prop, r.label, r.message)


def test_only_all_warps_refuses_late_launches_in_one_line():
    from warpcheck._frontend.options import ProveOptions
    with pytest.raises(ConfigError, match="all_warps proves SMs whose warps all start at cycle 0"):
        ProveOptions(config=LATE, property="oracle", timeout=10.0, all_warps=True)


@pytest.mark.slow
def test_on_a_fair_pair_qaws_has_the_smallest_proved_worst_case_for_k2():
    progs, kow = [("int", "mem", "int")] * 2, (0, 0, 1, 1)
    worst = {p: worst_response(space(p, progs, kow, (1, 4), (0, 0)), 1) for p in ("lrr", "gtlo", "qaws")}
    assert all(r.status is Status.PASS for r in worst.values())
    assert [worst[p].finish for p in ("lrr", "gtlo", "qaws")] == [24, 27, 14]
