"""The ranking LP over the capped graph cut by inductive linear invariants (verify/makespan/ranking.py).

The invariants are learnt by cegar's loop from the entries that carry the LP
dual's flow; the tests check that they make a kernel exact that the plain
ranking LP leaves loose, that the certificate (linear part plus invariants)
holds and refuses tampered invariants, and keep a mutant whose invariants are
not checked inductive: its bound falls below a replayed run, and the
checker refuses its certificate.
"""
import copy
import json
import math
import random
import time

import pytest

from warpcheck.cli.main import main
from warpcheck._makespan.certificate import certificate
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.spec.makespan import certificate_check as check_mod
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.verify.makespan import cegar, ranking
from warpcheck.verify.makespan.abstract import default_caps

SIGMA = {"L": "1", "C": "1/2"}
W = 20


@pytest.fixture(scope="module")
def llclll():
    """LLCLLL (sigma_C = 1/2) at W = 20: exact 5W + 2 = 102 only once n_2 - n_4 <= 1 cuts the graph."""
    # no clock: bounded by work (its rounds of invariants, its caps, its beam widths); ends once exact (about 6 s)
    r = ranking.ranking_search(make_kernel("LLCLLL", SIGMA), W, budget=math.inf)
    assert r.exact and r.makespan == 102 and r.invariants
    return r, certificate("LLCLLL", SIGMA, W, r.schedule, ("ranking", r))


@pytest.mark.slow  # 5 s; the invariant it learns is checked in the default suite through the llclll certificate
def test_the_dual_leads_to_the_invariant_that_makes_the_bound_exact():
    """Caps sigma + 1: the plain LP gives 6W; the invariant learnt from the dual's entries cuts it to 5W + 2."""
    k = make_kernel("LLCLLL", SIGMA)
    found = list(ranking.refined_bounds(k, W, default_caps(k, 1), time.monotonic() + 120, [], ranking.Samples(k)))
    assert [f[0] for f in found] == [6 * W, 5 * W + 2]
    assert found[0][3] == [] and found[1][3] == [((0, 0, 1, 0, -1, 0, 0), 1)]  # n_2 - n_4 <= 1


def test_invariants_make_ranking_exact_and_the_certificate_holds(llclll):
    r, cert = llclll
    assert worst_case(make_kernel("LLCLLL", SIGMA), 8).makespan == 5 * 8 + 2  # the closed form, by enumeration
    assert cert["bound"]["invariants"] and any(v != "0" for v in cert["bound"]["linear"])
    res = check(copy.deepcopy(cert))
    assert res.makespan == 102 and res.formula == "makespan <= floor(5 W + 2)"


@pytest.mark.slow
def test_the_cli_writes_the_certificate_with_its_invariants_and_checks_it(tmp_path, capsys):
    path = tmp_path / "c.json"
    argv = ["makespan", "LLCLLL", "--warps", "20", "--sigma", "L=1", "--sigma", "C=1/2", "--method", "ranking"]
    assert main(argv + ["--timeout", "120", "--certificate", str(path)]) == 0
    assert json.loads(path.read_text())["bound"]["invariants"] == [{"coef": [0, 0, 1, 0, -1, 0, 0], "bound": 1}]
    assert main(["makespan", "--check", str(path)]) == 0
    assert "exactly 102" in capsys.readouterr().out


@pytest.mark.parametrize("tamper", [
    lambda b: b.pop("invariants"),
    lambda b: b["invariants"][0].update(bound=b["invariants"][0]["bound"] - 1),
    lambda b: b["invariants"][0]["coef"].__setitem__(2, b["invariants"][0]["coef"][2] + 1),
    lambda b: b["invariants"].append({"coef": [0, 0, 1] + [0] * (len(b["linear"]) - 3), "bound": 0}),
], ids=["dropped", "bound lowered", "coefficient raised", "false one added"])
def test_tampered_invariant_is_refused(llclll, tamper):
    cert = copy.deepcopy(llclll[1])
    tamper(cert["bound"])
    with pytest.raises(CertificateRefused):
        check(cert)


MUTANT = ("LLCLL", {"L": "1", "C": "1/2"}, 10)  # the plain LP (caps sigma) is loose there: invariants are learnt


def _tiny_guesses(monkeypatch):
    """Guesses from W <= 2 only: many are false, and only the inductive check stands between them and the bound."""
    monkeypatch.setattr(ranking, "samples_for",
                        lambda kernel, deadline=None: sorted(cegar.reached_states(kernel, max_warps=2)))


def test_guesses_from_tiny_w_are_checked_and_the_certificate_holds(monkeypatch):
    _tiny_guesses(monkeypatch)
    text, sig, w = MUTANT
    k = make_kernel(text, sig)
    r = ranking.ranking_search(k, w, budget=5, max_extra=1)
    assert r.upper is not None and r.upper >= worst_case(k, w).makespan
    if r.exact:
        assert check(certificate(text, sig, w, r.schedule, ("ranking", r))).makespan == r.makespan


def test_mutant_with_unchecked_invariants_is_refused_by_the_checker(monkeypatch):
    """Kept mutant: every guess counts as inductive, so entries are left out on false grounds; the checker refuses."""
    _tiny_guesses(monkeypatch)
    monkeypatch.setattr(cegar, "_kept_by", lambda inv, most, moves: True)
    text, sig, w = MUTANT
    k = make_kernel(text, sig)
    r = ranking.ranking_search(k, w, budget=300, max_extra=1)  # a ceiling: the mutant claims exact at once
    assert r.exact and r.invariants  # the mutant claims an exact answer over a table cut by unproved invariants
    cert = certificate(text, sig, w, r.schedule, ("ranking", r))
    with pytest.raises(CertificateRefused, match="invariant .* may break"):
        check(copy.deepcopy(cert))
    monkeypatch.setattr(check_mod, "check_invariants", lambda *a: None)
    check(cert)  # without the inductive check the checker would accept it


def _random_cases(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        text = "".join(rng.choice("LC") for _ in range(rng.randint(3, 6)))
        sig = {u: rng.choice(["1", "1/2", "2"]) for u in set(text)}
        if len(make_kernel(text, sig).instrs) <= 9:
            yield text, sig, rng.randint(4, 9)


@pytest.mark.slow
def test_bounds_with_invariants_from_tiny_w_are_sound_on_random_kernels(monkeypatch):
    """Against the exhaustive worst case: never below it, and every exact claim's certificate holds."""
    _tiny_guesses(monkeypatch)
    for text, sig, w in _random_cases(3, 40):  # 7 of the 35 kernels learn an invariant
        k = make_kernel(text, sig)
        oracle = worst_case(k, w).makespan
        r = ranking.ranking_search(k, w, budget=2, max_extra=1)
        assert r.upper is None or r.upper >= oracle, (text, sig, w, r.invariants)
        if r.exact:
            assert check(certificate(text, sig, w, r.schedule, ("ranking", r))).makespan == oracle
