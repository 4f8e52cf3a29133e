"""The backlog LP bound: never below the exhaustive worst case, certified by a checker that shares no code with it.

The LP is built and solved by ``verify/makespan/backlog.py``; its exact duals are checked by
``spec/makespan/backlog_check.py``, which builds the columns again from the rules of ``docs/makespan-interval.md``.
"""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from warpcheck._makespan.certificate import interval_certificate
from warpcheck._makespan.interval import widen
from warpcheck._makespan.methods import Outcome
from warpcheck.models.makespan.alternation import alternation_bound
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.spec.makespan.backlog_check import BacklogRefused, checked_backlog
from warpcheck.spec.makespan.certificate_check import CertificateRefused
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.reference_enum import ReferenceBudgetExceeded, reference_worst_case
from warpcheck.verify.makespan.backlog import MAX_COLUMNS, backlog_bound, columns

ISSUE_KERNEL = "LLCLCCLLLCLCCLLLCCLC"  # 12 W + 8 by enumeration at W = 4, 5, 6
ONES = {"L": "1", "C": "1"}


@st.composite
def instances(draw):
    """A one-cycle kernel of 1 to 7 instructions over up to 3 units, its sigmas, and W from 1 to 6."""
    n = draw(st.integers(1, 7))
    text = "".join(draw(st.lists(st.sampled_from("LCM"), min_size=n, max_size=n)))
    sigma = {u: draw(st.sampled_from(["1", "2", "3", "1/2"])) for u in set(text)}
    return text, sigma, draw(st.integers(1, 6))


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_backlog_bound_is_never_below_the_exhaustive_worst_case_and_the_checker_proves_the_same(inst):
    text, sigma, warps = inst
    try:
        worst = reference_worst_case(reference_kernel(text, sigma), warps, max_states=5000).makespan
    except ReferenceBudgetExceeded:
        assume(False)
    b = backlog_bound(make_kernel(text, sigma), warps)
    assert b is not None and b.upper >= worst
    assert checked_backlog(reference_kernel(text, sigma), warps, b.certificate()) == b.upper


def test_backlog_bound_follows_the_kernel_not_its_length():
    """The issue's 20-instruction kernel: 14 W + 25 against the alternation bound's 16.5 W; LLCLL 4 W + 3."""
    k = make_kernel(ISSUE_KERNEL, ONES)
    assert [backlog_bound(k, w).upper for w in (32, 64)] == [473, 921]
    assert alternation_bound(k, 32) == 529
    assert backlog_bound(make_kernel("LLCLL", ONES), 128).upper == 516  # true worst case 4 W + 1 = 513


def test_kernels_with_latencies_get_no_backlog_bound_and_the_checker_refuses_them():
    assert backlog_bound(make_kernel("L C3", ONES), 4) is None
    with pytest.raises(BacklogRefused, match="one-cycle"):
        checked_backlog(reference_kernel("L C3", ONES), 4, {"method": "backlog", "duals": []})


def _interval(text="LCLCMMMCL", sigma=None, warps=32):  # two units of sigma 2: the LP beats the pair bound (195)
    sigma = sigma or {"L": "2", "C": "2", "M": "1"}
    o = widen(make_kernel(text, sigma), warps, Outcome(None, False, None, 0.0, "no run yet"), math.inf, None, runs=20)
    return o, interval_certificate(text, sigma, warps, o.schedule, o.upper[0], o.proof)


def test_interval_takes_the_backlog_bound_and_its_certificate_holds():
    o, cert = _interval()
    r = check_interval(cert)
    assert (r.upper, r.method) == (183, "backlog") and o.upper[1] == "backlog LP" and r.lower >= 110


def _lower_one_dual(cert):
    duals = cert["bound"]["duals"]
    key, value = max(duals, key=lambda d: Fraction(d[1]))
    duals[duals.index([key, value])] = [key, str(Fraction(value) - Fraction(1, 2))]


@pytest.mark.parametrize("tamper,msg", [
    (lambda c: c.update(upper=c["upper"] - 1), "proves makespan <= 183, not 182"),
    (_lower_one_dual, "column"),
    (lambda c: c["bound"]["duals"].append(c["bound"]["duals"][0]), "twice"),
    (lambda c: c["bound"]["duals"].append([["pass", "b:L", 0], "1"]), "pass"),
    (lambda c: c.update(bound={"method": "alternation"}), "proves makespan <= 230, not 183"),
    (lambda c: c.update(bound={"method": "pairs"}), "proves makespan <= 195, not 183"),
])
def test_tampered_backlog_certificates_are_refused(tamper, msg):
    _, cert = _interval()
    bad = copy.deepcopy(cert)
    tamper(bad)
    with pytest.raises(CertificateRefused, match=msg):
        check_interval(bad)


def test_an_lp_too_large_to_build_is_said_so_in_the_progress_lines():
    """400 phases on four units: about 280,000 columns, not built; the progress line says so, not "solving"."""
    text = "LCMS" * 100
    k = make_kernel(text, {u: "1" for u in "LCMS"})
    assert columns(k, 8) > MAX_COLUMNS and backlog_bound(k, 8, 1.0) is None
    lines = []
    widen(k, 8, Outcome(None, False, None, 0.0, "no run yet"), math.inf, lines.append, runs=1)
    assert lines[0].startswith("interval: backlog LP not built (") and "more than 200,000" in lines[0]
