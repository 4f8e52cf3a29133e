"""The ``simulate`` verb: run workloads on the baseline and SWaS front ends and print the metrics."""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck._frontend import SimulateOptions, simulate_options
from warpcheck._frontend.options import SIMULATE_WARPS
from warpcheck.cli.frontend.verbs import progress, show
from warpcheck.cli.options import INPUT, positive_seconds, record_from_args
from warpcheck.cli.qaws import kernels_sim
from warpcheck.models.errors import OptionError
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.sim.frontend.limits import ENGINES

EPILOG = f"""examples:
  warpcheck simulate psort --design both --warps 8
  warpcheck simulate all --design both --fetch lrr --issue gtlrr,lrr --json
  warpcheck simulate examples/workloads/saxpy.toml --design swas --policy gtlrr
  warpcheck simulate --list
  warpcheck simulate --ptx examples/kernels/hotspot.ptx --block 64 --param 0=0 --param 1=1048576 --param 2=40 --param 3=1 --param 4=3 --param 5=0
  warpcheck simulate --kernels K1.toml,K2.toml --policy lrr,gto,qaws --budget K1=1 --budget K2=4

--fetch, --issue and --policy take a comma-separated list of policies or 'all':
{", ".join(POLICIES)} (gto is gtlo); --kernels runs lrr, gto and qaws.
The baseline runs every fetch x issue pair; SWaS runs every --policy (default:
the --issue list).  --ptx runs a PTX kernel's warps (every warp of the launch on
one SM), global accesses through the L1 --dcache, behind the reordering unit
with --unit; the table adds dcache, l1_loads and l1_misses.
Metrics (Crouzet et al., Sec. VI-A5): committed = non-NOP warp instructions
issued x threads per warp, IPC = committed / cycles,
discrepancies = cycles where the issued warp differs from osched1's choice,
errors = the same against osched2, error_rate = errors / cycles.
exit codes: 0 success (every run finished), 1 some run hit --max-cycles, 2 bad input, 5 ERROR,\n130 interrupted"""


def register(sub: Any) -> None:
    """Add the ``simulate`` verb."""
    S = SimulateOptions
    p = sub.add_parser("simulate", help="run workloads on the front-end models and report IPC and scheduling errors",
                       description="Run SIMT workloads cycle by cycle on the baseline and SWaS front ends.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workloads", type=INPUT, nargs="*", metavar="WORKLOAD",
                   help="built-in workload name, 'all', or a workload TOML file")
    p.add_argument("--workload", action="append", default=[], metavar="NAME", type=INPUT, help="same as WORKLOAD (repeatable)")
    p.add_argument("--list", action="store_true", help="list the built-in workloads and exit")
    p.add_argument("--design", choices=("baseline", "swas", "both"),
                   help=f"which design to run (default: {S.design}, side by side)")
    p.add_argument("--fetch", metavar="P[,P]", help="baseline fetch policies (default lrr)")
    p.add_argument("--issue", metavar="P[,P]", help="baseline issue policies (default gtlrr)")
    p.add_argument("--policy", metavar="P[,P]", help="SWaS policies (default: the --issue list)")
    p.add_argument("--warps", "-W", type=int, metavar="W", help=f"number of warps (default {SIMULATE_WARPS})")
    p.add_argument("--config", metavar="FILE.toml", type=INPUT, help="SM configuration file ([sm] table); flags override it")
    p.add_argument("--max-cycles", type=int, metavar="N",
                   help=f"stop a run after N cycles (reported as unfinished; default {S.max_cycles})")
    p.add_argument("--scale", type=float, metavar="F", help=f"scale every loop trip count by F (default {S.scale:g})")
    p.add_argument("--icache", metavar="LINESxSIZE",
                   help=f"direct-mapped I-cache: lines x instructions per line (default {S.icache})")
    p.add_argument("--engine", choices=ENGINES,
                   help="compiled: the traced step as Python; reference: the model's functions over the "
                        "concrete algebra; native: numba machine code (needs warpcheck[fast]; compiles for "
                        "seconds at W=4, minutes at W=32). All give the same figures "
                        f"(default {S.engine})")
    p.add_argument("--timeout", type=positive_seconds, default=S.timeout, metavar="S",
                   help=f"seconds for the whole run before it stops with TIMEOUT, exit 4 (default {S.timeout:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    _ptx_options(p)
    kernels_sim.add_options(p)
    p.set_defaults(func=_simulate)


def _ptx_options(p: argparse.ArgumentParser) -> None:
    """A real kernel instead of workloads: the PTX file, its launch (as ``analyze`` takes it), the data cache."""
    S = SimulateOptions
    g = p.add_argument_group("a PTX kernel (its launch as for analyze; all its warps on one SM)")
    g.add_argument("--ptx", type=INPUT, metavar="FILE.ptx", help="run this PTX kernel's warps instead of workloads")
    g.add_argument("--entry", metavar="NAME", help="the kernel, in a module with several")
    g.add_argument("--grid", metavar="X[,Y[,Z]]", help="blocks of the grid (default 1)")
    g.add_argument("--block", metavar="X[,Y[,Z]]", help="threads of a block (default 32 x --warps)")
    g.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a kernel parameter, by name, by the suffix after its last '_', or by index (repeatable)")
    g.add_argument("--line-bytes", type=int, metavar="N", help=f"L1 line size (default {S.line_bytes})")
    g.add_argument("--dcache", metavar="SIZE:WAYS|off",
                   help=f"the L1 data cache, LRU (default {S.dcache}); off: every access takes --dcache-miss")
    g.add_argument("--dcache-hit", type=int, metavar="N", help=f"cycles of an L1 hit (default {S.dcache_hit})")
    g.add_argument("--dcache-miss", type=int, metavar="N", help=f"cycles of an L1 miss (default {S.dcache_miss})")
    g.add_argument("--unit", action="store_true", default=None,
                   help="put the load/store reordering unit in front of the L1")


def _list(a: argparse.Namespace) -> int:
    from warpcheck.sim.frontend.suite import BUILTIN
    rows = [{"name": w.name, "instructions": len(w.kernel), "dynamic_per_warp": len(w.path(0)),
             "loops": dict(w.loops), "description": w.description} for w in BUILTIN.values()]
    if a.json:
        print(json.dumps({"workloads": rows}))
    else:
        from tabulate import tabulate
        print(tabulate([[r["name"], r["instructions"], r["dynamic_per_warp"], r["description"]] for r in rows],
                       headers=["workload", "static", "dynamic/warp", "description"], tablefmt="github"))
    return 0


def _simulate(a: argparse.Namespace) -> int:
    if a.list:
        return _list(a)
    options = record_from_args(SimulateOptions, a, workloads=[*a.workloads, *a.workload])
    if a.kernels is not None and options.ptx is not None:
        raise OptionError("ptx", options.ptx, "given with --kernels; run either a PTX kernel or several workloads")
    if a.kernels is not None:
        a.max_cycles, a.engine, a.scale = options.max_cycles, options.engine, options.scale  # the record's defaults
        return kernels_sim.simulate_kernels(a, options.sm, options.icache)  # type: ignore[arg-type]
    r = simulate_options(options, None if a.json else progress)
    show(r, a.json)
    return r.code
