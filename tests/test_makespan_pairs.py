"""The pair bound P + (W - 1)(P - nu) of one-cycle kernels: sound, checked, and exact on two units of sigma 1.

The law: never below the reference enumeration's worst case, and the design
and the checker compute the same number.  On two units of sigma 1 the bound
is also the worst case itself from small W on; the interval closes on it.
"""
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpcheck.cli.main import main
from warpcheck._makespan.certificate import interval_certificate
from warpcheck._makespan.interval import interval_only
from warpcheck.models.makespan.alternation import alternation_bound
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.pairs import pair_bound, pairs
from warpcheck.spec.makespan.certificate_check import CertificateRefused
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.spec.makespan.pair_bound_check import PairsRefused, checked_pairs, least_blocks
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.reference_enum import reference_worst_case

ISSUE_KERNEL = "LLCLCCLLLCLCCLLLCCLC"


@st.composite
def one_cycle_instances(draw):
    text = draw(st.text(alphabet="LCM", min_size=1, max_size=6))
    sigma = {u: draw(st.sampled_from(["1", "2", "1/2", "1/3"])) for u in sorted(set(text))}
    warps = draw(st.integers(1, 4))
    return text, sigma, warps


@settings(max_examples=80, deadline=None)
@given(one_cycle_instances())
def test_pair_bound_is_never_below_the_exhaustive_worst_case(inst):
    text, sigma, warps = inst
    bound = pair_bound(make_kernel(text, sigma), warps)
    ref = reference_kernel(text, sigma)
    assert bound == checked_pairs(ref, warps)
    assert bound >= reference_worst_case(ref, warps, max_states=200_000).makespan


@given(st.text(alphabet="LCM", max_size=30), st.sampled_from([1, 2]), st.sampled_from([1, 3]))
def test_greedy_pairs_and_the_checker_s_shortest_cut_agree(text, sigma_l, sigma_m):
    sigma = {"L": sigma_l, "C": 1, "M": sigma_m}
    assert len(text) - pairs(list(text), sigma) == least_blocks(list(text), sigma)


def test_pair_bound_is_the_worst_case_on_the_issue_s_kernel():
    """12 W + 8 (nu = 8 of 20 phases), the worst case the enumeration finds at W = 4..6; alternation gives 16.5 W."""
    k, ref = make_kernel(ISSUE_KERNEL, {"L": "1", "C": "1"}), reference_kernel(ISSUE_KERNEL, {"L": "1", "C": "1"})
    for w in (4, 5, 6):
        assert pair_bound(k, w) == 12 * w + 8 == reference_worst_case(ref, w, max_states=400_000).makespan
    assert [pair_bound(k, w) for w in (8, 32, 64)] == [104, 392, 776]
    assert pair_bound(make_kernel("LCLCLLLL", {"L": "1/3", "C": "1/2"}), 600) == 10804  # 22 phases, nu = 4


def test_pair_bound_applies_to_every_one_cycle_kernel():
    assert pair_bound(make_kernel("LLL", {"L": "1"}), 5) == 15  # one unit of sigma 1: W P, the worst case
    assert pair_bound(make_kernel("LLL", {"L": "2"}), 5) == 3 + 4 * 2  # LL pairs on a unit serving two a cycle
    assert pair_bound(make_kernel("LCM", {"L": "1", "C": "1", "M": "1"}), 4) == 3 + 3 * 2
    assert pair_bound(make_kernel("LC", {"L": "2", "C": "1"}), 4) == 2 + 3 * 1
    assert pair_bound(make_kernel("L C3", {"L": "1", "C": "1"}), 4) is None
    with pytest.raises(PairsRefused, match="one-cycle kernels; C3 takes 3 cycles"):
        checked_pairs(reference_kernel("L C3", {"L": "1", "C": "1"}), 4)


