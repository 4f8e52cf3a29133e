"""The anytime interval: the alternation bound, the policy runs, interval certificates, and kernels from PTX.

Every bound is cross-checked against the reference enumeration (``spec/makespan/reference_enum.py``, written from
the cycle rules alone) on small instances, bounded by states; every run is replayed by ``spec/makespan/replay.py``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from warpcheck.cli.main import main
from warpcheck._makespan import search  # noqa: F401  (imported here, not inside the runs' --timeout)
from warpcheck._makespan.certificate import interval_certificate
from warpcheck._makespan.interval import closed_uppers, widen
from warpcheck._makespan.methods import Outcome
from warpcheck.models.makespan.alternation import alternation_bound, critical_warp_bound
from warpcheck.models.makespan.kernel import make_kernel, pessimistic, pessimistic_bound
from warpcheck.models.makespan.schedule import from_counts
from warpcheck.spec.makespan.alternation_check import checked_alternation, checked_critical_warp
from warpcheck.spec.makespan.certificate_check import CertificateRefused
from warpcheck.spec.makespan.interval_check import check_interval, eq5_7
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.reference_enum import ReferenceBudgetExceeded, reference_worst_case
from warpcheck.spec.makespan.replay import replay_issue
from warpcheck.verify.makespan.worst_runs import PolicySearch, schedule_of

ROOT = Path(__file__).resolve().parents[1]
SIGMAS = ["1", "2", "3", "1/2", "1/3"]


@st.composite
def instances(draw, latencies=False):
    """A kernel of 1 to 6 instructions over up to 3 units, its sigmas, and W from 1 to 5."""
    n = draw(st.integers(1, 6))
    units = draw(st.lists(st.sampled_from("LCM"), min_size=n, max_size=n))
    text = ""
    for u in units:
        lat = draw(st.sampled_from([1, 1, 2, 3])) if latencies else 1
        text += u if lat == 1 else f" {u}{lat}{draw(st.sampled_from(['', 'p']))} "
    sigma = {u: draw(st.sampled_from(SIGMAS)) for u in set(units)}
    return text, sigma, draw(st.integers(1, 5))


def _worst(text, sigma, warps):
    try:
        return reference_worst_case(reference_kernel(text, sigma), warps, max_states=2000).makespan
    except ReferenceBudgetExceeded:
        assume(False)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_alternation_bound_is_never_below_the_exhaustive_worst_case(inst):
    """The law of docs/makespan-interval.md, against the reference enumeration; design and checker agree."""
    text, sigma, warps = inst
    bound = alternation_bound(make_kernel(text, sigma), warps)
    assert bound == checked_alternation(reference_kernel(text, sigma), warps)
    assert bound >= _worst(text, sigma, warps)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances(latencies=True))
def test_critical_warp_bound_is_never_below_the_exhaustive_worst_case(inst):
    """Latencies and pipelining included; design and checker agree."""
    text, sigma, warps = inst
    bound = critical_warp_bound(make_kernel(text, sigma), warps)
    assert bound == checked_critical_warp(reference_kernel(text, sigma), warps)
    assert bound >= _worst(text, sigma, warps)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances(latencies=True))
def test_eq5_7_is_taken_as_a_bound_only_where_it_is_one(inst):
    """Where every sigma is 1 after the transform Eq. 5-7 is never below the worst case; elsewhere the design
    does not offer it and the checker refuses it."""
    text, sigma, warps = inst
    kernel = make_kernel(text, sigma)
    bound = pessimistic_bound(kernel, warps)
    if bound is None:
        assert any(s != 1 for _, s in kernel.sigma)
        o, cert = _interval(text, sigma, warps, runs=3, bound=("pessimistic", pessimistic(kernel, warps)))
        with pytest.raises(CertificateRefused, match="Eq. 5-7 is no upper bound"):
            check_interval(cert)
    else:
        assert bound == eq5_7(reference_kernel(text, sigma), warps) >= _worst(text, sigma, warps)


def test_eq5_7_is_below_the_worst_case_with_a_unit_of_sigma_2():
    """The paper's pessimistic count is not a bound: LL, sigma_L = 2, W = 4 gives 4; a run of 5 exists."""
    kernel = make_kernel("LL", {"L": "2"})
    assert pessimistic(kernel, 4) == 4 < _worst("LL", {"L": "2"}, 4) == 5
    assert pessimistic_bound(kernel, 4) is None
    assert all(by != "Eq. 5-7" for _, by, _ in closed_uppers(kernel, 4))


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances(latencies=True))
def test_policy_runs_replay_and_never_exceed_the_worst_case(inst):
    """Each policy run is work-conserving (the reference replay accepts it) and no longer than the worst case."""
    text, sigma, warps = inst
    search = PolicySearch(make_kernel(text, sigma), warps, seed=1)
    best = search.more(8)
    sched = schedule_of(search.sim, best.run)
    assert sched == from_counts(search.sim.sm, best.run)
    r = replay_issue(reference_kernel(text, sigma), sched.issue)
    assert r.ok and r.makespan == best.makespan <= _worst(text, sigma, warps)


