"""k-inductive certificates, and the reordering unit's (``reorder prove --streams N --certificate FILE``): the
unit's stream proof is 2-inductive, its certificate states k = 2 and the k-step obligations, bitwuzla accepts it,
and ``warpcheck check`` refuses it tampered: a lemma dropped, a transition changed, k changed, or the invariant
passed off as 1-inductive (it is not: consecution answers sat)."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

import warpcheck
from warpcheck._reorder.certificate import attach, paths, system_of
from warpcheck.cli.main import main
from warpcheck.encodings import certificate as cert
from warpcheck.encodings.unroll import _width
from warpcheck.models.ts import TransitionSystem, Var
from warpcheck.verify.engines import kinduction
from warpcheck.verify.smt2_run import answers

pytest.importorskip("bitwuzla", reason="bitwuzla is in the test extra: pip install '.[test]'")

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--streams", "1", "--warps", "1", "--lines", "2", "--barriers", "0"]  # 0.4 s of proof, 2-inductive


@pytest.fixture(scope="module")
def proved(tmp_path_factory: Any) -> tuple[Path, dict[str, Any]]:
    """The unit over streams of one warp of 0..1 requests, proved by the verb with --certificate."""
    where = tmp_path_factory.mktemp("c") / "unit.smt2"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["reorder", "prove", *SMALL, "--certificate", str(where), "--json"]) == 0
    data = json.loads(buf.getvalue())
    assert (data["status"], data["depth"], data["certificates"]) == ("PASS", 2, [str(where)])
    return where, data


def _with(text: str, inv: str | None = None, obligations: str | None = None) -> str:
    """The certificate with its invariant or its obligations replaced."""
    a, b = text.index(cert.INVARIANT) + len(cert.INVARIANT) + 1, text.index(cert.OBLIGATIONS)
    return text[:a] + (inv + "\n" if inv is not None else text[a:b]) + (obligations or text[b:])


def _checked(tmp_path: Path, text: str) -> Any:
    (tmp_path / "c.smt2").write_text(text)
    return warpcheck.check(str(tmp_path / "c.smt2"))


def _system(text: str) -> tuple[Any, Any, int]:
    covered = json.loads(next(ln[len("; covers: "):] for ln in text.splitlines() if ln.startswith("; covers: ")))
    ts, prop = system_of(covered, "test")
    return ts, prop, _width(ts)


def test_the_units_certificate_states_k_and_holds(proved):
    path, _ = proved
    text = path.read_text()
    assert f"{cert.K_LINE}2 " in text and text.count("\n(check-sat)\n") == 5
    r = warpcheck.check(str(path))
    assert (r.status, r.k, r.covers["verb"], r.covers["streams"], r.covers["barriers"]) == \
        ("PASS", 2, "reorder prove", 1, 0)
    assert list(r.answers) == ["base", "step", "safety", "initial-states", "non-vacuity"]
    assert r.answers["step"].startswith("unsat") and "(2-inductive)" in r.report()


def test_a_dropped_lemma_is_refused(proved, tmp_path):
    path, data = proved
    text = path.read_text()
    ts, prop, width = _system(text)
    assert "delivered_is_status.0.0" in data["lemmas"]
    dropped = cert.invariant(ts, prop, [n for n in data["lemmas"] if n != "delivered_is_status.0.0"], width)
    got = _checked(tmp_path, _with(text, inv=dropped))
    assert (got.status, got.code) == ("FAIL", 1) and "step answered sat" in got.message


def test_a_changed_transition_or_k_is_refused(proved, tmp_path):
    text = proved[0].read_text()
    trans = text.index("(define-fun trans ")
    changed = text[:trans] + text[trans:].replace("bvadd", "bvsub", 1)
    assert changed != text and "its system differs" in _checked(tmp_path, changed).message
    deeper = text.replace(f"{cert.K_LINE}2 ", f"{cert.K_LINE}3 ", 1)
    assert "its obligations differ" in _checked(tmp_path, deeper).message
    line = next(ln for ln in text.splitlines() if ln.startswith(cert.K_LINE))
    assert "its obligations differ" in _checked(tmp_path, text.replace(line + "\n", "")).message
    with pytest.raises(warpcheck.InputFileError, match="induction line"):
        _checked(tmp_path, text.replace(f"{cert.K_LINE}2 ", f"{cert.K_LINE}x ", 1))


def test_the_invariant_passed_off_as_1_inductive_is_refused(proved, tmp_path):
    """Header and obligations rewritten consistently for k = 1: the kit's own texts, so only the solver refuses."""
    text = proved[0].read_text()
    ts, prop, width = _system(text)
    line = next(ln for ln in text.splitlines() if ln.startswith(cert.K_LINE))
    one = _with(text.replace(line + "\n", ""), obligations=cert.sections(ts, prop, width, 1)[2] + "\n")
    got = _checked(tmp_path, one)
    assert (got.status, got.k) == ("FAIL", 1) and "consecution answered sat" in got.message


