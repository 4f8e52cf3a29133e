"""The pair bound P + (W - 1)(P - nu) of one-cycle kernels on two units of sigma 1: sound, exact, checked.

The law: never below the reference enumeration's worst case, and the design
and the checker compute the same number.  The bound is also the worst case
itself from small W on; the interval closes on it.
"""
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.cli.main import main
from warpcheck.cli.makespan.cert import interval_certificate
from warpcheck.cli.makespan.interval import interval_only
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.pairs import pair_bound, pairs
from warpcheck.sim.makespan.check import CertificateRefused
from warpcheck.sim.makespan.interval import check_interval
from warpcheck.sim.makespan.pairs import PairsRefused, checked_pairs, least_blocks
from warpcheck.sim.makespan.reference import reference_kernel
from warpcheck.sim.makespan.reference_enum import reference_worst_case

ISSUE_KERNEL = "LLCLCCLLLCLCCLLLCCLC"


@st.composite
def two_unit_instances(draw):
    text = draw(st.text(alphabet="LC", min_size=1, max_size=7))
    sigma = {u: draw(st.sampled_from(["1", "1/2", "1/3"])) for u in sorted(set(text))}
    warps = draw(st.integers(1, 5))
    return text, sigma, warps


@settings(max_examples=60, deadline=None)
@given(two_unit_instances())
def test_pair_bound_is_never_below_the_exhaustive_worst_case(inst):
    text, sigma, warps = inst
    bound = pair_bound(make_kernel(text, sigma), warps)
    ref = reference_kernel(text, sigma)
    assert bound == checked_pairs(ref, warps)
    assert bound >= reference_worst_case(ref, warps, max_states=200_000).makespan


@given(st.text(alphabet="LC", max_size=30))
def test_greedy_pairs_and_the_checker_s_shortest_cut_agree(text):
    assert len(text) - pairs(list(text)) == least_blocks(list(text))


def test_pair_bound_is_the_worst_case_on_the_issue_s_kernel():
    """12 W + 8 (nu = 8 of 20 phases), the worst case the enumeration finds at W = 4..6; alternation gives 16.5 W."""
    k, ref = make_kernel(ISSUE_KERNEL, {"L": "1", "C": "1"}), reference_kernel(ISSUE_KERNEL, {"L": "1", "C": "1"})
    for w in (4, 5, 6):
        assert pair_bound(k, w) == 12 * w + 8 == reference_worst_case(ref, w, max_states=400_000).makespan
    assert [pair_bound(k, w) for w in (8, 32, 64)] == [104, 392, 776]
    assert pair_bound(make_kernel("LCLCLLLL", {"L": "1/3", "C": "1/2"}), 600) == 10804  # 22 phases, nu = 4


def test_pair_bound_applies_to_two_units_of_sigma_one_only():
    assert pair_bound(make_kernel("LLL", {"L": "1"}), 5) == 15  # one unit: W P, the worst case
    assert pair_bound(make_kernel("LCM", {"L": "1", "C": "1", "M": "1"}), 4) is None
    assert pair_bound(make_kernel("LC", {"L": "2", "C": "1"}), 4) is None
    assert pair_bound(make_kernel("L C3", {"L": "1", "C": "1"}), 4) is None
    for text, sigma, why in [("LCM", {"L": "1", "C": "1", "M": "1"}, "at most two units; this kernel has 3"),
                             ("LC", {"L": "2", "C": "1"}, "L \\(sigma 2\\) serves more warps a cycle"),
                             ("L C3", {"L": "1", "C": "1"}, "one-cycle kernels; C3 takes 3 cycles")]:
        with pytest.raises(PairsRefused, match=why):
            checked_pairs(reference_kernel(text, sigma), 4)


def _certificate(text, sigma, warps, runs=60):
    o = interval_only(make_kernel(text, sigma), warps, float("inf"), None, runs=runs)
    return o, interval_certificate(text, sigma, warps, o.schedule, o.upper[0], o.proof)


def test_the_interval_closes_on_the_pair_bound_and_its_certificate_is_checked():
    o, cert = _certificate(ISSUE_KERNEL, {"L": "1", "C": "1"}, 8, runs=400)
    assert o.upper == (104, "pairs") and cert["bound"] == {"method": "pairs"}
    r = check_interval(cert)
    assert (r.upper, r.method) == (104, "pairs") and r.lower == o.makespan >= 101