def test_eq5_7_of_the_checker_equals_the_design_s():
    for text, sigma, w in [("LLCLL", {"L": "1", "C": "1"}, 600), ("LCLCL", {"L": "1/2", "C": "1"}, 420),
                           ("L C4 L C3p", {"L": "2", "C": "1/2"}, 7)]:
        assert eq5_7(reference_kernel(text, sigma), w) == pessimistic(make_kernel(text, sigma), w)


def test_alternation_bound_on_the_issue_s_kernels_and_its_refusal_with_latencies():
    k = make_kernel("LLCLCCLLLCLCCLLLCCLC", {"L": "1", "C": "1"})
    assert [alternation_bound(k, w) for w in (8, 32, 64)] == [137, 529, 1052]  # Eq. 5-7: 160, 640, 1280
    assert alternation_bound(make_kernel("L C4", {"L": "1", "C": "1"}), 4) is None
    with pytest.raises(ValueError, match="C4 takes 4 cycles"):
        checked_alternation(reference_kernel("L C4", {"L": "1", "C": "1"}), 4)


THREE_UNITS = "LLCLCCLLLCLCCLLLCCLM"  # the issue's kernel ending on a third unit


def _interval(text=THREE_UNITS, sigma=None, warps=8, runs=30, bound=None):
    """The interval's run and a certificate of its least bound (or of ``bound``, a closed form's name and value)."""
    sigma = sigma or {"L": "1", "C": "1", "M": "1"}
    o = widen(make_kernel(text, sigma), warps, Outcome(None, False, None, 0.0, "no run yet"), math.inf, None, runs=runs)
    upper, proof = (o.upper[0], o.proof) if bound is None else (bound[1], (bound[0], None))
    return o, interval_certificate(text, sigma, warps, o.schedule, upper, proof)


def _alternation():
    return _interval(bound=("alternation", alternation_bound(make_kernel(THREE_UNITS, {"L": "1", "C": "1", "M": "1"}),
                                                             8)))


def test_interval_certificate_holds():
    o, cert = _interval()
    r = check_interval(cert)
    assert (r.lower, r.upper, r.method) == (o.makespan, 104, "pairs") and r.lower >= 95
    o, cert = _alternation()  # a looser closed form certifies too
    assert (check_interval(cert).upper, check_interval(cert).method) == (137, "alternation")


@pytest.mark.parametrize("tamper,msg", [
    (lambda c: c.update(upper=c["upper"] - 1), "proves makespan <= 137, not 136"),
    (lambda c: c.update(makespan=c["makespan"] + 1), "replays to makespan"),
    (lambda c: c.update(bound={"method": "pessimistic"}), "proves makespan <= 160, not 137"),
    (lambda c: c["schedule"][0].__setitem__(0, 2), "does not replay"),
    (lambda c: c.update(warps=9), "must give 9 lists"),
    (lambda c: c.update(interval=False), "not an interval certificate"),
])
def test_tampered_interval_certificates_are_refused(tamper, msg):
    _, cert = _alternation()
    tamper(cert)
    with pytest.raises(CertificateRefused, match=msg):
        check_interval(cert)


def test_an_upper_bound_below_the_run_is_refused():
    """A closed form that the run contradicts: refused even when the formula is computed right."""
    o, cert = _interval("LLLL", {"L": "1"}, 4, runs=5)
    assert (o.makespan, o.upper[0], o.exact) == (16, 16, True)
    cert.update(makespan=16, upper=16)
    assert check_interval(cert).upper == 16
    with pytest.raises(CertificateRefused, match="alternation bound holds for one-cycle kernels"):
        check_interval({**_interval("L C2", {"L": "1", "C": "1"}, 2, runs=3)[1], "bound": {"method": "alternation"}})


@pytest.fixture
def bounded(monkeypatch):
    """The verb's interval search bounded by work (30 policy runs), not by --timeout (never reached here)."""
    import functools

    from warpcheck._makespan import auto, interval
    for mod in (search, auto):
        monkeypatch.setattr(mod, "interval_only", functools.partial(interval.interval_only, runs=30))


