"""The certificate of the proof for every W (``prove --all-warps --property exact --certificate FILE``): quantified
SMT-LIB2 (UFLIA) over a sort of warps, printed the same by every process, checked by cvc5 (bitwuzla reads no
quantifiers: refused by name); a tampered one (a lemma dropped from inv, a transition changed, an obligation
dropped) is refused before the solver runs."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import warpcheck
from warpcheck._frontend.certificate import write_certificate
from warpcheck._frontend.options import ProveOptions
from warpcheck.encodings import certificate as cert
from warpcheck.verify.result import Result, Status

pytest.importorskip("cvc5")


@pytest.fixture(scope="module")
def written(tmp_path_factory: Any) -> Path:
    """The certificate of SWaS (gtlrr) for every W, written as a PASS writes it (the proof itself: the slow test)."""
    where = tmp_path_factory.mktemp("c") / "every.smt2"
    o = ProveOptions(design="swas", all_warps=True, property="exact", lemma_cache=None, certificate=str(where))
    write_certificate(o, Result(Status.PASS, "every-W", 1, lemmas=[], message="(the test writes it)"))
    return where


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis that closes the one at ``start``."""
    depth = 0
    for k in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k
    raise ValueError("unbalanced")


def _checked(tmp_path: Path, text: str) -> Any:
    (tmp_path / "c.smt2").write_text(text)
    return warpcheck.check(str(tmp_path / "c.smt2"))


def test_the_certificate_is_quantified_and_says_it_covers_every_w(written):
    text = written.read_text()
    assert "(set-logic UFLIA)" in text and "(declare-sort Warp 0)" in text and text.count("(define-fun inv ") == 1
    assert '"warps": "every W >= 1"' in text and text.count("; obligation consecution.") == 35
    with pytest.raises(warpcheck.ConfigError, match="solver.*UFLIA"):
        warpcheck.check(str(written), solver="bitwuzla")


def test_tampered_certificates_are_refused_before_the_solver(written, tmp_path):
    text = written.read_text()
    a, b = text.index(cert.INVARIANT), text.index(cert.OBLIGATIONS)
    inv = text[a:b]
    start = inv.index("(= (d0.sb x!")  # the lemma link.sb: the design's scoreboard is the machine's
    dropped = inv[:start] + "true" + inv[_closing(inv, start) + 1:]
    got = _checked(tmp_path, text[:a] + dropped + text[b:])
    assert got.status == "FAIL" and "its invariant differs from the kit's" in got.message and not got.answers
    trans = text.index("(define-fun trans ")
    changed = text[:trans] + text[trans:].replace("(+ ", "(- ", 1)
    assert changed != text and "its system differs" in _checked(tmp_path, changed).message
    block = text.index("; obligation consecution.agree")
    cut = text[:block] + text[text.index("; obligation safety"):]
    assert "its obligations differ" in _checked(tmp_path, cut).message


def test_a_certificate_for_every_w_is_of_exact_only():
    with pytest.raises(warpcheck.ConfigError, match="certificate.*'oracle'"):
        warpcheck.prove(design="swas", all_warps=True, property="oracle", certificate="c.smt2")


@pytest.mark.slow  # the proof 6 CPU-s, cvc5's check 25 CPU-s (39 obligations)
def test_the_proof_for_every_w_writes_a_certificate_that_cvc5_accepts(tmp_path):
    where = tmp_path / "every.smt2"
    r = warpcheck.prove(design="swas", all_warps=True, property="exact", lemma_cache=None, certificate=str(where))
    assert (r.status, r.to_dict()["certificate"]) == ("PASS", str(where))
    got = warpcheck.check(str(where))
    assert (got.status, got.solver.split()[0]) == ("PASS", "cvc5") and len(got.answers) == 39
    assert got.answers["initial-states"].startswith("sat") and got.answers["consecution.agree"].startswith("unsat")
