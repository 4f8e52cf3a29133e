"""Soundness: a concrete warp run is a path of the warp-level CFG, within the IPET bound,
and value agreement never calls a branch uniform when the threads disagree on its guard."""
from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from warpcheck.encodings.kernels.ipet import build_problem, solve_highs
from warpcheck.models.kernels.abstract_stack import from_concrete
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.warp_cfg import END
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.spec.kernels.reference import path_cycles
from warpcheck.spec.kernels.thread_ops import WarpInputs

from kernel_fixtures import ALL, kernel, warp_cfg


def inputs(k, draw_params, seed, ctaid, ntid, int_max):
    return WarpInputs(params=dict(zip(k.params, draw_params)), ctaid=(ctaid, 0, 0), ntid=(ntid, 1, 1),
                      seed=seed, int_max=int_max)


@lru_cache(maxsize=None)
def cost():
    return CostModel()


def observed_bounds(w, run) -> dict[str, int]:
    """Loop bounds that hold for this run: the most header executions per thread and entry."""
    bounds: dict[str, int] = {}
    for (_, header), count in run.header_counts.items():
        label = w.cfg.blocks[header].label
        bounds[label] = max(bounds.get(label, 0), count)
    return bounds


def check_run(path, run, value_agreement: bool) -> None:
    w = warp_cfg(path, value_agreement)
    nodes = [w.node_of(from_concrete(stack)) for stack in run.stacks[:-1]]
    assert None not in nodes, f"{path.name}: a concrete stack has no warp-level node"
    assert nodes[0] == w.entry
    for a, b in zip(nodes, nodes[1:]):
        assert w.graph.has_edge(a, b), f"{path.name}: no edge {w.describe(a)} -> {w.describe(b)}"
    assert w.graph.has_edge(nodes[-1], END)
    bound = solve_highs(build_problem(w, observed_bounds(w, run), 0, cost())).wcet
    assert run.cycles <= bound, f"{path.name}: {run.cycles} cycles > IPET bound {bound}"
    blocks = w.cfg.blocks  # the same run charged by the instruction reference, not by the design's table
    charged = path_cycles(w.cfg.kernel, (pc for b, _ in run.steps for pc in range(blocks[b].start, blocks[b].end)))
    assert charged == run.cycles, f"{path.name}: the reference charges the run {charged}, the cost model {run.cycles}"


runs = s.tuples(s.sampled_from(ALL), s.lists(s.integers(0, 6), min_size=8, max_size=8), s.integers(0, 10 ** 6),
                s.integers(0, 3), s.sampled_from([32, 64, 128, 256]), s.integers(0, 6), s.integers(1, 32))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs)
def test_concrete_runs_are_paths_of_the_warp_cfg_within_the_ipet_bound(case):
    path, params, seed, ctaid, ntid, int_max, threads = case
    k = kernel(path)
    run = run_warp(k, inputs(k, params, seed, ctaid, ntid, int_max), threads=threads)
    check_run(path, run, True)
    check_run(path, run, False)


@settings(max_examples=100, deadline=None)
@given(runs)
def test_value_agreement_never_calls_a_disagreeing_guard_uniform(case):
    path, params, seed, ctaid, ntid, int_max, threads = case
    k = kernel(path)
    run = run_warp(k, inputs(k, params, seed, ctaid, ntid, int_max), threads=threads)
    w = warp_cfg(path, True)
    for pc, active, holds in run.guards:
        if w.branches[pc]["uniform"]:
            assert holds in (0, active), f"{path.name}: branch at pc {pc} proved uniform but threads disagree"


def tid_tainted(k) -> set[str]:
    """Registers that depend on %tid along some def-use chain (flow-insensitive, so over-approximate)."""
    from warpcheck.models.kernels.value_agreement import registers_read, written

    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for ins in k.instructions:
            reads = registers_read(ins, ins.srcs)
            if any(r in tainted or r.startswith(("%tid", "SR_TID", "%laneid")) for r in reads):
                for d in written(ins):
                    if d not in tainted:
                        tainted.add(d)
                        changed = True
    return tainted


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_tid_dependent_predicates_are_never_uniform(path):
    k, w = kernel(path), warp_cfg(path, True)
    tainted = tid_tainted(k)
    for pc, info in w.branches.items():
        guard = k.instructions[pc].guard.lstrip("!")
        if guard in tainted and info["reached"]:
            assert not info["uniform"], f"{path.name}: {k.instructions[pc].text!r} depends on %tid"


def test_parameter_only_kernels_are_proved_uniform():
    for name in ("saxpy_rows.ptx", "uniform.sass"):
        path = next(p for p in ALL if p.name == name)
        assert all(b["uniform"] for b in warp_cfg(path, True).branches.values())
        assert not any(b["uniform"] for b in warp_cfg(path, False).branches.values())


RECONVERGE = """
.kernel reconverge
.param n
        S2R R0, SR_TID.X ;
        LDG R5, [n] ;            # the same address for every thread: R5 agrees
        ISETP.LT P0, R0, 4 ;
        SSY J ;
        @P0 BRA T ;
        SYNC ;
T:      MOV R5, 99 ;             # a uniform write, but by part of the warp only
        SYNC ;
J:      ISETP.EQ P1, R5, 99 ;    # so after reconvergence the threads disagree on R5
        SSY J2 ;
        @P1 BRA X ;
        SYNC ;
X:      SYNC ;
J2:     EXIT ;
"""


def test_a_register_written_by_part_of_the_warp_disagrees_after_reconvergence():
    from warpcheck.models.kernels.sass import parse_sass
    from warpcheck.models.kernels.warp_cfg import build_warp_cfg

    k = parse_sass(RECONVERGE, "reconverge.sass")[0]
    w = build_warp_cfg(k, True)
    second = max(w.branches)
    assert w.branches[second]["uniform"] is False
    run = run_warp(k, WarpInputs(params={"n": 0}), threads=8)
    assert (second, 0xFF, 0x0F) in run.guards
    nodes = [w.node_of(from_concrete(stack)) for stack in run.stacks[:-1]]
    assert None not in nodes and all(w.graph.has_edge(a, b) for a, b in zip(nodes, nodes[1:]))
