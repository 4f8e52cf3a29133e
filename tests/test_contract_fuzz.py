"""The command line's contract, fuzzed: whatever the argv or the input file, the run ends by the rules.

The oracle is the contract, not an expected answer: an exit code of the documented set (never 5, a
crash, for input we generate), no traceback, at most three lines on stderr besides progress lines,
and nothing written when the input is refused (exit 2).  Runs are in-process (``main(argv)``).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from warpcheck.cli.main import main

EXIT_CODES = {0, 1, 2, 3, 4, 130}  # 5 is the kit's own bug: fuzzing must not find one
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

VALUES = ["0", "-1", "1", "2", "3", "4", "99999999999999999999", "nan", "inf", "-inf", "1e12", "0.5", "", "abc",
          "x=1", "L=1", "L=1/0", "0,0,1,1", "1,4", "gtlrr", "lrr", "swas", "baseline", "oracle", "exact", "bmc",
          "héllo", "a\x00b", "/", "/nonexistent/dir/f.json", "afile/sub.json", "out/new.json"]

OPTIONS = {
    "prove": ["--warps", "--t-fetch", "--ibuffer", "--miss-latency", "--depth", "--design", "--policy", "--fetch",
              "--issue", "--property", "--engine", "--prologue", "--config", "--witness", "--vcd",
              "--kernel-of-warp", "--budgets", "--timeout"],
    "replay": ["--cycles", "--design", "--vcd"],
    "makespan": ["--warps", "--sigma", "--method", "--x", "--timeout"],
    "simulate": ["--warps", "--scale", "--design", "--icache", "--fetch", "--issue", "--config", "--max-cycles"],
    "cfg": ["--entry", "--threads", "--dot", "--max-states", "--latency"],
    "wcet": ["--entry", "--loop-bound", "--max-loop-bound", "--bounds", "--mem-latency"],
    "simt": ["--threads", "--warp", "--inputs", "--max-steps", "--timeout", "--entry", "--mem-latency"],
    "demo": ["--warps", "--timeout", "--out"],
}
# What keeps a generated run short when its input happens to be valid.
BOUNDS = {"prove": ["--timeout", "2", "--quiet"], "makespan": ["--timeout", "2"],
          "simulate": ["--max-cycles", "300", "--warps", "2"], "simt": ["--max-steps", "2000"],
          "cfg": ["--max-states", "500"], "wcet": ["--max-loop-bound", "3"], "demo": ["--warps", "0"]}
POSITIONAL = {"makespan": ["LLCLL", "LC", "", "Z", "L" * 300], "simulate": ["psort", "nope", ""],
              "cfg": [str(EXAMPLES / "sass" / "loop.sass"), "missing.sass"],
              "wcet": [str(EXAMPLES / "sass" / "slides.sass"), "missing.ptx"],
              "simt": [str(EXAMPLES / "sass" / "loop.sass"), str(EXAMPLES / "kernels" / "nw.ptx"), "missing.sass"],
              "replay": ["missing.json"], "prove": [], "demo": []}


def listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def check_contract(root: Path, argv: list[str], capsys) -> int:
    """Run argv in ``root``; assert the contract; return the exit code."""
    before = listing(root)
    code = main(argv)
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("  .. ", "note:"))]
    assert code in EXIT_CODES, f"{argv}: exit {code}\n{err}"
    assert "Traceback" not in err, f"{argv}:\n{err}"
    assert len(lines) <= 3, f"{argv}: {len(lines)} lines on stderr:\n{err}"
    if code == 2:
        assert listing(root) == before, f"{argv}: exit 2 but wrote {listing(root) - before}"
    if "--json" in argv and code == 2:
        assert json.loads(out.strip().splitlines()[-1])["status"] == "BAD_INPUT"
    return code


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("a file, not a folder\n")
    return tmp_path


@st.composite
def argv_of(draw, verb: str) -> list[str]:
    args = [verb] + ([draw(st.sampled_from(POSITIONAL[verb]))] if POSITIONAL[verb] else [])
    for opt in draw(st.lists(st.sampled_from(OPTIONS[verb]), max_size=4)):
        args += [opt, draw(st.sampled_from(VALUES))]
    return args + BOUNDS.get(verb, []) + draw(st.sampled_from([[], ["--json"]]))


@pytest.mark.parametrize("verb", sorted(OPTIONS))
def test_generated_argv_keeps_the_contract(verb, workdir, capsys):
    @SETTINGS
    @given(argv_of(verb))
    def run(argv):
        check_contract(workdir, argv, capsys)
    run()


# -- mutated input files -------------------------------------------------------------------------

def mutations(text: str) -> st.SearchStrategy[bytes]:
    """The text truncated, re-encoded, or with one value replaced by something of the wrong kind."""
    raw = text.encode()
    wrong = ["\"yes\"", "-3", "1e400", "99999999999999999999", "[]", "{}", "null", "NaN", "\"\"", "true", "0.5"]
    return st.one_of(
        st.integers(0, len(raw)).map(lambda n: raw[:n]),
        st.just(text.replace("a", "\u00e4").encode("latin-1", "replace")),
        st.just(b"\xff\xfe" + raw),
        st.tuples(st.integers(0, max(0, text.count(":") - 1)), st.sampled_from(wrong)).map(
            lambda kv: _replace_value(text, ":", kv[0], kv[1]).encode()),
    )


def _replace_value(text: str, sep: str, k: int, value: str) -> str:
    """Replace the k-th value after ``sep`` (up to the end of its token) with ``value``."""
    parts = text.split(sep)
    if k + 1 >= len(parts):
        return text
    head, _, rest = parts[k + 1].lstrip().partition(",") if sep == ":" else (parts[k + 1], "", "")
    tail = ("," + rest) if rest else ("\n" if sep == "=" else "")
    if sep == ":" and not rest:
        tail = "" if head.strip().startswith(("[", "{")) else "}" * head.count("}")
    parts[k + 1] = f" {value}{tail}"
    return sep.join(parts)


@pytest.fixture(scope="module")
def witness_text(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("w") / "w.json"
    assert main(["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "gtlrr", "--warps", "2",
                 "--quiet", "--witness", str(path)]) == 1
    return json.dumps(json.loads(path.read_text()))


def test_mutated_witness_keeps_the_contract(witness_text, workdir, capsys):
    @SETTINGS
    @given(mutations(witness_text), st.sampled_from([[], ["--json"], ["--design", "swas"]]))
    def run(data, extra):
        (workdir / "w.json").write_bytes(data)
        check_contract(workdir, ["replay", "w.json", *extra], capsys)
    run()


JOB = """[defaults]
warps = 2
timeout = 1

