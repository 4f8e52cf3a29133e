"""The makespan verb: report, JSON, and one-line errors with exit code 2."""
import json
import time

import pytest

from warpcheck.cli.main import main


def test_text_report_shows_all_three_figures_and_the_schedule(capsys):
    assert main(["makespan", "LLC", "--warps", "4", "--sigma", "L=1", "--sigma", "C=1"]) == 0
    out = capsys.readouterr().out
    assert "exact worst-case makespan: 9" in out and "pessimistic bound (Eq. 5-7): 12" in out
    assert "approximation" in out and "cycle w1 w2 w3 w4" in out


@pytest.mark.parametrize("method", ["smt", "enumerate", "ilp", "optimize"])
def test_json_has_the_required_keys(capsys, method):
    assert main(["makespan", "LLCLL", "--warps", "2", "--sigma", "L=1", "--sigma", "C=1",
                 "--method", method, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("kernel", "warps", "sigma", "makespan", "exact", "pessimistic", "method", "seconds", "schedule"):
        assert key in out
    assert out["makespan"] == 9 and out["exact"] and out["method"] == method and out["replay"]["ok"]


@pytest.mark.parametrize("method", ["smt", "ilp", "optimize"])
def test_an_exact_answer_of_a_solver_is_checked_by_the_checker_without_certificate_asked(method):
    """smt, optimize and ilp keep no proof of their bound: the verb finds one (the enumeration's table on LCM, where
    the closed forms are above 5; the pair bound on LLCLL, where it is the worst case) and the independent checker
    checks it before the answer is printed."""
    import warpcheck
    from warpcheck.spec.makespan.certificate_check import check
    from warpcheck.spec.makespan.interval_check import check_interval

    r = warpcheck.makespan("LCM", 3, {"L": "1", "C": "1", "M": "1"}, method=method)
    assert r.exact and r.makespan == 5 and r.certificate is not None and "check" in r.timings
    assert r.certificate["bound"]["method"] == "enumerate" and check(r.certificate).makespan == 5
    r = warpcheck.makespan("LLCLL", 2, {"L": "1", "C": "1"}, method=method)
    assert r.exact and r.certificate is not None and r.certificate["bound"]["method"] == "pairs"
    assert check_interval(r.certificate).upper == r.makespan == 9


@pytest.mark.parametrize("method,value", [("approx", 9), ("pessimistic", 10)])
def test_estimates_are_not_exact(capsys, method, value):
    assert main(["makespan", "LLCLL", "-W", "2", "--sigma", "L=1", "--sigma", "C=1", "--method", method,
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["makespan"] == value and out["exact"] is False


@pytest.mark.parametrize("argv,msg", [
    (["", "--warps", "2", "--sigma", "L=1"], "is empty"),
    (["LC", "--warps", "2", "--sigma", "L=1"], "'C' of the kernel has no sigma"),
    (["LC", "--warps", "2", "--sigma", "L=0", "--sigma", "C=1"], "must be positive"),
    (["LC", "--warps", "2", "--sigma", "L=-2", "--sigma", "C=1"], "not of the form n or 1/n"),
    (["LC", "--warps", "2", "--sigma", "L=3/4", "--sigma", "C=1"], "not of the form n or 1/n"),
    (["LC", "--warps", "0", "--sigma", "L=1", "--sigma", "C=1"], "--warps 0: not allowed; it must be >= 1"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, argv, msg):
    assert main(["makespan", *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and "Traceback" not in err


def test_ilp_refuses_multi_cycle_instructions_with_exit_code_2(capsys):
    assert main(["makespan", "LC3", "-W", "2", "--sigma", "L=1", "--sigma", "C=1", "--method", "ilp"]) == 2
    assert "single-cycle instructions only" in capsys.readouterr().err


def test_multi_cycle_kernel_is_solved_and_shown(capsys):
    assert main(["makespan", "L C3p", "-W", "2", "--sigma", "L=1", "--sigma", "C=1"]) == 0
    out = capsys.readouterr().out
    assert "exact worst-case makespan" in out and "~" in out


def test_auto_within_timeout_reports_its_best_run_as_a_lower_bound(capsys, monkeypatch):
    """12 phases at W = 600 are beyond every method: exit 4 with the run found, not a TIMEOUT that loses it.

    Bounded by work, not by --timeout (never reached here): the enumeration stops at 20,000 states, and the
    bound methods' portfolio is replaced by one that found nothing (what it returns at this size, however long
    it runs); the fallback (the best of the cheap runs, replayed) is what is tested.
    """
    from functools import partial

    import warpcheck._makespan.auto as auto
    monkeypatch.setattr(auto, "Enumeration", partial(auto.Enumeration, max_states=20_000))
    monkeypatch.setattr(auto, "portfolio", lambda *a, **k: [])
    rc = main(["makespan", "LCLCLLLL", "--sigma", "L=2", "--sigma", "C=1/3", "-W", "600", "--timeout", "600",
               "--json"])  # L serves two warps a cycle: the bounds leave a gap
    out = json.loads(capsys.readouterr().out)
    assert rc == 4 and "status" not in out
    assert out["exact"] is False and out["makespan"] >= 7 * 600 and out["replay"]["ok"]
    assert out["upper"] == {"value": 4676, "method": "backlog LP"}  # the interval's upper bound (pairs: 4804)
    assert [t["method"] for t in out["tried"]] == ["enumerate"] and not out["tried"][0]["exact"]


def test_auto_answers_from_whichever_bound_method_is_exact(capsys, monkeypatch):
    """The portfolio is exact on LLLLLL (blocks can answer), LLCLLL (deficit with an invariant, or the
    interval) and LLCCM2 (a latency: the block methods take one-cycle kernels only; steep, so deficit
    cannot; the ranking LP can). Which member answers first is the machine's doing: the test asserts the
    answer, that its method says it is exact, and that its schedule replays to that makespan.
    The closed forms, tried first, would answer the first two (pairs): they are set aside here.
    The --timeout is a hang guard only (each answer takes about a second on an idle machine)."""
    import warpcheck._makespan.auto as auto
    from warpcheck._makespan.methods import Outcome
    monkeypatch.setattr(auto, "closed_first", lambda *a, **k: Outcome(None, False, None, 0.0, "set aside"))
    for argv, value in ((["LLLLLL", "--sigma", "L=1/3"], 18 * 40),
                        (["LLCLLL", "--sigma", "L=1", "--sigma", "C=1/2"], 5 * 40 + 2),
                        (["LLCCM2", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "M=1"], 4 * 40 + 2)):
        assert main(["makespan", *argv, "-W", "40", "--timeout", "600", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["makespan"], out["exact"]) == (value, True), out
        answered = [t for t in out["tried"] if t["method"] == out["method"]]
        assert answered and answered[-1]["exact"], out["tried"]
        assert out["replay"]["ok"], out["replay"]


def test_auto_answers_from_a_closed_form_met_by_a_run_before_any_search(capsys, tmp_path):
    """LCCLLC at W = 40, two units of sigma 1: the pair bound 6 + 39 * 3 is met by a convoy with one warp held
    back, so auto is exact without the enumeration (which needs 387,081 states) nor the portfolio; the
    certificate is an interval of one, checked again."""
    cert = tmp_path / "c.json"
    argv = ["makespan", "LCCLLC", "-W", "40", "--sigma", "L=1", "--sigma", "C=1", "--json"]
    assert main(argv + ["--certificate", str(cert)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["method"], out["makespan"], out["exact"]) == ("interval", 123, True) and "pairs" in out["note"]
    assert [t["method"] for t in out["tried"]] == ["interval"] and out["replay"]["ok"]
    assert json.loads(cert.read_text())["bound"] == {"method": "pairs"}
    assert main(["makespan", "--check", str(cert)]) == 0 and "holds" in capsys.readouterr().out
    # Eq. 5-7 is no bound with a unit of sigma 2 (4 here): a run meeting it must not be taken as exact
    assert main(["makespan", "LL", "-W", "4", "--sigma", "L=2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["makespan"] == 5


@pytest.mark.parametrize("kernel,sigma,expected", [
    ("LLLCLCL", {"C": "1/3", "L": "1"}, True),   # 8W + 3 against 6W of C work
    ("MLLMMMCC", {"C": "1", "L": "3", "M": "1/2"}, True),  # 9W + 1 against 8W of M work
    ("LLCLL", {"C": "1", "L": "1"}, False),  # 4W + 1: L's work plus one cycle
    ("LCLML", {"C": "1/3", "L": "3", "M": "1"}, False),  # 3W + 4: C's work plus four
])
def test_auto_tells_steep_kernels_from_the_others(kernel, sigma, expected):
    """Steep: the worst case outgrows every unit's work, so a deficit bound (one constant for every W) cannot meet it."""
    from warpcheck._makespan.auto import steep
    from warpcheck.models.makespan.kernel import parse_kernel, parse_sigmas, transform

    assert steep(transform(parse_kernel(kernel), parse_sigmas(f"{u}={v}" for u, v in sigma.items()))) is expected


def test_auto_runs_only_the_ranking_lps_on_a_steep_kernel(capsys):
    """LLCCM2 is steep (4W + 2 against 2W of L work): blocks and deficit are not started, ranking answers."""
    argv = ["makespan", "LLCCM2", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "M=1", "-W", "40", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["method"], out["makespan"], out["exact"]) == ("ranking", 4 * 40 + 2, True)
    assert {t["method"] for t in out["tried"]} <= {"enumerate", "block-ranking", "ranking"}


def test_a_run_that_is_not_exact_also_reports_the_bound_proved(capsys, monkeypatch):
    """Exit 4 with an interval: the best run below, the least bound proved above, the true worst case between.

    Bounded by work: the ranking search refines the default caps only (max_extra = 0) and ends by itself
    (no invariant excludes the LP's dual); --timeout is a ceiling it does not reach.
    """
    from functools import partial

    from warpcheck.verify.makespan import ranking
    monkeypatch.setattr(ranking, "ranking_search", partial(ranking.ranking_search, max_extra=0))
    # LCLML is a rates kernel: the ranking bound stays above the worst case (LLCLLL, used before, is now exact)
    argv = ["makespan", "LCLML", "--warps", "8", "--sigma", "C=1/3", "--sigma", "L=3", "--sigma", "M=1"]
    assert main(argv + ["--method", "ranking", "--timeout", "600", "--json"]) == 4
    out = json.loads(capsys.readouterr().out)
    assert out["upper"]["method"] == "ranking" and out["upper"]["value"] > out["makespan"]
    assert main(argv + ["--method", "enumerate", "--json"]) == 0
    truth = json.loads(capsys.readouterr().out)
    assert out["makespan"] <= truth["makespan"] <= out["upper"]["value"]
    assert truth["upper"] == {"value": truth["makespan"], "method": "exact"}


def _alarm(*args):
    from warpcheck._guard import RunTimeout
    raise RunTimeout  # as the run guard's alarm does, at once: bounded by work, not by the clock


def test_a_certificate_checked_past_the_timeout_is_not_written_and_the_answer_is_not_exact(tmp_path, capsys,
                                                                                          monkeypatch):
    """The search ends in time, the certificate check does not: no exact answer is printed unchecked, so the search's
    17 is a lower bound with the least closed bound above it (exit 4), no file, and the report says why."""
    import warpcheck._makespan.search as search

    monkeypatch.setattr(search, "check", _alarm)
    cert = tmp_path / "c.json"
    argv = ["makespan", "LLCLL", "-W", "4", "--sigma", "L=1", "--sigma", "C=1", "--method", "enumerate",
            "--timeout", "60", "--certificate", str(cert), "--json"]
    assert main(argv) == 4
    out = json.loads(capsys.readouterr().out)
    assert (out["makespan"], out["exact"], out["certificate"]) == (17, False, None) and out["upper"]["value"] >= 17
    assert "not written" in out["note"] and "not printed as exact" in out["note"] and not cert.exists()
    assert main(argv[:-1]) == 4  # the text says why no file was written, and what to do
    text = capsys.readouterr().out
    assert "certificate: none written (--timeout ran out while it was checked)" in text
    assert "makespan (not proved exact): 17" in text and "run again with a longer --timeout" in text


def test_an_interval_whose_time_the_set_up_used_up_still_has_both_ends(monkeypatch):
    """A deadline already past (set-up ate it) still gets one policy run: a lower end, and the closed upper bound."""
    from warpcheck._makespan.interval import interval_only
    from warpcheck.models.makespan.kernel import parse_kernel, parse_sigmas, transform

    kernel = transform(parse_kernel("LLCLM"), parse_sigmas(["L=1", "C=1", "M=1"]))
    out = interval_only(kernel, 8, time.monotonic() - 1.0, None)
    assert out.makespan and out.upper is not None and out.makespan <= out.upper[0]


def test_the_alarm_during_the_estimates_still_prints_the_interval(capsys, monkeypatch):
    from functools import partial

    import warpcheck._makespan.search as search

    monkeypatch.setattr(search, "_approx", _alarm)
    monkeypatch.setattr(search, "interval_only", partial(search.interval_only, runs=25))  # work, not the clock
    argv = ["makespan", "LLCLCCLLLCLCCLLLCCLM", "-W", "32", "--sigma", "L=1", "--sigma", "C=1", "--sigma", "M=1",
            "--method", "interval", "--json"]
    assert main(argv) == 4
    out = json.loads(capsys.readouterr().out)
    assert 0 < out["makespan"] <= out["upper"]["value"] and out["exact"] is False and out["approximation"] is None


def test_auto_pairs_one_method_s_bound_with_another_s_run_and_certifies_the_pair():
    """A bound not met by its own run is met by another method's run: exact, and the certificate holds."""
    from dataclasses import replace

    from warpcheck._makespan.auto import run_meets_bound
    from warpcheck._makespan.certificate import certificate
    from warpcheck._makespan.methods import BOUNDS, enumerate_counts
    from warpcheck.models.makespan.kernel import parse_kernel, parse_sigmas, transform
    from warpcheck.models.makespan.schedule import from_counts
    from warpcheck.models.makespan.sm import CountSM
    from warpcheck.models.makespan.moves import CountMoves
    from warpcheck.spec.makespan.certificate_check import check
    from warpcheck.verify.makespan.abstract import priority_run

    kernel, warps = transform(parse_kernel("LLCLL"), parse_sigmas(["L=1", "C=1"])), 8
    ranked = BOUNDS["ranking"](kernel, warps, 30.0, None)
    truth = enumerate_counts(kernel, warps, None, None)
    assert ranked.exact and ranked.upper == (truth.makespan, "ranking") and ranked.proof is not None
    sm = CountSM(kernel, warps)
    short = priority_run(CountMoves(sm), False)
    assert len(short) < truth.makespan  # the ranking method's own run, made to fall short
    shortfall = replace(ranked, makespan=len(short), exact=False, schedule=from_counts(sm, short))
    other = replace(truth, exact=False, proof=None)  # a run of the worst case, with no bound
    name, paired = run_meets_bound([("ranking", shortfall), ("enumerate", other)])
    assert (name, paired.makespan, paired.exact) == ("ranking", truth.makespan, True)
    cert = certificate("LLCLL", {"L": "1", "C": "1"}, warps, paired.schedule, paired.proof)
    assert check(cert).makespan == truth.makespan
    # one cycle short of the bound is no answer
    shorter = replace(other, makespan=truth.makespan - 1)
    assert run_meets_bound([("ranking", shortfall), ("enumerate", shorter)]) is None

