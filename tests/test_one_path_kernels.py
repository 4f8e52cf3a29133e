"""One answer per question: every documented example of cfg, wcet and simt gives the same JSON through the
verb (``warpcheck.cli.main.main([..., "--json"])``) and through the function with the same inputs as keywords.

The examples: README.md (the table of verbs and the tensor-core lines), docs/kernels.md (quick usage, the
``cell_rhs`` scaling line) and the verbs' ``--help`` epilogs.  Skipped: the epilog's ``k.ptx ... --bounds
k.toml`` (placeholder files) and docs/kernels.md's ``big.ptx`` lines (a generated module).  Dropped from the
comparison: ``seconds`` (wall time), and ``path`` with the blocks' ``count`` (the worst path among paths of
equal cost is Z3's pick, which may change from one solve to the next; the bound does not).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import warpcheck
from warpcheck.cli.main import main
from conftest import steady

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
SLIDES, NW, KMEANS = EX / "sass" / "slides.sass", EX / "kernels" / "nw.ptx", EX / "kernels" / "kmeans.ptx"
DMATH, TRITON, WMMA = EX / "corpus" / "dmath.ptx", EX / "corpus" / "triton_style.ptx", EX / "kernels" / "wmma_gemm.ptx"
VOLATILE = ("seconds", "path", "count")

# (argv as documented, the function, the same inputs as keywords); "{dot}" is a fresh output path per side
EXAMPLES = [
    (["simt", SLIDES, "--threads", "32"], warpcheck.simt, dict(threads=32)),
    (["wcet", EX / "kernels" / "hotspot.ptx", "--max-loop-bound", "10"], warpcheck.wcet, dict(max_loop_bound=10)),
    (["wcet", WMMA, "--loop-bound", "$L__loop=4"], warpcheck.wcet, dict(loop_bounds={"$L__loop": 4})),
    (["wcet", WMMA, "--loop-bound", "$L__loop=4", "--latency", "shared=50"], warpcheck.wcet,
     dict(loop_bounds={"$L__loop": 4}, latency={"shared": 50})),
    (["wcet", TRITON, "--all-entries", "--max-loop-bound", "8"], warpcheck.wcet, dict(all_entries=True, max_loop_bound=8)),
    (["cfg", SLIDES], warpcheck.cfg, {}),
    (["cfg", NW, "--dot", "{dot}"], warpcheck.cfg, dict(dot="{dot}")),
    (["cfg", NW, "--no-value-agreement"], warpcheck.cfg, dict(value_agreement=False)),
    (["wcet", KMEANS, "--bounds", EX / "kernels" / "kmeans.toml"], warpcheck.wcet,
     dict(bounds=EX / "kernels" / "kmeans.toml")),
    (["wcet", KMEANS, "--loop-bound", "$L__BB0_6=8", "--max-loop-bound", "8"], warpcheck.wcet,
     dict(loop_bounds={"$L__BB0_6": 8}, max_loop_bound=8)),
    (["wcet", DMATH, "--entry", "growth", "--max-loop-bound", "16", "--no-value-agreement"], warpcheck.wcet,
     dict(entry="growth", max_loop_bound=16, value_agreement=False)),
    (["simt", NW, "--threads", "32", "--inputs", EX / "inputs" / "nw.toml"], warpcheck.simt,
     dict(threads=32, inputs=EX / "inputs" / "nw.toml")),
    (["cfg", TRITON, "--all-entries"], warpcheck.cfg, dict(all_entries=True)),
    (["wcet", DMATH, "--entry", "growth", "--entry", "saxpy", "--max-loop-bound", "16"], warpcheck.wcet,
     dict(entry=["growth", "saxpy"], max_loop_bound=16)),
    (["cfg", EX / "corpus" / "cell_rhs.ptx", "--entry", "cell_rhs"], warpcheck.cfg, dict(entry="cell_rhs")),
    (["cfg", EX / "kernels" / "reduction.ptx", "--dot", "{dot}"], warpcheck.cfg, dict(dot="{dot}")),
    (["cfg", DMATH, "--all-entries"], warpcheck.cfg, dict(all_entries=True)),
    (["cfg", SLIDES, "--no-value-agreement"], warpcheck.cfg, dict(value_agreement=False)),
    (["wcet", KMEANS, "--max-loop-bound", "8"], warpcheck.wcet, dict(max_loop_bound=8)),
]


def _fill(x, dot):
    return dot if x == "{dot}" else str(x) if isinstance(x, Path) else x


@pytest.mark.parametrize("argv, function, keywords", EXAMPLES, ids=lambda x: " ".join(map(str, x))[:60]
                         if isinstance(x, list) else None)
def test_the_verb_and_the_function_give_the_same_json(capsys, tmp_path, argv, function, keywords):
    verb_dot, api_dot = tmp_path / "verb.dot", tmp_path / "api.dot"
    capsys.readouterr()
    code = main([str(_fill(a, str(verb_dot))) for a in argv] + ["--json"])
    out = json.loads(capsys.readouterr().out)
    r = function(str(argv[1]), **{k: _fill(v, str(api_dot)) for k, v in keywords.items()})
    assert (r.code, steady(r.to_dict(), VOLATILE)) == (code, steady(out, VOLATILE))
    assert code == (2 if r.refused else 0)
    if "dot" in keywords:
        assert api_dot.read_text() == verb_dot.read_text()


def test_the_text_is_the_report(capsys):
    assert main(["simt", str(SLIDES), "--threads", "8"]) == 0
    assert capsys.readouterr().out.rstrip("\n") == warpcheck.simt(SLIDES, threads=8).report()


@pytest.mark.parametrize("function, keywords, argv, keyword, flag", [
    (warpcheck.cfg, dict(threads=100), ["cfg", SLIDES, "--threads", "100"], "threads=100", "--threads 100"),
    (warpcheck.simt, dict(threads=0), ["simt", SLIDES, "--threads", "0"], "threads=0", "--threads 0"),
    (warpcheck.cfg, dict(max_states=0), ["cfg", SLIDES, "--max-states", "0"], "max_states=0", "--max-states 0"),
    (warpcheck.cfg, dict(mem_latency=-1), ["cfg", SLIDES, "--mem-latency", "-1"], "mem_latency=-1",
     "--mem-latency -1"),
    (warpcheck.wcet, dict(latency=["mem=x"]), ["wcet", SLIDES, "--latency", "mem=x"], "latency=['mem=x']",
     "--latency mem=x"),
    (warpcheck.wcet, dict(loop_bounds=["oops"]), ["wcet", SLIDES, "--loop-bound", "oops"], "loop_bounds=['oops']",
     "--loop-bound oops"),
    (warpcheck.wcet, dict(max_loop_bound=10**7), ["wcet", SLIDES, "--max-loop-bound", "10000000"],
     "max_loop_bound=10000000", "--max-loop-bound 10000000"),
    (warpcheck.simt, dict(warp=-1), ["simt", SLIDES, "--warp", "-1"], "warp=-1", "--warp -1"),
    (warpcheck.simt, dict(warp=3), ["simt", SLIDES, "--warp", "3"], "warp=3", "--warp 3"),
    (warpcheck.simt, dict(max_steps=0), ["simt", SLIDES, "--max-steps", "0"], "max_steps=0", "--max-steps 0"),
    (warpcheck.wcet, dict(entry="nope"), ["wcet", DMATH, "--entry", "nope"], "entry='nope'", "--entry nope"),
])
def test_a_bad_value_names_the_keyword_and_on_the_command_line_the_flag(capsys, function, keywords, argv, keyword,
                                                                         flag):
    with pytest.raises(warpcheck.ConfigError) as e:
        function(str(argv[1]), **keywords)
    assert str(e.value).startswith(f"{keyword}: ") and e.value.code == 2
    problem = str(e.value).removeprefix(f"{keyword}: ")
    capsys.readouterr()
    assert main([str(a) for a in argv]) == 2
    assert capsys.readouterr().err.splitlines() == [f"warpcheck {argv[0]}: error: {flag}: {problem}"]


def test_an_unknown_keyword_is_named_with_the_closest_known_one():
    with pytest.raises(warpcheck.ConfigError, match=r"^simt: unknown keyword 'thread'; did you mean 'threads'\?$"):
        warpcheck.simt(SLIDES, thread=8)


def test_a_record_runs_as_its_keywords_do():
    o = warpcheck.WcetOptions(str(KMEANS), max_loop_bound=8, cross_check=False)
    assert warpcheck.wcet(o).wcet == warpcheck.wcet(KMEANS, max_loop_bound=8, cross_check=False).wcet
    with pytest.raises(warpcheck.ConfigError, match="not both"):
        warpcheck.wcet(o, max_loop_bound=4)
