"""One answer per question: the makespan verb and ``warpcheck.makespan`` run one path and give the same JSON.

Each documented example (the verb's --help epilog, README.md, docs/makespan.md) runs through the command
line (``main([..., "--json"])``) and through the function with the same inputs as keywords; the two JSON
objects are compared field by field, leaving out only what varies from run to run: ``seconds``,
``timings`` and each ``tried`` entry's ``seconds``.  Examples left out (seconds to minutes each, or bounded
by wall time so that their lower bound varies): the epilog's ``--method smt`` (tens of seconds on a
loaded machine, and Z3's schedule differs from run to run), README's W = 600 and W = 420 deficit runs and its interval
runs of ``--timeout 60`` and ``--timeout 10``, docs/makespan.md's ``LCLCL --warps 420`` (auto: the first of
three racing workers answers), docs/makespan-interval.md's ``--timeout 10`` interval, its two enumerations
(``--warps 8`` and ``--warps 5``) and its PTX example at W = 32.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import warpcheck
from warpcheck._makespan import search
from warpcheck.cli.main import main
from warpcheck.models.errors import ConfigError, KitError, OptionError
from warpcheck.spec.makespan.certificate_check import CertificateRefused

ROOT = Path(__file__).resolve().parent.parent
VARIES = ("seconds", "timings")


def _steady(x):
    if isinstance(x, dict):
        return {k: _steady(v) for k, v in x.items() if k not in VARIES}
    if isinstance(x, list):
        return [_steady(v) for v in x]
    return x


def _verb(capsys, argv):
    capsys.readouterr()
    code = main(["makespan", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


# (where it is documented, argv, the same as keywords)
EXAMPLES = [
    ("epilog, README, docs/makespan.md", ["LLCLL", "--warps", "8", "--sigma", "L=1", "--sigma", "C=1"],
     dict(kernel="LLCLL", warps=8, sigma={"L": 1, "C": 1})),
    ("epilog", ["L C4 L C4p", "--warps", "4", "--sigma", "L=1", "--sigma", "C=2"],
     dict(kernel="L C4 L C4p", warps=4, sigma={"L": 1, "C": 2})),
    ("docs/makespan.md", ["L C4 L C3p", "--warps", "4", "--sigma", "L=1", "--sigma", "C=2", "--method", "enumerate"],
     dict(kernel="L C4 L C3p", warps=4, sigma={"L": 1, "C": 2}, method="enumerate")),
]


@pytest.mark.parametrize("where,argv,keywords", EXAMPLES, ids=[" ".join(e[1][:3]) for e in EXAMPLES])
def test_the_verb_and_the_function_give_the_same_json(capsys, where, argv, keywords):
    code, verb = _verb(capsys, argv)
    r = warpcheck.makespan(**keywords)
    assert _steady(r.to_dict()) == _steady(verb) and r.code == code == 0
    assert verb["exact"] and verb["replay"]["ok"]


def test_a_certificate_check_gives_the_same_json_and_text(capsys):
    path = str(ROOT / "examples" / "makespan" / "llcll-w600.cert.json")
    code, verb = _verb(capsys, ["--check", path])
    r = warpcheck.makespan(check=path)
    assert r.to_dict() == verb and r.code == code == 0 and verb["valid"] and verb["makespan"] == 2401
    assert main(["makespan", "--check", path]) == 0
    assert capsys.readouterr().out.strip() == r.report() and "exactly 2401" in r.report()


def test_llcll_with_a_certificate_gives_33_and_the_checkers_accept_it(tmp_path, capsys):
    """The call of issue 34: the function once refused the interval certificate of a closed form met by a run."""
    r = warpcheck.makespan("LLCLL", 8, {"L": 1, "C": 1}, certificate=True)
    assert (r.makespan, r.exact, r.code) == (33, True, 0) and r.certificate["bound"] == {"method": "pairs"}
    assert warpcheck.check_certificate(r.certificate).valid
    mine, theirs = tmp_path / "f.json", tmp_path / "v.json"
    written = warpcheck.makespan("LLCLL", 8, {"L": 1, "C": 1}, certificate=str(mine))
    code, verb = _verb(capsys, ["LLCLL", "--warps", "8", "--sigma", "L=1", "--sigma", "C=1",
                                "--certificate", str(theirs)])
    assert code == 0 and _steady(written.to_dict()) == _steady({**verb, "certificate": str(mine)})
    assert json.loads(mine.read_text()) == json.loads(theirs.read_text())
    assert main(["makespan", "--check", str(mine)]) == 0 and "lies in 33 .. 33" in capsys.readouterr().out
    assert warpcheck.makespan(check=str(mine)).valid


def test_a_bad_value_names_the_keyword_and_on_the_command_line_the_flag(capsys):
    with pytest.raises(OptionError) as e:
        warpcheck.makespan("LLCLL", 0, {"L": 1, "C": 1})
    assert isinstance(e.value, ConfigError) and e.value.option == "warps"
    assert str(e.value) == "warps=0: not allowed; it must be >= 1"
    assert main(["makespan", "LLCLL", "--warps", "0", "--sigma", "L=1", "--sigma", "C=1"]) == 2
    err = capsys.readouterr().err
    assert err == f"warpcheck makespan: error: --warps 0: {e.value.problem}\n"


def test_a_bad_keyword_is_refused_by_name():
    with pytest.raises(ConfigError, match="unknown keyword 'methd'; did you mean 'method'"):
        warpcheck.makespan("LLCLL", 8, {"L": 1, "C": 1}, methd="smt")
    with pytest.raises(ConfigError, match=r"^method='fast': not one of auto, "):
        warpcheck.makespan("LLCLL", 8, {"L": 1, "C": 1}, method="fast")


def test_a_unit_left_out_is_refused_by_name_as_the_docs_say(capsys):
    with pytest.raises(OptionError, match="unit 'C' of the kernel has no sigma") as e:
        warpcheck.makespan("LLCLL", 8, {"L": 1})
    assert e.value.option == "sigma" and "refused by name" in warpcheck.makespan.__doc__
    assert main(["makespan", "LLCLL", "--warps", "8", "--sigma", "L=1"]) == 2
    assert capsys.readouterr().err == f"warpcheck makespan: error: --sigma L=1: {e.value.problem}\n"


def test_every_answer_with_a_proof_is_checked_without_a_certificate_file(monkeypatch):
    """The independent checker sees the answer whether or not a certificate is asked for: a refusal is a bug."""
    def refuse(cert):
        raise CertificateRefused("certificate refused: made up for the test")

    monkeypatch.setattr(search, "check_interval", refuse)
    with pytest.raises(KitError, match="made up for the test"):
        warpcheck.makespan("LLCLL", 8, {"L": 1, "C": 1})
    monkeypatch.setattr(search, "check", refuse)
    with pytest.raises(KitError, match="made up for the test"):
        warpcheck.makespan("LLCLL", 3, {"L": 1, "C": 1}, method="enumerate")


def test_the_words_of_the_command_line_stay_above_the_library():
    """The makespan layers name an option by its record field: no flag in an error they raise."""
    import re

    flag = re.compile(r"(ConfigError|OptionError|InputFileError)\([^)]*--[a-z]", re.S)
    files = [f for layer in ("models", "encodings", "verify", "sim", "spec", "api")
             for f in sorted((ROOT / layer).rglob("*.py")) if "makespan" in str(f.relative_to(ROOT))]
    bad = [str(f.relative_to(ROOT)) for f in files if flag.search(f.read_text())]
    assert files and not bad, bad
