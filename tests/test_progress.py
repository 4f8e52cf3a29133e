"""A long run says where it is on stderr (which phase, how many lemmas, which depth, which engine), at most
one line per period for a phase of many queries, and nothing with --quiet or --json."""
from __future__ import annotations

import pytest

import warpcheck.verify.lemmas as lemmas
from warpcheck.cli.main import main
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify.progress import every


def test_a_period_lets_through_at_most_one_line_per_period():
    seen: list[str] = []
    quiet, chatty = every(seen.append, seconds=1e9), every(seen.append, seconds=0)
    for k in range(5):
        quiet(f"q{k}")
    assert seen == []
    for k in range(3):
        chatty(f"c{k}")
    assert seen == ["c0", "c1", "c2"]
    every(None)("nothing to say to")  # no progress asked: a callable that says nothing


def test_proving_lemmas_says_each_phase_and_where_the_checks_are(monkeypatch):
    monkeypatch.setattr(lemmas, "every", lambda progress, seconds=0: progress)  # every tick, not every 10 s
    said: list[str] = []
    proved, _ = lemmas.prove_lemmas(FrontEnd(SMConfig(warps=2, design="swas", issue_policy="lrr")),
                                    progress=said.append)
    assert any(s.startswith("lemmas: ") and "candidates" in s for s in said)
    assert any("hold in every initial state" in s for s in said)
    ticks = [s for s in said if s.startswith("lemmas: round 1, ")]
    assert ticks and ticks[-1].endswith("dropped") and f"of {len(proved)} checked" in ticks[-1]


PROVE = ["prove", "--design", "swas", "--policy", "lrr", "--warps", "2", "--engine", "kind"]


@pytest.mark.parametrize("extra, talks", [([], True), (["--quiet"], False), (["--json"], False)])
def test_prove_talks_on_stderr_unless_quiet_or_json(extra, talks, capsys):
    assert main([*PROVE, *extra]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("  .. ")]
    assert bool(lines) is talks
    if talks:
        assert any("engine kind" in line for line in lines) and any("lemmas: " in line for line in lines)
        assert any("k-induction k=1" in line for line in lines)
        assert max(map(len, lines)) <= 100


MAKESPAN = ["makespan", "LCL", "--warps", "2", "--sigma", "L=1/2", "--sigma", "C=1", "--method", "smt"]


@pytest.mark.parametrize("extra, talks", [([], True), (["--quiet"], False)])
def test_makespan_is_silenced_by_quiet(extra, talks, capsys):
    assert main([*MAKESPAN, *extra]) == 0
    assert ("smt: unfinished after" in capsys.readouterr().err) is talks
