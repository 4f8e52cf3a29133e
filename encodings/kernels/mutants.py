"""Broken copies of the IPET encoding: its part of the kernels' mutation suite.

Same form as :mod:`warpcheck.models.kernels.mutants` (one function of one module
replaced); kept here because IPET lives in the encodings layer.  Both are
killed by a WCET bound below the time of a thread run alone
(``spec/kernels/reference.py``) with loop bounds that hold for that run.
"""
from __future__ import annotations

from warpcheck.models.kernels.mutants import Mutant


def _bound_off_by_one(bound):
    def patched(wcfg, label, bounds, default_bound):
        return bound(wcfg, label, bounds, default_bound) - 1
    return patched


def _last_instruction_free(build_problem):
    def patched(wcfg, bounds, default_bound, cost):
        prob = build_problem(wcfg, bounds, default_bound, cost)
        for n in prob.node_cost:
            block = wcfg.cfg.blocks[wcfg.block(n)]
            prob.node_cost[n] -= cost.latency(wcfg.kernel.instructions[block.end - 1])
        return prob
    return patched


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    Mutant("loop-bound-off-by-one", "IPET: a loop of bound N is allowed N - 1 header executions per entry",
           "encodings.kernels.ipet:_bound", _bound_off_by_one, "bound", "examples/sass/loop.sass", (3,)),
    Mutant("block-cost-without-terminator", "IPET: a node's cost leaves out its block's last instruction",
           "encodings.kernels.ipet:build_problem", _last_instruction_free, "bound", "examples/sass/uniform.sass",
           (3,)),
]}
