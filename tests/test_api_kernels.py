"""The API of the kernels domain gives what the verbs print: same data, exit codes and error lines."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import warpcheck
from warpcheck.cli.main import main
from conftest import same_refusal, steady, verb_json

ROOT = Path(__file__).resolve().parent.parent
HOTSPOT = str(ROOT / "examples" / "kernels" / "hotspot.ptx")
LOOP = str(ROOT / "examples" / "sass" / "loop.sass")
TRITON = str(ROOT / "examples" / "corpus" / "triton_style.ptx")


def _steady(x):
    """Without the seconds, nor the worst path (among paths of equal cost, Z3's pick may change between solves)."""
    return steady(x, ("seconds", "path", "count"))


_cli = verb_json


def test_wcet_is_the_verbs_json(capsys):
    r = warpcheck.wcet(HOTSPOT, max_loop_bound=10)
    code, out = _cli(capsys, "wcet", HOTSPOT, "--max-loop-bound", "10")
    assert (r.code, _steady(r.to_dict())) == (code, _steady(out)) and code == 0
    assert r.wcet == out["wcet"] > 0 and r.kernel == out["kernel"] and r.path == out["path"]
    assert [lp["bound"] for lp in r.loops] == [10] * len(r.loops) and r.loops
    assert r.report().startswith(f"kernel {r.kernel}: WCET bound {r.wcet} cycles for one warp in isolation")


def test_sass_wcet_cfg_and_simt_are_the_verbs(capsys, tmp_path):
    w = warpcheck.wcet(LOOP, loop_bounds={"HEAD": 32}, cross_check=False)
    code, out = _cli(capsys, "wcet", LOOP, "--loop-bound", "HEAD=32", "--no-cross-check")
    assert (w.code, _steady(w.to_dict())) == (code, _steady(out)) and w.to_dict()["solvers"] == ["z3"]
    c = warpcheck.cfg(LOOP, value_agreement=False, latency={"int": 2})
    code, out = _cli(capsys, "cfg", LOOP, "--no-value-agreement", "--latency", "int=2")
    assert (c.code, _steady(c.to_dict())) == (code, _steady(out)) and not out["value_agreement"]
    assert len(c.nodes) == c.warp_cfg.graph.number_of_nodes() - 1 and c.edges == out["edges"]
    s = warpcheck.simt(LOOP, threads=4, inputs={"ntid": [4], "seed": 3})
    (tmp_path / "in.json").write_text(json.dumps({"ntid": [4], "seed": 3}))
    code, out = _cli(capsys, "simt", LOOP, "--threads", "4", "--inputs", str(tmp_path / "in.json"))
    assert (s.code, s.to_dict()) == (code, out) and s.cycles == out["cycles"] and s.steps[0]["mask"] == "1111"


def test_all_entries_is_the_verbs_json(capsys):
    r = warpcheck.wcet(TRITON, all_entries=True, max_loop_bound=4, cross_check=False)
    code, out = _cli(capsys, "wcet", TRITON, "--all-entries", "--max-loop-bound", "4", "--no-cross-check")
    assert (r.code, _steady(r.to_dict())) == (code, _steady(out))
    names = [e["kernel"] for e in out["entries"]]
    assert [e.kernel for e in r.entries] + list(r.refused) == names and r.wcet is None
    assert [e.wcet for e in r.entries] == [e.get("wcet") for e in out["entries"] if "wcet" in e]


def test_entries_refused_are_kept_as_the_verb_keeps_them(capsys):
    """optix_style: one kernel bounded, two refused (OptiX intrinsics have no cost): exit 2, the other still runs."""
    optix = str(ROOT / "examples" / "corpus" / "optix_style.ptx")
    r = warpcheck.wcet(optix, all_entries=True, max_loop_bound=4)
    code, out = _cli(capsys, "wcet", optix, "--all-entries", "--max-loop-bound", "4")
    assert (r.code, _steady(r.to_dict())) == (code, _steady(out)) and code == 2
    assert [e.kernel for e in r.entries] == ["clear_frame"] and set(r.refused) == {"__raygen__pinhole",
                                                                                  "__miss__background"}
    assert main(["wcet", optix, "--all-entries", "--max-loop-bound", "4"]) == 2
    text, err = capsys.readouterr()
    assert [t.split(":")[0] for t in text.split("\n\n") if t] == [t.split(":")[0] for t in r.report().split("\n\n")]
    first = next(iter(r.refused.items()))
    assert err.strip() == f"warpcheck wcet: error: 2 of 3 entries refused; first: {first[0]}: {first[1]}"


def test_a_missing_file_raises_the_verbs_one_line(capsys):
    missing = str(ROOT / "examples" / "kernels" / "missing.ptx")
    same_refusal(capsys, lambda: warpcheck.cfg(missing), ["cfg", missing])


@pytest.mark.parametrize("call, argv, named", [
    (lambda: warpcheck.wcet(HOTSPOT, loop_bounds={"$L__BB0_2": -1}), ["wcet", HOTSPOT, "--loop-bound", "$L__BB0_2=-1"],
     ("loop_bounds={'$L__BB0_2': -1}", "--loop-bound $L__BB0_2=-1")),
    (lambda: warpcheck.wcet(TRITON, entry="no_such_kernel", max_loop_bound=4),
     ["wcet", TRITON, "--entry", "no_such_kernel", "--max-loop-bound", "4"],
     ("entry='no_such_kernel'", "--entry no_such_kernel")),
    (lambda: warpcheck.simt(LOOP, max_steps=10**7), ["simt", LOOP, "--max-steps", str(10**7)],
     ("max_steps=10000000", "--max-steps 10000000")),
    (lambda: warpcheck.simt(LOOP, threads=0), ["simt", LOOP, "--threads", "0"], ("threads=0", "--threads 0")),
    (lambda: warpcheck.cfg(LOOP, threads=100), ["cfg", LOOP, "--threads", "100"], ("threads=100", "--threads 100")),
])
def test_a_bad_option_names_the_keyword_and_the_verb_the_flag(capsys, call, argv, named):
    """One mistake, one problem text, one class: the script reads its keyword, the command line its flag."""
    with pytest.raises(warpcheck.ConfigError) as e:
        call()
    keyword, flag = named
    problem = str(e.value).removeprefix(f"{keyword}: ")
    assert str(e.value).startswith(f"{keyword}: ") and e.value.code == 2
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"warpcheck {argv[0]}: error: {flag}: {problem}"]


