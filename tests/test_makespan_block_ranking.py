"""The ranking function over blocks (verify/makespan/block_ranking.py) and its checker (spec/makespan/block_bound_check.py)."""
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from makespan_fixtures import SIGMAS, certified, exact_and_sound, sound_at_more_warps
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM
from warpcheck.spec.makespan.block_bound_check import BlocksRefused, _Rules, check_blocks, read_blocks
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.verify.makespan import block_ranking
from warpcheck.verify.makespan.block_ranking import block_ranking_bound, block_ranking_search
from warpcheck.verify.makespan.phases import BlockGraph, maximal_blocks


def _reached_moves(k, warps):
    """Every reached concrete move s -> t of W warps (done count last)."""
    moves = CountMoves(CountSM(k, warps))
    todo, seen = [tuple([warps] + [0] * len(k.instrs))], set()
    while todo:
        s = todo.pop()
        if s in seen or s[-1] == warps:
            continue
        seen.add(s)
        for _, t in moves.successors(s):
            yield s, t
            todo.append(t)


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet="LC", min_size=1, max_size=4), sl=st.sampled_from(SIGMAS), sc=st.sampled_from(SIGMAS),
       warps=st.integers(1, 4), seed=st.integers(0, 99))
def test_checker_fall_never_exceeds_the_concrete_drop(text, sl, sc, warps, seed):
    """The law behind the linear part: every concrete move has a checker move to its row falling no more than it."""
    k = make_kernel(text, {"L": sl, "C": sc})
    rng = random.Random(seed)
    g = BlockGraph(k, maximal_blocks(k, rng.randint(0, 1)))
    c = [rng.randint(-3, 6) for _ in range(g.P)]
    rules = _Rules(k, [(f, l, cap) for f, l, _, cap in g.blocks], None, c)
    for s, t in _reached_moves(k, warps):
        drop = sum(cp * (a - b) for cp, a, b in zip(c, s, t))
        falls = [fall for row, fall in rules.successors(g.alpha(s)) if row == g.alpha(t)]
        assert falls and min(falls) <= drop, (s, t)


def test_bound_never_below_enumeration_and_exact_claims_hold():
    """Seeded random kernels (sigmas 1/3 .. 3) at W = 1 .. 6: bound >= worst case; exact means equal and certified."""
    assert exact_and_sound(block_ranking_search, "block-ranking", seed=5, kernels=40) >= 15


def _certified(text, sig, warps, r):
    return certified(text, sig, warps, r, "block-ranking")


@pytest.mark.parametrize("text,sig,warps,want,form", [
    ("LLC", {"L": "1", "C": "1/2"}, 128, 385, "makespan = 3 W + 1"),
    ("LCLCL", {"L": "1/2", "C": "1"}, 128, 770, "makespan = 6 W + 2"),
    ("LLLLLL", {"L": "1/3"}, 600, 10800, "makespan = 18 W + 0")])
def test_exact_certified_and_pumped(text, sig, warps, want, form):
    r = block_ranking_search(make_kernel(text, sig), warps, budget=300)  # a ceiling: exact in about a second
    assert r.exact and r.makespan == want
    out = check(_certified(text, sig, warps, r))
    assert out.weight == "cycles" and out.exact_formula == form


def _refused(cert, match):
    with pytest.raises(CertificateRefused, match=match):
        check(cert)


def _copy(cert):
    return json.loads(json.dumps(cert))


def test_tampered_certificates_are_refused():
    text, sig, warps = "LCLCL", {"L": "1/2", "C": "1"}, 40
    r = block_ranking_search(make_kernel(text, sig), warps, budget=300)  # a ceiling: exact in under a second
    cert = _certified(text, sig, warps, r)
    rows = cert["bound"]["states"]
    i = max(range(len(rows)), key=lambda i: Fraction(rows[i][-1]) if rows[i][0] != -1 else -1)
    lowered = _copy(cert)
    lowered["bound"]["states"][i][-1] = str(Fraction(rows[i][-1]) - 1)
    _refused(lowered, "does not drop enough")
    dropped = _copy(cert)
    del dropped["bound"]["states"][i]
    _refused(dropped, "not in the table")
    steeper = _copy(cert)  # a phase made to count more than it drops: some move no longer pays its cycle
    steeper["bound"]["linear"][3] = str(Fraction(steeper["bound"]["linear"][3]) - 1)
    _refused(steeper, "does not drop enough")
    slope = _copy(cert)  # the claimed bound moves with c_0
    slope["bound"]["linear"][0] = str(Fraction(slope["bound"]["linear"][0]) - 1)
    _refused(slope, "proves makespan")
    short = _copy(cert)
    short["bound"]["linear"] = short["bound"]["linear"][:-1]
    _refused(short, "'linear'")
    weight = _copy(cert)
    weight["bound"]["weight"] = "deficit"
    _refused(weight, "names a unit")
    pump = _copy(cert)
    pump["pump"]["period"] += 1
    _refused(pump, "repeated|pump")


def _no_self_loops(g, start, deadline):
    """A mutant of labelled_graph: moves back to the same block state dropped (as if they told the LP nothing)."""
    edges = _real_graph(g, start, deadline)
    return {(a, label, b) for a, label, b in edges if a != b}


_real_graph = block_ranking.labelled_graph


def test_mutant_without_self_loops_is_caught(monkeypatch):
    """The mutant's LP proves 10 < 13, the worst case of CM (C = 1/2, M = 1/3, W = 3, caps sigma + 1: a lumped
    block's inner steps go free), and the checker refuses its table."""
    k = make_kernel("CM", {"C": "1/2", "M": "1/3"})
    monkeypatch.setattr(block_ranking, "labelled_graph", _no_self_loops)
    found = block_ranking_bound(k, 3, maximal_blocks(k, 1))
    monkeypatch.undo()
    oracle = worst_case(k, 3).makespan
    assert found is not None and found.upper < oracle == 13
    bound = {"weight": "cycles", "blocks": [[f, l, c] for f, l, _, c in found.graph.blocks],
             "linear": [str(v) for v in found.linear], "states": [list(a) + [str(v)] for a, v in found.potential.items()]}
    with pytest.raises(BlocksRefused, match="does not drop enough"):
        check_blocks(k, read_blocks(k, bound))
    real = block_ranking_bound(k, 3, maximal_blocks(k, 1))
    assert real is not None and real.upper >= oracle


@pytest.mark.slow
def test_bound_sound_on_more_random_kernels():
    sound_at_more_warps(block_ranking_search, seed=7, kernels=200)


def test_committed_block_ranking_certificate_holds():
    """examples/makespan/mllmmmcc-w128-...: 1153 at W = 128, 9W + 1 for every W >= 16 (no other method proves it)."""
    from pathlib import Path
    path = Path(__file__).parent.parent / "examples" / "makespan" / "mllmmmcc-w128-sigmaL-3-sigmaM-half.cert.json"
    cert = json.loads(path.read_text())
    r = check(cert)
    assert r.makespan == 1153 and r.exact_from == 16 and r.exact_formula == "makespan = 9 W + 1"
    lowered = _copy(cert)
    lowered["bound"]["linear"][0] = str(Fraction(lowered["bound"]["linear"][0]) - Fraction(1, 128))
    _refused(lowered, "proves makespan|does not drop")
