"""Metrics of workload runs: SWaS never errs, the baseline does, committed work is design-independent."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.cli.main import main
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.sim.frontend.metrics import COLUMNS, compare, configurations, simulate, table
from warpcheck.sim.frontend.suite import BUILTIN, builtin
from warpcheck.sim.frontend.workloads import ICache, Workload, parse_lines

CAP = 250  # cycles: enough for loops, misses and exits to interleave


@pytest.mark.parametrize("name", list(BUILTIN))
def test_swas_has_no_scheduling_error_on_any_workload_and_policy(name):
    w = builtin(name).scaled(0.5)
    for policy in POLICIES:
        m = simulate(w, SMConfig(warps=8, design="swas", issue_policy=policy), max_cycles=20_000)
        assert m.errors == 0, f"{name} swas {policy}: {m.errors} errors"
        assert m.finished and m.warp_instructions == w.dynamic_count(8)


def test_baseline_errs_on_psort_with_lrr_fetch_and_gtlrr_issue():
    m = simulate(builtin("psort"), SMConfig(warps=8, design="baseline", fetch_policy="lrr", issue_policy="gtlrr"),
                 max_cycles=CAP)
    assert m.errors > 0 and m.discrepancies >= m.errors and m.nops == 0


@pytest.mark.parametrize("name", ["psort", "blackscholes", "kmeans"])
def test_committed_is_the_dynamic_instruction_count_on_both_designs(name):
    w = builtin(name).scaled(0.25)
    base = SMConfig(warps=4)
    rows = compare(w, configurations(base, ["lrr"], ["gtlrr"], ["gtlrr", "lrr"]))
    dynamic = w.dynamic_count(4)
    for m in rows:
        assert m.finished
        assert m.warp_instructions == m.dynamic_instructions == dynamic
        assert m.committed == dynamic * base.threads_per_warp
        assert 0 < m.ipc <= base.threads_per_warp
        assert m.ipc == pytest.approx(m.committed / m.cycles)
        assert m.error_rate == pytest.approx(m.errors / m.cycles)
    assert rows[0].nops == 0  # the baseline drops wrong-path instructions


def _kernel(classes: list[str], trips: int) -> Workload:
    ops = {"int": "add", "fadd": "fadd", "fmul": "fmul", "fdiv": "fdiv", "mem": "ld", "fsqrt": "fsqrt"}
    lines = ["L:"] + [f"{ops[c]} r{j % 3} r{(j + 1) % 3}" for j, c in enumerate(classes)] + ["@p0 bra L", "exit"]
    return Workload("random", parse_lines("random", lines), {"L": trips})


@settings(max_examples=8, deadline=None)
@given(st.lists(st.sampled_from(["int", "fadd", "fmul", "fdiv", "mem", "fsqrt"]), min_size=1, max_size=6),
       st.integers(1, 4), st.sampled_from(list(POLICIES)), st.sampled_from([(2, 2), (16, 4)]))
def test_random_loops_commit_everything_and_swas_never_errs(classes, trips, policy, shape):
    w = _kernel(classes, trips)
    for design in ("baseline", "swas"):
        m = simulate(w, SMConfig(warps=3, design=design, fetch_policy="lrr", issue_policy=policy),
                     max_cycles=5000, icache=ICache(*shape))
        assert m.finished and m.warp_instructions == w.dynamic_count(3)
        if design == "swas":
            assert m.errors == 0


def test_table_lists_every_run_with_relative_ipc():
    w = builtin("sgemm").scaled(0.1)
    rows = compare(w, configurations(SMConfig(warps=2), ["lrr"], ["gtlrr"], ["gtlrr"]))
    text = table(rows)
    assert all(c in text for c in COLUMNS) and "ipc/base" in text
    assert text.count("sgemm") == 2


def test_cli_json_has_one_run_per_configuration(capsys):
    code = main(["simulate", "psort", "--scale", "0.1", "-W", "2", "--fetch", "lrr,gtlo", "--issue", "gtlrr",
                 "--policy", "gtlrr,lrr", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(out) == {"config", "icache", "max_cycles", "runs"}
    assert [(r["design"], r["policies"]) for r in out["runs"]] == [
        ("baseline", "lrr-gtlrr"), ("baseline", "gtlo-gtlrr"), ("swas", "gtlrr"), ("swas", "lrr")]
    assert set(out["runs"][0]) >= {"cycles", "committed", "ipc", "discrepancies", "errors", "error_rate", "nops"}


def test_cli_reports_an_unfinished_run_with_exit_code_1(capsys):
    assert main(["simulate", "psort", "--design", "swas", "--max-cycles", "20", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["runs"][0]["finished"] is False


def test_cli_list(capsys):
    assert main(["simulate", "--list", "--json"]) == 0
    names = [w["name"] for w in json.loads(capsys.readouterr().out)["workloads"]]
    assert names == list(BUILTIN)


@pytest.mark.parametrize("argv", [
    ["simulate", "nosuch"],
    ["simulate", "psort", "--issue", "fastest"],
    ["simulate", "psort", "--policy", ","],
    ["simulate", "psort", "-W", "0"],
    ["simulate", "psort", "--icache", "16"],
    ["simulate", "psort", "--max-cycles", "0"],
    ["simulate"],
])
def test_cli_bad_input_is_one_line_and_exit_code_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("warpcheck simulate: error:")


def test_cli_malformed_workload_and_config_files(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("instructions = [")
    assert main(["simulate", str(bad)]) == 2
    assert main(["simulate", "psort", "--config", str(bad)]) == 2
    assert "malformed TOML" in capsys.readouterr().err


@pytest.mark.parametrize("design, fetch, issue", [("baseline", "lrr", "gtlrr"), ("baseline", "gtlo", "icount"),
                                                  ("swas", "lrr", "lo"), ("swas", "lrr", "srr")])
def test_compiled_engine_gives_the_reference_figures(design, fetch, issue):
    config = SMConfig(warps=4, design=design, fetch_policy=fetch, issue_policy=issue)
    for name in ("kmeans", "blackscholes"):
        w = builtin(name).scaled(0.2)
        ref = simulate(w, config, 600, ICache(4, 4), engine="reference")
        assert simulate(w, config, 600, ICache(4, 4), engine="compiled") == ref
