"""What a user meets first: the verb list, exit codes in every --help, one name per policy, witness
names that tell runs apart, one default per option shared by two verbs, bounds kept on a timeout."""
from __future__ import annotations

import argparse
import json

import pytest

from warpcheck.cli.main import build_parser, main


def _parsers(parser: argparse.ArgumentParser, path: str = "warpcheck"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, f"{path} {name}")


def test_bare_warpcheck_lists_every_verb(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    verbs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert all(f"    {v}" in err for v in verbs) and "exit codes" in err


def test_every_help_down_to_the_subverbs_states_its_exit_codes():
    helps = dict(_parsers(build_parser()))
    assert {"warpcheck reorder prove", "warpcheck qaws wcrt", "warpcheck demo", "warpcheck cfg"} <= set(helps)
    missing = [p for p, parser in helps.items() if "exit codes" not in parser.format_help()]
    assert not missing, missing


def test_gto_is_gtlo_in_every_verb():
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import run_name
    from warpcheck.models.frontend.config import SMConfig

    assert SMConfig(issue_policy="gto") == SMConfig(issue_policy="gtlo")
    assert run_name(ProveOptions(policy="gto")) == "swas-gtlo-W4-exact"
    args = build_parser().parse_args(["qaws", "switches", "--policy", "gtlo"])
    assert args.policy == "gtlo"


def test_simulate_takes_gto_and_names_it_gtlo(capsys):
    assert main(["simulate", "examples/workloads/saxpy.toml", "--design", "swas", "--policy", "gto", "--json"]) == 0
    assert "gtlo" in capsys.readouterr().out


def test_an_unknown_policy_is_one_line_naming_the_known_ones(capsys):
    assert main(["prove", "--policy", "gtx"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--policy gtx: not a known policy" in err[0] and "gtlo" in err[0]


@pytest.mark.parametrize("options, suffix", [
    ({"prologue": 12}, "-prologue12-oracle"),
    ({"config": {"ibuffer": 5, "t_fetch": 2}}, "-tf2-ib5-oracle"),
    ({"config": {"miss_latency": 20}}, "-miss20-oracle"),
    ({}, "-W4-oracle"),
    ({"config": {"kernel_of_warp": (0, 0, 1, 1), "budgets": (1, 4), "launches": (0, 2)}},
     "-k0011-b1.4-launch0.2-oracle"),
])
def test_runs_that_can_end_differently_get_different_witness_names(options, suffix):
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import run_name
    from warpcheck.models.frontend.config import SMConfig

    config = SMConfig(design="baseline", **options.get("config", {}))
    assert run_name(ProveOptions(config=config, prologue=options.get("prologue", 0))).endswith(suffix)


def test_a_witness_that_replaces_another_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "gtlrr", "--warps", "2", "--quiet"]
    assert main(argv) == 1
    first = capsys.readouterr().out
    assert "violation at cycle" in first and "replaced" not in first
    assert main(argv) == 1
    assert "(replaced the file of an earlier run)" in capsys.readouterr().out


def test_the_demo_names_its_witnesses_as_prove_does():
    from warpcheck._frontend.main_job import demo_jobs
    from warpcheck._frontend.options import DemoOptions
    from warpcheck._frontend.proof import run_name

    jobs = demo_jobs(DemoOptions(warps=4, timeout=10, out="out"))
    paths = [j.witness for j, _ in jobs if j.witness]
    assert len(paths) == 9 and all(p.endswith(f"{run_name(j)}.json") for j, _ in jobs if (p := j.witness))


def test_reorder_prove_and_simulate_share_the_channel_default():
    from warpcheck import ReorderProveOptions, ReorderSimulateOptions
    from warpcheck.cli.options import record_from_args

    parser = build_parser()
    kernel = ["examples/reorder/paper_example.ptx", "--grid", "1", "--block", "32"]
    made = [record_from_args(record, parser.parse_args(["reorder", action, *kernel])).channel
            for record, action in ((ReorderProveOptions, "prove"), (ReorderSimulateOptions, "simulate"))]
    assert made == [ReorderProveOptions.channel, ReorderSimulateOptions.channel] == [2, 2]


def test_a_makespan_search_ended_by_the_alarm_keeps_proved_bounds(monkeypatch, capsys):
    """The alarm may end auto before it returns its run: a few policy runs and the closed-form bounds bracket it."""
    import warpcheck._makespan.search as search
    from warpcheck._guard import RunTimeout

    def alarm(*_a, **_k):
        raise RunTimeout

    monkeypatch.setattr(search, "auto_exact", alarm)
    assert main(["makespan", "CMLL", "--warps", "8", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "M=1",
                 "--json"]) == 4
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] is False and out["replay"]["ok"] and "--timeout ran out" in out["note"]
    # a replayed run is at least L's work (2 instructions per warp) and at most the proved bound
    assert 2 * 8 <= out["makespan"] <= out["upper"]["value"] <= out["pessimistic"]
    # on two units of sigma 1 the few runs meet the pair bound, 4 W + 1: exact even after the alarm
    assert main(["makespan", "LLCLL", "--warps", "8", "--sigma", "L=1", "--sigma", "C=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["makespan"] == 4 * 8 + 1 and "--timeout ran out" in out["note"]


def test_bmc_past_its_step_budget_names_the_depth_and_the_report_the_cycle(monkeypatch, tmp_path):
    """The engine counts steps (depth); the issue cycle the witness and the trace show is depth - 1."""
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    from warpcheck.models.frontend.config import SMConfig
    from warpcheck.verify import engines

    monkeypatch.setattr(engines, "STEP_BUDGET", -1.0)  # every depth "too slow": the one-query search runs
    monkeypatch.setattr(engines.bmc_bitwuzla, "available", lambda: False)  # Z3's BMC, whose budget that is
    config = SMConfig(warps=2, design="baseline", fetch_policy="lrr", issue_policy="gtlrr")
    out = prove_run(ProveOptions(config=config, engine="bmc", witness=str(tmp_path / "w.json")))
    assert out.result.status.value == "FAIL" and f"violation at depth {out.result.depth};" in out.result.message
    assert out.replays[0].first_violation == out.result.depth - 1
    assert f"(violation at cycle {out.result.depth - 1})" in out.report()
