"""One answer per question: each documented front-end example gives the same JSON through the verb and the function.

The examples are the ``prove``, ``replay``, ``simulate``, ``run`` and ``export``
commands of README.md and docs/*.md (as ``tests/test_docs_commands.py`` reads
them) and of the verbs' ``--help`` epilogs.  Each runs through
``warpcheck.cli.main.main([..., "--json"])`` and through the public function with
the parsed options as keywords (``--t-fetch 3`` is ``t_fetch=3``); the two
JSON objects must agree field by field, but for what varies run to run:
```seconds``, the witness's path (a script's goes to a temporary folder), the
folder of exported files (a script gets the texts unless it names ``out``), and
``engine`` and ``message`` (the auto engine races k-induction, BMC and random
runs in three processes: which of them answers first depends on the load).
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

import warpcheck
from warpcheck.cli.main import build_parser, main
from warpcheck.models.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
VERBS = {"prove": "prove", "replay": "replay", "simulate": "simulate", "run": "run_job", "export": "export",
         "demo": "demo"}
POSITIONAL = {"replay": "witness", "run": "job"}
NOT_OPTIONS = {"kept_on_stop", "verb", "func", "json", "quiet", "list", "kernels", "budget", "launch", "workload"}
# Examples left out, each with why: they take minutes, or are another domain's (simulate --kernels).
SKIPPED = {
    "warpcheck demo": "twelve proofs with cvc5 re-checks: minutes (the README marks it slow)",
    "warpcheck prove --design swas --policy gtlo --all-warps --timeout 600": "the parametric proof: about a minute",
    "warpcheck prove --design swas --policy gtlo --all-warps": "the parametric proof: about a minute",
    "warpcheck prove --design swas --policy gtlrr --all-warps --property exact --timeout 600":
        "the proof for every W: about 30 s (its encoding check at W = 1..6)",
    "warpcheck prove --design swas --policy gtlo --all-warps --property exact": "the proof for every W: about 30 s",
    "warpcheck simulate all --design both -W 8 --json": "six workloads on both designs: tens of seconds",
    "warpcheck simulate all --design both --fetch lrr --issue gtlrr,lrr --json": "six workloads: tens of seconds",
    "warpcheck simulate kmeans --fetch lrr,gtlo --issue all --policy gtlrr,lrr": "nine configurations: tens of seconds",
    "warpcheck simulate psort --config examples/sm/paper.toml --max-cycles 50000 --icache 8x4 --scale 0.5":
        "runs to its cycle limit: tens of seconds",
    "warpcheck simulate psort --engine native -W 8": "compiles with numba (warpcheck[fast]) for minutes",
    "warpcheck simulate --list": "lists the built-in workloads; no function (nothing is run)",
    "warpcheck prove --warps 0": "a refusal (tested below)",
    "warpcheck run examples/jobs/swas-vs-baseline.toml": "four proofs at W = 4: about 30 s a run (a smaller job below)",
    "warpcheck prove --design swas --policy gtlrr --warps 8": "about 15 s a run",
    "warpcheck prove --design swas --policy qaws --warps 4 --kernel-of-warp 0,0,1,1 --budgets 1,4 --launches 0,2":
        "about 11 s a run",
    "warpcheck prove --design swas --policy qaws --warps 4 --kernel-of-warp 0,0,1,1 --budgets 1,4": "about 11 s a run",
    "warpcheck simulate psort --memory 0.01 --json": "an out-of-memory stop (tested in test_contract_*)",
}
SLOW_PREFIXES = ("warpcheck simulate --kernels",  # the qaws domain's multi-kernel runs
                 "warpcheck simulate all", "warpcheck simulate psort --fetch all",
                 "warpcheck simulate --ptx examples/kernels/hotspot.ptx --block 1024",  # W = 32 PTX runs: minutes
                 "warpcheck simulate --ptx examples/kernels/kmeans.ptx")


def _docs_commands() -> list[str]:
    path = ROOT / "tests" / "test_docs_commands.py"
    spec = importlib.util.spec_from_file_location("docs_commands", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return [c.text for b in module.ALL for c in b.commands]


def _epilog_commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    found = []
    for verb in VERBS:
        for line in (sub.choices[verb].epilog or "").splitlines():
            if line.strip().startswith("warpcheck "):
                found.append(line.strip())
    return found


def _examples() -> list[str]:
    found = dict.fromkeys(c for c in _docs_commands() + _epilog_commands() if c.split()[1] in VERBS
                          and not any(ch in c for ch in "|&;<>$()`*"))
    return [c for c in found if c not in SKIPPED and not c.startswith(SLOW_PREFIXES)]


def _verb_json(argv: list[str]) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--json"])
    return code, json.loads(out.getvalue())


def _keywords(argv: list[str]) -> tuple[str, dict[str, Any]]:
    """The verb's parsed options as the function's keywords: the record's field is the option's dest."""
    args = build_parser().parse_args(argv)
    keywords = {k: v for k, v in vars(args).items() if v is not None and k not in NOT_OPTIONS}
    if args.verb == "simulate":
        keywords["workloads"] = [*args.workloads, *args.workload]
    return args.verb, keywords


def _call(verb: str, keywords: dict[str, Any]) -> Any:
    function = getattr(warpcheck, VERBS[verb])
    if verb in POSITIONAL:
        return function(keywords.pop(POSITIONAL[verb]), **keywords)
    return function(**keywords)


def _comparable(data: Any, verb: str) -> Any:
    """The JSON without what varies run to run: seconds, witness paths, the exported files' folder."""
    if isinstance(data, dict):
        return {k: (_files(v) if k == "files" and verb == "export" else _comparable(v, verb))
                for k, v in data.items() if k not in VARYING}
    if isinstance(data, list):
        return [_comparable(v, verb) for v in data]
    return data