[[task]]
name = "b"
design = "baseline"
fetch = "lrr"
issue = "gtlrr"
expect = "fail"
"""


def toml_mutations(text: str) -> st.SearchStrategy[bytes]:
    wrong = ["\"yes\"", "-1", "0", "nan", "inf", "99999999999999999999", "[]", "\"../ESCAPED\"", "\"\"", "true"]
    return st.one_of(
        st.integers(0, len(text)).map(lambda n: text.encode()[:n]),
        st.just(b"\xff" + text.encode()),
        st.tuples(st.integers(0, text.count("=") - 1), st.sampled_from(wrong)).map(
            lambda kv: _replace_value(text, "=", kv[0], kv[1]).encode()),
        st.sampled_from(["bogus = 1\n", "[[task]]\nname = \"x\"\n"]).map(lambda extra: (text + extra).encode()),
    )


def test_mutated_job_file_keeps_the_contract(workdir, capsys):
    @settings(max_examples=10, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(toml_mutations(JOB))
    def run(data):
        (workdir / "job.toml").write_bytes(data)
        code = check_contract(workdir, ["run", "job.toml", "--out", "out"], capsys)
        assert not (workdir / "ESCAPED.json").exists() and not (workdir.parent / "ESCAPED.json").exists()
        assert code != 0 or (workdir / "out" / "b.json").exists()
    run()


SM_CONFIG = '[sm]\nwarps = 2\ndesign = "baseline"\nt_fetch = 3\nibuffer = 4\nmiss_latency = 10\n'


def test_mutated_sm_config_keeps_the_contract(workdir, capsys):
    @SETTINGS
    @given(toml_mutations(SM_CONFIG), st.sampled_from(["prove", "simulate"]))
    def run(data, verb):
        (workdir / "sm.toml").write_bytes(data)
        argv = [verb, "--config", "sm.toml", *(["--engine", "bmc", "--depth", "3"] + BOUNDS["prove"]
                                                 if verb == "prove" else ["psort"] + BOUNDS["simulate"])]
        check_contract(workdir, argv, capsys)
    run()


WORKLOAD = (EXAMPLES / "workloads" / "saxpy.toml").read_text()
INPUTS = 'params = {n = 3}\nctaid = [0]\nntid = [64, 1]\nnctaid = 1\nseed = 5\nint_max = 8\n'
BOUNDS_FILE = '[loops]\nHEAD = 4\n\n[params]\n0 = [0, 32]\n'


@pytest.mark.parametrize("name, text, argv", [
    ("workload", WORKLOAD, ["simulate", "f.toml", "--max-cycles", "300", "--warps", "2"]),
    ("inputs", INPUTS, ["simt", str(EXAMPLES / "sass" / "slides.sass"), "--inputs", "f.toml", "--warp", "1"]),
    ("bounds", BOUNDS_FILE, ["wcet", str(EXAMPLES / "sass" / "loop.sass"), "--bounds", "f.toml"]),
])
def test_mutated_kernel_and_workload_files_keep_the_contract(name, text, argv, workdir, capsys):
    (workdir / "f.toml").write_text(text)
    assert main(argv) in (0, 1)  # the file as written is valid (simulate exits 1 when the baseline errs)

    @SETTINGS
    @given(toml_mutations(text), st.sampled_from([[], ["--json"]]))
    def run(data, extra):
        (workdir / "f.toml").write_bytes(data)
        code = check_contract(workdir, argv + extra, capsys)
        assert code in (0, 1, 2)  # used or refused; no run of these may time out or crash
    run()


def kernel_mutations(text: str, tokens: list[str]) -> st.SearchStrategy[str]:
    """The kernel with one instruction's token replaced, or its operands cut short or run together."""
    lines = text.splitlines()
    body = [k for k, line in enumerate(lines) if ";" in line and not line.lstrip().startswith(".")]

    def replace_token(k: int, j: int, token: str) -> str:
        parts = re.split(r"(\s+|,)", lines[k])
        parts[j % len(parts)] = token
        return _with(lines, k, "".join(parts))

    def cut(k: int, j: int, glue: str) -> str:  # keep the first j operands, or run them together
        m = re.match(r"^(\s*(?:[\w$.]+:\s*)?(?:@!?%?\w+\s+)?\S+)\s+([^;]*);", lines[k])
        if m is None:
            return text
        ops = m.group(2).split(",")
        return _with(lines, k, f"{m.group(1)} {','.join(ops[:j]) if glue == 'cut' else ' '.join(ops)};")
    return st.one_of(
        st.builds(replace_token, st.sampled_from(body), st.integers(0, 20), st.sampled_from(tokens)),
        st.builds(cut, st.sampled_from(body), st.integers(0, 3), st.sampled_from(["cut", "join"])))


