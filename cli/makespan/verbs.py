"""``warpcheck makespan``: the exact worst-case makespan of W warps, with the paper's bounds beside it.

The parser and the printing only: the work is :func:`warpcheck._makespan.run`, on a
:class:`~warpcheck._makespan.options.MakespanOptions` record built from the arguments.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from warpcheck._makespan import run, to_stderr
from warpcheck._makespan.options import METHODS, MakespanOptions, whole_run_budget
from warpcheck.cli.options import INPUT, OUTPUT_FILE, record_from_args

EPILOG = """\
examples:
  warpcheck makespan LLCLL --warps 8 --sigma L=1 --sigma C=1
  warpcheck makespan LCLCL --warps 6 --sigma L=1/2 --sigma C=1 --method smt --json
  warpcheck makespan "L C4 L C4p" --warps 4 --sigma L=1 --sigma C=2

kernel: one upper-case letter per instruction, the unit type it runs on; a suffix gives a
latency (C4: four cycles holding the unit; C4p: pipelined, the unit is taken for one cycle).
cycles: a warp may issue its next instruction in the cycle after the previous one ends; at
every cycle each unit u issues min(free slots, ready warps) instructions (work conservation).
exit codes: 0 done (exact, or the estimate asked for), 2 bad input, 4 the exact search timed out
(the makespan shown is then a lower bound), or the answer is exact but --timeout ran out while its
certificate was checked (nothing written), 5 internal error (a schedule or a certificate that does not hold)"""

METHOD_HELP = (
    "auto: first 5 to 25 policy runs against the closed bounds below (exact at once when a run meets one), "
    "then enumerate for 2 s (0.25 s above 32 warps), then three worker processes side by side (blocks then "
    "block-ranking; deficit; ranking; the first exact answer stops the others; two, block-ranking and ranking, on a "
    "steep kernel, whose cheap runs outgrow every unit's work), then, up to 32 warps, enumerate on with the last "
    "third (all within --timeout, default 120 s); when none is exact, the certified interval lower .. upper (kernels "
    "above 40 phases go straight to it); interval: only that (policy runs below; the critical-warp, alternation and "
    "pair bounds, Eq. 5-7 where every sigma is 1, and the backlog LP above; docs/makespan-interval.md); "
    "blocks: deficit accounting over runs of same-unit phases (one-cycle kernels); "
    "block-ranking: a ranking function over those blocks, found by LP; "
    "deficit: deficit accounting over capped counts, refined by caps and linear invariants; "
    "ranking: a bound linear in W proved by a ranking function found by LP; each met by a searched run; "
    "smt: Z3 bound search with an UNSAT proof; optimize: z3 Optimize; ilp: the paper's Fig. 3 ILP on HiGHS; "
    "enumerate: exhaustive search; approx, pessimistic: the paper's estimates")


def register(sub: Any) -> None:
    """Add the ``makespan`` verb."""
    d = MakespanOptions
    p = sub.add_parser("makespan", help="worst-case makespan of W identical warps on one SM",
                       description="Compute the exact worst-case makespan of W warps running one kernel on a "
                                   "work-conserving SM, next to the paper's pessimistic bound and approximation.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernel", nargs="?", help="kernel instruction string, e.g. LLCLL")
    p.add_argument("--warps", "-W", type=int, help="number of warps W (at least 1; required with a kernel)")
    p.add_argument("--sigma", action="append", metavar="U=n|U=1/n",
                   help="warps per cycle on unit type U (repeat for every unit of the kernel)")
    p.add_argument("--method", choices=METHODS, help=f"{METHOD_HELP} (default {d.method})")
    p.add_argument("--x", type=int, help="x of the approximation T^(W,x) (default min(W, 4))")
    p.add_argument("--timeout", type=float, help="seconds for the exact search (default: auto 120, "
                   "smt/optimize/ilp 300, blocks, block-ranking, deficit and ranking 60, enumerate 3600; the whole "
                   "run stops with TIMEOUT shortly after)")
    p.add_argument("--certificate", metavar="FILE", type=OUTPUT_FILE, help="write a certificate of the exact answer "
                   "(JSON: the schedule and the upper-bound potential), or of the interval (the run and the upper "
                   "bound's proof); methods auto, interval, enumerate, blocks, block-ranking, deficit and ranking "
                   "(the answer's certificate is checked by the independent checker whether or not it is written; an "
                   "existing file there is replaced)")
    p.add_argument("--check", metavar="FILE", type=INPUT, help="check a certificate instead of searching: exit 0 if it "
                   "holds, 1 if it is refused")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr (--json implies it)")
    g = p.add_argument_group("kernel from PTX (instead of a kernel string; docs/makespan-interval.md)")
    g.add_argument("--ptx", metavar="FILE", type=INPUT, help="build the kernel from a PTX entry: its worst path (as "
                   "wcet takes it, loops unrolled by their bounds), each instruction on the unit of its role")
    g.add_argument("--entry", metavar="NAME", help="the PTX entry (needed when the file holds several)")
    g.add_argument("--sm", metavar="FILE", type=INPUT, help="SM file: lanes per unit and the unit of each role "
                   "(examples/sm/fermi-makespan.toml, examples/sm/ampere-makespan.toml)")
    g.add_argument("--bounds", metavar="FILE.toml", type=INPUT, help="loop bounds ([loops] LABEL = N), as wcet reads "
                   "them")
    g.add_argument("--loop-bound", action="append", metavar="LABEL=N", help="bound of the loop headed by LABEL")
    g.add_argument("--max-loop-bound", type=int, metavar="N", help="bound of every loop not named")
    p.set_defaults(func=run_verb, budget_of=lambda args: whole_run_budget(args.timeout, args.method))


def run_verb(args: argparse.Namespace) -> int:
    """Run the verb: the record from the arguments, the library's answer printed."""
    result = run(record_from_args(MakespanOptions, args), None if args.json or args.quiet else to_stderr)
    print(json.dumps(result.to_dict()) if args.json else result.report())
    return result.code
