"""Simulated cycles per second of the front-end model (Vortex-like: W=32, t_F=3, ibuffer 4).

Figures per design, each the median of 5 runs on this machine:

- reference: one simulation, the model's step over the concrete algebra (``run_iter``);
- compiled: one simulation, the traced step emitted as Python (``sim/frontend/compiled.py``);
- batched: many lanes in lockstep, the traced step in the numpy dialect
  (``sim/frontend/batch.py``), as aggregate cycles per second (lanes x cycles / seconds);
- native: the traced step, feeder and metrics compiled by numba
  (``sim/frontend/native.py``), timed without and with the two oracles; lanes run one
  after another to completion, so the figure is the speed of one simulation.
  Compile time is reported apart.

The workloads are the built-in six, round robin over lanes, each lane with its
own seed.  Reference, compiled and batched time stepping only, after one warm-up step.

    python benchmarks/sim_throughput.py [--out FILE.json] [--cycles N] [--lanes N,N]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time

from tabulate import tabulate

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.sim.frontend.batch import batch_iter, sources_for
from warpcheck.sim.frontend.driver import Feeder, initial_params, run_iter
from warpcheck.sim.frontend.metrics import compiled
from warpcheck.sim.frontend.native import available
from warpcheck.sim.frontend.suite import BUILTIN, builtin
from warpcheck.sim.frontend.workloads import Workload, WorkloadSource

GOAL = 330_000  # cycles/s of Vortex's own cycle simulator, the issue's target
RUNS = 5


def vortex(design: str) -> SMConfig:
    """The paper's Vortex configuration."""
    return SMConfig(warps=32, design=design, t_fetch=3, t_decode=1, ibuffer=4,
                    fetch_policy="lrr", issue_policy="gtlrr")


def single(design: str, cycles: int) -> float:
    """Cycles per second of one concrete simulation."""
    fe = FrontEnd(vortex(design))
    src = WorkloadSource(builtin("psort"), fe.W, fe.B)
    it = run_iter(fe, src.ibuffers(), src)
    next(it)
    t0 = time.perf_counter()
    for _ in range(cycles):
        next(it)
    return cycles / (time.perf_counter() - t0)


def compiled_single(design: str, cycles: int) -> float:
    """Cycles per second of one simulation through the compiled step (driver's feeder)."""
    cfe = compiled(vortex(design))
    fe = cfe.fe
    src = WorkloadSource(builtin("psort"), fe.W, fe.B)
    s = fe.init(CONCRETE, initial_params(fe, src.ibuffers()))
    feeder = Feeder(fe, src, fetch_choice=lambda st: cfe.fetch_choice(st, None))
    t0 = time.perf_counter()
    for _ in range(cycles):
        i = feeder.inputs(s)
        s = cfe.step(s, i)
    return cycles / (time.perf_counter() - t0)


def native_runs(design: str, runs: int) -> tuple[float, int, list[float], list[float]]:
    """(compile s, cycles per run, cycles/s of each run without / with the oracles) of the numba lane loop."""
    from warpcheck.sim.frontend.native import NativeFrontEnd
    nf = NativeFrontEnd(FrontEnd(vortex(design)))
    t0 = time.perf_counter()
    nf.run(sources_for(lanes_of(1), 32, 4), 10)  # compiles
    compile_s = time.perf_counter() - t0
    speeds: dict[bool, list[float]] = {False: [], True: []}
    total = 0
    for _ in range(runs):
        for oracles in (False, True):
            srcs = sources_for(lanes_of(6), 32, 4)
            t0 = time.perf_counter()
            out = nf.run(srcs, 1_000_000, oracles)
            dt = time.perf_counter() - t0
            total = int(out[:, 0].sum())
            speeds[oracles].append(total / dt)
    return compile_s, total, speeds[False], speeds[True]


def lanes_of(n: int) -> list[Workload]:
    """``n`` lanes: the six built-in workloads round robin, each lane with its own seed."""
    names = list(BUILTIN)
    return [dataclasses.replace(builtin(names[e % len(names)]), seed=e + 1) for e in range(n)]


def batched(design: str, cycles: int, wls: list[Workload]) -> float:
    """Aggregate cycles per second of ``len(wls)`` simulations in lockstep."""
    fe = FrontEnd(vortex(design))
    lanes = len(wls)
    it = batch_iter(fe, sources_for(wls, fe.W, fe.B))
    next(it)
    t0 = time.perf_counter()
    for _ in range(cycles):
        next(it)
    return lanes * cycles / (time.perf_counter() - t0)


def main() -> None:
    """Measure, print a markdown table, write JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sim_throughput.json")
    ap.add_argument("--cycles", type=int, default=200, help="cycles per timed run")
    ap.add_argument("--lanes", default="256,2048", help="batch sizes, comma-separated")
    ap.add_argument("--no-native", action="store_true", help="skip the numba runs (their compile takes minutes)")
    a = ap.parse_args()
    rows = []
    for design in ("baseline", "swas"):
        rows.append({"design": design, "mode": "reference (concrete algebra)", "lanes": 1,
                     "cycles_per_s": statistics.median(single(design, a.cycles) for _ in range(RUNS))})
        rows.append({"design": design, "mode": "compiled (Python)", "lanes": 1,
                     "cycles_per_s": statistics.median(compiled_single(design, a.cycles * 5) for _ in range(RUNS))})
        for n in [int(x) for x in a.lanes.split(",")]:
            wls = lanes_of(n)
            rows.append({"design": design, "mode": "batched (numpy)", "lanes": n,
                         "cycles_per_s": statistics.median(batched(design, a.cycles // 4, wls) for _ in range(RUNS))})
        if available() and not a.no_native:
            compile_s, total, plain, metrics = native_runs(design, RUNS)
            rows.append({"design": design, "mode": f"native (numba; compile {compile_s:.0f} s; {total} cycles/run)",
                         "lanes": 1, "cycles_per_s": statistics.median(plain), "compile_s": compile_s})
            rows.append({"design": design, "mode": "native, with metrics (both oracles)",
                         "lanes": 1, "cycles_per_s": statistics.median(metrics), "compile_s": compile_s})
    print(tabulate([[r["design"], r["mode"], r["lanes"], f"{r['cycles_per_s']:,.0f}",
                     f"{r['cycles_per_s'] / GOAL:.3f}"] for r in rows],
                   headers=["design", "mode", "lanes", "simulated cycles/s", "x goal (330k)"], tablefmt="github"))
    with open(a.out, "w") as f:
        json.dump({"config": vortex("baseline").to_json() | {"design": "both"}, "runs": RUNS, "goal": GOAL,
                   "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
