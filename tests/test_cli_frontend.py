"""The command line of the front end: JSON outputs, exit codes, one-line errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from warpcheck.cli.main import main


def cli(*args: str) -> subprocess.CompletedProcess:
    """The verb run in this process (a second interpreter costs a second; tests/test_contract_fuzz.py runs
    the command line as a process), with what it wrote to stdout and stderr."""
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["warpcheck", *args], code, out.getvalue(), err.getvalue())


def test_prove_swas_prints_pass_unbounded_json(capsys):
    code = main(["prove", "--design", "swas", "--policy", "gtlrr", "--warps", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "PASS" and out["bounded"] is False
    assert {"status", "engine", "depth", "bounded", "seconds", "witness"} <= out.keys()


def test_prove_baseline_fails_writes_a_witness_that_replay_reproduces(tmp_path, capsys):
    wpath = tmp_path / "w.json"
    code = main(["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "gtlrr", "--warps", "4",
                 "--witness", str(wpath), "--vcd", str(tmp_path / "w.vcd"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["status"] == "FAIL" and out["witness"] == str(wpath)
    assert (tmp_path / "w.vcd").read_text().startswith("$date")
    code = main(["replay", str(wpath), "--design", "both", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert code == 0 and rep["reproduced"] and rep["cycle"] == out["cycle"] == out["depth"] - 1
    assert rep["designs"]["swas"]["first_violation"] is None


def test_replay_text_shows_both_designs_side_by_side(tmp_path, capsys):
    wpath = tmp_path / "w.json"
    main(["prove", "--design", "baseline", "--fetch", "gtlo", "--issue", "gtlo", "--witness", str(wpath), "--quiet"])
    capsys.readouterr()
    main(["replay", str(wpath)])
    text = capsys.readouterr().out
    assert "baseline: leaves the policy at cycle" in text and "swas: stays on the policy" in text
    assert "<-- reference: w" in text


@pytest.mark.parametrize("args,message", [
    (["prove", "--design", "swas", "--policy", "fifo"], "--policy fifo: not a known policy; choose one of: srr"),
    (["prove", "--warps", "0"], "--warps 0: not allowed; it must be >= 1"),
    (["prove", "--design", "swas", "--ibuffer", "2"], "ibuffer = 2 is too short for design 'swas'"),
    (["prove", "--t-fetch", "0"], "--t-fetch 0: not allowed; it must be >= 1"),
    (["replay", "no-such-file.json"], "cannot read witness 'no-such-file.json'"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = cli(*args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_witness_of_another_version_is_refused(tmp_path):
    (tmp_path / "w.json").write_text(json.dumps({"format": "warpcheck-witness", "version": 99}))
    r = cli("replay", str(tmp_path / "w.json"))
    assert r.returncode == 2 and "witness version 99 is not supported" in r.stderr


def test_witness_for_another_configuration_is_refused(tmp_path, capsys):
    wpath = tmp_path / "w.json"
    main(["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "lrr", "--witness", str(wpath), "--quiet"])
    data = json.loads(wpath.read_text())
    data["config"]["warps"] = 5
    wpath.write_text(json.dumps(data))
    r = cli("replay", str(wpath))
    assert r.returncode == 2 and "the witness is for 5 warps but lists 4 ibuffers" in r.stderr


def test_job_file_runs_and_exits_0_when_every_task_is_as_expected(tmp_path, capsys):
    job = tmp_path / "job.toml"
    job.write_text('[[task]]\nname = "s"\ndesign = "swas"\npolicy = "lrr"\nwarps = 2\nexpect = "pass"\n'
                   '[[task]]\nname = "b"\ndesign = "baseline"\nfetch = "lrr"\nissue = "gtlrr"\nexpect = "pass"\n')
    code = main(["run", str(job), "--out", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and not out["as_expected"]
    assert [t["status"] for t in out["tasks"]] == ["PASS", "FAIL"]


@pytest.mark.parametrize("text,message", [
    ("[[task]\nname=1", "malformed TOML"),
    ('[[task]]\nname = "x"\nexpect = "maybe"\n', "expect = 'maybe'; allowed: \"pass\" or \"fail\""),
    ('[[task]]\nname = "x"\nexpect = "pass"\nwarpz = 3\n', "unknown key 'warpz'"),
])
def test_malformed_job_file_is_refused_before_anything_runs(tmp_path, text, message):
    job = tmp_path / "job.toml"
    job.write_text(text)
    r = cli("run", str(job), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and message in r.stderr
    assert not (tmp_path / "out").exists()


def test_every_verb_has_help():
    for verb in ["prove", "replay", "demo", "run"]:
        r = cli(verb, "--help")
        assert r.returncode == 0 and "--json" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["prove", "--depth", "0"], "--depth 0: not allowed; it must be >= 1"),
    (["prove", "--timeout", "0"], "argument --timeout: 0 is not allowed; a timeout must be > 0 seconds"),
    (["demo", "--warps", "0"], "--warps 0: not allowed; it must be >= 1"),
])
def test_bad_numeric_options_are_one_line_and_exit_2(args, message):
    r = cli(*args)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1
