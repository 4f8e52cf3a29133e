"""One answer per question: QAWS's documented examples give the same JSON through the verb and the function.

The examples are the ``--help`` epilogs of ``qaws``, README.md and docs/qaws.md.  Left out, as taking
more than a few seconds: ``qaws wcrt`` with the defaults (about 10 s, twice), the epilog's
``qaws wcrt --program K2=mem,fadd,int --budget K2=4 --exhaustive`` (about a minute) and the README's
fair pair (marked slow); ``tests/test_api_qaws_reorder.py`` compares a small ``qaws wcrt`` instead.
Dropped before comparing: ``seconds`` (wall-clock times) and, of a FAIL, the witness run the solver
picked (``run`` of an inversion, ``schedule`` of a switch-bound FAIL): Z3 may pick another model in a
process that has solved before, so those are checked for what they must show instead (an inversion
replayed, K1 finishing first; a schedule present).
"""
from __future__ import annotations

import pytest

import warpcheck
from warpcheck.cli.main import main
from conftest import steady, verb_json

VOLATILE = ("seconds", "run", "schedule", "certificate")  # a script writes it to a temporary folder
EXAMPLES = [
    (["qaws", "inversion", "--policy", "gto"], lambda: warpcheck.qaws_inversion("gto")),
    (["qaws", "switches"], lambda: warpcheck.qaws_switches()),
    (["qaws", "switches", "--policy", "gto"], lambda: warpcheck.qaws_switches("gto")),
    (["qaws", "switches", "--policy", "gto", "--budget", "K1=1", "--budget", "K2=2"],
     lambda: warpcheck.qaws_switches("gto", budget={"K1": 1, "K2": 2})),
    (["simulate", "--kernels", "sgemm,hotspot", "--scale", "0.25", "--budget", "K1=1", "--budget", "K2=4"],
     lambda: warpcheck.simulate_kernels("sgemm,hotspot", scale=0.25, budget={"K1": 1, "K2": 4})),
]


@pytest.mark.parametrize("argv, call", EXAMPLES, ids=[" ".join(a) for a, _ in EXAMPLES])
def test_a_documented_example_is_one_answer(capsys, argv, call):
    code, out = verb_json(capsys, *argv)
    r = call()
    assert r.code == code and steady(r.to_dict(), VOLATILE) == steady(out, VOLATILE)
    for d in (r.to_dict(), out):
        for row in d.get("policies", []):
            assert not row.get("found") or (row["replayed"] and row["run"]["finish"][0] < row["run"]["finish"][1])
        assert d.get("status") != "FAIL" or d["schedule"]


def test_the_rows_are_typed():
    w = warpcheck.qaws_wcrt("qaws", program={"K1": "int", "K2": "mem"}, warps=(1, 1))
    row = w.policies["qaws"]
    assert (w.status, row.status, row.exact, row.replayed) == ("PASS", "PASS", True, True)
    assert (row.response, row.finish, row.run.finish[1]) == (5, 6, 6) and w.response == {"qaws": 5}
    assert row["response"] == 5  # a script written for the dict rows still reads them
    s = warpcheck.qaws_switches("gto", budget={"K2": 2})
    assert (s.status, s.code, s.bounded) == ("FAIL", 1, False) and s.schedule and s.policies["gto"] is s
    k = warpcheck.simulate_kernels(["sgemm", "hotspot"], scale=0.25, policy="lrr")
    assert k.code == 0 and set(k.response["lrr"]) == {"K1", "K2"} and k.runs[0].policy == "lrr"


# (keyword, bad value, flag, its text on the command line, the verb): one mistake per option
MISTAKES = [
    ("policy", "foo", "--policy", "foo", "wcrt"),
    ("program", {"K2": "nop"}, "--program", "K2=nop", "wcrt"),
    ("warps", (1, 2, 3), "--warps", "1,2,3", "wcrt"),
    ("budget", {"K3": 2}, "--budget", "K3=2", "wcrt"),
    ("launch", {"K2": -1}, "--launch", "K2=-1", "inversion"),
    ("latency", {"mem": 0}, "--latency", "mem=0", "wcrt"),
    ("t_fetch", 0, "--t-fetch", "0", "wcrt"),
    ("t_decode", 0, "--t-decode", "0", "inversion"),
    ("ibuffer", 0, "--ibuffer", "0", "wcrt"),
    ("miss_latency", 0, "--miss-latency", "0", "wcrt"),
    ("horizon", 0, "--horizon", "0", "wcrt"),
    ("depth", 0, "--depth", "0", "inversion"),
    ("depth", 0, "--depth", "0", "switches"),
    ("policy", "fifo", "--policy", "fifo", "switches"),
    ("budget", {"K1": 4, "K2": 2}, "--budget", "K1=4", "switches"),
]
FUNCTIONS = {"wcrt": "qaws_wcrt", "inversion": "qaws_inversion", "switches": "qaws_switches"}


@pytest.mark.parametrize("keyword, value, flag, text, verb", MISTAKES, ids=[f"{m[4]}-{m[0]}" for m in MISTAKES])
def test_a_mistake_names_the_keyword_in_a_script_and_the_flag_on_the_command_line(capsys, keyword, value, flag, text,
                                                                                 verb):
    with pytest.raises(warpcheck.ConfigError) as e:
        getattr(warpcheck, FUNCTIONS[verb])(**{keyword: value})
    assert isinstance(e.value, ValueError) and str(e.value).startswith(f"{keyword}={value!r}: ")
    problem = str(e.value).removeprefix(f"{keyword}={value!r}: ")
    argv = ["qaws", verb, flag, text] + (["--budget", "K2=2"] if (verb, keyword) == ("switches", "budget") else [])
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag} {' '.join(argv[2:][1::2])}: {problem}" in err, (err, problem)


@pytest.mark.parametrize("keyword", ["exhaustive", "no_misses", "no_deps", "no_branches"])
def test_a_flag_takes_a_bool_only(keyword):
    with pytest.raises(warpcheck.ConfigError, match=f"^{keyword}='yes': not a bool; give True or False$"):
        warpcheck.qaws_wcrt(**{keyword: "yes"})


def test_the_first_keywords_still_work_and_are_named_in_a_refusal():
    with pytest.raises(warpcheck.ConfigError, match=r"^budgets=\{'K3': 2\}: names an unknown kernel 'K3'"):
        warpcheck.qaws_wcrt(budgets={"K3": 2})
    with pytest.raises(warpcheck.ConfigError, match=r"^misses='no': not a bool"):
        warpcheck.qaws_inversion(misses="no")
    with pytest.raises(warpcheck.ConfigError, match=r"^qaws_wcrt: unknown keyword 'horizn'; did you mean 'horizon'\?"):
        warpcheck.qaws_wcrt(horizn=3)
    o = warpcheck.QawsInversionOptions(program=["K2=mem"], no_deps=True)
    assert o.program["K2"] == ("mem",) and o.budget == {"K1": 1, "K2": 2} and o.policy == ("lrr", "gto", "qaws")


def test_simulate_kernels_refuses_in_the_callers_words(capsys):
    with pytest.raises(warpcheck.ConfigError, match=r"^warps=3: does not split evenly over 2 kernel\(s\)"):
        warpcheck.simulate_kernels("sgemm,hotspot", warps=3)
    assert main(["simulate", "--kernels", "sgemm,hotspot", "--warps", "3"]) == 2
    assert "--warps 3: does not split evenly over 2 kernel(s)" in capsys.readouterr().err
