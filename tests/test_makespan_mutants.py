"""The makespan mutation suite: every single-point bug of the transform, the machine and the moves is killed.

A kill is judged by code that imports nothing of the design (``api/_makespan/mutation.py`` says what counts):
the certificate checker, the reference replay and the reference enumeration of ``sim/makespan/``.
"""
from __future__ import annotations

import json
import random

import pytest

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck._makespan import mutation
from warpcheck._makespan.mutation import MUTANTS, applied, kill
from warpcheck.models.makespan import kernel as design_kernel
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.mutants import Mutant
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.reference_enum import ReferenceBudgetExceeded, reference_worst_case
from warpcheck.spec.makespan.replay import replay_issue


SEARCHED = [n for n, m in MUTANTS.items() if m.method != "ptx-roles"]  # the PTX-roles ones run no search
# (their tests: tests/test_makespan_ptx_roles.py)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_mutant_is_killed_with_replayed_evidence(name, tmp_path):
    k = kill(name, tmp_path)
    assert (k.status, k.replayed, k.verdict) == ("FAIL", True, "killed"), k.evidence


@pytest.mark.parametrize("name", SEARCHED)
def test_the_checker_alone_refuses_each_mutant_s_certificate(name, tmp_path):
    """No oracle needed: the certificate of the mutant's answer does not hold (the n + 1 copies bug included);
    the interval mutants' certificates are interval certificates, checked by spec/makespan/interval_check.py."""
    m = MUTANTS[name]
    o, cert = mutation._search(m, m.warps, m.method)
    assert cert is not None and (o.exact or m.method == "interval")
    with pytest.raises(CertificateRefused):
        check_interval(cert) if cert.get("interval") else check(cert)


@pytest.mark.parametrize("name", SEARCHED)
def test_the_design_itself_passes_the_same_judge(name):
    """Without the bug the same instance, search and judge give PASS: the FAIL above is the mutant's."""
    m = MUTANTS[name]
    clean = Mutant(m.name, m.breaks, {}, m.kernel, m.sigma, m.warps, method=m.method)
    o, cert = mutation._search(clean, clean.warps, clean.method)
    assert (check_interval(cert).lower if cert.get("interval") else check(cert).makespan) == o.makespan
    assert mutation._judge(clean, clean.warps, o, cert)[0] == "PASS"


def test_the_verb_refuses_a_transform_making_n_plus_1_copies(capsys):
    """The schedule is replayed on the checker's own transform: exit 5, internal error, not a wrong answer."""
    argv = ["makespan", "LC", "-W", "3", "--sigma", "L=1/2", "--sigma", "C=1", "--method", "enumerate", "--json"]
    with applied(MUTANTS["transform-n-plus-1"]):
        assert main(argv) == 5
    assert "does not replay" in capsys.readouterr().err
    assert main(argv) == 0 and json.loads(capsys.readouterr().out)["makespan"] == 7


def test_applied_puts_the_originals_back():
    original = design_kernel.transform
    with applied(MUTANTS["transform-n-plus-1"]):
        assert design_kernel.transform is not original
        assert len(make_kernel("LC", {"L": "1/2", "C": "1"}).instrs) == 4
    assert design_kernel.transform is original and len(make_kernel("LC", {"L": "1/2", "C": "1"}).instrs) == 3


def test_the_suite_covers_transform_machine_moves_and_the_interval():
    kinds = {m.breaks.split(":")[0] for m in MUTANTS.values()}
    assert kinds == {"transform", "machine", "moves", "alternation bound", "critical-warp bound", "interval",
                     "backlog LP", "pair bound", "Eq. 5-7 bound", "PTX roles", "ILP"} and len(MUTANTS) >= 5


@pytest.mark.parametrize("name,method", [("critical-warp-one-warp-short", "auto"), ("ilp-horizon-one-short", "ilp"),
                                         ("critical-warp-one-warp-short", "ilp")])
def test_the_verb_prints_no_exact_answer_the_checker_refuses(capsys, name, method):
    """LL, sigma 2, W = 4 (the truth is 5): the mutant's 4 is refused by the checker before it is printed, with no
    --certificate asked; exit 5 (a bug of warpcheck), and without the mutant the verb answers 5."""
    argv = ["makespan", "LL", "-W", "4", "--sigma", "L=2", "--method", method]
    with applied(MUTANTS[name]):
        assert main(argv) == 5
    err = capsys.readouterr().err
    assert "certificate refused" in err and "makespan <= 5, not 4" in err
    assert main(argv) == 0 and "exact worst-case makespan: 5" in capsys.readouterr().out


