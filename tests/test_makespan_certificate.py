"""Certificates: the committed ones hold, every tampered one is refused, and the checker agrees with the searches."""
import json
from fractions import Fraction
import pathlib

import pytest
from hypothesis import given, settings, strategies as st

from warpcheck.cli.main import main
from warpcheck.cli.makespan.cert import certificate
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.sim.makespan.check import CertificateRefused, check
from warpcheck.sim.makespan.enum import worst_case, worst_case_per_warp
from warpcheck.verify.makespan.abstract import abstract_search

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples" / "makespan"
PAPER = [("llcll-w600.cert.json", 600, 2401), ("lclcl-w420-sigmaL-half.cert.json", 420, 2522)]


def _load(name):
    return json.loads((EXAMPLES / name).read_text())


@pytest.mark.parametrize("name,warps,value", PAPER)
def test_paper_certificates_hold(name, warps, value):
    r = check(_load(name))
    assert (r.warps, r.makespan, r.upper) == (warps, value, value) and r.weight == "deficit"


def _claim_more(c):
    c["makespan"] += 1


def _lower_init_potential(c):
    row = next(r for r in c["bound"]["states"] if r[0] > 0 and not any(r[1:-1]))
    row[-1] -= 1


def _lower_every_potential(c):
    for row in c["bound"]["states"]:
        row[-1] = max(0, row[-1] - 1)


def _drop_a_state(c):
    c["bound"]["states"] = [r for r in c["bound"]["states"] if not (r[0] > 0 and not any(r[1:-1]))][:-1] + \
        [r for r in c["bound"]["states"] if r[0] > 0 and not any(r[1:-1])]


def _move_an_issue(c):
    c["schedule"][0][-1] += 1


def _shrink_the_cap(c):
    c["bound"]["cap"] = 0


def _other_warps(c):
    c["warps"] += 1


def _other_sigma(c):
    c["sigma"]["L"] = "2"


TAMPERS = [_claim_more, _lower_init_potential, _lower_every_potential, _drop_a_state, _move_an_issue,
           _shrink_the_cap, _other_warps, _other_sigma]


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.__name__ for t in TAMPERS])
def test_tampered_paper_certificate_is_refused(tamper):
    c = _load(PAPER[0][0])
    tamper(c)
    with pytest.raises(CertificateRefused):
        check(c)


def _enum_certificate(text, sigma, warps):
    k = make_kernel(text, sigma)
    r = worst_case(k, warps)
    return certificate(text, {u: str(v) for u, v in sigma.items()}, warps, r.schedule, ("enumerate", r)), r


@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "1/2"]),
       warps=st.integers(1, 3), pick=st.integers(0, 10 ** 6))
def test_enumeration_certificate_holds_and_any_lowered_potential_is_refused(text, sig, warps, pick):
    sigma = {u: sig if u == "L" else "1" for u in sorted(set(text))}
    c, r = _enum_certificate(text, sigma, warps)
    assert check(c).makespan == r.makespan == worst_case_per_warp(make_kernel(text, sigma), warps)
    rows = c["bound"]["states"]
    rows[pick % len(rows)][-1] -= 1  # the value function is tight everywhere: no entry can go lower
    with pytest.raises(CertificateRefused):
        check(c)


@settings(max_examples=20, deadline=None)
@given(text=st.text(alphabet="LC", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "1/2"]),
       warps=st.integers(1, 6))
def test_deficit_certificate_holds_whenever_deficit_is_exact(text, sig, warps):
    sigma = {u: sig if u == "L" else "1" for u in sorted(set(text))}
    k = make_kernel(text, sigma)
    r = abstract_search(k, warps, budget=5)
    if r.exact:
        c = certificate(text, sigma, warps, r.schedule, ("deficit", r))
        assert check(c).makespan == worst_case(k, warps).makespan


def test_cli_writes_checks_and_refuses(tmp_path, capsys):
    path = tmp_path / "c.json"
    assert main(["makespan", "CLLC", "-W", "8", "--sigma", "L=1", "--sigma", "C=1", "--method", "enumerate",
                 "--certificate", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certificate"] == str(path)
    assert main(["makespan", "--check", str(path)]) == 0
    assert "is exactly 18" in capsys.readouterr().out
    c = json.loads(path.read_text())
    c["makespan"] -= 1
    path.write_text(json.dumps(c))
    assert main(["makespan", "--check", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False


@pytest.mark.parametrize("argv,msg", [
    (["--check", "/nonexistent/c.json"], "cannot read it"),
    (["LC", "-W", "2", "--sigma", "L=1", "--sigma", "C=1", "--method", "smt", "--certificate", "x.json"],
     "--certificate comes from the methods"),
    (["--warps", "2"], "give a kernel and --warps W"),
    (["LC", "-W", "2", "--sigma", "L=1/1000", "--sigma", "C=1"], "out of range; use n or 1/n with n from 1 to 16"),
])
def test_certificate_bad_input_is_one_line(capsys, argv, msg):
    assert main(["makespan", *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_deficit_table_of_llcll_bounds_every_w():
    c = _load(PAPER[0][0])
    assert check(c).every_w_from == 1
    init = next(row for row in c["bound"]["states"] if row[0] > 0 and not any(row[1:-1]))
    assert init[-1] == 1  # D_L <= 1: the table proves makespan <= 4W + 1 for every W >= 1


@settings(max_examples=20, deadline=None)
@given(text=st.text(alphabet="LC", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "1/2"]),
       other=st.sampled_from(["1", "1/2"]), warps=st.integers(1, 6))
def test_ranking_bound_is_sound_and_its_certificate_holds_when_exact(text, sig, other, warps):
    from warpcheck.verify.makespan.ranking import ranking_search

    sigma = {u: sig if u == "L" else other for u in sorted(set(text))}
    k = make_kernel(text, sigma)
    oracle = worst_case(k, warps).makespan
    r = ranking_search(k, warps, budget=10, max_extra=1)
    assert r.makespan <= oracle and (r.upper is None or r.upper >= oracle)
    if r.exact:
        c = certificate(text, sigma, warps, r.schedule, ("ranking", r))
        assert check(c).makespan == oracle


def _ranking_certificate():
    from warpcheck.verify.makespan.ranking import ranking_search

    k = make_kernel("LLC", {"L": 1, "C": "1/2"})
    r = ranking_search(k, 30)
    assert r.exact and r.makespan == 91 == worst_case(k, 30).makespan  # 3W + 1: above the busiest unit's 2W
    return certificate("LLC", {"L": "1", "C": "1/2"}, 30, r.schedule, ("ranking", r))


def test_ranking_certificate_beyond_the_deficit_method_holds_for_every_w():
    r = check(_ranking_certificate())
    assert r.every_w_from == 1 and r.formula == "makespan <= floor(3 W + 1)"


@pytest.mark.parametrize("tamper", ["lower_slope", "change_the_last_coefficient", "lower_a_potential"])
def test_tampered_ranking_certificate_is_refused(tamper):
    c = _ranking_certificate()
    lin = c["bound"]["linear"]
    if tamper == "lower_slope":
        lin[0] = "5/2"
    elif tamper == "change_the_last_coefficient":
        lin[-1] = "4"
    else:
        row = max(c["bound"]["states"], key=lambda r: sum(r[:-1]))
        row[-1] = str(Fraction(row[-1]) - 1)
    with pytest.raises(CertificateRefused):
        check(c)
