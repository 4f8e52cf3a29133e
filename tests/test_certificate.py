"""Certificates of a PASS (``prove --certificate``) and ``warpcheck check``: a solver other than Z3 accepts the
kit's certificate, and refuses tampered ones (a lemma dropped or weakened, a transition changed, an obligation
dropped), each for the reason a user needs to read."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import warpcheck
from warpcheck.encodings import certificate as cert
from warpcheck.encodings.unroll import _width
from warpcheck._frontend.certificate import system_of

pytest.importorskip("bitwuzla", reason="bitwuzla is in the test extra: pip install '.[test]'")


@pytest.fixture(scope="module")
def proved(tmp_path_factory: Any) -> tuple[Path, Any]:
    """SWaS at W = 2 proved by k-induction, with its certificate."""
    where = tmp_path_factory.mktemp("c") / "swas-W2.smt2"
    r = warpcheck.prove(design="swas", warps=2, engine="kind", lemma_cache=None, certificate=where)
    assert (r.status, r.depth, r.to_dict()["certificate"]) == ("PASS", 1, str(where))
    return where, r


def _system(text: str) -> tuple[Any, Any, int]:
    covered = json.loads(next(ln[len("; covers: "):] for ln in text.splitlines() if ln.startswith("; covers: ")))
    ts, prop = system_of(covered, "test")
    return ts, prop, _width(ts)


def _with_inv(text: str, inv: str) -> str:
    """The certificate with its invariant replaced."""
    head, rest = text.split(cert.INVARIANT + "\n")
    return head + cert.INVARIANT + "\n" + inv + "\n" + rest[rest.index(cert.OBLIGATIONS):]


def _checked(tmp_path: Path, text: str, **options: Any) -> Any:
    (tmp_path / "c.smt2").write_text(text)
    return warpcheck.check(str(tmp_path / "c.smt2"), **options)


def test_the_certificate_holds_for_bitwuzla_and_says_what_it_covers(proved):
    path, _ = proved
    text = path.read_text()
    covered = json.loads(next(ln[len("; covers: "):] for ln in text.splitlines() if ln.startswith("; covers: ")))
    assert {k: covered[k] for k in ("design", "issue_policy", "warps", "property")} == \
        {"design": "swas", "issue_policy": "gtlrr", "warps": 2, "property": "exact"}
    assert text.count("(define-fun inv ") == 1 and text.count("\n(check-sat)\n") == 5
    r = warpcheck.check(str(path))
    assert (r.status, r.code) == ("PASS", 0) and r.solver.startswith("bitwuzla")
    assert r.answers["consecution"].startswith("unsat") and r.answers["non-vacuity"].startswith("sat")


def test_a_dropped_lemma_is_refused(proved, tmp_path):
    path, r = proved
    text = path.read_text()
    ts, prop, width = _system(text)
    assert "w0.occupancy" in r.lemmas
    dropped = cert.invariant(ts, prop, [n for n in r.lemmas if n != "w0.occupancy"], width)
    got = _checked(tmp_path, _with_inv(text, dropped))
    assert (got.status, got.code) == ("FAIL", 1) and "consecution answered sat" in got.message


def test_a_weakened_lemma_is_refused(proved, tmp_path):
    path, r = proved
    text = path.read_text()
    ts, prop, width = _system(text)

    class Weaker(type(ts)):  # type: ignore[misc]
        def lemmas(self, A: Any, s: dict) -> dict[str, Any]:
            named = super().lemmas(A, s)
            return {**named, "w0.occupancy": A.or_(named["w0.occupancy"], A.eq(s["w0.n"], A.const(0)))}
    weak = Weaker.__new__(Weaker)
    weak.__dict__.update(ts.__dict__)
    got = _checked(tmp_path, _with_inv(text, cert.invariant(weak, prop, r.lemmas, width)))
    assert got.status == "FAIL" and "answered sat" in got.message


def test_a_changed_transition_or_a_dropped_obligation_is_refused(proved, tmp_path):
    text = proved[0].read_text()
    trans = text.index("(define-fun trans ")
    changed = text[:trans] + text[trans:].replace("bvadd", "bvsub", 1)
    assert changed != text
    got = _checked(tmp_path, changed)
    assert got.status == "FAIL" and "its system differs" in got.message and not got.answers
    block = text.index("; obligation consecution")
    dropped = text[:block] + text[text.index("; obligation safety"):]
    assert "its obligations differ" in _checked(tmp_path, dropped).message
    smuggled = _with_inv(text, "(define-fun inv () Bool true)\n(assert false)")
    assert "not exactly one (define-fun inv" in _checked(tmp_path, smuggled).message
    ahead = text.replace(cert.SYSTEM, "(set-logic QF_BV)\n" + cert.SYSTEM, 1)
    assert "header holds more than comments" in _checked(tmp_path, ahead).message


def test_check_refuses_what_is_no_certificate(tmp_path, capsys):
    from warpcheck.cli.main import main
    (tmp_path / "x.smt2").write_text("(check-sat)\n")
    assert main(["check", str(tmp_path / "x.smt2")]) == 2
    assert "not a warpcheck certificate" in capsys.readouterr().err
    with pytest.raises(warpcheck.ConfigError, match="solver"):
        warpcheck.check(str(tmp_path / "x.smt2"), solver="z3")


def test_no_certificate_for_a_bounded_proof():
    with pytest.raises(warpcheck.ConfigError, match="certificate"):
        warpcheck.prove(design="swas", warps=2, engine="bmc", certificate="c.smt2")


def test_the_qaws_switch_bound_writes_a_certificate_that_holds(tmp_path):
    where = tmp_path / "switches.smt2"
    r = warpcheck.qaws_switches(certificate=str(where))
    assert (r.status, r.depth, r.to_dict()["certificate"]) == ("PASS", 1, str(where))
    got = warpcheck.check(str(where))
    assert got.status == "PASS" and got.covers["verb"] == "qaws switches" and got.covers["budgets"] == [1, 4]
    text = where.read_text()
    other = text.replace('"verb": "qaws switches"', '"verb": "qaws wcrt"', 1)
    with pytest.raises(warpcheck.InputFileError, match="certificates come from prove, qaws switches, reorder prove"):
        _checked(tmp_path, other)
    stream = text.replace('"verb": "qaws switches"', '"verb": "reorder prove"', 1)
    with pytest.raises(warpcheck.InputFileError, match="names no system the kit can rebuild.*no reorder prove"):
        _checked(tmp_path, stream)


def test_every_unbounded_pass_of_prove_writes_its_certificate_beside_the_witness(tmp_path, monkeypatch, capsys):
    """The verb's default: warpcheck-out/NAME.smt2, named in the report and the JSON; --no-certificate writes none;
    a script's goes to the temporary folder of its witness."""
    from warpcheck.cli.main import main
    monkeypatch.chdir(tmp_path)
    assert main(["prove", "--warps", "2", "--engine", "kind", "--quiet", "--json"]) == 0
    written = json.loads(capsys.readouterr().out)["certificate"]
    assert written == "warpcheck-out/swas-gtlrr-W2-exact.smt2" and warpcheck.check(written).status == "PASS"
    Path(written).unlink()
    assert main(["prove", "--warps", "2", "--engine", "kind", "--quiet", "--no-certificate", "--json"]) == 0
    assert "certificate" not in json.loads(capsys.readouterr().out) and not Path(written).exists()
    assert main(["prove", "--warps", "2", "--certificate", "c.smt2", "--no-certificate"]) == 2
    assert "given with no_certificate" in capsys.readouterr().err
    r = warpcheck.prove(design="swas", warps=2, engine="kind", lemma_cache=None)
    assert Path(r.to_dict()["certificate"]).parent == Path(r.outcome.options.witness).parent  # a temporary folder
    assert not list(Path("warpcheck-out").glob("*.smt2"))


def test_the_switch_bound_writes_its_certificate_by_default_unless_told_not_to(tmp_path, monkeypatch, capsys):
    from warpcheck.cli.main import main
    monkeypatch.chdir(tmp_path)
    assert main(["qaws", "switches", "--json"]) == 0
    written = json.loads(capsys.readouterr().out)["certificate"]
    assert written == "warpcheck-out/qaws-switches-qaws-2-2-b1.4.smt2" and Path(written).is_file()
    assert main(["qaws", "switches", "--no-certificate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out).get("certificate") is None
    assert main(["qaws", "switches", "--no-certificate", "--certificate", "c.smt2"]) == 2