VARYING = {"seconds", "witness", "certificate", "engine", "message"}  # a script writes both to a temporary folder


def _files(paths: list[str]) -> list[str]:
    return [Path(p).name for p in paths]


EXAMPLES = _examples()


def test_the_examples_are_found():
    assert len(EXAMPLES) >= 8
    assert {c.split()[1] for c in EXAMPLES} >= {"prove", "replay", "simulate", "export"}  # run: the job test below


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", EXAMPLES)
def test_the_verb_and_the_function_give_the_same_json(command, workdir):
    argv = [a for a in shlex.split(command)[1:] if a != "--json"]
    if argv[0] == "replay" and not Path(argv[1]).exists():  # a witness an earlier command of its page writes
        main(["prove", "--design", "baseline", "--fetch", "lrr", "--issue", "gtlrr", "--warps", "4", "--quiet"])
    code, by_verb = _verb_json(argv)
    verb, keywords = _keywords(argv)
    result = _call(verb, keywords)
    assert result.code == code
    mine, theirs = _comparable(result.to_dict(), verb), _comparable(by_verb, verb)
    if verb == "prove" and by_verb.get("status") == "FAIL" and str(by_verb.get("engine")).startswith("auto"):
        # auto races BMC against random runs: under load a random run's longer counterexample may answer
        # first (held until BMC answers), so its depth is not the question; both replay, below
        for raced in ("depth", "cycle", "replay"):
            mine.pop(raced, None), theirs.pop(raced, None)
        assert warpcheck.replay(result).reproduced
    assert mine == theirs


JOB = """[defaults]
warps = 2

[[task]]
name = "swas"
design = "swas"
engine = "kind"
expect = "pass"

[[task]]
name = "baseline"
design = "baseline"
fetch = "lrr"
issue = "gtlrr"
engine = "bmc"
expect = "fail"
"""


def test_a_job_file_gives_the_same_json_through_run_and_run_job(workdir):
    (workdir / "job.toml").write_text(JOB)
    code, by_verb = _verb_json(["run", "job.toml", "--out", "out"])
    result = warpcheck.run_job("job.toml", out="out")
    assert code == result.code == 0 and by_verb["as_expected"]
    assert _comparable(result.to_dict(), "run") == _comparable(by_verb, "run")


