"""IPET: Z3 and HiGHS agree; on loop-free kernels both equal the longest path; bounds behave."""
from __future__ import annotations

import networkx as nx
import pytest

from warpcheck.encodings.kernels.ipet import build_problem, solve_highs, solve_z3, wcet
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.warp_cfg import END

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


# A knapsack-shaped IPET problem (our own numbers): near-equal large costs, so that HiGHS's default
# relative MIP gap (1e-4) lets it stop at 60007066, 2942 cycles below the optimum.
KNAPSACK_COST = [10001729, 10000788, 10001552, 10001823, 10000861, 10000082, 10000530, 10001977, 10001047,
                 10000995, 10000829, 10001880]
KNAPSACK_ROWS = [([104969, 107808, 105866, 109558, 103578, 108268, 102281, 104617, 102289, 101553, 104104, 108725],
                  678022),
                 ([109861, 102407, 105081, 101618, 101208, 105409, 107735, 109171, 101649, 105796, 107113, 105180],
                  671149)]


def knapsack():
    from warpcheck.encodings.kernels.ipet import IpetProblem

    n = len(KNAPSACK_COST)
    prob = IpetProblem([("START", i) for i in range(n)], dict(enumerate(KNAPSACK_COST)))
    prob.inequalities += [(dict(enumerate(w)), rhs) for w, rhs in KNAPSACK_ROWS]
    prob.inequalities += [({i: 1}, 1) for i in range(n)]
    return prob


def test_highs_solves_to_optimality_not_to_its_default_gap():
    from itertools import product

    from warpcheck.encodings.kernels.ipet import HIGHS_OPTIONS

    best = max(sum(c for c, x in zip(KNAPSACK_COST, xs) if x) for xs in product((0, 1), repeat=len(KNAPSACK_COST))
               if all(sum(w for w, x in zip(row, xs) if x) <= rhs for row, rhs in KNAPSACK_ROWS))
    assert best == 60010008
    # with HiGHS's own defaults it stops at 60007066 (highspy 1.15.1); other versions may be luckier
    assert solve_highs(knapsack(), {}).wcet <= best
    assert solve_highs(knapsack()).wcet == solve_z3(knapsack()).wcet == best
    assert HIGHS_OPTIONS["mip_rel_gap"] == HIGHS_OPTIONS["mip_abs_gap"] == 0


def test_a_rounded_highs_solution_is_checked_in_integers():
    from warpcheck.encodings.kernels.ipet import _check_integer_solution
    from warpcheck.models.errors import WarpcheckError

    with pytest.raises(WarpcheckError, match=r"breaks a constraint \(\d+ <= 678022\)"):
        _check_integer_solution(knapsack(), [1] * len(KNAPSACK_COST))