def _with(lines: list[str], k: int, line: str) -> str:
    return "\n".join(lines[:k] + [line] + lines[k + 1:]) + "\n"


@pytest.mark.parametrize("kernel, tokens", [
    ("sass/nested.sass", ["", "R9", "[R1]", "P0", "@P1", "L", "99999999999999999999", "SR_TID.Y", "c[0x0][0x10]"]),
    ("kernels/reduction.ptx", ["", "%r9", "[%rd1]", "%p1", "@%p1", "$L__BB0_2", "99999999999999999999", "0f7FC00000"]),
])
def test_mutated_kernels_keep_the_contract(kernel, tokens, workdir, capsys):
    name = "k" + Path(kernel).suffix

    @settings(SETTINGS, max_examples=60)  # cheap runs; fewer missed the operand crashes these found
    @given(kernel_mutations((EXAMPLES / kernel).read_text(), tokens))
    def run(text):
        (workdir / name).write_text(text)
        for argv in (["simt", name, "--max-steps", "2000"], ["wcet", name, "--max-loop-bound", "3"]):
            assert check_contract(workdir, argv, capsys) in (0, 2)
    run()


@pytest.mark.parametrize("argv, text, message", [
    (["simulate", "f.toml"], 'instructions = ["exit"]\nloop = 1\n',
     "f.toml: unknown key 'loop'; known keys: name, description, instructions, loops, branches, seed, opcodes"),
    (["simt", str(EXAMPLES / "sass" / "slides.sass"), "--inputs", "f.toml"], 'ntid = [32, "a"]\n',
     "f.toml: ntid[1] = 'a' is not allowed; it must be an integer"),
    (["simt", str(EXAMPLES / "sass" / "slides.sass"), "--inputs", "f.toml"], 'ntid = 2048\n',
     "f.toml: ntid[0] = 2048 is not allowed; the ceiling is 1024"),
    (["simt", str(EXAMPLES / "sass" / "slides.sass"), "--inputs", "f.toml"], 'params = {n = true}\n',
     "f.toml: params.n = True is not allowed; it must be an integer or a number"),
    (["wcet", str(EXAMPLES / "sass" / "loop.sass"), "--bounds", "f.toml"], '[loop]\nHEAD = 3\n',
     "f.toml: unknown key 'loop'; known keys: loops, params, inputs"),
    (["wcet", str(EXAMPLES / "sass" / "loop.sass"), "--bounds", "f.toml"], '[loops]\nHEAD = 2.5\n',
     "f.toml: loops.HEAD = 2.5 is not allowed; it must be an integer"),
])
def test_file_schemas_name_the_key_and_what_is_allowed(argv, text, message, workdir, capsys):
    (workdir / "f.toml").write_text(text)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


