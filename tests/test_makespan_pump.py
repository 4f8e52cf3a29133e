"""Pumped runs: a run of W0 warps with stretches repeated is a run of W0 + m d warps, and the closed forms it gives
equal the exhaustive worst case; the checker of a certificate's pump refuses tampering."""
import copy
import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from warpcheck.cli.main import main
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.schedule import from_counts
from warpcheck.models.makespan.sm import CountSM
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.spec.makespan.pump_check import PumpRefused, check_pump
from warpcheck.spec.makespan.replay import replay
from warpcheck.verify.makespan import pump as pump_mod
from warpcheck.verify.makespan.abstract import abstract_search, first_runs, guided_run
from warpcheck.verify.makespan.pump import closed_form, find_pumps


def _sample_runs(k, warps):
    """A few different runs of the machine: the cheap priority runs and a beam ranked by phase-0 count."""
    moves = CountMoves(CountSM(k, warps))
    yield moves, first_runs(moves.sm, moves)
    yield moves, guided_run(moves, lambda s: (0, -s[0]), 4)


def _pumps_replay(k, warps, finder=find_pumps):
    """Every pump found in the sample runs, played for m = 1..3: (pumps found, the first failure or None)."""
    found = 0
    for moves, run in _sample_runs(k, warps):
        for p in finder(moves, run):
            found += 1
            for m in (1, 2, 3):
                w = warps + m * p.period
                try:
                    sched = from_counts(CountSM(k, w), p.run_for(w))
                except ValueError as e:
                    return found, f"{p.stretches} at W = {w}: {e}"
                r = replay(sched)
                if not r.ok or r.makespan != len(run) + m * p.cycles:
                    return found, f"{p.stretches} at W = {w}: {r.problem or r.makespan}"
    return found, None


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "3", "1/2"]),
       lat=st.sampled_from(["", "3", "2p"]), warps=st.integers(4, 9))
def test_a_pumped_run_replays_with_the_cycles_it_claims(text, sig, lat, warps):
    """The lemma: every pump found, played m more times, is a work-conserving run of W0 + m d warps."""
    k = make_kernel(text + lat, {u: sig if u == "L" else "1" for u in set(text)})
    _, problem = _pumps_replay(k, warps)
    assert problem is None


def test_pumps_are_found_on_steady_kernels():
    """The law above is not vacuous: single- and multi-stretch pumps exist on common kernels."""
    for text, sig in [("LLCLL", {"L": 1, "C": 1}), ("LLC", {"L": 1, "C": "1/2"}), ("CL", {"C": 3, "L": 1})]:
        found, problem = _pumps_replay(make_kernel(text, sig), 8)
        assert found and problem is None, text


class _Careless(pump_mod._Chains):
    """Mutant: extra warps may stand in any wait phase, capped or not (the lemma's premise dropped)."""

    def __init__(self, moves, run):
        super().__init__(moves, run)
        sm = moves.sm
        for p in range(sm.done):
            if sm.phases[p].is_wait:
                self.until[:, p] = self.T + 1


def test_a_pump_that_ignores_the_caps_is_caught(monkeypatch):
    """Kept mutant: without the cap premise, some pumped runs break work conservation, and the law test sees it."""
    monkeypatch.setattr(pump_mod, "_Chains", _Careless)
    problems = [_pumps_replay(make_kernel(t, s), w)[1] for t, s, w in
                [("LLCLL", {"L": 1, "C": 1}, 6), ("LCM", {"L": 2, "C": 1, "M": 1}, 5), ("CLLC", {"C": 1, "L": 1}, 6),
                 ("LC3", {"L": 2, "C": 1}, 5), ("LLC", {"L": 1, "C": "1/2"}, 6)]]
    assert any(problems)


STEADY = [("LLCLL", {"L": 1, "C": 1}), ("LCLCL", {"L": "1/2", "C": 1}), ("CLCLC", {"C": "1/2", "L": 3}),
          ("LCM", {"L": 2, "C": 1, "M": 1}), ("CL", {"C": 3, "L": 1}), ("CCLL", {"C": "1/3", "L": 3}),
          ("CMMCML", {"C": 1, "L": 2, "M": 1})]


def test_the_closed_form_equals_the_exhaustive_worst_case(monkeypatch):
    """Exhaustive == pumped: the formula proved for a pump's class is the worst case at every W of it we enumerate."""
    monkeypatch.setattr(pump_mod, "BASES", range(4, 8))  # small W0, so the class starts where enumeration reaches
    pumped = []
    for text, sig in STEADY:
        k = make_kernel(text, sig)
        r = abstract_search(k, 13, budget=math.inf)  # no clock: the search ends by its own bounds on work
        if r.pump is None:
            continue
        assert r.exact
        slope, offset = _parse(closed_form(r.pump)["formula"])
        for w in range(r.pump.warps, 13, r.pump.period):
            assert worst_case(k, w).makespan == slope * w + offset, (text, w)
        pumped.append(text)
    assert len(pumped) >= 4, pumped


def _parse(formula):
    from fractions import Fraction
    lin, sign, const = formula.split(" W ")[0], formula.split(" W ")[1][0], formula.split(" W ")[1][2:]
    return Fraction(lin), Fraction(const) * (1 if sign == "+" else -1)


def _pump_of(text, sig, warps):
    k = make_kernel(text, sig)
    r = abstract_search(k, warps, budget=math.inf)  # no clock: bounded by its rounds and beams
    p = r.pump
    base = from_counts(CountSM(k, p.warps), list(p.run))
    return k, {"warps": p.warps, "schedule": [list(x) for x in base.issue],
               "repeat": [[i + 1, j] for i, j in p.stretches], "period": p.period}


def test_the_checker_accepts_a_pump_and_refuses_tampering():
    k, pump = _pump_of("LCLCL", {"L": "1/2", "C": 1}, 60)
    ok = check_pump(k, pump)
    assert ok.cycles == 6 * ok.period
    first, last = pump["repeat"][0]
    tampered = []
    for change in (lambda p: p["repeat"][0].__setitem__(1, last + 1),   # one cycle too many
                   lambda p: p["repeat"][0].__setitem__(0, first + 1),  # one too few
                   lambda p: p.__setitem__("period", p["period"] + 1),
                   lambda p: p["schedule"][0].__setitem__(0, 2),      # the base run changed
                   lambda p: p.__setitem__("repeat", [[0, 3]])):
        bad = copy.deepcopy(pump)
        change(bad)
        with pytest.raises(PumpRefused):
            check_pump(k, bad)
        tampered.append(bad)
    assert len(tampered) == 5


def test_a_certificate_with_a_pump_proves_every_w_of_its_class(tmp_path):
    path = tmp_path / "c.json"
    assert main(["makespan", "LLCLL", "--warps", "100", "--sigma", "L=1", "--sigma", "C=1", "--method", "deficit",
                 "--certificate", str(path), "--json"]) == 0
    cert = json.loads(path.read_text())
    r = check(cert)
    assert (r.exact_from, r.period, r.exact_formula) == (16, 1, "makespan = 4 W + 1")
    cert["pump"]["repeat"][0][1] += 1
    with pytest.raises(CertificateRefused, match="pump"):
        check(cert)


def test_the_verb_reports_the_closed_form(capsys):
    assert main(["makespan", "LLCLL", "--warps", "40", "--sigma", "L=1", "--sigma", "C=1", "--method", "deficit",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["makespan"] == 161 and out["closed_form"]["formula"] == "4 W + 1"
    assert out["closed_form"]["for"] == "every W >= 16"