def test_certificate_options_of_reorder_prove(tmp_path):
    assert paths("out/u.smt2", [1, None]) == ["out/u.barriers-1.smt2", "out/u.smt2"]
    assert paths("u.smt2", [2]) == ["u.smt2"] and paths("u.smt2", ["check", "progress"]) == ["u.smt2", "u.progress.smt2"]
    with pytest.raises(warpcheck.ConfigError, match="certificate.*goes with the unit"):
        warpcheck.reorder_prove("k.ptx", grid=1, block=32, no_unit=True, certificate=str(tmp_path / "c.smt2"))


def test_a_kernel_proof_writes_the_checks_and_progresss_certificates(tmp_path):
    """The barrier order on the deadlock example: deadlock (1-inductive) and progress (2-inductive) both hold; the
    kernel file changed after the proof: refused."""
    ptx = tmp_path / "k.ptx"
    ptx.write_text((ROOT / "examples/reorder/barrier_deadlock.ptx").read_text())
    r = warpcheck.reorder_prove(str(ptx), grid=1, block=64, param={"data": 0}, check="deadlock", order="barrier",
                                certificate=str(tmp_path / "k.smt2"))
    files = r.to_dict()["certificates"]
    assert r.status == "PASS" and files == [str(tmp_path / "k.smt2"), str(tmp_path / "k.progress.smt2")]
    got = [warpcheck.check(f) for f in files]
    assert [(g.status, g.k, g.covers["proof"], g.covers["check"]) for g in got] == \
        [("PASS", 1, "check", "deadlock"), ("PASS", 2, "progress", "deadlock")]
    ptx.write_text(ptx.read_text() + "\n// edited\n")
    with pytest.raises(warpcheck.InputFileError, match="not the file proved"):
        warpcheck.check(files[0])


def test_no_certificate_for_a_run_that_does_not_pass(tmp_path):
    o = warpcheck.ReorderProveOptions(streams=1, certificate=str(tmp_path / "c.smt2"))
    for status in ("FAIL", "UNKNOWN", "TIMEOUT"):
        out = {"status": status, "depth": 2, "bounded": False}
        attach(o, out, [(None, out)], str(tmp_path / "c.smt2"))
        assert "unbounded PASS" in out["no_certificate"] and "certificates" not in out
    assert not (tmp_path / "c.smt2").exists()


@pytest.mark.slow  # 4 s of proof, two checks of 2 s
def test_the_barrier_family_writes_one_certificate_each(tmp_path):
    where = tmp_path / "unit.smt2"
    r = warpcheck.reorder_prove(streams=3, certificate=str(where))
    assert r.status == "PASS" and r.to_dict()["certificates"] == [str(tmp_path / "unit.barriers-1.smt2"), str(where)]
    got = [warpcheck.check(c) for c in r.to_dict()["certificates"]]
    assert [(g.status, g.covers["barriers"], g.k) for g in got] == [("PASS", 1, 2), ("PASS", None, 2)]


class _TwoStep(TransitionSystem):
    """x in 0..7 from 0: 0 -> 1 -> 2 -> 0, 6 -> 7 -> 7, the rest -> 0.  ``x != 7`` holds, 2-inductively: 6
    satisfies it and steps to 7, but no state steps to 6 (and the 3-cycle makes the step's hypotheses satisfiable)."""

    def state_vars(self) -> list[Var]:
        return [Var("x", "int", 0, 7)]

    def init(self, A: Any, p: Any) -> dict[str, Any]:
        return {"x": A.const(0)}

    def step(self, A: Any, s: dict[str, Any], i: Any) -> dict[str, Any]:
        x = s["x"]
        nxt = A.const(0)
        for here, there in ((0, 1), (1, 2), (6, 7), (7, 7)):
            nxt = A.ite(A.eq(x, A.const(here)), A.const(there), nxt)
        return {"x": nxt}


def _not3(A: Any, s: dict[str, Any]) -> Any:
    return A.ne(s["x"], A.const(7))


def test_a_2_inductive_system_gets_k_step_obligations_that_a_solver_decides():
    ts = _TwoStep()
    r = kinduction(ts, _not3, 4, use_lemmas=False)
    assert (r.status.value, r.depth) == ("PASS", 2)
    text = cert.certificate(ts, _not3, [], 8, ["covers: {}"], r.depth)
    assert answers(text, "bitwuzla") == list(cert.EXPECTED)
    assert answers(cert.certificate(ts, _not3, [], 8, ["covers: {}"], 1), "bitwuzla")[1] == "sat"  # not 1-inductive
    assert cert.not_certifiable("PASS", False, 2) is None and "unbounded" in cert.not_certifiable("PASS", True, 2)


def test_every_unbounded_pass_of_reorder_prove_writes_its_certificate_unless_told_not_to():
    """By default beside the witness a FAIL would have had (a script's: a temporary folder); it holds."""
    r = warpcheck.reorder_prove(streams=1)
    [written] = r.to_dict()["certificates"]
    assert r.status == "PASS" and written.endswith("reorder-streams-unit-stream.smt2")
    assert warpcheck.check(written).status == "PASS"
    assert "certificates" not in warpcheck.reorder_prove(streams=1, no_certificate=True).to_dict()
    with pytest.raises(warpcheck.ConfigError, match="given with no_certificate"):
        warpcheck.reorder_prove(streams=1, certificate="c.smt2", no_certificate=True)
