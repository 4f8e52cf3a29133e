"""The mutation suite: every single-point bug of SWaS ends FAIL with a witness that replays."""
from __future__ import annotations

import pytest

from warpcheck._frontend.options import ProveOptions
from warpcheck._frontend.proof import prove_run
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.mutants import MUTANTS

# Bugs that need a whole miss window (or an fdiv) before they show: a BMC of about 12-17 cycles.
DEEP = {"suspension-short", "suspension-long", "no-nop-on-miss", "refetch-may-miss", "unit-released-early"}


def _prove(name: str, warps: int, tmp_path, timeout: float = 300):
    m = MUTANTS[name]
    cfg = SMConfig(warps=warps, design="swas", issue_policy=m.policy or "gtlrr", check_buffer=False)
    cfg = cfg.with_(**dict(m.config))
    job = ProveOptions(config=cfg, timeout=timeout, witness=str(tmp_path / f"{name}.json"))
    return m, prove_run(job, model=m.make(cfg))


def _expect(m, out) -> None:
    r = out.result
    if m.equivalent:
        assert r.status.value == "PASS" and not r.bounded, f"{m.name}: {r.label} ({r.message})"
        return
    assert r.status.value == "FAIL", f"{m.name} ({m.breaks}) survives: {r.label} ({r.message})"
    assert out.witness_path and out.replays[0].first_violation is not None  # replayed before it was written


# Killed by another default test through the same proof (at W = 3): not proved twice.
KILLED_ELSEWHERE = {"gtlo-falls-back-to-rr"}  # tests/test_parametric.py, through --all-warps


@pytest.mark.parametrize("name", [n for n in MUTANTS if n not in DEEP | KILLED_ELSEWHERE])
def test_shallow_mutant_is_killed_at_two_warps(name, tmp_path):
    _expect(*_prove(name, 2, tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_mutant_is_killed_at_two_warps(name, tmp_path):
    _expect(*_prove(name, 2, tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MUTANTS))
def test_every_mutant_is_killed_at_four_warps(name, tmp_path):
    _expect(*_prove(name, 4, tmp_path, timeout=600))


def test_the_suite_covers_the_classes_of_bugs_the_issue_names():
    kinds = {m.breaks.split(":")[0].split(" ")[0] for m in MUTANTS.values()}
    assert {"issue", "readiness", "miss", "fetch", "branch", "timing", "scoreboard", "units", "policy"} <= kinds
    assert len(MUTANTS) >= 25


def test_a_witness_instruction_keeps_how_often_its_refetch_missed():
    from warpcheck.models.errors import InputFileError
    from warpcheck.models.frontend.stream import Instr
    ins = Instr("fadd", miss=True, refetch_misses=2)
    assert Instr.from_json(ins.to_json(), "w") == ins and ins.misses == 3
    assert "refetch_misses" not in Instr("int", miss=True).to_json()  # version-2 files stay as they were
    with pytest.raises(InputFileError, match="refetch_misses = -1; it must be an integer >= 0"):
        Instr.from_json({"cls": "int", "refetch_misses": -1}, "w")


def test_the_harness_reports_a_frontend_kill_with_its_replayed_witness(tmp_path):
    from warpcheck._frontend.mutation import kill
    k = kill("pick-when-none", tmp_path, warps=2)
    assert k.verdict == "killed" and k.replayed and "violation at cycle" in k.evidence
