"""The ``simulate`` verb: run workloads on the baseline and SWaS front ends and print the metrics."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from warpcheck.cli.options import INPUT, at_most
from warpcheck._frontend import run_workloads  # the API's function: one path for scripts and the verb
from warpcheck.cli.qaws import kernels_sim
from warpcheck.models.frontend.config import SMConfig, canonical_policy, config_from_mapping, load_config
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.policies import POLICIES, check_policy
from warpcheck.sim.frontend.metrics import DEFAULT_MAX_CYCLES, ENGINES, configurations, table
from warpcheck.sim.frontend.suite import BUILTIN

EPILOG = f"""examples:
  warpcheck simulate psort --design both --warps 8
  warpcheck simulate all --design both --fetch lrr --issue gtlrr,lrr --json
  warpcheck simulate examples/workloads/saxpy.toml --design swas --policy gtlrr
  warpcheck simulate --list
  warpcheck simulate --kernels K1.toml,K2.toml --policy lrr,gto,qaws --budget K1=1 --budget K2=4

--fetch, --issue and --policy take a comma-separated list of policies or 'all':
{", ".join(POLICIES)} (gto is gtlo); --kernels runs lrr, gto and qaws.
The baseline runs every fetch x issue pair; SWaS runs every --policy (default:
the --issue list).  Metrics (Crouzet et al., Sec. VI-A5): committed = non-NOP
warp instructions issued x threads per warp, IPC = committed / cycles,
discrepancies = cycles where the issued warp differs from osched1's choice,
errors = the same against osched2, error_rate = errors / cycles.
exit codes: 0 success (every run finished), 1 some run hit --max-cycles, 2 bad input, 5 ERROR,\n130 interrupted"""


def register(sub: Any) -> None:
    """Add the ``simulate`` verb."""
    p = sub.add_parser("simulate", help="run workloads on the front-end models and report IPC and scheduling errors",
                       description="Run SIMT workloads cycle by cycle on the baseline and SWaS front ends.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workloads", type=INPUT, nargs="*", metavar="WORKLOAD",
                   help="built-in workload name, 'all', or a workload TOML file")
    p.add_argument("--workload", action="append", default=[], metavar="NAME", type=INPUT, help="same as WORKLOAD (repeatable)")
    p.add_argument("--list", action="store_true", help="list the built-in workloads and exit")
    p.add_argument("--design", choices=("baseline", "swas", "both"), default="both",
                   help="which design to run (default: both, side by side)")
    p.add_argument("--fetch", metavar="P[,P]", help="baseline fetch policies (default lrr)")
    p.add_argument("--issue", metavar="P[,P]", help="baseline issue policies (default gtlrr)")
    p.add_argument("--policy", metavar="P[,P]", help="SWaS policies (default: the --issue list)")
    p.add_argument("--warps", "-W", type=at_most(64, why="an SM holds at most 64 warps; a run at W = 64 already takes "
                                                          "about a minute"), metavar="W", help="number of warps (default 8)")
    p.add_argument("--config", metavar="FILE.toml", type=INPUT, help="SM configuration file ([sm] table); flags override it")
    p.add_argument("--max-cycles", type=int, default=DEFAULT_MAX_CYCLES, metavar="N",
                   help=f"stop a run after N cycles (reported as unfinished; default {DEFAULT_MAX_CYCLES})")
    p.add_argument("--scale", type=float, default=1.0, metavar="F", help="scale every loop trip count by F")
    p.add_argument("--icache", default="16x4", metavar="LINESxSIZE",
                   help="direct-mapped I-cache: lines x instructions per line (default 16x4)")
    p.add_argument("--engine", choices=ENGINES, default="compiled",
                   help="compiled: the traced step as Python; reference: the model's functions over the "
                        "concrete algebra; native: numba machine code (needs warpcheck[fast]; compiles for "
                        "seconds at W=4, minutes at W=32). All give the same figures")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    kernels_sim.add_options(p)
    p.set_defaults(func=_simulate)


def _policies(text: str | None, default: list[str], option: str) -> list[str]:
    if text is None:
        return default
    if text == "all":
        return list(POLICIES)
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise ConfigError(f"{option} {text!r} names no policy; give e.g. {option} lrr,gtlrr or {option} all")
    return [check_policy(option, canonical_policy(n)).name for n in names]


MAX_ICACHE_LINES, MAX_ICACHE_LINE = 4096, 64


def _icache(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(x.isdigit() and int(x) >= 1 for x in parts):
        raise ConfigError(f"--icache {text!r} is not LINESxSIZE with both >= 1; write e.g. --icache 16x4")
    lines, size = int(parts[0]), int(parts[1])
    if lines > MAX_ICACHE_LINES or size > MAX_ICACHE_LINE:
        raise ConfigError(f"--icache {text!r} is above the ceiling of {MAX_ICACHE_LINES}x{MAX_ICACHE_LINE} "
                          "(lines x instructions per line); an SM's I-cache is a few KiB")
    return lines, size


def _base_config(a: argparse.Namespace) -> SMConfig:
    data = load_config(a.config).to_json() if a.config else {"warps": 8}
    if a.warps is not None:
        data["warps"] = a.warps
    data["design"] = "baseline"
    return config_from_mapping(data, where=a.config or "options")


def _list(a: argparse.Namespace) -> int:
    rows = [{"name": w.name, "instructions": len(w.kernel), "dynamic_per_warp": len(w.path(0)),
             "loops": dict(w.loops), "description": w.description} for w in BUILTIN.values()]
    if a.json:
        print(json.dumps({"workloads": rows}))
    else:
        from tabulate import tabulate
        print(tabulate([[r["name"], r["instructions"], r["dynamic_per_warp"], r["description"]] for r in rows],
                       headers=["workload", "static", "dynamic/warp", "description"], tablefmt="github"))
    return 0


def _say(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def _simulate(a: argparse.Namespace) -> int:
    if a.list:
        return _list(a)
    if a.kernels is not None:
        if a.max_cycles < 1 or a.scale <= 0:
            raise ConfigError(f"--max-cycles {a.max_cycles!r} / --scale {a.scale!r}: both must be positive")
        return kernels_sim.simulate_kernels(a, _base_config(a), _icache(a.icache))
    names = list(a.workloads) + list(a.workload)
    if not names:
        raise ConfigError("no workload given; name one (see --list), 'all', or a workload TOML file")
    if "all" in names:
        names = [n for n in names if n != "all"] + list(BUILTIN)
    if a.max_cycles < 1 or a.scale <= 0:
        raise ConfigError(f"--max-cycles {a.max_cycles!r} / --scale {a.scale!r}: both must be positive")
    base = _base_config(a)
    issue = _policies(a.issue, [base.issue_policy], "--issue")
    fetch = _policies(a.fetch, [base.fetch_policy], "--fetch")
    swas = _policies(a.policy, issue, "--policy")
    designs = ("baseline", "swas") if a.design == "both" else (a.design,)
    configs = configurations(base, fetch, issue, swas, designs)
    shape = _icache(a.icache)
    rows = run_workloads(names, configs, a.max_cycles, shape, a.scale, a.engine, None if a.json else _say)
    if a.json:
        print(json.dumps({"config": base.to_json(), "icache": {"lines": shape[0], "line_size": shape[1]},
                          "max_cycles": a.max_cycles, "runs": [r.to_json() for r in rows]}))
    else:
        print(table(rows))
        unfinished = [f"{r.workload}/{r.design}/{r.policies}" for r in rows if not r.finished]
        if unfinished:
            print(f"not finished within {a.max_cycles} cycles: {', '.join(unfinished)}")
    return 0 if all(r.finished for r in rows) else 1