@pytest.mark.parametrize("tamper, refusal", [
    (lambda c: c.update(upper=c["upper"] - 1), "the pairs bound proves makespan <= 104, not 103"),
])
def test_a_tampered_pair_certificate_is_refused(tamper, refusal):
    _, cert = _certificate(ISSUE_KERNEL, {"L": "1", "C": "1"}, 8)
    tamper(cert)
    with pytest.raises(CertificateRefused, match=refusal):
        check_interval(cert)


@pytest.mark.parametrize("text, sigma, refusal", [
    ("LLCLM", {"L": "1", "C": "1", "M": "1"}, "at most two units; this kernel has 3"),
    ("LLCLC", {"L": "1", "C": "2"}, "C \\(sigma 2\\) serves more warps a cycle"),
])
def test_a_pair_bound_claimed_outside_its_statement_is_refused(text, sigma, refusal):
    _, cert = _certificate(text, sigma, 6, runs=10)
    cert["bound"] = {"method": "pairs"}
    with pytest.raises(CertificateRefused, match=refusal):
        check_interval(cert)


def test_the_verb_answers_by_the_pair_bound_and_the_runs_reach_it(capsys, tmp_path):
    cert = tmp_path / "c.json"
    rc = main(["makespan", "LCLCLLLL", "--sigma", "L=1/3", "--sigma", "C=1/2", "-W", "64", "--method", "interval",
               "--timeout", "60", "--json", "--certificate", str(cert)])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 4) and out["replay"]["ok"] and out["upper"]["value"] == 22 + 63 * 18 and "pairs" in out["note"]
    r = check_interval(json.loads(cert.read_text()))  # exact or not, the pair bound's certificate is an interval
    assert (r.upper, r.method) == (22 + 63 * 18, "pairs")
    o = interval_only(make_kernel("LCLCLLLL", {"L": "1/3", "C": "1/2"}), 64, float("inf"), None, runs=400)
    assert o.exact and o.makespan == 22 + 63 * 18  # the local search meets the bound: the worst case, by work


def _matchings(word):
    """Every set of disjoint neighbour pairs on different units, as sets of heads."""
    heads = [p for p in range(len(word) - 1) if word[p] != word[p + 1]]
    out = [frozenset()]
    for p in heads:
        out += [m | {p} for m in out if p - 1 not in m]
    return out


def _potential(word, heads, counts):
    """G of the docs' proof: the pending head issues plus min(a, b), the shared cycles owed."""
    before = [sum(counts[:p + 1]) for p in range(len(word))]
    pending = sum(max(before[p] - 1, 0) for p in heads)
    at_tail = {u: sum(counts[p + 1] for p in heads if word[p + 1] == u) for u in "XY"}
    laggard = {u: 0 for u in "XY"}
    occupied = [p for p, n in enumerate(counts) if n]
    if occupied and occupied[0] - 1 not in heads:
        laggard[word[occupied[0]]] = 1
    return pending + min(at_tail["Y"] + laggard["Y"], at_tail["X"] + laggard["X"])


def _steps(word, counts):
    """Every cycle out of ``counts``, units allowed to idle: at most one warp moves on each unit."""
    on = {u: [p for p, n in enumerate(counts) if n and word[p] == u] + [None] for u in "XY"}
    for px, py in itertools.product(on["X"], on["Y"]):
        nxt = list(counts)
        for p in (px, py):
            if p is not None:
                nxt[p] -= 1
                if p + 1 < len(word):
                    nxt[p + 1] += 1
        yield tuple(nxt)


def test_the_proof_s_potential_drops_by_at_most_one_per_shared_cycle():
    """Lemma of docs/makespan-interval.md, exhaustively on small words: G(s) - G(s') <= D(s) for every cycle."""
    for size in range(1, 5):
        for word in map("".join, itertools.product("XY", repeat=size)):
            for heads in _matchings(word):
                for warps in range(1, 5):
                    assert _potential(word, heads, (warps,) + (0,) * (size - 1)) == (warps - 1) * len(heads)
                    for spots in itertools.combinations_with_replacement(range(size + 1), warps):
                        counts = tuple(spots.count(p) for p in range(size))
                        shared = all(any(counts[p] for p in range(size) if word[p] == u) for u in "XY")
                        g = _potential(word, heads, counts)
                        for nxt in _steps(word, counts):
                            assert g - _potential(word, heads, nxt) <= shared, (word, sorted(heads), counts, nxt)