def test_three_units_the_pair_bound_beats_alternation_and_holds():
    """g03 of the long family has slope 50 = P - nu, the fluid worst case; here a small three-unit kernel."""
    text, sigma = "LLCLCCLLLCLCCLLLCCLM", {"L": "1", "C": "1", "M": "1"}
    k, ref = make_kernel(text, sigma), reference_kernel(text, sigma)
    assert pair_bound(k, 32) == 20 + 31 * 12 < alternation_bound(k, 32)
    for w in (2, 3, 4):
        assert pair_bound(k, w) >= reference_worst_case(ref, w, max_states=400_000).makespan


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


def test_a_pair_bound_claimed_outside_its_statement_is_refused():
    _, cert = _certificate("LL C2", {"L": "1", "C": "1"}, 6, runs=10)
    cert["bound"] = {"method": "pairs"}
    with pytest.raises(CertificateRefused, match="one-cycle kernels; C2 takes 2 cycles"):
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


def _pair(word, sigma, p):
    return word[p] != word[p + 1] or sigma[word[p]] >= 2


def _matchings(word, sigma):
    """Every set of disjoint neighbour pairs that may share a cycle, as sets of heads."""
    out = [frozenset()]
    for p in (p for p in range(len(word) - 1) if _pair(word, sigma, p)):
        out += [m | {p} for m in out if p - 1 not in m]
    return out


def _potential(word, sigma, heads, counts, owed=True):
    """G of the docs' proof: the pending head issues plus S - max ceil(a_u / sigma_u), the extra issues owed."""
    before = [sum(counts[:p + 1]) for p in range(len(word))]
    pending = sum(max(before[p] - 1, 0) for p in heads)
    a = {u: sum(counts[p + 1] for p in heads if word[p + 1] == u) for u in sigma}
    occupied = [p for p, n in enumerate(counts) if n]
    if occupied and occupied[0] - 1 not in heads:
        a[word[occupied[0]]] += 1
    return pending + (sum(a.values()) - max(-(-a[u] // sigma[u]) for u in sigma) if owed else 0)


def _issues(word, counts, unit, k):
    """Every way for ``unit`` to issue min(k, ready) of its waiting warps."""
    spots = [p for p, n in enumerate(counts) for _ in range(n) if word[p] == unit]
    return set(itertools.combinations(spots, min(k, len(spots))))


def _steps(word, sigma, counts):
    """Every work-conserving cycle out of ``counts``, with its issues minus one (D)."""
    for choice in itertools.product(*(_issues(word, counts, u, sigma[u]) for u in sigma)):
        nxt = list(counts)
        for p in itertools.chain(*choice):
            nxt[p] -= 1
            if p + 1 < len(word):
                nxt[p + 1] += 1
        yield tuple(nxt), sum(map(len, choice)) - 1


def _violations(words, widths, most_warps, owed=True):
    for word in words:
        units = sorted(set(word))
        for sv in itertools.product(widths, repeat=len(units)):
            sigma = dict(zip(units, sv))
            for heads in _matchings(word, sigma):
                for warps in range(1, most_warps + 1):
                    assert _potential(word, sigma, heads, (warps,) + (0,) * (len(word) - 1), owed) == \
                        (warps - 1) * len(heads)
                    for spots in itertools.combinations_with_replacement(range(len(word) + 1), warps):
                        counts = tuple(spots.count(p) for p in range(len(word)))
                        if not any(counts):
                            continue
                        g = _potential(word, sigma, heads, counts, owed)
                        for nxt, owed_issues in _steps(word, sigma, counts):
                            if g - _potential(word, sigma, heads, nxt, owed) > owed_issues:
                                yield word, sigma, sorted(heads), counts, nxt


def test_the_proof_s_potential_drops_by_at_most_the_extra_issues_of_a_cycle():
    """Lemma of docs/makespan-interval.md, exhaustively on small words: G(s) - G(s') <= I(s) - 1 for every cycle."""
    words = ["".join(w) for size in range(1, 5) for w in itertools.product("XYZ", repeat=size)
             if "".join(w).startswith("X")]
    assert next(_violations(words, (1, 2), 3), None) is None
    assert next(_violations(["XY", "XX"], (1, 2), 3, owed=False), None) is not None  # the owed term is needed
