"""PTX kernels on the front ends: each warp's stream is its SIMT run alone; the data cache is the L1 model's."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from warpcheck import SimulateOptions, simulate
from warpcheck._reorder.launch import bind_params, run_analysis, workload
from warpcheck._reorder.options import LaunchOptions
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.models.kernels.cfg import KernelCFG
from warpcheck.models.kernels.kernel import CLASS_INDEX
from warpcheck.models.reorder.l1 import L1Spec
from warpcheck.models.reorder.order import static_order
from warpcheck.sim.frontend.ptx_stream import DataCache, PtxRun
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.sim.reorder.accesses import coalesce
from warpcheck.sim.reorder.timing import stream_of
from warpcheck.spec.kernels.thread_ops import WarpInputs
from warpcheck.spec.reorder.l1_replay import replay

ROOT = Path(__file__).resolve().parents[1]
HOTSPOT = str(ROOT / "examples" / "kernels" / "hotspot.ptx")
# two warps, cols = 40: warp 1 has 8 live lanes, the border cells diverge from the interior ones
PARAMS = {"0": 0, "1": 1 << 20, "2": 40, "3": 1, "4": 3, "5": 0}
SMALL = L1Spec(1024, 2)  # 8 lines: the order of the warps changes hits and misses


@pytest.fixture(scope="module")
def launch():
    an = run_analysis(LaunchOptions(kernel=HOTSPOT, grid=1, block=64, param=PARAMS))
    work, lines = workload(an, limit=False)
    return an, work, lines, [w.trace for w in an.warps]


def simt_pcs(an, w: int) -> tuple[list[int], list[tuple[int, str, tuple[int, ...]]]]:
    """Warp ``w`` run alone by ``simt``'s SIMT simulator: the pcs it executes and its global accesses."""
    kernel = an.kernel
    run = run_warp(kernel, WarpInputs(bind_params(PARAMS, kernel), (0, 0, 0), (64, 1, 1), (1, 1, 1)), warp=w)
    cfg = KernelCFG(kernel)
    pcs = [pc for b, _ in run.steps for pc in range(cfg.blocks[b].start, cfg.blocks[b].end)]
    accesses = [(a.pc, "S" if a.kind == "store" else "L", coalesce([x for _, x in a.addresses], 4, 128))
                for a in run.accesses if a.space in ("global", "generic") and a.addresses]
    return pcs, accesses


@pytest.mark.parametrize("design", ["baseline", "swas"])
@pytest.mark.parametrize("cache", [DataCache(SMALL), DataCache(None), DataCache(SMALL, unit=True)], ids=["l1", "off", "unit"])
def test_front_end_issues_each_warps_simt_run(launch, design, cache):
    """What the front end issues of each warp (its classes, in order) is the warp's SIMT run alone."""
    an, work, lines, traces = launch
    run = PtxRun("hotspot", an.kernel, traces, work, lines, SMConfig(warps=2, design=design), cache)
    m = run.run(50_000)
    assert m.finished and not m.deadlock
    for w in range(2):
        pcs, accesses = simt_pcs(an, w)
        alone = stream_of(an.kernel, [(pc, -1) for pc in pcs], lambda c: run.config.latency[c])
        assert run.issued[w] == [CLASS_INDEX[ins.cls] for _, ins in alone]
        assert [pc for pc, _ in traces[w]] == pcs
        mine = [(a.pc, a.kind, a.lines) for a in an.warps[w].accesses]
        assert mine == accesses
    assert any(ins.taken for _, ins in run.streams[1][:-1])  # warp 1 diverges: its stream has taken branches
    assert m.warp_instructions == sum(len(t) for t in traces)


def test_the_unit_makes_the_misses_the_static_orders(launch):
    """Behind the reordering unit the L1 sees the static order whatever the design: its misses are the replay's."""
    an, work, lines, traces = launch
    static = replay([lines[w][k] for w, k in static_order(work.epochs, "round")], SMALL)
    for design in ("baseline", "swas"):
        m = PtxRun("hotspot", an.kernel, traces, work, lines, SMConfig(warps=2, design=design),
                   DataCache(SMALL, unit=True)).run(50_000)
        assert (m.l1_loads, m.l1_misses) == (static.loads, static.load_misses)


def test_swas_makes_no_scheduling_error_on_a_real_kernel(launch):
    """SWaS's issue matches osched2 on every cycle, the baseline's does not, with and without the cache."""
    an, work, lines, traces = launch
    for cache in (DataCache(SMALL), DataCache(None)):
        swas = PtxRun("h", an.kernel, traces, work, lines, SMConfig(warps=2, design="swas"), cache).run(50_000)
        base = PtxRun("h", an.kernel, traces, work, lines, SMConfig(warps=2, design="baseline"), cache).run(50_000)
        assert swas.errors == 0 and base.errors > 0
        assert swas.committed == base.committed


