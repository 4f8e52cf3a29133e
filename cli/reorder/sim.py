"""``warpcheck reorder simulate``: cycles and L1 misses of a kernel in three configurations (Fig. 12-13).

default: LRR warp scheduling, no unit; unit: LRR with the reordering unit;
rr: pure round robin, no unit.  Each runs once per seed of the memory-side
jitter.  Under the unit the L1 order must be the static order and the misses
the static replay's (else the kit has a bug: exit 5); a unit that deadlocks
at a barrier is a FAIL (exit 1).
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck.cli.options import at_most
from warpcheck.cli.reorder.verbs import add_kernel_options, run_analysis
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.l1 import L1Spec, parse_cache
from warpcheck.models.reorder.order import static_order
from warpcheck.sim.reorder.accesses import Analysis
from warpcheck.spec.reorder.l1_replay import replay
from warpcheck.sim.reorder.timing import DESIGNS, Timing, simulate_kernel
from warpcheck.sim.reorder.wcet import cycle_bound, segment_estimates

CONFIGS = {"default": (False, "lrr"), "unit": (True, "lrr"), "rr": (False, "rr")}


def compare(an: Analysis, spec: L1Spec, timing: Timing, seeds: int, channel: int,
            rule: str = "round", design: str = "baseline") -> dict[str, Any]:
    """Every configuration over ``seeds`` seeds: cycles, load misses, static order kept, deadlocks."""
    from warpcheck.cli.reorder.prove import workload

    work, lines = workload(an, limit=False)
    order = static_order(work.epochs, rule)
    static = replay([lines[w][k] for w, k in order], spec)
    traces = [w.trace for w in an.warps]
    out: dict[str, Any] = {"static_load_misses": static.load_misses, "loads": static.loads, "configs": {}}
    for name, (unit, policy) in CONFIGS.items():
        runs = [simulate_kernel(an.kernel, traces, work, lines, spec, unit, policy,
                                Timing(timing.hit, timing.miss, timing.jitter, seed, timing.cost), channel, rule,
                                design=design)
                for seed in range(seeds)]
        out["configs"][name] = {
            "cycles": [r.cycles for r in runs], "load_misses": sorted({r.load_misses for r in runs}),
            "static_order_kept": all(r.order == order for r in runs), "deadlock": any(r.deadlock for r in runs),
            "misaligned": sum(r.misaligned for r in runs if not r.deadlock)}
        bound = cycle_bound(an.kernel, traces, work, lines, spec, timing, unit, policy, channel, rule, design)
        out["configs"][name].update(bound=bound["total"], bound_terms=bound,
                                    bound_over=round(bound["total"] / max(r.cycles for r in runs), 3))
    eq3, eq4 = segment_estimates(an.kernel, traces, lines, timing, static.miss_rate)
    worst = max(max(c["cycles"]) for c in out["configs"].values())
    out["wcet"] = {"eq3": round(eq3, 1), "eq4": round(eq4, 1), "miss_rate": round(static.miss_rate, 6),
                   "max_simulated": worst, "eq3_over": round(eq3 / worst, 3), "eq4_over": round(eq4 / worst, 3)}
    return out


def _status(out: dict) -> int:
    unit = out["configs"]["unit"]
    if any(c["misaligned"] for c in out["configs"].values()):
        return 5
    if unit["deadlock"]:
        return 1
    if any(max(c["cycles"]) > c["bound"] for c in out["configs"].values() if not c["deadlock"]):
        return 5  # the bound argued in models.reorder_bound failed: a bug of the kit (or of the argument)
    kept = unit["static_order_kept"] and unit["load_misses"] == [out["static_load_misses"]]
    return 0 if kept else 5


def _report(kernel: str, out: dict) -> str:
    lines = [f"kernel {kernel}: {out['loads']} load lines; LRU replay of the static order: "
             f"{out['static_load_misses']} load misses",
             f"{'config':8} {'cycles (per seed)':40} {'load misses':14} static order kept"]
    for name, c in out["configs"].items():
        cycles = "deadlock" if c["deadlock"] else " ".join(map(str, c["cycles"]))
        lines.append(f"{name:8} {cycles[:40]:40} {str(c['load_misses']):14} {c['static_order_kept']}")
    for name, c in out["configs"].items():
        lines.append(f"{name:8} charged cycle bound {c['bound']} ({c['bound_over']:.2f}x its largest run)")
    w = out["wcet"]
    lines.append(f"segment WCET estimate (Sec. IV): Eq. 3 {w['eq3']:.0f} cycles ({w['eq3_over']:.2f}x the largest "
                 f"simulated run), Eq. 4 with miss rate {w['miss_rate']:.3f}: {w['eq4']:.0f} ({w['eq4_over']:.2f}x)")
    return "\n".join(lines)


def run_simulate(a: argparse.Namespace) -> tuple[dict[str, Any], int, str]:
    """``reorder simulate`` on parsed options: the verb's JSON object, exit code and text report; nothing printed."""
    if a.seeds < 1 or a.jitter < 0 or a.hit < 1 or a.miss < a.hit:
        raise ConfigError(f"--seeds {a.seeds}, --jitter {a.jitter}, --hit {a.hit}, --miss {a.miss}: give at least "
                          f"one seed, a non-negative jitter and 1 <= hit <= miss")
    an = run_analysis(a)
    spec = parse_cache(a.cache, a.line_bytes, a.stores)
    out = compare(an, spec, Timing(a.hit, a.miss, a.jitter, 0, CostModel()), a.seeds, a.channel, a.order, a.design)
    code = _status(out)
    out["kernel"] = an.kernel.name
    return out, code, _report(an.kernel.name, out)


