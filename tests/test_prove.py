"""Proofs and counterexamples of the front-end properties, and the lemma discipline."""
from __future__ import annotations

import pytest

from conftest import assert_status
from warpcheck.models.config import SMConfig
from warpcheck.models.frontend import FrontEnd
from warpcheck.sim.replay import replay
from warpcheck.verify import witness as wit
from warpcheck.verify.engines import bmc, kinduction
from warpcheck.verify.lemmas import prove_lemmas
from warpcheck.verify.properties import get_property


@pytest.mark.parametrize("policy", ["gtlrr", "gtlo", "lrr", "srr", "lo", "icount"])
@pytest.mark.parametrize("prop", ["oracle", "ideal"])
def test_swas_follows_every_policy_unbounded(policy, prop):
    r = assert_status(SMConfig(warps=3, design="swas", issue_policy=policy), prop, "PASS")
    assert not r.bounded and not r.rejected_lemmas


@pytest.mark.parametrize("fetch,issue", [("lrr", "gtlrr"), ("gtlo", "lrr"), ("gtlrr", "gtlo")])
def test_baseline_leaves_the_policy_and_the_witness_replays_at_the_same_cycle(fetch, issue, tmp_path):
    cfg = SMConfig(warps=4, design="baseline", fetch_policy=fetch, issue_policy=issue)
    r = assert_status(cfg, "oracle", "FAIL", engine_name="bmc", depth=12)
    w = wit.from_trace(FrontEnd(cfg), r.trace, "oracle")
    w.save(tmp_path / "w.json")
    back = wit.load(tmp_path / "w.json")
    mine = replay(back.config, back.initial_ibuffer, back.streams, "oracle", r.depth + 3)
    assert mine.first_violation == r.depth
    swas = replay(wit.on_design(back, "swas"), back.initial_ibuffer, back.streams, "oracle", r.depth + 3)
    assert swas.first_violation is None


@pytest.mark.parametrize("mutant", [
    dict(ibuffer=3),            # one ibuffer slot short
    dict(t_decode=2),           # one pipeline cycle more than the ibuffer hides
])
def test_broken_swas_fails(mutant):
    cfg = SMConfig(warps=2, design="swas", issue_policy="gtlrr", check_buffer=False, **mutant)
    assert_status(cfg, "oracle", "FAIL", engine_name="kind", depth=8)


def test_swas_counterexample_of_a_mutant_replays():
    cfg = SMConfig(warps=2, design="swas", issue_policy="gtlrr", ibuffer=3, check_buffer=False)
    fe = FrontEnd(cfg)
    r = bmc(fe, get_property("oracle").predicate(fe), 8)
    w = wit.from_trace(fe, r.trace, "oracle")
    assert replay(cfg, w.initial_ibuffer, w.streams, "oracle", r.depth + 2).first_violation == r.depth


class WrongLemma(FrontEnd):
    """SWaS with two extra candidate lemmas that do not hold."""

    def lemmas(self, A, s):
        out = super().lemmas(A, s)
        out["wrong.never-fdiv-at-head"] = A.ne(s["w0.b0.cls"], A.const(6))
        out["wrong.scoreboard-idle"] = A.eq(s["w0.sb"], A.const(0))
        return out


def test_a_wrong_lemma_is_rejected_and_not_assumed():
    fe = WrongLemma(SMConfig(warps=2, design="swas", issue_policy="gtlrr"))
    proved, rejected = prove_lemmas(fe)
    assert set(rejected) == {"wrong.never-fdiv-at-head", "wrong.scoreboard-idle"}
    assert all(not n.startswith("wrong") for n, _ in proved)


def test_without_lemmas_swas_is_not_provable_by_plain_k_induction():
    fe = FrontEnd(SMConfig(warps=2, design="swas", issue_policy="gtlrr"))
    r = kinduction(fe, get_property("oracle").predicate(fe), 2, use_lemmas=False)
    assert r.status.value == "UNKNOWN" and "no violation up to depth 2" in r.message


def test_bmc_pass_is_reported_as_bounded():
    r = assert_status(SMConfig(warps=2, design="swas", issue_policy="lrr"), "oracle", "PASS", engine_name="bmc",
                      depth=3)
    assert r.bounded and r.label == "PASS (up to depth 3)"


def test_a_prologue_skips_early_violations_and_the_witness_replays_after_it(tmp_path):
    from warpcheck.models.ts import Prologue
    cfg = SMConfig(warps=2, design="baseline", fetch_policy="lrr", issue_policy="gtlrr")
    fe = FrontEnd(cfg)
    ts = Prologue(fe, 6)
    r = bmc(ts, ts.guard(get_property("oracle").predicate(fe)), 14)
    assert r.status.value == "FAIL" and r.depth >= 6
    w = wit.from_trace(fe, r.trace, "oracle", prologue=6)
    w.save(tmp_path / "w.json")
    back = wit.load(tmp_path / "w.json")
    rep = replay(back.config, back.initial_ibuffer, back.streams, "oracle", r.depth + 2, back.prologue)
    assert rep.first_violation == r.depth


def test_swas_stays_proved_with_a_prologue():
    from warpcheck.models.ts import Prologue
    fe = FrontEnd(SMConfig(warps=2, design="swas", issue_policy="gtlrr"))
    ts = Prologue(fe, 5)
    r = kinduction(ts, ts.guard(get_property("oracle").predicate(fe)), 3)
    assert r.label == "PASS (unbounded)"
