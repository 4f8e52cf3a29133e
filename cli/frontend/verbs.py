"""Verbs of the SM front end: prove, replay, demo (and the shared option set)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from warpcheck.cli.options import INPUT, OUTPUT_FILE, OUTPUT_FOLDER, at_least, at_most, output_file, positive_seconds
from warpcheck.models.file_schemas import MAX_REPLAY_CYCLES
from warpcheck.cli.frontend.demo import run_demo
from warpcheck._frontend import prove_config, replay  # the API's functions: one path for scripts and verbs
from warpcheck.models.frontend.config import DESIGNS, SMConfig, config_from_mapping, load_config
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.verify.frontend.properties import PROPERTIES

POLICY_HELP = "; ".join(f"{p.name}: {p.summary}" for p in POLICIES.values()) + "; gto: another name for gtlo"


def add_config_options(p: argparse.ArgumentParser) -> None:
    """The options that build an SM configuration (shared by prove and simulate)."""
    g = p.add_argument_group("SM configuration (defaults: the paper's, t_F=3, decode 1, ibuffer 4)")
    g.add_argument("--config", metavar="FILE.toml", type=INPUT, help="read the configuration from a TOML file ([sm] table)")
    g.add_argument("--design", choices=DESIGNS, help="baseline (separate fetch and issue schedulers) or swas")
    g.add_argument("--policy", metavar="P", help="swas: the one policy of fetch and issue (= --issue)")
    g.add_argument("--fetch", metavar="P", help="baseline: fetch policy")
    g.add_argument("--issue", metavar="P", help="issue policy")
    g.add_argument("--warps", "-W", type=int, metavar="W", help="number of warps (default 4)")
    g.add_argument("--t-fetch", type=int, metavar="N", help="I-cache hit latency t_F (default 3)")
    g.add_argument("--t-decode", type=int, metavar="N", help="decode latency (default 1)")
    g.add_argument("--ibuffer", type=int, metavar="N", help="ibuffer entries (default 4 = t_F + decode)")
    g.add_argument("--miss-latency", type=int, metavar="N", help="I-cache miss latency (default 10)")
    g.add_argument("--kernel-of-warp", metavar="K,K,...", type=int_list,
                   help="qaws: each warp's kernel (0-based), e.g. 0,0,1,1")
    g.add_argument("--budgets", metavar="B,B,...", type=int_list,
                   help="qaws: each kernel's budget (kernel 0 first), e.g. 1,4; equal budgets or one kernel: GTO")
    g.add_argument("--launches", metavar="C,C,...", type=int_list,
                   help="each kernel's launch cycle (kernel 0 first), e.g. 0,2: its warps neither fetch nor issue before")


def int_list(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated integers."""
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None


def config_from_args(a: argparse.Namespace) -> SMConfig:
    """The configuration named by the options (a file first, then the flags over it)."""
    base = load_config(a.config).to_json() if a.config else {}
    flags = {"design": a.design, "warps": a.warps, "t_fetch": a.t_fetch, "t_decode": a.t_decode,
             "ibuffer": a.ibuffer, "miss_latency": a.miss_latency, "fetch_policy": a.fetch,
             "issue_policy": a.issue if a.issue is not None else a.policy, "kernel_of_warp": getattr(a, "kernel_of_warp", None),
             "budgets": getattr(a, "budgets", None), "launches": getattr(a, "launches", None)}
    merged = {**base, **{k: v for k, v in flags.items() if v is not None}}
    if a.policy and a.issue and a.policy != a.issue:
        from warpcheck.models.errors import ConfigError
        raise ConfigError(f"--policy {a.policy!r} and --issue {a.issue!r} disagree; give one of them")
    config = config_from_mapping(merged, where="options")
    if "qaws" in (config.issue_policy, config.fetch_policy) and len(set(config.budgets)) < 2:
        print("note: qaws with one kernel (or equal budgets) is GTO (gtlo): Alg. 1 keeps one group", file=sys.stderr)
    return config


def _prove(a: argparse.Namespace) -> int:
    r = prove_config(config_from_args(a), a.property, a.engine, a.timeout, depth=a.depth or 0, witness=a.witness,
                     vcd=a.vcd, recheck=a.recheck, all_warps=a.all_warps, prologue=a.prologue,
                     progress=None if a.json or a.quiet else _progress)
    _show(r.outcome, a.json)
    return r.code


def _show(outcome: Any, as_json: bool) -> None:
    """Print an outcome as one JSON object or as its text report."""
    print(json.dumps(outcome.to_json()) if as_json else outcome.report())


