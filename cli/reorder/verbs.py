"""The verbs of the load/store reordering framework: ``analyze`` and ``reorder prove|replay|simulate``.

A shell over :mod:`warpcheck._reorder`: each verb parses argv into its options
record (every default is the record's; the options here default to None),
runs it with the library and prints the result.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from warpcheck._reorder import analysis_of, proof_of, replay_of, simulation_of
from warpcheck._reorder.options import (KERNEL_CACHE, STREAM_CACHE, AnalyzeOptions, LaunchOptions,
                                        ReorderProveOptions, ReorderReplayOptions, ReorderSimulateOptions)
from warpcheck.cli.options import INPUT, OUTPUT_FILE, output_file, positive_seconds, record_from_args
from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.l1 import STORE_POLICIES
from warpcheck.models.reorder.order import ORDERS
from warpcheck.models.reorder.streams import MAX_STREAM_LENGTH, MAX_STREAM_LINES, MAX_STREAM_WARPS
from warpcheck.models.frontend.config import DESIGNS
from warpcheck.verify.reorder.checks import CHECKS, STREAM_CHECKS

FMT = argparse.RawDescriptionHelpFormatter
WITNESS_FOLDER = "warpcheck-out"  # where a FAIL's witness goes without --witness


def _print(result: Any, as_json: bool) -> int:
    print(json.dumps(result.to_dict()) if as_json else result.report())
    return int(result.code)


def _analyze(a: argparse.Namespace) -> int:
    r = analysis_of(record_from_args(AnalyzeOptions, a))
    if r.problem:
        if a.json:
            print(json.dumps(r.to_dict()))
        raise ConfigError(r.problem)
    return _print(r, a.json)


def _prove(a: argparse.Namespace) -> int:
    o = record_from_args(ReorderProveOptions, a)
    return _print(proof_of(o, None if a.json or a.quiet else _progress, WITNESS_FOLDER), a.json)


def _replay(a: argparse.Namespace) -> int:
    return _print(replay_of(record_from_args(ReorderReplayOptions, a)), a.json)


def _simulate(a: argparse.Namespace) -> int:
    return _print(simulation_of(record_from_args(ReorderSimulateOptions, a)), a.json)


def _progress(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def _choices(names: tuple[str, ...] | list[str]) -> str:
    return "{" + ",".join(names) + "}"


def add_kernel_options(p: argparse.ArgumentParser, optional: bool = False) -> None:
    """The options that say which kernel runs how: file, entry, grid, block, parameters (``LaunchOptions``).

    ``optional``: the verb has a mode without a kernel (its record checks that a kernel mode got them)."""
    d = LaunchOptions
    p.add_argument("kernel", metavar="KERNEL", type=INPUT, nargs="?" if optional else None, help="a PTX file (nvcc -ptx)")
    p.add_argument("--entry", metavar="NAME", help="the kernel to analyse in a module with several")
    p.add_argument("--grid", required=not optional, metavar="X[,Y[,Z]]", help="blocks of the grid")
    p.add_argument("--block", required=not optional, metavar="X[,Y[,Z]]", help="threads of a block")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a kernel parameter (by name, by the suffix after the last '_', or by index); every "
                        "parameter must be given")
    p.add_argument("--line-bytes", metavar="N", help=f"L1 line size (default {d.line_bytes})")
    p.add_argument("--order", metavar=_choices(ORDERS),
                   help=f"static order: round (k-th access of each warp, then block, then warp) or barrier (barrier "
                        f"epoch first, then the round); default {d.order}")
    p.add_argument("--stores", metavar=_choices(STORE_POLICIES),
                   help=f"what a store that hits in L1 does (write-through, no allocate; default {d.stores})")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def register(sub: Any) -> None:
    """Add the verbs analyze and reorder (prove, replay, simulate)."""
    p = sub.add_parser("analyze", help="list every warp's dynamic global loads/stores and the static order",
                       formatter_class=FMT,
                       description="The kernel analyzer of the reordering framework: run every warp of every "
                                   "block concretely and list each dynamic global load/store with its coalesced "
                                   "line addresses and active lanes, and the reordering unit's static order.",
                       epilog="example:\n  warpcheck analyze examples/reorder/paper_example.ptx --grid 1,2,1 "
                              "--block 16,4,1 --param in=0 --cache 16K:4\n"
                              "a branch, guard or address that depends on loaded data is named and the run "
                              "stops (exit 2)")
    add_kernel_options(p)
    p.add_argument("--cache", metavar="SIZE:WAYS", help="also replay the L1 in the static order (e.g. 16K:4)")
    _timeout(p, AnalyzeOptions.timeout, "seconds for the whole run, set-up included, before TIMEOUT, exit 4")
    p.set_defaults(func=_analyze)
    r = sub.add_parser("reorder", help="proofs about the load/store reordering unit", formatter_class=FMT,
                       description="The warp-based load/store reordering unit in front of L1.")
    acts = r.add_subparsers(dest="action", metavar="ACTION")
    acts.required = True
    _add_prove(acts)
    _add_simulate(acts)
    _add_replay(acts)


def _timeout(p: argparse.ArgumentParser, default: float | None, what: str) -> None:
    p.add_argument("--timeout", type=positive_seconds, default=default, metavar="S", help=f"{what} (default {default:g})")


def _add_prove(acts: Any) -> None:
    d = ReorderProveOptions
    q = acts.add_parser("prove", formatter_class=FMT, help="prove the L1 order is the static order",
                        description="With the unit: prove (k-induction, proved lemmas) that for every LD/ST "
                                    "schedule the k-th request sent to L1 is the k-th of the static order, or "
                                    "(--check deadlock) that the unit never waits for a request held behind a "
                                    "barrier.  Without it (--no-unit): find two schedules whose L1 orders differ "
                                    "and replay them.",
                        epilog="example:\n  warpcheck reorder prove --streams 3 --warps 2 --channel 2\n"
                               "  warpcheck reorder prove --streams 3 --warps 2 --order barrier\n"
                               "  warpcheck reorder prove examples/reorder/paper_example.ptx --grid 1,2,1 "
                               "--block 16,4,1 --param in=0\n  warpcheck reorder prove examples/reorder/"
                               "paper_example.ptx --grid 1,2,1 --block 16,4,1 --param in=0 --no-unit\n"
                               "exit codes: 0 PASS, 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT, 5 ERROR")
    add_kernel_options(q, optional=True)
    g = q.add_argument_group("the unit as a design, without a kernel (--streams)")
    g.add_argument("--streams", metavar="N",
                   help=f"prove the unit for every stream of 0..N requests per warp (1..{MAX_STREAM_LENGTH}) "
                        "instead of a kernel")
    g.add_argument("--warps", metavar="W", help=f"warps of the streams (1..{MAX_STREAM_WARPS}, default {d.warps})")
    g.add_argument("--blocks", metavar="B,B,..", help="each warp's block, ascending (default: all in block 0)")
    g.add_argument("--lines", metavar="L", help=f"line numbers a request may touch, 0..L-1 (at most "
                                                f"{MAX_STREAM_LINES}; default {d.lines}: three per set of the "
                                                f"default L1)")
    g.add_argument("--barriers", metavar="B", help="at most B bar.sync count per warp (0..N; default: any number, "
                                                    "then a second proof with at most N - 2, so that the barrier "
                                                    "key's bounds differ)")
    q.add_argument("--mutant", metavar="NAME", help="prove a deliberately broken copy of the unit, over streams "
                   "or on a kernel (the mutation suite; see benchmarks/mutants.py --domain reorder)")
    q.add_argument("--no-unit", action="store_true", default=None, help="requests go to L1 in arrival order")
    q.add_argument("--check", metavar=_choices(CHECKS + tuple(c for c in STREAM_CHECKS if c not in CHECKS)),
                   help="on a kernel: order (default): the L1 order is the static one; misses: the L1 load misses "
                        "are those of the static order's LRU replay (the L1 of --cache in the model); deadlock: the "
                        "unit never waits for a request held behind a barrier; wait: the static order's next request, "
                        "once delivered, goes to L1 within channel - 1 cycles; progress: wait, and the due request is never held from the "
                        "LD/ST side (the run ends; every other check on a kernel proves progress too).  With --streams: stream (default: "
                        "order, wait, progress and misses together), order, wait (the next request waits at most channel - 1 "
                        "cycles once delivered), progress (the due request, until delivered, is accepted: the unit never hangs), "
                        "misses")
    q.add_argument("--channel", metavar="C", help="channel depth: requests a warp may have between its oldest unsent "
                                                  f"one and its newest (default {d.channel})")
    q.add_argument("--cache", metavar="SIZE:WAYS", help=f"the L1 for miss counts (default {KERNEL_CACHE} on a kernel, "
                                                        f"{STREAM_CACHE} with --streams)")
    q.add_argument("--max-k", metavar="K", help=f"largest induction depth (default {d.max_k})")
    q.add_argument("--depth", metavar="N",
                   help="BMC depth without the unit (default: requests + 2); with --streams, the BMC depth after an "
                        "inconclusive induction (default: every request of the bound + channel + 2)")
    _timeout(q, d.timeout, "wall-clock budget in seconds")
    q.add_argument("--samples", metavar="N",
                   help=f"random schedules simulated for the miss counts (default {d.samples})")
    q.add_argument("--witness", metavar="PATH", type=output_file(f"{WITNESS_FOLDER}/witness.json"),
                   help=f"where a FAIL's schedules go (default {WITNESS_FOLDER}/reorder-KERNEL-CHECK.json; an "
                        "existing file there is replaced)")
    q.add_argument("--certificate", metavar="FILE", type=output_file(f"{WITNESS_FOLDER}/certificate.smt2"),
                   help=f"where an unbounded PASS's certificates go (default {WITNESS_FOLDER}/reorder-KERNEL-CHECK.smt2 "
                        "or reorder-streams-unit-CHECK.smt2; SMT-LIB2: the system, the invariant inv, the "
                        "k-induction obligations; one per proof: with --streams per barrier bound of the family, an "
                        "earlier one as FILE's name with .barriers-B; on a kernel the check's, and progress's as "
                        "FILE's name with .progress; existing files of those names are replaced); check them with: "
                        "warpcheck check FILE")
    q.add_argument("--no-certificate", action="store_true", default=None, help="write no certificate")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr (--json implies it)")
    q.set_defaults(func=_prove)


def _add_replay(acts: Any) -> None:
    q = acts.add_parser("replay", help="rerun a FAIL's schedules with and without the unit",
                        description="Rerun the LD/ST schedules of a reorder witness on the unit's simulator, on "
                                    "the design it was found on and on the other.",
                        epilog="exit codes: 0 the witness reproduces, 2 bad input, 5 it does not (a bug of the kit)")
    q.add_argument("witness", type=INPUT, help="a witness file written by 'warpcheck reorder prove'")
    q.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    _timeout(q, ReorderReplayOptions.timeout, "seconds for the whole run before it stops with TIMEOUT, exit 4")
    q.set_defaults(func=_replay)


def _add_simulate(acts: Any) -> None:
    d = ReorderSimulateOptions
    q = acts.add_parser("simulate", formatter_class=FMT,
                        help="cycles and L1 misses: LRR, LRR with the unit, pure round robin",
                        description="Timing simulation of every warp on one SM in three configurations: "
                                    "default (LRR, no unit), unit (LRR with the reordering unit) and rr (pure "
                                    "round robin, no unit).",
                        epilog="example:\n  warpcheck reorder simulate examples/reorder/set_conflicts.ptx --grid 1 "
                               "--block 128 --param data=0 --param rows=3 --jitter 100 --seeds 5\n"
                               "exit codes: 0 the unit kept the static order, 1 the unit deadlocked, 2 bad input, "
                               "5 the unit left the static order, an issue left the trace or a run exceeded the charged "
                               "bound (a bug of the kit)")
    add_kernel_options(q)
    q.add_argument("--cache", metavar="SIZE:WAYS", help=f"the L1 (default {d.cache})")
    q.add_argument("--hit", metavar="N", help=f"L1 hit latency (default {d.hit})")
    q.add_argument("--miss", metavar="N", help=f"L1 miss latency (default {d.miss})")
    q.add_argument("--jitter", metavar="N", help=f"a miss takes 0..N cycles more, drawn per seed (default {d.jitter})")
    q.add_argument("--seeds", metavar="N", help=f"runs per configuration (default {d.seeds})")
    q.add_argument("--design", metavar=_choices(DESIGNS),
                   help=f"the SM front end: baseline (fetch and issue by the policy) or swas (default {d.design})")
    q.add_argument("--channel", metavar="C",
                   help=f"channel depth (default {d.channel}, as in reorder prove: the depth the proofs cover)")
    _timeout(q, d.timeout, "seconds for the whole run before it stops with TIMEOUT, exit 4")
    q.set_defaults(func=_simulate)
