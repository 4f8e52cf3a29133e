"""Verbs on kernels: cfg (the warp-level CFG), wcet (its IPET bound), simt (one concrete warp run).

A shell over :mod:`warpcheck._kernels`: argv into the verb's options record,
the library's run, its result printed.  Every option's default is the record's.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Callable

from warpcheck._kernels import CfgOptions, SimtOptions, WcetOptions, run_cfg, run_simt, run_wcet
from warpcheck._kernels.options import KernelOptions
from warpcheck.cli.options import INPUT, OUTPUT_FILE, positive_seconds, record_from_args
from warpcheck.models.kernels.latencies import DEFAULT_LATENCIES

if TYPE_CHECKING:
    from warpcheck._kernels import KernelResult

KERNEL_HELP = "a PTX file (nvcc -ptx) or a SASS-style listing (.sass) with SSY/SYNC/BRA/EXIT"


def _cfg(a: argparse.Namespace) -> int:
    o = record_from_args(CfgOptions, a)
    return _show(a, o.several, run_cfg(o, _shown(a)))


def _wcet(a: argparse.Namespace) -> int:
    o = record_from_args(WcetOptions, a)
    return _show(a, o.several, run_wcet(o, _shown(a)))


def _simt(a: argparse.Namespace) -> int:
    r = run_simt(record_from_args(SimtOptions, a))
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return r.code


def _show(a: argparse.Namespace, several: bool, r: KernelResult) -> int:
    """Print the result as the verb does and give its exit code.

    One entry: its object or text.  Several (``--entry`` repeated,
    ``--all-entries``): the texts were shown as each entry ended; with --json one
    object ``{"file", "entries": [...]}``; an entry refused has its one-line
    reason (``"status": "BAD_INPUT"``) and the exit code is 2.
    """
    if a.json:
        print(json.dumps(r.to_dict()))
    elif not several:
        print(r.report())
    if r.refused:
        name, why = next(iter(r.refused.items()))
        print(f"warpcheck {a.verb}: error: {len(r.refused)} of {len(r.order)} entries refused; "
              f"first: {name}: {why}", file=sys.stderr)
    return r.code


def _shown(a: argparse.Namespace) -> Callable[[str], None] | None:
    """Print each entry's text as it ends (several entries, text output): a timeout keeps those done."""
    return None if a.json else lambda text: print(text + "\n", flush=True)