def test_committed_counts_the_active_lanes_of_each_warps_simt_run(launch):
    """committed is thread instructions, as the paper's: each issued instruction counts the lanes that
    ``simt``'s run of its warp alone has active (warp 1 has 8 live lanes; border cells diverge)."""
    an, work, lines, traces = launch
    want = 0
    for w in range(2):
        run = run_warp(an.kernel, WarpInputs(bind_params(PARAMS, an.kernel), (0, 0, 0), (64, 1, 1), (1, 1, 1)), warp=w)
        blocks = KernelCFG(an.kernel).blocks
        want += sum(bin(mask).count("1") * (blocks[b].end - blocks[b].start) for b, mask in run.steps)
    r = simulate(ptx=HOTSPOT, block=64, param=PARAMS, design="both", dcache="1K:2")
    assert [x.committed for x in r.runs] == [want, want]
    assert want < 32 * r.runs[0].warp_instructions


def test_the_cache_times_the_loads(launch):
    """Without a cache every request takes the miss latency: more cycles, no L1 figures."""
    an, work, lines, traces = launch
    on = PtxRun("h", an.kernel, traces, work, lines, SMConfig(warps=2), DataCache(SMALL)).run(50_000)
    off = PtxRun("h", an.kernel, traces, work, lines, SMConfig(warps=2), DataCache(None)).run(50_000)
    assert off.cycles > on.cycles and (off.l1_loads, off.l1_misses) == (0, 0) and on.l1_misses < on.l1_loads


def test_simulate_ptx_from_the_library():
    r = simulate(ptx=HOTSPOT, block=64, param=PARAMS, design="both", dcache="1K:2")
    assert [(x.design, x.policies) for x in r.runs] == [("baseline", "lrr-gtlrr"), ("swas", "gtlrr")]
    assert r.code == 0 and "l1_misses" in r.report() and r.to_dict()["runs"][0]["dcache"] == "1K:2"


@pytest.mark.parametrize("keywords, option, problem", [
    ({"grid": 2}, "grid", "given without ptx"),
    ({"ptx": HOTSPOT, "warps": 4, "block": 64}, "warps", "not the launch's 2 warps"),
    ({"ptx": HOTSPOT}, "block", "not given"),
    ({"ptx": HOTSPOT, "block": 64, "engine": "native"}, "engine", "not an engine of PTX kernels"),
    ({"ptx": HOTSPOT, "block": 64, "dcache": "3K:4"}, "dcache", "power of two"),
    ({"ptx": HOTSPOT, "block": 64, "dcache_hit": 30, "dcache_miss": 20}, "dcache_miss", "must be >= 30"),
    ({"ptx": HOTSPOT, "block": 4096}, "block", "ceiling"),
    ({"ptx": HOTSPOT, "block": 64, "policy": "lrr,qaws"}, "policy", "'qaws', whose update reads eligibility"),
])
def test_bad_ptx_options_are_refused_by_name(keywords, option, problem):
    with pytest.raises(OptionError, match=problem) as e:
        simulate(**keywords)
    assert e.value.option == option


def test_all_policies_of_a_ptx_run_are_those_it_takes():
    o = SimulateOptions(ptx=HOTSPOT, block=64, issue="all", policy="all")
    assert "qaws" not in o.issue and o.policy == tuple(p for p in POLICIES if p != "qaws")


def test_a_data_dependent_branch_is_refused_by_name():
    """bfs branches on loaded data: the simulator cannot run it and says where."""
    with pytest.raises(ConfigError, match=r"bfs\.ptx:\d+.*depends on loaded data"):
        simulate(ptx=str(ROOT / "examples" / "kernels" / "bfs.ptx"), block=32, param={str(k): k << 16 for k in range(7)})


def test_the_verb_runs_a_ptx_kernel_and_refuses_it_with_kernels(capsys):
    from warpcheck.cli.main import main
    argv = ["simulate", "--ptx", HOTSPOT, "--block", "64", "--dcache", "1K:2", "--json",
            *[f"--param={k}={v}" for k, v in PARAMS.items()]]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["l1_loads"] for r in out["runs"]] == [12, 12] and out["config"]["warps"] == 2
    assert main([*argv, "--kernels", "psort,psort"]) == 2
    assert "--ptx" in capsys.readouterr().err


TABLE_2 = {  # docs/simulate.md, Table II with the L1: (cycles, committed, discrepancies, errors, NOPs, L1 loads, misses)
    "reduction": (dict(grid=4, block=256, param={"0": 0, "1": 1048576, "2": 1024}),
                  [(1867, 51068, 621, 482, 0, 32, 32), (2345, 51068, 12, 0, 605, 32, 32)]),
    "wmma_gemm": (dict(grid=32, block=32, param={"0": 0, "1": 1048576, "2": 2097152, "3": 4}),
                  [(1497, 47104, 320, 311, 0, 128, 4), (1508, 47104, 11, 0, 11, 128, 4)]),
}


@pytest.mark.parametrize("kernel", ["wmma_gemm", pytest.param("reduction", marks=pytest.mark.slow)])
def test_the_default_engine_gives_the_table_ii_figures(kernel):
    """The compiled engine, as fast as it is made, still gives the documented figures of two short Table II kernels
    (W = 32, baseline LRR-GTLRR and SWaS GTLRR, 16K:4 L1)."""
    launch, want = TABLE_2[kernel]
    r = simulate(ptx=str(ROOT / "examples" / "kernels" / f"{kernel}.ptx"), design="both", **launch)
    got = [(x.cycles, x.committed, x.discrepancies, x.errors, x.nops, x.l1_loads, x.l1_misses) for x in r.runs]
    assert [x.warps for x in r.runs] == [32, 32] and got == want