def _simulate(a: argparse.Namespace) -> int:
    from warpcheck._reorder import simulation_of  # the API's function (imported here: it imports this module)

    r = simulation_of(a)
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return r.code


def add_action(acts: Any) -> None:
    """Add ``reorder simulate``."""
    q = acts.add_parser("simulate", formatter_class=argparse.RawDescriptionHelpFormatter,
                        help="cycles and L1 misses: LRR, LRR with the unit, pure round robin",
                        description="Timing simulation of every warp on one SM in three configurations: "
                                    "default (LRR, no unit), unit (LRR with the reordering unit) and rr (pure "
                                    "round robin, no unit).",
                        epilog="example:\n  warpcheck reorder simulate examples/reorder/set_conflicts.ptx --grid 1 "
                               "--block 128 --param data=0 --param rows=3 --jitter 100 --seeds 5\n"
                               "exit codes: 0 the unit kept the static order, 1 the unit deadlocked, 2 bad input, "
                               "5 the unit left the static order, an issue left the trace or a run exceeded the charged bound "
                               "(a bug of the kit)")
    add_kernel_options(q)
    q.add_argument("--cache", default="16K:4", metavar="SIZE:WAYS", help="the L1 (default 16K:4)")
    q.add_argument("--hit", type=int, default=20, metavar="N", help="L1 hit latency (default 20)")
    q.add_argument("--miss", type=int, default=200, metavar="N", help="L1 miss latency (default 200)")
    q.add_argument("--jitter", type=int, default=0, metavar="N",
                   help="a miss takes 0..N cycles more, drawn per seed (default 0)")
    q.add_argument("--seeds", type=at_most(10_000), default=1, metavar="N", help="runs per configuration (default 1)")
    q.add_argument("--design", choices=DESIGNS, default="baseline",
                   help="the SM front end: baseline (fetch and issue by the policy) or swas (default baseline)")
    q.add_argument("--channel", type=at_most(64), default=2, metavar="C",
                   help="channel depth (default 2, as in reorder prove: the depth the proofs cover)")
    q.set_defaults(func=_simulate)
