"""The numba-compiled lane loop gives the concrete simulator's figures and final states."""
from __future__ import annotations

import dataclasses

import pytest

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.sim.frontend import native
from warpcheck.sim.frontend.batch import sources_for
from warpcheck.sim.frontend.driver import run_iter
from warpcheck.sim.frontend.metrics import simulate
from warpcheck.sim.frontend.suite import BUILTIN, builtin
from warpcheck.sim.frontend.workloads import ICache, WorkloadSource

if not native.available():
    pytest.skip("numba is not installed (pip install warpcheck[fast])", allow_module_level=True)


def _check(config: SMConfig, scale: float, max_cycles: int) -> None:
    fe = FrontEnd(config)
    wls = [dataclasses.replace(builtin(name).scaled(scale), seed=k + 3) for k, name in enumerate(BUILTIN)]
    nf = native.NativeFrontEnd(fe)
    out = nf.run(sources_for(wls, config.warps, config.ibuffer, (4, 4)), max_cycles)
    for e, w in enumerate(wls):
        c = simulate(w, config, max_cycles, ICache(4, 4), engine="reference")
        assert tuple(out[e]) == (c.cycles, c.warp_instructions, c.nops, c.discrepancies, c.errors,
                                 int(c.finished)), w.name
        src = WorkloadSource(w, config.warps, config.ibuffer, ICache(4, 4))
        for t, (s, _) in enumerate(run_iter(fe, src.ibuffers(), src)):
            if t == c.cycles:
                assert [int(s[n]) for n in nf.state_names] == list(nf.final_states[e]), w.name
                break


def test_native_equals_reference_baseline_w2():
    _check(SMConfig(warps=2, design="baseline", fetch_policy="lrr", issue_policy="gtlrr"), 0.15, 400)


@pytest.mark.slow
@pytest.mark.parametrize("design, fetch, issue", [("swas", "lrr", "gtlrr"), ("baseline", "gtlo", "icount"),
                                                  ("swas", "lrr", "lrr")])
def test_native_equals_reference(design, fetch, issue):
    _check(SMConfig(warps=4, design=design, fetch_policy=fetch, issue_policy=issue), 0.3, 5000)


def test_simulate_native_engine_gives_the_compiled_figures():
    from warpcheck.sim.frontend.metrics import simulate as run
    config = SMConfig(warps=2, design="swas", issue_policy="gtlrr")
    w = builtin("kmeans").scaled(0.2)
    assert run(w, config, engine="native") == run(w, config, engine="compiled")


def test_cache_dir_keeps_the_generated_module_and_gives_the_same_figures(tmp_path, monkeypatch):
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))
    fe = FrontEnd(SMConfig(warps=1, design="swas"))
    wls = [builtin("sgemm").scaled(0.2)]
    first = native.NativeFrontEnd(fe).run(sources_for(wls, 1, 4), 10_000)
    again = native.NativeFrontEnd(fe).run(sources_for(wls, 1, 4), 10_000)
    assert (first == again).all() and len(list(tmp_path.glob("warpcheck_native_*.py"))) == 1
    monkeypatch.delenv(native.CACHE_ENV)
    assert (native.NativeFrontEnd(fe).run(sources_for(wls, 1, 4), 10_000) == first).all()


@pytest.mark.slow
def test_native_equals_reference_qaws_two_kernels():
    _check(SMConfig(warps=4, design="swas", issue_policy="qaws", kernel_of_warp=(0, 0, 1, 1), budgets=(1, 4)), 0.15, 3000)
