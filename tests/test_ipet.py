"""IPET: Z3 and HiGHS agree; on loop-free kernels both equal the longest path; bounds behave."""
from __future__ import annotations

import networkx as nx
import pytest

from warpcheck.encodings.ipet import build_problem, solve_highs, solve_z3, wcet
from warpcheck.models.cfg import CostModel
from warpcheck.models.errors import ConfigError
from warpcheck.models.warp_cfg import END

from kernel_fixtures import ALL, PTX, SASS, warp_cfg


def longest_path(w, cost: CostModel) -> int:
    """The costliest entry-to-end path of an acyclic warp-level CFG (independent of any solver)."""
    g = w.graph
    weight = {n: 0 if n == END else w.cfg.block_cost(w.cfg.blocks[w.block(n)], cost) for n in g.nodes}
    best = {}
    for n in reversed(list(nx.topological_sort(g))):
        best[n] = weight[n] + max((best[s] for s in g.successors(n)), default=0)
    return best[w.entry]


@pytest.mark.parametrize("va", [True, False])
@pytest.mark.parametrize("path", [p for p in SASS if p.stem in ("slides", "nested", "early_exit")], ids=lambda p: p.name)
def test_loop_free_ipet_equals_the_longest_path(path, va):
    w = warp_cfg(path, va)
    assert nx.is_directed_acyclic_graph(w.graph)
    result, _ = wcet(w)
    assert result.wcet == longest_path(w, CostModel())


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_z3_and_highs_agree_on_every_fixture(path):
    for va in (True, False):
        prob = build_problem(warp_cfg(path, va), {}, 3, CostModel())
        assert solve_z3(prob).wcet == solve_highs(prob).wcet


def test_value_agreement_never_loosens_the_bound():
    for path in ALL:
        with_va = wcet(warp_cfg(path, True), default_bound=4)[0].wcet
        without = wcet(warp_cfg(path, False), default_bound=4)[0].wcet
        assert with_va <= without, path.name


def test_bounds_are_monotone_and_named_bounds_override_the_default():
    path = next(p for p in PTX if p.stem == "backprop")
    w = warp_cfg(path)
    label = next(iter(w.cfg.loops))
    header = w.cfg.blocks[label].label
    small, big = wcet(w, default_bound=2)[0].wcet, wcet(w, default_bound=9)[0].wcet
    assert small < big
    assert wcet(w, {header: 9}, default_bound=2)[0].wcet > small


def test_a_loop_without_a_bound_names_its_header():
    path = next(p for p in PTX if p.stem == "kmeans")
    with pytest.raises(ConfigError, match=r"the loop with header '\$L__BB0_\d+' in kernel '_Z13kmeans\w+' has no bound"):
        wcet(warp_cfg(path))


def test_uniform_loop_costs_its_body_times_the_bound():
    path = next(p for p in SASS if p.stem == "uniform")
    w = warp_cfg(path)
    cost = CostModel()
    blocks = {b.label: w.cfg.block_cost(b, cost) for b in w.cfg.blocks}
    one, two = wcet(w, default_bound=10)[0].wcet, wcet(w, default_bound=11)[0].wcet
    # one more iteration of the uniform loop: its header block plus its body once more
    assert two - one == blocks["LOOP"] + blocks["pc8"]