def test_keywords_are_checked_as_the_options_are():
    with pytest.raises(warpcheck.ConfigError, match=r"^threads='many': not an integer; give one >= 1$"):
        warpcheck.cfg(LOOP, threads="many")
    with pytest.raises(warpcheck.ConfigError, match=r"^hit='x': not an integer; give one >= 1$"):  # reorder's
        warpcheck.reorder_simulate(str(ROOT / "examples" / "reorder" / "paper_example.ptx"), grid=1, block=32, hit="x")
    with pytest.raises(warpcheck.ConfigError, match=r"^timeout=0: not allowed; it must be > 0 seconds$"):
        warpcheck.wcet(LOOP, timeout=0)
    with pytest.raises(warpcheck.ConfigError, match=r"^wcet: unknown keyword 'loop_bound'; did you mean 'loop_bounds'"):
        warpcheck.wcet(LOOP, loop_bound={"HEAD": 3})
    with pytest.raises(warpcheck.ConfigError, match=r"^latency=\{'memx': 3\}: the class 'memx' is not one of .*"
                                                    r"did you mean 'mem'\?$"):
        warpcheck.cfg(LOOP, latency={"memx": 3})


def test_a_run_past_its_timeout_raises_code_4(monkeypatch):
    """The API arms the command line's guard: a run that outlives ``timeout`` ends with RunTimeoutError."""
    import time

    from warpcheck._kernels import warp_level_cfg

    monkeypatch.setattr(warp_level_cfg, "build_warp_cfg", lambda *a: time.sleep(30))
    with pytest.raises(warpcheck.RunTimeoutError, match=r"^the run did not finish within timeout=0.05 s") as e:
        warpcheck.cfg(LOOP, timeout=0.05)
    assert e.value.code == 4
