"""The kernels' mutation suite as the harness runs it: each mutant against a computation that does not use it.

Three checks, each run on the mutant's kernel for a few memory seeds, one warp
of 32 threads:

* ``paths``: every thread's pcs in the concrete SIMT run (the design's stack)
  equal its pcs when it runs alone (``spec/kernels/reference.py``, no stack);
* ``reconverge``: the threads that meet a PTX branch run its immediate
  post-dominator together (those still running, maybe with more), the post-dominators computed by
  the reference from the instruction list, not by the design's CFG;
* ``uniform``: no branch the warp-level CFG calls uniform sees its threads
  disagree in the concrete run;
* ``bound``: the IPET bound, with the loop bounds the run needs, is at least the
  concrete run's cycles and every thread's time alone (charged by the memory it
  was seen to touch, not by the design's classes).

A mutant is killed when its check FAILs, the unmutated design PASSes the same
check on the same input, and running the mutant again gives the same evidence.
"""
from __future__ import annotations

import time
from pathlib import Path

from warpcheck.encodings.kernels.mutants import MUTANTS as IPET_MUTANTS
from warpcheck.models.kernels.mutants import MUTANTS as MODEL_MUTANTS, Mutant
from warpcheck.verify.mutation import Kill, checkout

__all__ = ["MUTANTS", "kill", "check"]

MUTANTS: dict[str, Mutant] = {**MODEL_MUTANTS, **IPET_MUTANTS}


THREADS = 32


def _inputs(kernel, m: Mutant, seed: int):
    from warpcheck.spec.kernels.thread_ops import WarpInputs

    params = dict(zip(kernel.params, m.params)) if m.params else {p: 3 for p in kernel.params}
    return WarpInputs(params=params, ntid=(THREADS, 1, 1), seed=seed, int_max=6)


def check(m: Mutant, seed: int) -> str | None:
    """The disagreement the check of ``m`` finds on its kernel with this seed (None: they agree)."""
    from warpcheck._kernels.loaders import load_kernel
    from warpcheck.models.kernels.cfg import CostModel
    from warpcheck.sim.kernels.simt import run_warp

    kernel = load_kernel(str(checkout("kernels mutation suite") / m.kernel), m.entry)
    inputs = _inputs(kernel, m, seed)
    run = run_warp(kernel, inputs, THREADS, CostModel())
    return {"paths": _paths, "reconverge": _reconverge, "uniform": _uniform, "bound": _bound}[m.check](kernel, inputs, run)


def _lane_pcs(kernel, run) -> list[list[int]]:
    from warpcheck.models.kernels.cfg import KernelCFG

    blocks = KernelCFG(kernel).blocks
    out: list[list[int]] = [[] for _ in range(THREADS)]
    for b, mask in run.steps:
        for lane in range(THREADS):
            if mask >> lane & 1:
                out[lane] += range(blocks[b].start, blocks[b].end)
    return out


def _paths(kernel, inputs, run) -> str | None:
    from warpcheck.spec.kernels.reference import thread_paths

    alone = thread_paths(kernel, inputs, THREADS)
    for lane, pcs in enumerate(_lane_pcs(kernel, run)):
        if pcs != alone[lane].pcs:
            at = next((i for i, (a, b) in enumerate(zip(pcs, alone[lane].pcs)) if a != b), min(len(pcs), len(alone[lane].pcs)))
            return (f"thread {lane}: the SIMT run executes pc {_at(pcs, at)} as its instruction {at}, "
                    f"alone it executes pc {_at(alone[lane].pcs, at)}")
    return None


def _at(pcs: list[int], i: int) -> str:
    return str(pcs[i]) if i < len(pcs) else "none (it has ended)"


