"""Deficit accounting cut by linear invariants (verify/makespan/cegar.py) and their certificates (spec/makespan/lininv.py).

The invariants are guessed from small-W states and kept only when inductive
over the graph; the tests check the bound against the exhaustive worst case
with guesses from W <= 2 only (so that wrong guesses are common), keep a
mutant that skips the inductive check (and is caught), and tamper with the
invariants of a certificate.
"""
import copy
import json
import pathlib
import random

import pytest

from warpcheck._makespan.certificate import certificate
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.spec.makespan import certificate_check as check_mod
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.spec.makespan.replay import replay
from warpcheck.verify.makespan import cegar


def _llclll():
    return make_kernel("LLCLLL", {"C": "1/2", "L": "1"})


@pytest.fixture(scope="module")
def llclll_cert():
    """The W = 128 certificate of LLCLLL (sigma_C = 1/2): exact 5W + 2 with one invariant."""
    r = cegar.cegar_search(_llclll(), 128, budget=600)  # a ceiling: the search ends at its exact answer (about 2 s)
    assert r.exact and r.makespan == 642 and r.invariants
    return certificate("LLCLLL", {"C": "1/2", "L": "1"}, 128, r.schedule, ("deficit", r))


def test_llclll_is_exact_with_an_invariant_and_its_certificate_holds(llclll_cert):
    res = check(copy.deepcopy(llclll_cert))
    assert res.makespan == 642 and res.exact_formula == "makespan = 5 W + 2"


def test_llclll_closed_form_equals_the_worst_case_at_small_w():
    k = _llclll()
    for w in (2, 5, 8):
        assert worst_case(k, w).makespan == 5 * w + 2


def _small_guesses(monkeypatch):
    """Guess invariants from W <= 2 only: many guesses are then false, and the inductive check must catch them."""
    monkeypatch.setattr(cegar, "samples_for",
                        lambda kernel, deadline=None: sorted(cegar.reached_states(kernel, max_warps=2)))