# -- the cases of issue 8, pinned ------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["prove", "--timeout", "nan"], "--timeout nan is not allowed"),
    (["prove", "--timeout", "inf"], "--timeout inf is not allowed"),
    (["simulate", "psort", "--scale", "nan"], "--scale nan is not allowed"),
    (["prove", "--vcd", "afile/x.vcd"], "'afile' is a file, not a folder"),
    (["demo", "--out", "afile"], "is a file; give a folder"),
    (["replay", "w.json", "--cycles", "100000000"], "ceiling of 10000"),
    (["simulate", "psort", "--warps", "100000"], "ceiling of 64"),
    (["prove", "--design", "baseline", "--issue", ""], "--issue : not a known policy; choose one of"),
    (["makespan", "LLCLL", "-W", "2", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "L=2"], "given twice"),
    (["makespan", "LLCLL", "-W", "2", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "X=1"], "not in the kernel"),
    (["wcet", str(EXAMPLES / "sass" / "slides.sass"), "--max-loop-bound", "1000000000000"], "ceiling of 1000000"),
    (["wcet", str(EXAMPLES / "sass" / "loop.sass"), "--loop-bound", "NOPE=3"], "loop names: HEAD"),
    (["simt", str(EXAMPLES / "kernels" / "nw.ptx"), "--warp", "1000000"], "ntid.x = 32 holds warps 0 to 0"),
    (["simt", str(EXAMPLES / "sass" / "loop.sass"), "--max-steps", "2000000"], "--max-steps 2000000: above the ceiling"),
    (["simt", str(EXAMPLES / "sass" / "loop.sass"), "--timeout", "0"], "a timeout must be > 0"),
])
def test_refused_up_front_in_one_line(argv, message, workdir, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert listing(workdir) == {"afile"}


def test_simt_on_an_endless_loop_ends_at_its_timeout(workdir, capsys):
    # the overrun allowed, max(2 s, 10 %), is a wall-clock goal: benchmarks/contract_timing.py measures it
    (workdir / "endless.sass").write_text(".kernel endless\nL:  IADD R0, R0, 1 ;\n    BRA L ;\n    EXIT ;\n")
    assert main(["simt", "endless.sass", "--timeout", "1", "--json"]) == 4
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "TIMEOUT" and len(err.strip().splitlines()) == 1


def test_a_timeout_too_long_for_the_alarm_is_no_crash(capsys):
    assert main(["simt", str(EXAMPLES / "sass" / "slides.sass"), "--timeout", "1e12"]) == 0  # setitimer overflowed


def test_job_task_names_cannot_leave_out(workdir, capsys):
    (workdir / "job.toml").write_text(JOB.replace('name = "b"', 'name = "../ESCAPED"'))
    assert main(["run", "job.toml", "--out", "out"]) == 2
    assert "task name '../ESCAPED' is not allowed" in capsys.readouterr().err


@pytest.mark.parametrize("key, value", [("depth", "-1"), ("timeout", "0"), ("timeout", "nan"), ("engine", '"x"')])
def test_job_values_are_checked_before_anything_runs(key, value, workdir, capsys):
    (workdir / "job.toml").write_text(JOB.replace("timeout = 1", f"{key} = {value}"))
    assert main(["run", "job.toml", "--out", "out"]) == 2
    assert key in capsys.readouterr().err or "engine" in key
    assert not (workdir / "out").exists()


def test_non_utf8_file_is_one_line(workdir, capsys):
    (workdir / "sm.toml").write_bytes(b"\xff\xfe[sm]\n")
    assert main(["prove", "--config", "sm.toml"]) == 2
    assert "is not UTF-8 text" in capsys.readouterr().err


def test_a_crash_is_exit_5_with_a_crash_report(workdir, capsys, monkeypatch):
    import warpcheck._frontend.proof as proof  # prove's verb runs the library's prove_options, which runs prove_run
    monkeypatch.setattr(proof, "prove_run", lambda *a, **k: 1 / 0)
    assert main(["prove", "--warps", "2", "--json"]) == 5
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "ERROR" and len(err.strip().splitlines()) == 1
    report = err.strip().rsplit(" ", 1)[-1]
    assert "ZeroDivisionError" in Path(report).read_text()
    os.unlink(report)


def test_timeout_bounds_model_construction(workdir, capsys):
    # no machine builds 400 warps' model in 1 s; how far past it the run ends: benchmarks/contract_timing.py
    assert main(["prove", "--warps", "400", "--timeout", "1", "--quiet"]) == 4
    out, err = capsys.readouterr()  # the engine's own TIMEOUT report (what it established), or the guard's line
    assert "TIMEOUT" in out + err


def test_baseline_witness_is_written_when_swas_refuses_its_configuration(workdir, capsys):
    code = main(["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "gtlrr", "--warps", "2",
                 "--ibuffer", "3", "--quiet", "--witness", "w.json", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and (workdir / "w.json").exists()
    assert "ibuffer = 3 is too short" in out["not_replayed"]["swas"]
    assert main(["replay", "w.json"]) == 0
    assert "swas: not replayed" in capsys.readouterr().out


def test_sass_label_defined_twice_is_bad_input(workdir, capsys):
    (workdir / "dup.sass").write_text(".kernel k\nA: EXIT ;\nA: EXIT ;\n")
    assert main(["cfg", "dup.sass"]) == 2
    assert "label 'A' is defined twice" in capsys.readouterr().err


@pytest.mark.parametrize("body, line", [
    ("  IADD R0, R0, 1 ;\n  SYNC ;\n", 3),                                    # no SSY at all
    ("  ISETP.LT P0, R0, 4 ;\n  @P0 BRA A ;\n  SSY B ;\nA: @P0 SYNC ;\nB: EXIT ;\n", 5),  # a path skips the SSY
])
def test_sass_sync_without_ssy_is_bad_input(body, line, workdir, capsys):
    (workdir / "k.sass").write_text(".kernel k\n" + body)
    assert main(["simt", "k.sass"]) == 2
    err = capsys.readouterr().err
    assert f"k.sass:{line}:" in err and "SYNC without a matching SSY" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("line, message", [
    ("STG ;", "STG needs an [address] and a value; it has 0 operand(s)"),  # was a crash in simt
    ("BRA ;", "BRA needs a target label"),                                 # was a crash in every verb
    ("LDG R1 ;", "LDG needs a destination and an [address]; it has 1 operand(s)"),
])
@pytest.mark.parametrize("verb", ["cfg", "simt"])
def test_sass_missing_operands_are_bad_input(line, message, verb, workdir, capsys):
    (workdir / "k.sass").write_text(f".kernel k\n  {line}\n  EXIT ;\n")
    assert main([verb, "k.sass"]) == 2
    err = capsys.readouterr().err
    assert f"k.sass:2:3: {message}" in err and len(err.splitlines()) == 1


PTX_HEAD = ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n"


@pytest.mark.parametrize("line, message", [
    ("ld.shared.u32 %r4 [%r1];", "'ld.shared.u32': it needs a destination and an [address]"),  # no comma: crashed
    ("bra ;", "'bra': it needs a target label"),
])
def test_ptx_missing_operands_are_bad_input(line, message, workdir, capsys):
    (workdir / "k.ptx").write_text(PTX_HEAD + f".reg .b32 %r<5>;\n{line}\nret;\n}}\n")
    assert main(["simt", "k.ptx"]) == 2
    err = capsys.readouterr().err
    assert f"k.ptx:7:1: cannot parse {message}" in err and len(err.splitlines()) == 1


def test_json_is_one_object_even_when_highs_runs(workdir, capfd):
    assert main(["wcet", str(EXAMPLES / "sass" / "slides.sass"), "--json"]) == 0
    assert json.loads(capfd.readouterr().out)["wcet"] > 0  # fd 1: no solver banner before the object


def test_the_sm_schema_knows_every_configuration_field():
    """A field added to SMConfig must be added to its file schema, or every witness using it is refused."""
    from dataclasses import fields as dc_fields

    from warpcheck.models.frontend.config import SMConfig
    from warpcheck.models.file_schemas import SMConfigFile
    assert set(SMConfigFile.model_fields) == {f.name for f in dc_fields(SMConfig)}


def test_an_atomically_written_file_gets_the_usual_mode_not_the_temporary_files(tmp_path):
    import os
    import stat

    from warpcheck.models.files import atomic_write_text
    mask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "w.json", "{}")
        assert stat.S_IMODE((tmp_path / "w.json").stat().st_mode) == 0o644
        assert [p.name for p in tmp_path.iterdir()] == ["w.json"]  # no temporary file left behind
    finally:
        os.umask(mask)


# --- issue 20: no exit 0 without a check, no user file overwritten -------------------------------------------

def _cli(args, cwd):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "warpcheck.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("args", [
    ["replay", "w.json", "--vcd", "w.json"],
    ["prove", "--witness", "same.json", "--vcd", "same.json"],
    ["cfg", "k.ptx", "--dot", "k.ptx"],
    ["prove", "--witness", ""],
    ["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "gtlrr", "--warps", "2", "--prologue", "30",
     "--depth", "20", "--engine", "bmc"],
])
def test_an_output_on_an_input_or_a_check_of_nothing_is_bad_input(args, tmp_path):
    (tmp_path / "w.json").write_text("{}")
    (tmp_path / "k.ptx").write_text(".version 7.0\n")
    before = {f.name: f.read_bytes() for f in tmp_path.iterdir()}
    r = _cli(args, tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr)
    assert {f.name: f.read_bytes() for f in tmp_path.iterdir()} == before  # nothing written, nothing replaced


