"""Deficit accounting: its bound is never below the exhaustive worst case, and exact when it says so."""
import json
import time

from hypothesis import given, settings, strategies as st

from warpcheck.cli.main import main
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.spec.makespan.replay import replay
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM
from warpcheck.verify.makespan.abstract import AbstractGraph, abstract_search, bound_with_caps, default_caps


@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=6), sig=st.sampled_from(["1", "2", "1/2"]),
       lat=st.sampled_from(["", "2", "2p"]), warps=st.integers(1, 6))
def test_deficit_bound_is_sound_and_exact_claims_hold(text, sig, lat, warps):
    text = text[:-1] + text[-1] + lat  # sometimes a multi-cycle last instruction
    k = make_kernel(text, {u: sig if u == "L" else "1" for u in set(text)})
    oracle = worst_case(k, warps).makespan
    found = bound_with_caps(k, warps, default_caps(k), time.monotonic() + 5)  # a rare kernel's graph explodes
    assert found is None or found[0] >= oracle
    r = abstract_search(k, warps, budget=2)
    assert r.makespan <= oracle and replay(r.schedule).ok and replay(r.schedule).makespan == r.makespan
    if r.exact:
        assert r.makespan == oracle


def _missing_abstract_move(k, warps, ag):
    """The first reached concrete move s -> t whose abstract move alpha(s) -> alpha(t) the graph lacks, or None."""
    moves = CountMoves(CountSM(k, warps))
    todo, seen = [tuple([warps] + [0] * ag.P)], set()
    while todo:
        s = todo.pop()
        if s in seen or s[-1] == warps:
            continue
        seen.add(s)
        abstract = set(ag.moves(ag.alpha(s)))
        for issued, t in moves.successors(s):
            left = [0 if ag.wait[p] else min(s[p], ag.caps[p]) for p in range(ag.P)]
            for p, x in issued:
                left[p] = x
            if (tuple(left), ag.alpha(t)) not in abstract:
                return s, t
            todo.append(t)
    return None


@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "3", "1/2"]),
       lat=st.sampled_from(["", "3", "2p"]), warps=st.integers(1, 5), extra=st.integers(0, 1))
def test_every_concrete_move_has_its_abstract_move(text, sig, lat, warps, extra):
    """The law behind every bound: alpha(s) -> alpha(t) with the same leaving warps, for every reached s -> t."""
    k = make_kernel(text + lat, {u: sig if u == "L" else "1" for u in set(text)})
    assert _missing_abstract_move(k, warps, AbstractGraph(k, default_caps(k, extra))) is None


class _ClosedAtCap(AbstractGraph):
    """Mutant: a capped count that issues is taken to stay capped (its 'at least so many' options dropped)."""

    def moves(self, a):
        return [(left, b) for left, b in super().moves(a) if all(b[q] == self.caps[q] for q in range(self.P)
                                                                 if a[q] >= self.caps[q] and self.wait[q])]


def test_an_abstraction_missing_moves_breaks_the_law():
    """Kept mutant: dropping the 'at least so many' options of a capped count loses real moves; the law sees it."""
    k = make_kernel("LLC", {"L": "2", "C": "1"})
    mutant = _ClosedAtCap(k, default_caps(k))
    assert _missing_abstract_move(k, 5, mutant) is not None
    assert _missing_abstract_move(k, 5, AbstractGraph(k, default_caps(k))) is None


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