def _random_cases(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        text = "".join(rng.choice("LC") for _ in range(rng.randint(3, 6)))
        sig = {u: rng.choice(["1", "1/2", "2"]) for u in set(text)}
        k = make_kernel(text, sig)
        if len(k.instrs) <= 9:
            yield text, sig, k, rng.randint(3, 7)


def _unsound(cases, **search):
    """The cases whose bound is below the exhaustive worst case, or claimed exact and not equal to it.

    Soundness holds whatever the search's budget (default 3 s: a busy machine searches less, never wrongly).
    """
    out = []
    for text, sig, k, w in cases:
        oracle = worst_case(k, w).makespan
        r = cegar.cegar_search(k, w, **(search or {"budget": 3}))
        assert replay(r.schedule).ok and r.makespan <= oracle
        if (r.upper is not None and r.upper < oracle) or (r.exact and r.makespan != oracle):
            out.append((text, sig, w, oracle, r.upper, r.invariants))
    return out


@pytest.mark.slow
def test_bound_is_sound_and_exact_claims_hold_with_guesses_from_tiny_w(monkeypatch):
    _small_guesses(monkeypatch)
    assert _unsound(_random_cases(1, 25)) == []


MUTANT_CASES = [("LCC", {"L": "1/2", "C": "1/2"}, 4), ("LLCC", {"L": "2", "C": "1"}, 7),
                ("LLCLLL", {"L": "2", "C": "1"}, 6)]


def _kernels(cases):
    return [(t, s, make_kernel(t, s), w) for t, s, w in cases]


def test_mutant_without_the_inductive_check_is_caught(monkeypatch):
    """Kept mutant: invariants guessed from W <= 2 used unchecked give bounds below the worst case.

    Bounded by work: four refinement rounds each (the mutant's false invariants come by then: 3 of 3 cases), under a
    600 s ceiling the searches end well before (about 4 s in all).
    """
    _small_guesses(monkeypatch)
    rounds = {"budget": 600, "max_rounds": 4}
    assert _unsound(_kernels(MUTANT_CASES), **rounds) == []
    monkeypatch.setattr(cegar, "_kept_by", lambda inv, most, moves: True)
    assert len(_unsound(_kernels(MUTANT_CASES), **rounds)) >= 2


@pytest.mark.parametrize("tamper", [
    lambda b: b.pop("invariants"),
    lambda b: b["invariants"][0].update(bound=0),
    lambda b: b["invariants"][0].update(coef=[0, 0, 2, 0, -1, 0, 0]),
    lambda b: b["invariants"][0].update(coef=[1, 0, 1, 0, -1, 0, 0]),
    lambda b: b["invariants"][0].update(coef=[0, 0, 1, 0, -1, 0]),
    lambda b: b["invariants"][0].update(bound="1"),
    lambda b: b["invariants"].append({"coef": [0, 0, 1, 0, 0, 0, 0], "bound": 1}),
    lambda b: b.update(invariants={"coef": [0, 0, 1, 0, -1, 0, 0], "bound": 1}),
], ids=["dropped", "bound lowered", "coef doubled", "a0 positive", "short", "bound not int", "false one added",
        "not a list"])
def test_tampered_invariants_are_refused(llclll_cert, tamper):
    cert = copy.deepcopy(llclll_cert)
    tamper(cert["bound"])
    with pytest.raises(CertificateRefused):
        check(cert)


def test_invariant_growing_after_a_busy_phase_is_refused():
    k = make_kernel("L C2 L", {"L": "1", "C": "1"})
    r = cegar.cegar_search(k, 3, budget=600)  # a ceiling: exact, with its invariant, in well under a second
    cert = certificate("L C2 L", {"L": "1", "C": "1"}, 3, r.schedule, ("deficit", r))
    assert check(copy.deepcopy(cert)).makespan == 8 and r.invariants
    cert["bound"]["invariants"].append({"coef": [0, 0, 0, 1], "bound": 3})  # phase 2 is busy: 0 < 1
    with pytest.raises(CertificateRefused, match="busy phase 2"):
        check(cert)


def test_checker_refuses_false_invariants_and_a_mutant_checker_would_not(monkeypatch):
    """Kept mutant of the checker: without the inductive check, a bound below a replayed run would hold.

    Bounded by work: four refinement rounds (the fourth learns the false invariant); the budget is a ceiling
    the search does not reach (it ends in a few seconds), so a busy machine gets the same search.
    """
    _small_guesses(monkeypatch)
    monkeypatch.setattr(cegar, "_kept_by", lambda inv, most, moves: True)
    text, sig, w = MUTANT_CASES[0]
    k = make_kernel(text, sig)
    r = cegar.cegar_search(k, w, budget=600, max_rounds=4)
    assert r.upper is not None and r.upper < r.makespan and r.invariants  # a real run beats the bogus bound
    bound = check_mod.read_bound(k, certificate(text, sig, w, r.schedule, ("deficit", r))["bound"])
    assert check_mod._upper(k, bound, w) == r.upper
    with pytest.raises(CertificateRefused, match="invariant"):
        check_mod.check_bound(k, bound)
    monkeypatch.setattr(check_mod, "check_invariants", lambda *a: None)
    check_mod.check_bound(k, bound)  # the mutant accepts it


def test_certificate_round_trips_through_json(llclll_cert):
    assert check(json.loads(json.dumps(llclll_cert))).upper == 642


@pytest.mark.slow
def test_wider_sweep_sound_exact_and_certified():
    """Three units, latencies, pipelined stages, sigmas up to 3: sound bounds, exact claims equal, certificates hold."""
    rng = random.Random(7)
    for _ in range(70):
        text = "".join(rng.choice("LLCM") for _ in range(rng.randint(3, 7)))
        if rng.random() < 0.3:
            text += rng.choice(["2", "3", "2p"])
        sig = {u: rng.choice(["1", "1/2", "2", "3"]) for u in set(text) if u.isupper()}
        k = make_kernel(text, sig)
        if len(k.instrs) > 9:
            continue
        w = rng.randint(2, 8)
        oracle = worst_case(k, w).makespan
        r = cegar.cegar_search(k, w, budget=4)
        assert r.upper is None or r.upper >= oracle, (text, sig, w)
        if r.exact:
            assert r.makespan == oracle
            assert check(json.loads(json.dumps(certificate(text, sig, w, r.schedule, ("deficit", r))))).upper == oracle


def test_committed_llclll_certificate_holds_for_every_w_from_16():
    with open(pathlib.Path(__file__).parent.parent / "examples" / "makespan" / "llclll-sigmaC-half-w600.cert.json") as f:
        res = check(json.load(f))
    assert (res.makespan, res.exact_from, res.exact_formula) == (3002, 16, "makespan = 5 W + 2")