def test_a_fail_piped_into_a_reader_that_stops_is_never_exit_0(tmp_path):
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "warpcheck.cli", "prove", "--design", "baseline", "--fetch", "lrr", "--issue",
           "gtlrr", "--warps", "2", "--quiet"]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout is not None
    p.stdout.close()  # the reader is gone before the verdict is written
    p.wait(timeout=300)
    assert p.returncode in (1, 141), p.returncode


NESTED_JSON = "[" * 200_000 + "]" * 200_000
NESTED_TOML = "a = " + "[" * 5_000 + "]" * 5_000 + "\n"
TASK = '[[task]]\nname = {name}\ndesign = "swas"\npolicy = "gtlrr"\nexpect = "pass"\ntimeout = {timeout}\n'


@pytest.mark.parametrize("files,args,says", [
    ({"c.json": NESTED_JSON}, ["makespan", "--check", "c.json"], "nested too deeply"),
    ({"j.toml": NESTED_TOML}, ["run", "j.toml"], "nested too deeply"),
    ({"b.toml": NESTED_TOML}, ["wcet", "k.sass", "--bounds", "b.toml"], "nested too deeply"),
    ({"s.toml": "[[sm]]\nwarps = 2\n"}, ["prove", "--config", "s.toml"], "must be one table"),
    ({"j.toml": TASK.format(name='"a\\u0000b"', timeout=1)}, ["run", "j.toml"], "is not allowed"),
    ({"j.toml": TASK.format(name='"' + "n" * 300 + '"', timeout=1)}, ["run", "j.toml"], "is not allowed"),
    ({"j.toml": TASK.format(name='"a"', timeout="1e300")}, ["run", "j.toml"], "ceiling"),
    ({"w.json": '{"format": "warpcheck-witness", "version": 2, "config": {}, "cycle": 1000000000000, '
                '"initial_ibuffer": [], "streams": []}'}, ["replay", "w.json"], "ceiling"),
])
def test_values_read_from_files_have_the_ceilings_of_options(files, args, says, tmp_path):
    (tmp_path / "k.sass").write_text((EXAMPLES / "sass" / "loop.sass").read_text())
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = _cli(args, tmp_path)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, (r.returncode, r.stderr[-500:])