def test_a_bad_keyword_names_the_keyword():
    with pytest.raises(ConfigError, match=r"^warps=0: not allowed; it must be >= 1$"):
        warpcheck.prove(warps=0)
    with pytest.raises(ConfigError, match=r"^prove: unknown keyword 'warp'; did you mean 'warps'\?$"):
        warpcheck.prove(warp=4)
    with pytest.raises(ConfigError, match=r"^cycles=0: not allowed; it must be >= 1$"):
        warpcheck.replay("examples/witnesses/baseline-lrr-gtlrr-W4-oracle.json", cycles=0)
    with pytest.raises(ConfigError, match=r"^max_cycles=0: not allowed"):
        warpcheck.simulate("psort", max_cycles=0)
    with pytest.raises(ConfigError, match=r"^k=0: not allowed"):
        warpcheck.export("smt2", k=0)
    with pytest.raises(ConfigError, match=r"^warps=65: above the ceiling of 64"):
        warpcheck.demo(warps=65)


@pytest.mark.parametrize("argv, line", [
    (["prove", "--warps", "0"], "warpcheck prove: error: --warps 0: not allowed; it must be >= 1"),
    (["prove", "--design", "baseline", "--property", "exact"],
     "warpcheck prove: error: --property exact: defined for design swas, not 'baseline'; use oracle or ideal"),
    (["prove", "--design", "baseline", "--policy", "lrr", "--issue", "gtlo"],
     "warpcheck prove: error: --issue gtlo: disagrees with the policy 'lrr': both name the issue policy; "
     "give one of them"),
    (["simulate", "psort", "--max-cycles", "0"], "warpcheck simulate: error: --max-cycles 0: not allowed; it must be >= 1"),
    (["export", "--format", "smt2", "--k", "0"], "warpcheck export: error: --k 0: not allowed; it must be >= 1"),
    (["demo", "--warps", "65"], "warpcheck demo: error: --warps 65: above the ceiling of 64"),
])
def test_the_same_mistake_on_the_command_line_names_the_flag(argv, line, workdir, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(line)


@pytest.mark.parametrize("keywords, problem", [
    ({"warps": 0}, "not allowed; it must be >= 1"),
    ({"design": "baseline", "property": "exact"}, "defined for design swas, not 'baseline'; use oracle or ideal"),
])
def test_one_mistake_one_wording_one_class(keywords, problem, workdir, capsys):
    with pytest.raises(ConfigError) as e:
        warpcheck.prove(**keywords)
    assert type(e.value).__name__ == "OptionError" and str(e.value).endswith(problem)
    argv = ["prove"] + [x for k, v in keywords.items() for x in (f"--{k}", str(v))]
    assert main(argv) == 2 and capsys.readouterr().err.strip().endswith(problem)


def test_prove_takes_the_verbs_names_and_its_witness_replays(workdir):
    r = warpcheck.prove(design="baseline", fetch="lrr", issue="gtlrr", warps=4)
    assert r.status == "FAIL" and r.code == 1 and r.witness
    assert warpcheck.replay(r.witness).reproduced
    same = warpcheck.prove(design="baseline", fetch="lrr", policy="gtlrr", issue="gtlrr", warps=4)
    assert same.name == r.name == "baseline-lrr-gtlrr-W4-oracle"


def test_the_functions_defaults_are_the_verbs():
    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    for verb, record in [("prove", warpcheck.ProveOptions), ("demo", warpcheck.DemoOptions),
                         ("replay", warpcheck.ReplayOptions), ("run", warpcheck.RunOptions),
                         ("export", warpcheck.ExportOptions), ("simulate", warpcheck.SimulateOptions)]:
        timeout = next(a for a in sub.choices[verb]._actions if a.dest == "timeout")
        assert timeout.default == getattr(record, "timeout"), verb
        others = [a.dest for a in sub.choices[verb]._actions if a.default is not None and a.dest != "timeout"
                  and a.dest in {f for f in record.__dataclass_fields__} and a.default != []]
        assert others == [] or all(getattr(record, d) == next(a.default for a in sub.choices[verb]._actions
                                                              if a.dest == d) for d in others), (verb, others)
    assert warpcheck.ProveOptions.timeout == 300.0 and warpcheck.DemoOptions.timeout == 3600.0  # a backstop


def test_the_records_are_frozen():
    import dataclasses
    o = warpcheck.ProveOptions(design="baseline", warps=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.depth = 3  # type: ignore[misc]
    assert o.prop == "oracle" and o.horizon == 19 and o.sm.warps == 2