def _add_common(p: argparse.ArgumentParser, several: bool = False) -> None:
    p.add_argument("kernel", metavar="KERNEL", type=INPUT, help=KERNEL_HELP)
    if several:
        p.add_argument("--entry", metavar="NAME", action="append",
                       help="a kernel to analyse in a module with several (a part of its name works); "
                            "repeat for several")
        p.add_argument("--all-entries", action="store_true", default=None,
                       help="analyse every kernel of the module (the file is parsed once)")
    else:
        p.add_argument("--entry", metavar="NAME",
                       help="the kernel to analyse in a module with several (a part of its name works)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _add_timeout(p: argparse.ArgumentParser, record: type[KernelOptions]) -> None:
    p.add_argument("--timeout", type=positive_seconds, default=record.timeout, metavar="S",
                   help="seconds for the whole run (every entry, set-up included) before TIMEOUT, exit 4 "
                        f"(default {record.timeout:g})")


def _add_analysis(p: argparse.ArgumentParser, record: type[CfgOptions] | type[WcetOptions]) -> None:
    p.add_argument("--no-value-agreement", dest="value_agreement", action="store_false", default=None,
                   help="treat every guarded branch as possibly divergent (to compare)")
    _add_threads(p, record)
    p.add_argument("--max-states", metavar="N",
                   help=f"give up when the warp-level CFG exceeds N nodes (default {record.max_states})")


def _add_threads(p: argparse.ArgumentParser, record: type[KernelOptions]) -> None:
    p.add_argument("--threads", metavar="W", help=f"warp width, 1 to 64 (default {record.threads})")


def _add_cost(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cost model (cycles per instruction class)")
    g.add_argument("--latency", action="append", metavar="CLASS=N",
                   help="override a class latency (int 1, fadd/fmul/fmadd 4, fcvt 5, fdiv/fsqrt 16, mem 100, "
                        "branch 1, exit 1; shared 20, param/const 4; tensor 32, and added to an access's space: "
                        "matrix 16, cp_async 20, bulk_copy 200, tma 200)")
    g.add_argument("--mem-latency", metavar="N",
                   help=f"latency of global/local memory (default {DEFAULT_LATENCIES['mem']})")


def register(sub) -> None:
    """Add the kernel verbs: cfg, wcet, simt."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("cfg", help="print the warp-level CFG of a kernel", formatter_class=fmt,
                       description="Build the warp-level CFG (blocks paired with abstract activation stacks).",
                       epilog="example:\n  warpcheck cfg examples/kernels/reduction.ptx --dot reduce.dot\n"
                              "  warpcheck cfg examples/corpus/dmath.ptx --all-entries --json\n"
                              "  warpcheck cfg examples/sass/slides.sass --no-value-agreement")
    _add_common(p, several=True)
    _add_analysis(p, CfgOptions)
    _add_cost(p)
    _add_timeout(p, CfgOptions)
    p.add_argument("--dot", metavar="FILE", type=OUTPUT_FILE, help="also write the warp-level CFG as Graphviz DOT (an existing file there is replaced)")
    p.set_defaults(func=_cfg)

    p = sub.add_parser("wcet", help="IPET WCET bound of one warp in isolation", formatter_class=fmt,
                       description="Bound the execution time of one warp with IPET over the warp-level CFG "
                                   "(Z3 Optimize, cross-checked with HiGHS).",
                       epilog="example:\n  warpcheck wcet examples/kernels/kmeans.ptx --max-loop-bound 8\n"
                              "  warpcheck wcet examples/corpus/dmath.ptx --entry growth --entry saxpy --max-loop-bound 16\n"
                              "  warpcheck wcet k.ptx --loop-bound '$L__BB0_3=16' --bounds k.toml --json\n"
                              "a loop bound N: each thread executes the loop header at most N times per "
                              "entry into the loop")
    _add_common(p, several=True)
    _add_analysis(p, WcetOptions)
    _add_cost(p)
    _add_timeout(p, WcetOptions)
    p.add_argument("--loop-bound", dest="loop_bounds", action="append", metavar="LABEL=N",
                   help="bound of the loop headed by LABEL (repeat for several)")
    p.add_argument("--bounds", metavar="FILE.toml", type=INPUT, help="loop bounds from a TOML file ([loops] LABEL = N)")
    p.add_argument("--max-loop-bound", metavar="N", help="bound of every loop not named")
    p.add_argument("--no-cross-check", dest="cross_check", action="store_false", default=None,
                   help="skip the HiGHS re-solve")
    p.set_defaults(func=_wcet)

    p = sub.add_parser("simt", help="run one warp concretely through the activation stack", formatter_class=fmt,
                       description="Execute one warp (per-thread registers, activation stack) and print the "
                                   "executed (block, active mask) sequence and its cycles.",
                       epilog="example:\n  warpcheck simt examples/kernels/nw.ptx --threads 32 --inputs in.toml\n"
                              "inputs (TOML/JSON): params = {param_2 = 8}, ctaid = [0], ntid = [32], seed = 1, "
                              "int_max = 8")
    _add_common(p)
    _add_cost(p)
    _add_threads(p, SimtOptions)
    p.add_argument("--inputs", metavar="FILE", type=INPUT, help="parameters, block index/size and memory seed")
    p.add_argument("--warp", metavar="N",
                   help=f"which warp of the block runs (%%tid.x = N * W + lane; default {SimtOptions.warp})")
    p.add_argument("--max-steps", metavar="N",
                   help=f"give up after N blocks, as bad input (default {SimtOptions.max_steps}, about 30 s: about "
                        "3,000 blocks run per second, so a kernel that never ends meets this before the default "
                        "--timeout)")
    _add_timeout(p, SimtOptions)
    p.set_defaults(func=_simt)
