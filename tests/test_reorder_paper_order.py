"""The paper's order (paper 001, Sec. III-E): lowest instruction address, then block, then warp; iterations in order."""
from __future__ import annotations

import random

import pytest

from conftest import HANG_GUARD
from warpcheck.cli.main import main
from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.order import static_order as design_order
from warpcheck.models.reorder.streams import Streams
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.spec.reorder.reference import paper_ranks, static_order
from warpcheck.verify.reorder.props import Monitored, prove
from warpcheck.verify.result import Status

from kernel_fixtures import ROOT

DEADLOCK = [ROOT / "examples" / "reorder" / "barrier_deadlock.ptx", "--grid", 1, "--block", 64, "--param", "data=0"]


def test_paper_and_round_differ_on_the_barrier_kernel(capsys):
    for rule, expected in [("round", "W0#0, B[0, 0, 0]W1#0, B[0, 0, 0]W1#1"),
                           ("paper", "W1#0, B[0, 0, 0]W0#0, B[0, 0, 0]W1#1")]:
        assert main(["analyze", *map(str, DEADLOCK), "--order", rule]) == 0
        assert f"static order ({rule}): B[0, 0, 0]{expected}" in capsys.readouterr().out


def test_iterations_go_in_order_and_lower_addresses_first():
    assert paper_ranks([4, 9, 4, 9, 12]) == [(0, 4), (0, 9), (1, 4), (1, 9), (1, 12)]
    # two warps of one loop; warp 1 skips the first iteration's access at 9 (another path)
    order = static_order([[0, 0, 0, 0], [0, 0, 0]], "paper", [[4, 9, 4, 9], [4, 4, 9]])
    assert order == [(0, 0), (1, 0), (0, 1), (0, 2), (1, 1), (0, 3), (1, 2)]


def test_the_design_order_is_the_reference_order_on_random_programs():
    rng = random.Random(7)
    for _ in range(300):
        pcs = [[rng.randrange(6) for _ in range(rng.randrange(5))] for _ in range(rng.randrange(1, 4))]
        epochs = [[0] * len(p) for p in pcs]
        assert design_order(epochs, "paper", pcs) == static_order(epochs, "paper", pcs), pcs


def test_the_unit_under_the_paper_order_is_proved():
    work = Workload(((1,), (0, 1)), (0, 0), pcs=((7,), (5, 7)))  # barrier_deadlock.ptx's two warps
    for check in ("order", "progress"):
        r = prove(Monitored(ReorderUnit(work, 2, "paper", channel_lemmas=True), wait=True), check, timeout=HANG_GUARD)
        assert r.status is Status.PASS and not r.bounded, (check, r.message)


def test_the_paper_order_needs_addresses():
    with pytest.raises(ConfigError, match="instruction address"):
        ReorderUnit(Workload(((0,),), (0,)), 2, "paper")
    with pytest.raises(ConfigError, match="instruction address"):
        ReorderUnit(Streams((0, 0), 2), 2, "paper")


@pytest.mark.slow
def test_the_paper_order_is_proved_for_every_stream(capsys):
    assert main(["reorder", "prove", "--streams", "3", "--order", "paper"]) == 0
    out = capsys.readouterr().out
    assert "PASS (every cycle" in out and "instruction addresses 0..2" in out


@pytest.mark.slow
def test_reorder_prove_with_the_paper_order_passes_the_barrier_kernel(capsys):
    assert main(["reorder", "prove", *map(str, DEADLOCK), "--order", "paper"]) == 0
    out = capsys.readouterr().out
    assert "check order: PASS (unbounded)" in out and "B[0, 0, 0]W1#0, B[0, 0, 0]W0#0, B[0, 0, 0]W1#1" in out
