"""Deficit accounting: its bound is never below the exhaustive worst case, and exact when it says so."""
import json
import time

from hypothesis import given, settings, strategies as st

from warpcheck.cli.main import main
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.sim.makespan.replay import replay
from warpcheck.verify.makespan.abstract import abstract_search, bound_with_cap


@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=6), sig=st.sampled_from(["1", "2", "1/2"]),
       lat=st.sampled_from(["", "2", "2p"]), warps=st.integers(1, 6))
def test_deficit_bound_is_sound_and_exact_claims_hold(text, sig, lat, warps):
    text = text[:-1] + text[-1] + lat  # sometimes a multi-cycle last instruction
    k = make_kernel(text, {u: sig if u == "L" else "1" for u in set(text)})
    oracle = worst_case(k, warps).makespan
    for cap in (max(k.sigma_of(u) for u in k.units),):
        found = bound_with_cap(k, warps, cap, time.monotonic() + 5)  # a rare kernel's graph explodes
        assert found is None or found[0] >= oracle
    r = abstract_search(k, warps, max_cap=2, budget=2)
    assert r.makespan <= oracle and replay(r.schedule).ok and replay(r.schedule).makespan == r.makespan
    if r.exact:
        assert r.makespan == oracle


def test_deficit_is_exact_on_both_benchmark_families_at_w_32():
    for text, sigma, expect in (("LLCLL", {"L": 1, "C": 1}, 4 * 32 + 1),
                                ("LCLCL", {"L": "1/2", "C": 1}, None)):
        k = make_kernel(text, sigma)
        r = abstract_search(k, 32)
        assert r.exact and replay(r.schedule).makespan == r.makespan
        if expect:
            assert r.makespan == expect


def test_paper_fig6_instance_is_solved_exactly(capsys):
    assert main(["makespan", "LLCLL", "-W", "600", "--sigma", "L=1", "--sigma", "C=1", "--json", "--x", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["makespan"] == 2401 and out["pessimistic"] == 3000 and out["replay"]["ok"]


def test_auto_falls_back_when_the_deficit_bound_is_not_met(capsys):
    assert main(["makespan", "CLLC", "-W", "6", "--sigma", "L=1", "--sigma", "C=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["makespan"] == worst_case(make_kernel("CLLC", {"L": 1, "C": 1}), 6).makespan


def test_paper_fig7_instance_is_solved_exactly(capsys):
    assert main(["makespan", "LCLCL", "-W", "420", "--sigma", "L=1/2", "--sigma", "C=1", "--json", "--x", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["makespan"] == 2522 and out["pessimistic"] == 3360 and out["replay"]["ok"]