def _reconverge(kernel, inputs, run) -> str | None:
    from warpcheck.models.kernels.cfg import KernelCFG
    from warpcheck.spec.kernels.reference import immediate_post_dominators

    blocks = KernelCFG(kernel).blocks  # only to read the run's record: (block, mask) per step
    ipdom = immediate_post_dominators(kernel)
    last_step = {lane: i for i, (_, mask) in enumerate(run.steps) for lane in range(THREADS) if mask >> lane & 1}
    for i, (b, mask) in enumerate(run.steps):
        pc = blocks[b].end - 1
        ins = kernel.instructions[pc]
        if ins.base != "bra" or ins.guard is None or ipdom[pc] is None:
            continue
        j = next((j for j in range(i + 1, len(run.steps)) if blocks[run.steps[j][0]].start == ipdom[pc]), None)
        if j is None:
            continue
        expected = sum(1 << lane for lane in range(THREADS) if mask >> lane & 1 and last_step[lane] >= j)
        if run.steps[j][1] & expected != expected:  # (more may join: an enclosing branch reconverging there too)
            return (f"after the branch at pc {pc} (threads {mask:#x}), its immediate post-dominator pc {ipdom[pc]} "
                    f"first runs with threads {run.steps[j][1]:#x}, without {expected & ~run.steps[j][1]:#x}")
    return None


def _uniform(kernel, inputs, run) -> str | None:
    from warpcheck.models.kernels.warp_cfg import build_warp_cfg

    w = build_warp_cfg(kernel)
    for pc, active, holds in run.guards:
        if w.branches[pc]["uniform"] and holds not in (0, active):
            return (f"the branch at pc {pc} ({' '.join(kernel.instructions[pc].text.split())}) is called uniform, "
                    f"but its guard holds for threads {holds:#x} of {active:#x}")
    return None


def _bound(kernel, inputs, run) -> str | None:
    from warpcheck.encodings.kernels.ipet import wcet
    from warpcheck.models.kernels.cfg import CostModel
    from warpcheck.models.kernels.warp_cfg import build_warp_cfg
    from warpcheck.spec.kernels.reference import path_cycles, thread_paths, warp_lower_bound

    w = build_warp_cfg(kernel)
    bounds: dict[str, int] = {}
    for (_, header), count in run.header_counts.items():
        label = w.cfg.blocks[header].label
        bounds[label] = max(bounds.get(label, 0), count)
    bound = wcet(w, bounds, 0, CostModel())[0].wcet
    # the run's steps (block, mask) read as pcs: the same warp run, each instruction charged by the reference
    blocks = w.cfg.blocks
    charged = path_cycles(kernel, (pc for b, _ in run.steps for pc in range(blocks[b].start, blocks[b].end)))
    alone = thread_paths(kernel, inputs, THREADS)
    least = warp_lower_bound(kernel, alone)
    if bound < least:  # the reference alone: threads run alone, charged by the instruction reference
        return (f"the WCET bound {bound} is below the {least} cycles the warp needs at least for its threads' "
                f"paths alone (each instruction issued as often as the thread that runs it most, charged by "
                f"the instruction reference; loop bounds {bounds})")
    if bound < charged:
        return (f"the WCET bound {bound} is below the {charged} cycles of the concrete run charged by the "
                f"instruction reference (the design's cost model charges it {run.cycles}; loop bounds {bounds})")
    if bound < run.cycles:
        return f"the WCET bound {bound} is below the concrete run's {run.cycles} cycles (loop bounds {bounds})"
    return None


def kill(name: str, out: Path) -> Kill:
    """Check mutant ``name``; a kill is a disagreement the unmutated design does not have, found twice."""
    m = MUTANTS[name]
    start = time.monotonic()
    status, evidence, replayed = "PASS", f"no disagreement on seeds {list(m.seeds)}", False
    for seed in m.seeds:
        with m.applied():
            found = check(m, seed)
        if found is None:
            continue
        if check(m, seed) is not None:
            status, evidence = "ERROR", f"the unmutated design disagrees too (seed {seed}): {check(m, seed)}"
            break
        with m.applied():
            replayed = check(m, seed) == found
        status, evidence = "FAIL", f"{Path(m.kernel).name}, seed {seed}: {found}"
        break
    return Kill(m.name, m.breaks, f"kernels {m.check} check on {m.kernel}", status, m.equivalent, evidence,
                replayed, time.monotonic() - start)