def _progress(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def _replay(a: argparse.Namespace) -> int:
    r = replay(a.witness, a.design, a.cycles, a.vcd)
    _show(r.outcome, a.json)
    return r.code


def _demo(a: argparse.Namespace) -> int:
    out = run_demo(a.warps, a.timeout, a.out, progress=None if a.json else _progress)
    _show(out, a.json)
    return 0 if out.as_expected else 1


def register(sub: Any) -> None:
    """Add prove, replay and demo."""
    p = sub.add_parser("prove", help="prove (or refute) a front-end property for every input",
                       description="Prove that the issued warp always follows the policy, for every program, "
                                   "I-cache, branch and operand-readiness behaviour; or find the shortest "
                                   "counterexample and write it as a witness.\n\npolicies: " + POLICY_HELP,
                       epilog="examples:\n  warpcheck prove --design swas --policy gtlrr --warps 8\n"
                              "  warpcheck prove --design baseline --fetch lrr --issue gtlrr --warps 4\n"
                              "  warpcheck prove --design swas --policy gtlo --all-warps\n\n"
                              "exit codes: 0 PASS, 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT, 5 ERROR",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_config_options(p)
    p.add_argument("--property", choices=list(PROPERTIES),
                   help="; ".join(f"{x.name}: {x.summary}" for x in PROPERTIES.values())
                        + " (default: exact for swas, oracle for the baseline and for --all-warps)")
    p.add_argument("--engine", default="auto", choices=["auto", "kind", "bmc", "random"],
                   help="auto: k-induction, BMC and random runs in three processes, the first conclusive answer "
                        "wins (default; a random run's FAIL waits 10 s for a shorter one from BMC); kind: k-induction "
                        "with proved lemmas, unbounded; bmc: bounded only; random: concrete random runs (FAIL or UNKNOWN)")
    p.add_argument("--depth", type=at_least(1), metavar="K",
                   help="largest k (kind) or depth (bmc) (default: 1 + miss latency + 2 x (t_fetch + t_decode), "
                        "19 with the paper's timing: long enough for a bug that needs a whole miss window)")
    p.add_argument("--timeout", type=positive_seconds, default=300.0, help="seconds before TIMEOUT (default 300)")
    p.add_argument("--witness", metavar="PATH", type=output_file("warpcheck-out/witness.json"), help="where a FAIL's witness goes (default warpcheck-out/NAME.json)")
    p.add_argument("--vcd", metavar="PATH", type=OUTPUT_FILE, help="also write the counterexample replay as VCD waveforms")
    p.add_argument("--recheck", action="store_true", help="re-check a PASS with a second solver (cvc5 via pySMT)")
    p.add_argument("--all-warps", action="store_true",
                   help="swas, oracle or ideal: the compositional proof (one warp against an arbitrary scheduler, "
                        "plus the policy and projection steps, machine-checked for W = 1..4); the result states "
                        "the range of W it covers, never 'every W'")
    p.add_argument("--prologue", type=at_least(0), default=0, metavar="N",
                   help="ignore violations in the first N cycles, as the paper measures after a prologue "
                        "(default 0: the warm start already has full ibuffers)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_prove)

    r = sub.add_parser("replay", help="replay a witness cycle by cycle, on one design or both side by side",
                       description="Replay a witness (from prove) on the design it was found on, on the other "
                                   "design, or on both side by side, and report the first cycle at which each "
                                   "leaves the policy.",
                       epilog="example:\n  warpcheck replay warpcheck-out/baseline-lrr-gtlrr-W4-oracle.json --design both",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("witness", type=INPUT, help="witness file (JSON) written by prove")
    r.add_argument("--design", default="both", choices=list(DESIGNS) + ["both"], help="default: both")
    r.add_argument("--cycles", type=at_most(MAX_REPLAY_CYCLES, why="a witness violates within its first cycles; a replay "
                                                                    "runs about 400 cycles/s"), help="cycles to replay (default: the witness's cycle + 4)")
    r.add_argument("--vcd", metavar="PATH", type=OUTPUT_FILE, help="also write VCD waveforms of the replay")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_replay)

    d = sub.add_parser("demo", help="the main job: prove SWaS, refute the baseline, replay, summarise",
                       description="Prove SWaS for GTLRR, GTLO and LRR; find the baseline counterexample for "
                                   "each of the nine fetch x issue combinations; replay each on both designs; "
                                   "print one summary table.")
    d.add_argument("--warps", "-W", type=at_most(64, why="the demo proves each design at W warps; past 64 a proof "
                                                          "needs hours and gigabytes"), default=4, help="number of warps (default 4)")
    d.add_argument("--timeout", type=positive_seconds, default=120.0, help="seconds per proof (default 120)")
    d.add_argument("--out", default="warpcheck-out", type=OUTPUT_FOLDER, help="folder for the witnesses (default warpcheck-out)")
    d.add_argument("--json", action="store_true", help="print one JSON object")
    d.set_defaults(func=_demo)
