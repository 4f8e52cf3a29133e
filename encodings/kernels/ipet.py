"""IPET over the warp-level CFG, solved with Z3 and cross-checked with HiGHS.

Variables are execution counts of the warp-level edges, plus a virtual edge
into the entry node and one from every node where the warp finishes.  The
bound maximises ``sum(cost(block) * count(node))`` subject to

* flow conservation: a node's count is the sum of its in-edges and of its
  out-edges; the entry edge carries 1;
* loop bounds: each cyclic region of the warp-level CFG (a strongly
  connected component; irreducible warp-level graphs are fine) is attributed
  to the innermost thread-level loop ``L`` containing all its blocks; the
  region's edges into nodes of ``L``'s header are then cut and the components
  found again (the cycles left lie in loops nested in ``L``);
* segment bounds: per thread-level loop, all executions of its header are at
  most ``N`` times the number of *segments*: stays in the loop along which the
  running group only shrinks (a divergent exit leaves the others iterating,
  which the region bounds alone count twice).  With ``N`` the bound of ``L`` (at most ``N`` executions of ``L``'s
  header per thread and entry into ``L``), the region's executions of ``L``'s
  header are at most ``N`` times the flow entering the region.  Within one
  stay in the region the running group only shrinks or reconverges, so some
  thread executed every one of those header executions in a single entry
  into ``L``.

The constraint system is plain data (:class:`IpetProblem`), so both solvers
read exactly the same constraints.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Mapping

import networkx as nx

from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.errors import ConfigError, WarpcheckError
from warpcheck.models.kernels.ptx_calls import call_site
from warpcheck.models.kernels.warp_cfg import END, WarpCFG

START = "START"
_INLINED = re.compile(r"(\$c\d+)+$")


@dataclass
class IpetProblem:
    """Edge variables, node costs and linear constraints ``sum(coef*var) <= rhs`` or ``== rhs``."""

    edges: list[tuple]
    node_cost: dict[int, int]
    equalities: list[tuple[dict[int, int], int]] = field(default_factory=list)
    inequalities: list[tuple[dict[int, int], int]] = field(default_factory=list)
    loops: list[dict] = field(default_factory=list)

    def objective(self) -> dict[int, int]:
        """Edge index -> objective coefficient (the cost of the edge's target node)."""
        return {i: self.node_cost.get(v, 0) for i, (_, v) in enumerate(self.edges) if v in self.node_cost}


@dataclass
class IpetResult:
    """The bound, the counts that reach it, and the solver that found it."""

    wcet: int
    node_counts: dict[int, int]
    solver: str
    seconds: float


def build_problem(wcfg: WarpCFG, bounds: Mapping[str, int], default_bound: int | None,
                  cost: CostModel) -> IpetProblem:
    """The IPET constraint system of a warp-level CFG."""
    g = wcfg.graph
    calls = [ins for ins in wcfg.kernel.instructions if ins.base == "call"]
    if calls:
        callee = _callee_name(calls[0])
        raise ConfigError(f"{wcfg.kernel.where(calls[0])}: kernel {wcfg.kernel.name!r} calls {callee!r}, which has "
                          f"no body in the module (an .extern or a prototype only, an OptiX intrinsic, or an indirect call), "
                          f"so its cost "
                          f"is unknown; supported: calls of .func functions defined in the module (inlined)")
    if END not in nx.descendants(g, wcfg.entry):
        raise ConfigError(f"a warp running kernel {wcfg.kernel.name!r} never finishes (no path reaches the exit); "
                          f"every loop needs a way out")
    nodes = [n for n in g.nodes if n != END]
    edges = [(START, wcfg.entry)] + [(u, v) for u, v in g.edges]
    node_cost = {n: wcfg.cfg.block_cost(wcfg.cfg.blocks[wcfg.block(n)], cost) for n in nodes}
    prob = IpetProblem(edges, node_cost)
    prob.equalities.append(({0: 1}, 1))
    for n in nodes:
        coef: dict[int, int] = {}
        for i, (u, v) in enumerate(edges):
            if v == n:
                coef[i] = coef.get(i, 0) + 1
            if u == n:
                coef[i] = coef.get(i, 0) - 1
        prob.equalities.append(({i: c for i, c in coef.items() if c}, 0))
    _check_bound_names(wcfg, bounds)
    _loop_constraints(wcfg, prob, bounds, default_bound)
    return prob


def _loop_constraints(wcfg: WarpCFG, prob: IpetProblem, bounds, default_bound) -> None:
    _region_constraints(wcfg, prob, bounds, default_bound)
    for header, body in wcfg.cfg.loops.items():
        _segment_constraint(wcfg, prob, header, body, bounds, default_bound)


def _segment_constraint(wcfg: WarpCFG, prob: IpetProblem, header: int, body: frozenset, bounds,
                        default_bound) -> None:
    """Bound all executions of a thread-level loop's header by its bound times the segment starts.

    A segment is a stay of the warp in the loop's blocks along which the running
    group only shrinks; it starts with an edge from outside the loop or with an
    edge whose new running group holds threads that were not running.  The
    threads still running at a segment's end ran all of it, so it executes the
    header at most N times.
    """
    inside = {n for n in wcfg.graph.nodes if n != END and wcfg.block(n) in body}
    heads = {n for n in inside if wcfg.block(n) == header}
    if not heads:
        return
    bound = _bound(wcfg, wcfg.cfg.blocks[header].label, bounds, default_bound)
    lhs: dict[int, int] = {}
    for i, (u, v) in enumerate(prob.edges):
        if v in heads:
            lhs[i] = lhs.get(i, 0) + 1
        if v in inside and (u not in inside or not wcfg.graph.edges[u, v].get("shrinks", False)):
            lhs[i] = lhs.get(i, 0) - bound
    prob.inequalities.append(({i: c for i, c in lhs.items() if c}, 0))


def _region_constraints(wcfg: WarpCFG, prob: IpetProblem, bounds, default_bound) -> None:
    graph = nx.DiGraph(wcfg.graph.subgraph([n for n in wcfg.graph.nodes if n != END]))
    work = [graph]
    while work:
        g = work.pop()
        for scc in nx.strongly_connected_components(g):
            if len(scc) > 1 or any(g.has_edge(n, n) for n in scc):
                work.append(_region_constraint(wcfg, prob, g, frozenset(scc), bounds, default_bound))


def _region_constraint(wcfg: WarpCFG, prob: IpetProblem, g: nx.DiGraph, region: frozenset,
                       bounds, default_bound) -> nx.DiGraph:
    """Bound the header executions of one cyclic region; return the region without those back edges."""
    tloops = wcfg.cfg.loops
    blocks = {wcfg.block(n) for n in region}
    enclosing = [h for h, b in tloops.items() if blocks <= b]
    heads = {n for n in region if enclosing and wcfg.block(n) == min(enclosing, key=lambda h: len(tloops[h]))}
    if not heads:
        raise WarpcheckError(f"warp-level cycle through {wcfg.describe(min(region))} misses its loop header")
    th = wcfg.block(next(iter(heads)))
    label = wcfg.cfg.blocks[th].label
    _refuse_iteration_while_waiting(wcfg, g, region, heads, label)
    bound = _bound(wcfg, label, bounds, default_bound)
    lhs: dict[int, int] = {}
    for i, (u, v) in enumerate(prob.edges):
        if v in heads:
            lhs[i] = lhs.get(i, 0) + 1
        if v in region and u not in region:
            lhs[i] = lhs.get(i, 0) - bound
    prob.inequalities.append(({i: c for i, c in lhs.items() if c}, 0))
    prob.loops.append({"header": label, "nodes": sorted(region), "bound": bound})
    inner = nx.DiGraph(g.subgraph(region))
    inner.remove_edges_from([(u, v) for u, v in list(inner.edges) if v in heads])
    return inner


def _refuse_iteration_while_waiting(wcfg: WarpCFG, g: nx.DiGraph, region: frozenset, heads: set, label: str) -> None:
    """Refuse a cyclic region where a group iterates while another waits inside the loop, and groups switch.

    The region constraint counts the header executions of one stay, in which the
    running group only shrinks, so that some thread ran all of them.  When a group
    starts an iteration while another waits inside the loop, and an edge of the region
    then runs threads that were not running (the waiting group resumes after the first
    leaves the kernel, synchronises or reconverges), the resumed group's abstract stack
    may be that of an earlier, larger group (the abstract stack forgets exited threads)
    and both groups' iterations fall in one stay: the bound may be unsound
    (``tests/test_kernel_mutants.py`` has a kernel running 2N - 1 header executions of a
    loop of bound N, bound 34 < 43 cycles).  No kernel of the examples, the corpus or
    1500 random structured SASS kernels has such a region.
    """
    body = wcfg.cfg.loops.get(wcfg.block(next(iter(heads))), frozenset())
    waiting = next((n for n in heads for e in wcfg.graph.nodes[n]["stack"][:-1]
                    if wcfg.cfg.block_at.get(e.pc) in body), None)
    if waiting is None:
        return
    for u, v in g.subgraph(region).edges:
        if not wcfg.graph.edges[u, v]["shrinks"]:
            raise ConfigError(f"{_at_label(wcfg, label)}kernel {wcfg.kernel.name!r}: in the loop headed by {label!r}, a group iterates while "
                              f"another waits inside the loop ({wcfg.describe(waiting)}), and later other threads "
                              f"resume ({wcfg.describe(u)} -> {wcfg.describe(v)}); IPET cannot bound such a loop "
                              f"soundly (the abstract stack forgets exited threads), so it is refused; reconverge the "
                              f"groups inside the iteration (an SSY before the divergent branch, or the exit after the "
                              f"loop)")


def _at_label(wcfg: WarpCFG, label: str) -> str:
    """``FILE:LINE:COL: `` of the first instruction of the block ``label`` heads ("" when unknown)."""
    kernel = wcfg.kernel
    pc = kernel.labels.get(label)
    if pc is None or pc >= len(kernel.instructions) or not kernel.instructions[pc].line:
        return ""
    return kernel.where(kernel.instructions[pc]) + ": "


def _callee_name(ins) -> str:
    site = call_site(ins)
    return site.callee if site is not None else "an indirect target"


def _bound(wcfg: WarpCFG, label: str, bounds, default_bound) -> int:
    """The bound of the loop headed by ``label``: given for it, for another label of its block, or for
    the label it was inlined from (``$L__BB2_3`` for ``$L__BB2_3$c1``); else the default."""
    aliases = sorted(n for n in _names_of(wcfg, label) if n in bounds)
    if label in bounds or aliases:
        return bounds[label] if label in bounds else bounds[aliases[0]]
    if default_bound is None:
        raise ConfigError(f"{_at_label(wcfg, label)}the loop with header {label!r} in kernel {wcfg.kernel.name!r} has no bound; "
                          f"give it one in loop_bounds ({label!r}: N) or give max_loop_bound")
    return default_bound


def _names_of(wcfg: WarpCFG, label: str) -> set[str]:
    """Every name a bound may give the block labelled ``label``: its labels and the labels they were inlined from."""
    start = next(b.start for b in wcfg.cfg.blocks if b.label == label)
    names = [name for name, pc in wcfg.kernel.labels.items() if pc == start]
    return set(names) | {_INLINED.sub("", n) for n in names}


def loop_names(wcfg: WarpCFG) -> list[str]:
    """The names a loop bound may use in this kernel (those of every thread-level loop header)."""
    return sorted(set().union(*(_names_of(wcfg, wcfg.cfg.blocks[h].label) for h in wcfg.cfg.loops)))


def _check_bound_names(wcfg: WarpCFG, bounds: Mapping[str, int]) -> None:
    unknown = sorted(set(bounds) - set(loop_names(wcfg)))
    if unknown:
        known = ", ".join(loop_names(wcfg)) or "none, the kernel has no loop"
        raise ConfigError(f"a loop bound names {unknown[0]!r}, which heads no loop of kernel "
                          f"{wcfg.kernel.name!r}; loop names: {known}")


def solve_z3(prob: IpetProblem, timeout_ms: int = 60000) -> IpetResult:
    """Maximise the IPET objective with Z3's Optimize."""
    import z3

    from warpcheck.encodings.z3_algebra import check

    start = time.perf_counter()
    x = [z3.Int(f"e{i}") for i in range(len(prob.edges))]
    opt = z3.Optimize()
    opt.set("timeout", timeout_ms)
    for v in x:
        opt.add(v >= 0)
    for coef, rhs in prob.equalities:
        opt.add(z3.Sum([c * x[i] for i, c in coef.items()] or [z3.IntVal(0)]) == rhs)
    for coef, rhs in prob.inequalities:
        opt.add(z3.Sum([c * x[i] for i, c in coef.items()] or [z3.IntVal(0)]) <= rhs)
    obj = z3.Sum([c * x[i] for i, c in prob.objective().items()] or [z3.IntVal(0)])
    handle = opt.maximize(obj)
    if check(opt) != z3.sat:
        raise WarpcheckError(f"Z3 could not solve the IPET problem ({opt.reason_unknown()})")
    model = opt.model()
    value = handle.value()
    if not z3.is_int_value(value):
        raise WarpcheckError(f"the IPET problem is unbounded (Z3 returned {value}); a loop lacks a bound")
    flows = [model.eval(v, model_completion=True).as_long() for v in x]
    return IpetResult(value.as_long(), _node_counts(prob, flows), "z3", time.perf_counter() - start)


# HiGHS solves the integer program to optimality: no relative or absolute MIP gap (its defaults, 1e-4 and
# 1e-6, let it stop at a near-optimal value on large kernels); integrality and primal feasibility
# tolerances 1e-9.  The rounded solution is then checked exactly, in integers, against every constraint.
HIGHS_OPTIONS = {"mip_rel_gap": 0.0, "mip_abs_gap": 0.0, "mip_feasibility_tolerance": 1e-9,
                 "primal_feasibility_tolerance": 1e-9}


def solve_highs(prob: IpetProblem, options: Mapping[str, float] | None = None) -> IpetResult:
    """Maximise the same IPET objective with HiGHS (integer program, solved to optimality)."""
    import highspy

    from warpcheck.encodings.highs_quiet import quiet_highs, run_interruptible

    start = time.perf_counter()
    h = quiet_highs()
    for name, value in (HIGHS_OPTIONS if options is None else options).items():
        h.setOptionValue(name, value)
    inf = highspy.kHighsInf
    obj = prob.objective()
    for i in range(len(prob.edges)):
        h.addVar(0, inf)
        h.changeColCost(i, obj.get(i, 0))
        h.changeColIntegrality(i, highspy.HighsVarType.kInteger)
    for coef, rhs in prob.equalities:
        h.addRow(rhs, rhs, len(coef), list(coef), [float(c) for c in coef.values()])
    for coef, rhs in prob.inequalities:
        h.addRow(-inf, rhs, len(coef), list(coef), [float(c) for c in coef.values()])
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    run_interruptible(h)
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise WarpcheckError(f"HiGHS could not solve the IPET problem (status {h.modelStatusToString(status)})")
    flows = [round(v) for v in h.getSolution().col_value]
    value = _check_integer_solution(prob, flows)
    return IpetResult(value, _node_counts(prob, flows), "highs", time.perf_counter() - start)


def _check_integer_solution(prob: IpetProblem, flows: list[int]) -> int:
    """The objective of integer ``flows``, after checking every constraint exactly."""
    def lhs(coef: dict[int, int]) -> int:
        return sum(c * flows[i] for i, c in coef.items())

    broken = [f"{lhs(c)} = {r}" for c, r in prob.equalities if lhs(c) != r]
    broken += [f"{lhs(c)} <= {r}" for c, r in prob.inequalities if lhs(c) > r]
    broken += ["a negative count"] if min(flows, default=0) < 0 else []
    if broken:
        raise WarpcheckError(f"HiGHS returned a rounded IPET solution that breaks a constraint ({broken[0]}); "
                             f"the problem is numerically too hard for it")
    return sum(c * flows[i] for i, c in prob.objective().items())


def _node_counts(prob: IpetProblem, flows: list[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for (u, v), f in zip(prob.edges, flows):
        if v in prob.node_cost and f:
            counts[v] = counts.get(v, 0) + f
    return counts


def wcet(wcfg: WarpCFG, bounds: Mapping[str, int] | None = None, default_bound: int | None = None,
         cost: CostModel | None = None, cross_check: bool = True) -> tuple[IpetResult, IpetProblem]:
    """The IPET bound of one warp; Z3's answer must equal HiGHS's."""
    prob = build_problem(wcfg, bounds or {}, default_bound, cost or CostModel())
    result = solve_z3(prob)
    if cross_check:
        other = solve_highs(prob)
        if other.wcet != result.wcet:
            raise WarpcheckError(f"IPET solvers disagree on kernel {wcfg.kernel.name!r}: "
                                 f"Z3 says {result.wcet}, HiGHS says {other.wcet}")
    return result, prob