def _random_instances(n, seed=7):
    rnd = random.Random(seed)
    for _ in range(n):
        text = "".join(rnd.choice("LCM") + (f"{rnd.randint(2, 3)}{rnd.choice(['', 'p'])}" if rnd.random() < 0.25 else "")
                       for _ in range(rnd.randint(1, 5)))
        sig = {u: rnd.choice(["1", "2", "1/2", "1/3"]) for u in set(text) if u.isupper()}
        yield text, sig, rnd.randint(1, 4)


def test_reference_transform_and_enumeration_agree_with_the_design_on_random_instances():
    """Two transforms and two enumerations written apart: equal on 30 random kernels (latencies, pipelining)."""
    for text, sig, w in _random_instances(30):
        mine, ref = make_kernel(text, sig), reference_kernel(text, sig)
        assert [(i.unit, i.latency, i.pipelined) for i in mine.instrs] == \
            [(i.unit, i.latency, i.pipelined) for i in ref.instrs] and mine.sigma == ref.sigma
        run = reference_worst_case(ref, w)
        assert run.makespan == worst_case(mine, w).makespan
        r = replay_issue(ref, run.issue)
        assert r.ok and r.makespan == run.makespan


def test_the_paper_s_fig_1_example_and_the_reference_budget():
    """LC with sigma_L = 1/2 becomes LLC with sigma_L = 1 (Fig. 1); the enumeration is bounded by states, not time."""
    k = reference_kernel("LC", {"L": "1/2", "C": "1"})
    assert "".join(i.unit for i in k.instrs) == "LLC" and k.sigma == (("L", 1), ("C", 1))
    with pytest.raises(ReferenceBudgetExceeded):
        reference_worst_case(reference_kernel("LLCLL", {"L": "1", "C": "1"}), 8, max_states=50)


@pytest.mark.parametrize("text,sigma", [("", {"L": "1"}), ("Lx", {"L": "1"}), ("L0", {"L": "1"}), ("L65", {"L": "1"}),
                                        ("Lp", {"L": "1"}), ("LC", {"L": "1"}), ("L", {"L": "0"}), ("L", {"L": "2/3"}),
                                        ("L", {"L": "1/17"}), ("L", {"L": "-1"}), ("L", {"L": "1.5"})])
def test_reference_and_design_refuse_the_same_bad_instances(text, sigma):
    from warpcheck.models.errors import ConfigError
    with pytest.raises(ConfigError):
        make_kernel(text, sigma)
    with pytest.raises(ConfigError):
        reference_kernel(text, sigma)


@pytest.mark.slow
@pytest.mark.parametrize("name", SEARCHED)
def test_mutant_is_killed_at_more_warps(name, tmp_path):
    """W = 6, or twice the instance's W where that is more (the backlog LP's instances need W >= 8 to beat the
    pair bound at all)."""
    assert kill(name, tmp_path, warps=max(6, 2 * MUTANTS[name].warps)).verdict == "killed"


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, m in MUTANTS.items() if m.method == "enumerate"])
def test_mutant_is_killed_by_the_ranking_method(name, tmp_path):
    """The ranking search at W = 8: killed, except may-idle, whose extra moves that search does not take:
    its answer there is right (equal to the reference, its run replays) and its certificate holds."""
    k = kill(name, tmp_path, warps=8, method="ranking")
    if name == "may-idle":
        assert k.status == "PASS" and "reference 33; its schedule replays to" in k.evidence, k.evidence
    else:
        assert k.verdict == "killed", k.evidence


def test_the_eq5_7_mutant_also_cuts_the_ilp_horizon():
    """Taken as a bound with a unit of sigma 2, Eq. 5-7 would be the ILP's horizon too: the ILP then answers the
    cut run (4) as optimal, below the enumeration's 5; without the mutant it answers 5."""
    from warpcheck.encodings.makespan.ilp import MakespanIlp

    kernel = make_kernel("LL", {"L": "2"})
    with applied(MUTANTS["pessimistic-on-wide-units"]):
        cut = MakespanIlp(kernel, 4).solve(timeout=HANG_GUARD)
    assert cut.optimal and cut.makespan == 4 < worst_case(kernel, 4).makespan == 5
    assert MakespanIlp(kernel, 4).solve(timeout=HANG_GUARD).makespan == 5