def test_the_verb_answers_an_interval_with_progress_lines_and_a_checked_certificate(capsys, tmp_path, bounded):
    cert = tmp_path / "c.json"
    argv = ["makespan", THREE_UNITS, "-W", "8", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "M=1", "--method",
            "interval", "--timeout", "600", "--x", "2", "--certificate", str(cert)]
    assert main(argv) == 4
    out = capsys.readouterr()
    assert "interval: - .. 104 (no run yet; bound by pairs)" in out.err
    assert "the worst case lies in" in out.out and "bound proved by pairs" in out.out
    assert main(["makespan", "--check", str(cert)]) == 0
    assert "lies in" in capsys.readouterr().out


def test_auto_goes_to_the_interval_on_a_long_kernel(capsys, bounded):
    text = "LCCLLCLLCCLCLLLCCCLLLCLCCLCLLCLCLLLCCCLL" + "LC"  # 42 phases
    assert main(["makespan", text, "-W", "8", "--sigma", "L=1", "--sigma", "C=1", "--timeout", "600", "--json"]) == 4
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "interval" and out["upper"]["method"] == "pairs" and out["approximation"] is None
    assert out["replay"]["ok"] and out["makespan"] <= out["upper"]["value"] < out["pessimistic"]


def test_ptx_entry_becomes_a_kernel_with_its_mapping(capsys, bounded):
    argv = ["makespan", "--ptx", str(ROOT / "examples/kernels/reduction.ptx"), "--sm",
            str(ROOT / "examples/sm/fermi-makespan.toml"), "--max-loop-bound", "2", "-W", "4", "--method", "interval",
            "--timeout", "600", "--json"]
    assert main(argv) == 4
    out = json.loads(capsys.readouterr().out)
    ptx = out["ptx"]
    assert ptx["entry"] == "_Z6reducePKiPii" and ptx["sigma"] == {"C": "1", "L": "1/2"}
    assert ptx["roles"]["ldst"]["unit"] == "L" and ptx["roles"]["int"]["unit"] == "C"
    assert ptx["instructions"] == sum(r["count"] for r in ptx["roles"].values()) == len(out["kernel"])
    assert out["replay"]["ok"]


@pytest.mark.parametrize("extra,msg", [
    (["--sm", "examples/sm/fermi-makespan.toml", "--ptx", "examples/kernels/wmma_gemm.ptx", "--max-loop-bound", "1"],
     "is a tensor instruction and SM 'fermi' maps no unit to tensor"),
    (["--ptx", "examples/kernels/reduction.ptx"], "--ptx examples/kernels/reduction.ptx: needs an SM file too"),
    (["LC", "--sm", "examples/sm/fermi-makespan.toml", "--ptx", "examples/kernels/reduction.ptx"], "not both"),
    (["--sm", "examples/sm/paper.toml", "--ptx", "examples/kernels/reduction.ptx"], "has no [makespan] table"),
    (["--sm", "examples/sm/fermi-makespan.toml", "--ptx", "examples/kernels/reduction.ptx", "--entry", "nope"],
     "matches no kernel"),
    (["--sm", "examples/sm/fermi-makespan.toml", "--ptx", "examples/kernels/kmeans.ptx", "--max-loop-bound",
      "100000"], "the worst path has 90,001,200,032 instructions, more than 16,384; give smaller loop bounds"),
])
def test_ptx_refusals_are_one_line_with_exit_2(capsys, extra, msg, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["makespan", *extra, "-W", "4", "--timeout", "600"]) == 2
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1


def test_an_sm_whose_lanes_are_not_a_power_of_the_warp_size_is_refused(tmp_path, capsys):
    sm = tmp_path / "sm.toml"
    sm.write_text('[makespan]\nname = "odd"\nwarp_size = 32\n[makespan.lanes]\nL = 24\nC = 32\n'
                  '[makespan.roles]\nldst = "L"\nint = "C"\n')
    assert main(["makespan", "--ptx", str(ROOT / "examples/kernels/reduction.ptx"), "--sm", str(sm), "-W", "4"]) == 2
    assert "unit 'L' has 24 lanes for warps of 32" in capsys.readouterr().err


def test_the_search_stops_once_a_run_meets_the_proved_bound():
    """A run of the bound's length cannot be beaten: no further policy is simulated (work saved, the answer alike)."""
    k = make_kernel("LLCLL", {"L": "1", "C": "1"})
    stopped, full = PolicySearch(k, 8), PolicySearch(k, 8)
    assert stopped.more(50, target=4 * 8 + 1).makespan == full.more(50).makespan == 4 * 8 + 1
    assert stopped.runs < 5 and full.runs == 50
