"""A stop keeps the work: lemmas kept per exact model, what a stopped portfolio established, one cycle numbering."""
from __future__ import annotations

import json
import queue
import re

import pytest

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify import engines, lemmas
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.lemmas import prove_lemmas
from warpcheck.verify.result import Result, Status


def _ts(warps=2, design=FrontEnd):
    return get_property("oracle").checked(design(SMConfig(warps=warps, design="swas", issue_policy="gtlrr")))


class OneMoreLemma(FrontEnd):
    """The same design with one more candidate: another candidate set, hence another key."""

    def lemmas(self, A, s):
        out = super().lemmas(A, s)
        out["wrong.scoreboard-idle"] = A.eq(s["w0.sb"], A.const(0))
        return out


def test_lemmas_are_read_back_for_the_same_model_and_never_for_another(tmp_path):
    said = []
    fresh, rejected = prove_lemmas(_ts(), cache=tmp_path)
    again, rejected_again = prove_lemmas(_ts(), cache=tmp_path, progress=said.append)
    assert [n for n, _ in again] == [n for n, _ in fresh] and rejected_again == rejected
    assert any("read back" in s for s in said)
    said.clear()
    other, other_rejected = prove_lemmas(_ts(design=OneMoreLemma), cache=tmp_path, progress=said.append)
    assert not any("read back" in s or "resuming" in s for s in said)  # proved afresh: its own key, its own file
    assert "wrong.scoreboard-idle" in other_rejected
    said.clear()
    prove_lemmas(_ts(warps=3), cache=tmp_path, progress=said.append)
    assert not any("read back" in s or "resuming" in s for s in said) and len(list(tmp_path.glob("*.json"))) == 3


def test_a_houdini_stopped_midway_resumes_without_asking_again_and_proves_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(lemmas.Work, "SAVE_EVERY", 0.0)  # every candidate shown preserved is kept at once
    asked = []

    def stop_after(n):
        def left_ms():
            asked.append(1)
            if len(asked) > n:
                raise KeyboardInterrupt  # as Ctrl-C (or the end of the time) in the middle of the queries
            return None
        return left_ms

    fresh, _ = prove_lemmas(_ts(), stop_after(10**9))
    queries = len(asked)
    asked.clear()
    with pytest.raises(KeyboardInterrupt):
        prove_lemmas(_ts(), stop_after(queries // 2), cache=tmp_path)
    kept = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert kept["proved"] is None and len(kept["preserved"]) > 0
    asked.clear()
    said = []
    resumed, _ = prove_lemmas(_ts(), stop_after(10**9), cache=tmp_path, progress=said.append)
    assert sorted(n for n, _ in resumed) == sorted(n for n, _ in fresh)
    assert len(asked) < queries and any("resuming" in s for s in said)


def test_a_stopped_portfolio_reports_the_depth_cleared_and_the_lemmas_proved():
    answers: queue.Queue = queue.Queue()
    answers.put((engines.NOTE, ("bmc", "clean", 3)))
    answers.put((engines.NOTE, ("kind", "clean", 1)))
    answers.put((engines.NOTE, ("kind", "lemmas", 40)))
    r = engines._first_conclusive(answers, engines.Deadline(0.0), {"kind": 0, "bmc": 0, "random": 0})
    assert r.status is Status.TIMEOUT and r.depth == 3
    assert "established: no violation up to depth 3, 40 lemmas proved" in r.message


@pytest.mark.parametrize("clean, says", [
    (4, "shortest violation: at depth 5, found by random runs; none at a smaller depth (BMC)"),
    (1, "violation at depth 5, found by random runs; none up to depth 1 (BMC), depths 2 .. 4 not excluded"),
    (-1, "shorter ones not excluded"),
])
def test_a_random_fail_says_what_bmc_excluded_meanwhile(clean, says):
    held = Result(Status.FAIL, "random", 5, message="violation at depth 5 found by 3 random runs (seed 0); "
                                                   "shorter ones not excluded")
    assert says in engines._random_fail(held, clean, engines.Deadline(None)).message


def test_one_cycle_numbering_in_the_report(tmp_path):
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import prove_run
    config = SMConfig(warps=2, design="baseline", fetch_policy="lrr", issue_policy="gtlrr")
    out = prove_run(ProveOptions(config=config, engine="bmc", witness=str(tmp_path / "w.json")))
    text = out.report()
    cycles = set(re.findall(r"violation at cycle (\d+)", text))
    assert out.result.status is Status.FAIL and cycles == {str(out.replays[0].first_violation)}
    assert f"depth {out.replays[0].first_violation + 1} (violation at cycle" in text
    assert "violation at depth" not in text or f"violation at depth {out.result.depth}" in text


def test_a_stopped_prove_says_where_its_lemma_work_waits(tmp_path, capsys, monkeypatch):
    from warpcheck.cli import main as cli_main
    from warpcheck.cli.frontend import verbs

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # as Ctrl-C in the middle of the proof

    monkeypatch.setattr(verbs, "prove_options", interrupted)
    assert cli_main.main(["prove", "--warps", "2", "--lemma-cache", str(tmp_path / "lemmas")]) == 130
    err = capsys.readouterr().err
    assert "INTERRUPTED" in err or "interrupted" in err
    assert f"the lemma work done so far is kept in {tmp_path / 'lemmas'}/" in err


@pytest.mark.parametrize("result, says", [
    (Result(Status.PASS, "kind", 1), None),  # an induction's k is no count of cycles
    (Result(Status.PASS, "bmc", 5, bounded=True), " (cycles 0 .. 4 checked: cycle t is checked at depth t + 1)"),
    (Result(Status.TIMEOUT, "auto", 1), " (cycle 0 checked: cycle t is checked at depth t + 1)"),
])
def test_a_report_without_a_witness_says_which_cycles_its_depth_covers(result, says):
    from warpcheck._frontend.options import ProveOptions
    from warpcheck._frontend.proof import ProveOutcome
    text = ProveOutcome(ProveOptions(warps=2, design="swas"), result).report()
    assert (says in text) if says else "checked at depth" not in text


def test_a_mutant_of_the_step_never_reads_the_lemmas_of_the_design(tmp_path):
    """What a PASS from the cache would miss: lemmas proved for the design, read back for a broken step.

    ``PickWhenNone`` (models/frontend/mutants.py) has the same state and initial states and another issue
    choice; it must get its own key, prove its own lemmas, and still FAIL its property.  (Its candidates'
    text differs too, so this test would not see a key that left the step out: the key keeps it anyway.)
    """
    from warpcheck.models.frontend.mutants import PickWhenNone

    prove_lemmas(_ts(), cache=tmp_path)
    said: list[str] = []
    prove_lemmas(_ts(design=PickWhenNone), cache=tmp_path, progress=said.append)
    assert not any("read back" in s or "resuming" in s for s in said)
    assert len(list(tmp_path.glob("*.json"))) == 2
    ts = _ts(design=PickWhenNone)
    assert engines.engine("kind")(ts, ts.agree, 8, None, lemma_cache=str(tmp_path)).status is Status.FAIL
