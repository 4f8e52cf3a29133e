"""Verbs of the SM front end: prove, replay, demo (and the SM options prove and export share)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from warpcheck._frontend import (DemoOptions, ProveOptions, ReplayOptions, demo_options, prove_options,
                                 replay_options)
from warpcheck._frontend.options import ENGINES_OF_PROVE
from warpcheck.cli.options import (INPUT, OUTPUT_FILE, output_file, output_folder, positive_seconds,
                                   record_from_args)
from warpcheck.models.frontend.config import DESIGNS, SMConfig
from warpcheck.models.frontend.policies import POLICIES
from warpcheck.verify.frontend.properties import PROPERTIES

POLICY_HELP = "; ".join(f"{p.name}: {p.summary}" for p in POLICIES.values()) + "; gto: another name for gtlo"
SM = SMConfig()


def add_config_options(p: argparse.ArgumentParser) -> None:
    """The options that build an SM configuration (shared by prove and export)."""
    g = p.add_argument_group(f"SM configuration (defaults: the paper's, t_F={SM.t_fetch}, decode {SM.t_decode}, "
                             f"ibuffer {SM.ibuffer})")
    g.add_argument("--config", metavar="FILE.toml", type=INPUT, help="read the configuration from a TOML file ([sm] table)")
    g.add_argument("--design", choices=DESIGNS, help=f"baseline (separate fetch and issue schedulers) or swas "
                                                     f"(default {SM.design})")
    g.add_argument("--policy", metavar="P", help="swas: the one policy of fetch and issue; baseline: another "
                                                 "name of --issue")
    g.add_argument("--fetch", metavar="P", help=f"baseline: fetch policy (default {SM.fetch_policy})")
    g.add_argument("--issue", metavar="P", help=f"issue policy (default {SM.issue_policy})")
    g.add_argument("--warps", "-W", type=int, metavar="W", help=f"number of warps (default {SM.warps})")
    g.add_argument("--t-fetch", type=int, metavar="N", help=f"I-cache hit latency t_F (default {SM.t_fetch})")
    g.add_argument("--t-decode", type=int, metavar="N", help=f"decode latency (default {SM.t_decode})")
    g.add_argument("--ibuffer", type=int, metavar="N", help=f"ibuffer entries (default {SM.ibuffer} = t_F + decode)")
    g.add_argument("--miss-latency", type=int, metavar="N", help=f"I-cache miss latency (default {SM.miss_latency})")
    g.add_argument("--kernel-of-warp", metavar="K,K,...", help="qaws: each warp's kernel (0-based), e.g. 0,0,1,1")
    g.add_argument("--budgets", metavar="B,B,...",
                   help="qaws: each kernel's budget (kernel 0 first), e.g. 1,4; equal budgets or one kernel: GTO")
    g.add_argument("--launches", metavar="C,C,...",
                   help="each kernel's launch cycle (kernel 0 first), e.g. 0,2: its warps neither fetch nor issue before")


def note_qaws(config: SMConfig) -> None:
    """Say on stderr when qaws runs as GTO (one kernel, or equal budgets)."""
    if "qaws" in (config.issue_policy, config.fetch_policy) and len(set(config.budgets)) < 2:
        print("note: qaws with one kernel (or equal budgets) is GTO (gtlo): Alg. 1 keeps one group", file=sys.stderr)


def show(result: Any, as_json: bool) -> None:
    """Print a result as one JSON object or as its text report."""
    print(json.dumps(result.to_dict()) if as_json else result.report())


def progress(msg: str) -> None:
    """A progress line on stderr."""
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def _prove(a: argparse.Namespace) -> int:
    options = record_from_args(ProveOptions, a)
    note_qaws(options.sm)
    r = prove_options(options, None if a.json or a.quiet else progress)
    show(r, a.json)
    return r.code


def _replay(a: argparse.Namespace) -> int:
    r = replay_options(record_from_args(ReplayOptions, a))
    show(r, a.json)
    return r.code


def _demo(a: argparse.Namespace) -> int:
    r = demo_options(record_from_args(DemoOptions, a), None if a.json else progress)
    show(r, a.json)
    return r.code


def _add_prove(sub: Any) -> None:
    P = ProveOptions
    p = sub.add_parser("prove", help="prove (or refute) a front-end property for every input",
                       description="Prove that the issued warp always follows the policy, for every program, "
                                   "I-cache, branch and operand-readiness behaviour; or find the shortest "
                                   "counterexample and write it as a witness.\n\npolicies: " + POLICY_HELP,
                       epilog="examples:\n  warpcheck prove --design swas --policy gtlrr --warps 8\n"
                              "  warpcheck prove --design baseline --fetch lrr --issue gtlrr --warps 4\n"
                              "  warpcheck prove --design swas --policy gtlo --all-warps --property exact\n\n"
                              "exit codes: 0 PASS, 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT, 5 ERROR",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_config_options(p)
    p.add_argument("--property", choices=list(PROPERTIES),
                   help="; ".join(f"{x.name}: {x.summary}" for x in PROPERTIES.values())
                        + " (default: exact for swas, oracle for the baseline and for --all-warps)")
    p.add_argument("--engine", choices=ENGINES_OF_PROVE,
                   help=f"auto: k-induction, BMC and random runs in three processes, the first conclusive answer "
                        "wins (a random run's FAIL waits for BMC's shortest, and is the answer only when BMC has "
                        "none); kind: k-induction with proved lemmas, unbounded; bmc: bounded only, the shortest "
                        "violation (bitwuzla); random: concrete random runs (FAIL or "
                        "UNKNOWN); abc-pdr: ABC's pdr (IC3) on the model as AIGER with the kit's proved lemmas, a PASS "
                        "only once the kit re-checks the lemmas and pdr's inductive invariant; abc-bmc: ABC's bmc3, bounded only (both need berkeley-abc, or "
                        f"ABC=/path/to/abc) (default {P.engine})")
    p.add_argument("--depth", type=int, metavar="K",
                   help="largest k (kind) or depth (bmc) (default: 1 + miss latency + 2 x (t_fetch + t_decode), "
                        "19 with the paper's timing: long enough for a bug that needs a whole miss window)")
    p.add_argument("--timeout", type=positive_seconds, default=P.timeout,
                   help=f"seconds before TIMEOUT (default {P.timeout:g})")
    p.add_argument("--witness", metavar="PATH", type=output_file("warpcheck-out/witness.json"),
                   help="where a FAIL's witness goes (default warpcheck-out/NAME.json; an existing file there is replaced)")
    p.add_argument("--vcd", metavar="PATH", type=OUTPUT_FILE, help="also write the counterexample replay as VCD waveforms (with the witness, or neither;"
                   " an existing file there is replaced)")
    p.add_argument("--recheck", action="store_true", default=None,
                   help="re-check a PASS with a second solver (cvc5 via pySMT)")
    p.add_argument("--certificate", metavar="FILE", type=output_file("warpcheck-out/certificate.smt2"),
                   help="where an unbounded PASS's certificate goes (default warpcheck-out/NAME.smt2, beside the "
                        "witness): SMT-LIB2 stating the system, the property and the inductive invariant (the proved "
                        "lemmas and the property, as inv), with the obligations as check-sat commands; check it with: "
                        "warpcheck check FILE (an existing file is replaced)")
    p.add_argument("--no-certificate", action="store_true", default=None, help="write no certificate")
    p.add_argument("--all-warps", action="store_true", default=None,
                   help="swas, for every number of warps: with --property exact (gtlrr, gtlo, lrr) one proof for "
                        "every W >= 1 (warps a sort, the invariant quantified, checked in EPR; the model checked "
                        "equal to the per-W one at W = 1..6), or a FAIL at the W where the design breaks; with "
                        "oracle or ideal the compositional proof for W = 1..4, and the result says so")
    p.add_argument("--prologue", type=int, metavar="N",
                   help="ignore violations in the first N cycles, as the paper measures after a prologue "
                        f"(default {P.prologue}: the warm start already has full ibuffers)")
    p.add_argument("--lemma-cache", metavar="DIR", type=output_folder(P.lemma_cache or ""),
                   help="folder where the lemmas proved are kept, per exact model, so that the same proof run "
                        f"again (after a timeout, say) starts where it stopped; a model's file there is replaced "
                        f"as its work grows (default {P.lemma_cache})")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_prove, kept_on_stop=_lemmas_kept)


def _lemmas_kept(a: argparse.Namespace) -> str:
    """What a stopped proof keeps: its lemma work, for the next run of the same proof."""
    folder = a.lemma_cache or ProveOptions.lemma_cache
    return f"; the lemma work done so far is kept in {folder}/ (run the same proof again to resume)" if folder else ""


def register(sub: Any) -> None:
    """Add prove, replay and demo."""
    _add_prove(sub)
    R = ReplayOptions
    r = sub.add_parser("replay", help="replay a witness cycle by cycle, on one design or both side by side",
                       description="Replay a witness (from prove) on the design it was found on, on the other "
                                   "design, or on both side by side, and report the first cycle at which each "
                                   "leaves the policy.",
                       epilog="example:\n  warpcheck replay warpcheck-out/baseline-lrr-gtlrr-W4-oracle.json --design both",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("witness", type=INPUT, help="witness file (JSON) written by prove")
    r.add_argument("--design", choices=list(DESIGNS) + ["both"], help=f"default: {R.design}")
    r.add_argument("--cycles", type=int, help="cycles to replay (default: the witness's cycle + 4)")
    r.add_argument("--vcd", metavar="PATH", type=OUTPUT_FILE, help="also write VCD waveforms of the replay (an existing file there is replaced)")
    r.add_argument("--timeout", type=positive_seconds, default=R.timeout, metavar="S",
                   help=f"seconds for the whole run before it stops with TIMEOUT, exit 4 (default {R.timeout:g})")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_replay)

    D = DemoOptions
    d = sub.add_parser("demo", help="the main job: prove SWaS, refute the baseline, replay, summarise",
                       description="Prove SWaS for GTLRR, GTLO and LRR; find the baseline counterexample for "
                                   "each of the nine fetch x issue combinations; replay each on both designs; "
                                   "print one summary table.")
    d.add_argument("--warps", "-W", type=int, help=f"number of warps (default {D.warps})")
    d.add_argument("--timeout", type=positive_seconds, default=D.timeout, help=f"seconds per proof, a backstop only: each proof is bounded by work "
                   f"(k-induction, BMC to the horizon) (default {D.timeout:g})")
    d.add_argument("--out", type=output_folder(D.out), help=f"folder for the witnesses (default {D.out}; files of the same names are replaced)")
    d.add_argument("--json", action="store_true", help="print one JSON object")
    d.set_defaults(func=_demo)
