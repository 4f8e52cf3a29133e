"""The QAWS paper's Fig. 3, rebuilt from the text: every statement the text makes holds for FIG3."""
from __future__ import annotations

import pytest

from warpcheck.sim.qaws.fig3 import FIG3, fig3_runs, fig3_statements

RUNS = {}


def _runs():
    if not RUNS:
        RUNS.update(fig3_runs(FIG3))
    return RUNS


@pytest.mark.parametrize("statement", list(fig3_statements(fig3_runs(FIG3))))
def test_each_statement_of_the_text_holds(statement):
    ok, why = fig3_statements(_runs())[statement]
    assert ok, f"{statement}: {why}"


def test_the_rebuilt_schedules():
    order = {n: "".join("." if w < 0 else str(w) for w in r.order) for n, r in _runs().items()}
    assert order["qaws-1-4"] == "0123223322220011223333000033111100..11"
    assert order["gto"] == "0100110000111100231122332222333322..33"
    assert [k.response for k in _runs()["qaws-1-6"].kernels] == [40, 21]


def test_reference_engine_gives_the_same_schedules():
    ref = fig3_runs(FIG3, engine="reference")
    assert {n: r.order for n, r in ref.items()} == {n: r.order for n, r in _runs().items()}
