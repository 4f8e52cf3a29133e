"""The reordering unit's mutation suite: every mutant ends FAIL over the streams, with a witness that replays."""
from __future__ import annotations

import json

import pytest

from warpcheck.cli.main import main
from warpcheck._reorder.mutation import MUTANTS, kill
from warpcheck.sim.reorder.stream_replay import replay_stream

# Mutants whose violation needs a deeper BMC (about 5-6 cycles, a few seconds each).
DEEP = {"sent-stays", "backlog-plus-one", "hit-not-mru"}
ISSUE = {"pointer-stuck", "pointer-two-slots", "wrong-channel", "sent-stays", "tail-before-send",
         "backlog-plus-one", "epoch-ignored", "hit-not-mru", "set-from-byte-address"}


def _expect(name, tmp_path) -> None:
    k = kill(name, tmp_path)
    assert k.verdict == ("equivalent" if MUTANTS[name].equivalent else "killed"), k
    if not MUTANTS[name].equivalent:
        path = tmp_path / f"reorder-{name}.json"
        assert main(["reorder", "replay", str(path)]) == 0  # the verb a user runs reproduces it


@pytest.mark.parametrize("name", [n for n in MUTANTS if n not in DEEP])
def test_mutant_is_killed_over_every_stream(name, tmp_path):
    _expect(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_mutant_is_killed_over_every_stream(name, tmp_path):
    _expect(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MUTANTS))
def test_every_mutant_is_killed_at_three_warps(name, tmp_path):
    k = kill(name, tmp_path, warps=3, timeout=600)
    assert k.verdict == ("equivalent" if MUTANTS[name].equivalent else "killed"), k


def test_the_suite_holds_every_mutant_the_issue_names():
    assert ISSUE <= set(MUTANTS) and len(MUTANTS) - sum(m.equivalent for m in MUTANTS.values()) >= 10


def test_a_mutant_witness_does_not_replay_on_the_correct_unit(tmp_path):
    """The replay can fail: the same stream and schedule on the unit itself violate nothing."""
    kill("ties-to-higher-warp", tmp_path)
    w = json.loads((tmp_path / "reorder-ties-to-higher-warp.json").read_text())
    assert replay_stream(w)["reproduced"]
    w["mutant"] = None
    again = replay_stream(w)
    assert not again["reproduced"] and not again["violated"]