def test_every_verb_has_a_timeout_with_a_default():
    import argparse

    from warpcheck.cli.main import build_parser

    def leaves(p, name):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield name, p
        for a in subs:
            for n, q in a.choices.items():
                yield from leaves(q, f"{name} {n}".strip())

    missing = [n for n, p in leaves(build_parser(), "")
               if not any("--timeout" in a.option_strings and (a.default or p.get_default("budget_of"))
                          for a in p._actions)]
    assert not missing, f"verbs without a default --timeout: {missing}"
    no_memory = [n for n, p in leaves(build_parser(), "")
                 if not any("--memory" in a.option_strings and a.default for a in p._actions)]
    assert not no_memory, f"verbs without a default --memory: {no_memory}"


def test_a_run_past_its_memory_budget_stops_with_exit_4_and_says_why(tmp_path):
    r = _cli(["simulate", "psort", "--memory", "0.01", "--json"], tmp_path)  # the interpreter alone holds more
    assert r.returncode == 4, (r.returncode, r.stderr[-300:])
    assert json.loads(r.stdout)["status"] == "OUT_OF_MEMORY"
    assert len(r.stderr.strip().splitlines()) == 1 and "--memory 0.01 GiB" in r.stderr, r.stderr


def test_the_memory_budget_counts_the_workers_too():
    import subprocess
    import sys

    from warpcheck._guard import tree_rss
    alone = tree_rss()
    child = subprocess.Popen([sys.executable, "-c", "import sys; b = bytearray(300 << 20); sys.stdin.read()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        child.stdin.write(b"")  # the child holds its 300 MiB until its stdin closes
        child.stdin.flush()
        import time
        for _ in range(600):  # until the child has touched its pages (bounded by tries, not by a clock)
            if tree_rss() - alone > 250 << 20:
                break
            time.sleep(0.05)
        assert tree_rss() - alone > 250 << 20
    finally:
        child.stdin.close()
        child.wait(timeout=60)


def test_analyze_of_a_huge_grid_ends_at_its_timeout(tmp_path):
    r = _cli(["analyze", str(EXAMPLES / "reorder" / "paper_example.ptx"), "--grid", "4096", "--block", "1024",
              "--param", "in=0", "--timeout", "1"], tmp_path)
    assert r.returncode == 4 and "TIMEOUT" in r.stderr, (r.returncode, r.stderr[-300:])


@pytest.mark.parametrize("args", [
    ["reorder", "prove", "--streams", "3", "--depth", "-5"],
    ["reorder", "prove", "--streams", "3", "--timeout", "0"],
    ["qaws", "inversion", "--policy", ","],
    ["qaws", "switches", "--warps", "600,600"],
    ["reorder", "simulate", "k.ptx", "--seeds", "1000000"],
    ["reorder", "simulate", "k.ptx", "--channel", "1000000000"],
])
def test_a_count_that_checks_nothing_or_has_no_bound_is_bad_input(args, tmp_path):
    (tmp_path / "k.ptx").write_text((EXAMPLES / "reorder" / "paper_example.ptx").read_text())
    r = _cli(args, tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr[-300:])


@pytest.fixture(scope="module")
def reorder_witnesses(tmp_path_factory):
    """A per-kernel witness and a stream witness, each written once by ``reorder prove`` (both FAIL)."""
    from warpcheck.cli.main import main
    where = tmp_path_factory.mktemp("reorder-witnesses")
    kernel = EXAMPLES / "reorder" / "paper_example.ptx"
    assert main(["reorder", "prove", str(kernel), "--grid", "1,2,1", "--block", "16,4,1", "--param", "in=0",
                 "--no-unit", "--witness", str(where / "kernel.json")]) == 1
    assert main(["reorder", "prove", "--streams", "2", "--mutant", "ties-to-higher-warp",
                 "--witness", str(where / "stream.json")]) == 1
    return {kind: json.loads((where / f"{kind}.json").read_text()) for kind in ("kernel", "stream")}


@pytest.mark.parametrize("kind,field,value", [
    ("kernel", "grid", 5), ("kernel", "cache", 7), ("kernel", "kernel", 3), ("kernel", "line_bytes", "x"),
    ("kernel", "channel", "2"), ("kernel", "check", "bogus"), ("kernel", "schedules", [[1e9]]),
    ("kernel", "schedules", [[[10**9, 0]]]), ("kernel", "schedules", [[[-7, 0]]]),
    ("kernel", "schedules", [[[0.5, 0]]]), ("kernel", "schedules", "x"), ("kernel", "unit", "yes"),
    ("stream", "streams", 5), ("stream", "streams", {"blocks": "x", "length": 2, "lines": 6, "line_bytes": 128}),
    ("stream", "streams", {"blocks": [0, 0], "length": 64, "lines": 6, "line_bytes": 128}),
    ("stream", "stream", [1]), ("stream", "stream", {"len.0": "2"}), ("stream", "stream", {}),
    ("stream", "channel", "2"), ("stream", "channel", 1e9), ("stream", "order", 3), ("stream", "cache", 7),
    ("stream", "mutant", 5), ("stream", "mutant", "nope"), ("stream", "check", "bogus"),
    ("stream", "schedule", [[1e9, 0]]), ("stream", "schedule", [[10**9, 0]]), ("stream", "schedule", [[-7, 0]]),
    ("stream", "schedule", [[0, 7]]), ("stream", "schedule", "x"), ("stream", "version", "1"),
])
def test_every_field_of_a_reorder_witness_is_checked(reorder_witnesses, kind, field, value, tmp_path, capsys):
    from warpcheck.cli.main import main
    (tmp_path / "bad.json").write_text(json.dumps({**reorder_witnesses[kind], field: value}))
    capsys.readouterr()
    code = main(["reorder", "replay", str(tmp_path / "bad.json")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (code, err[-300:])


@pytest.mark.parametrize("name,text,says", [
    ("dup.ptx", ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\nL1:\n ret;\nL1:\n ret;\n}\n",
     "defined twice"),
    ("empty.sass", "", "no instruction"),
])
def test_a_kernel_the_readers_cannot_take_whole_is_refused(name, text, says, tmp_path):
    (tmp_path / name).write_text(text)
    r = _cli(["cfg", name], tmp_path)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr[-300:]
