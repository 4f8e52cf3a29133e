"""Verbs of the load/store reordering framework: analyze (the kernel analyzer) and reorder prove."""
from __future__ import annotations

import argparse
import json
import re

from warpcheck.cli.kernels.verbs import load_kernel
from warpcheck.cli.options import INPUT, positive_seconds
from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.reorder.l1 import STORE_POLICIES, L1Spec, parse_cache
from warpcheck.models.reorder.order import ORDERS, static_order
from warpcheck.sim.reorder.accesses import Analysis, Dim3, analyze
from warpcheck.spec.reorder.l1_replay import replay


def parse_dims(text: str, option: str) -> Dim3:
    """``X[,Y[,Z]]`` as a 3-tuple of positive ints."""
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise ConfigError(f"{option} {text!r} is not X[,Y[,Z]]; write e.g. {option} 2,1,1")
    vals = [int(p) for p in parts] + [1] * (3 - len(parts))
    return vals[0], vals[1], vals[2]


def parse_params(items: list[str], kernel: Kernel) -> dict[str, int]:
    """``NAME=VALUE`` pairs, every kernel parameter given exactly once (by name, suffix or index)."""
    out: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            number = int(value.strip(), 0)
        except ValueError:
            raise ConfigError(f"--param {item!r} is not NAME=INTEGER; write e.g. --param {name or 'n'}=16")
        if not sep:
            raise ConfigError(f"--param {item!r} is not NAME=INTEGER; write e.g. --param n=16")
        key = kernel.param_named(name.strip(), "--param")
        if key in out:
            raise ConfigError(f"--param {item!r} gives parameter {key!r} a second time; give each parameter once")
        out[key] = number
    missing = [p for p in kernel.params if p not in out]
    if missing:
        raise ConfigError(f"kernel {kernel.name!r} needs --param for {', '.join(missing)}; give each as NAME=VALUE")
    return out


def run_analysis(a: argparse.Namespace) -> Analysis:
    """Load the kernel and run the analyzer with the command line's options."""
    kernel = load_kernel(a.kernel, a.entry)
    grid, block = parse_dims(a.grid, "--grid"), parse_dims(a.block, "--block")
    return analyze(kernel, grid, block, parse_params(a.param or [], kernel), a.line_bytes)


def warp_epochs(an: Analysis) -> list[list[int]]:
    """Each warp's access epochs, warps in global order."""
    return [[acc.epoch for acc in w.accesses] for w in an.warps]


def static_sequence(an: Analysis, rule: str) -> list[tuple[str, tuple[int, ...]]]:
    """The (kind, lines) of every access in the static order."""
    return [(an.warps[w].accesses[k].kind, an.warps[w].accesses[k].lines)
            for w, k in static_order(warp_epochs(an), rule)]


def analysis_json(an: Analysis, rule: str, spec: L1Spec | None) -> dict:
    """The analyzer's findings with the keys of the issue."""
    order = [] if an.undecided else static_order(warp_epochs(an), rule)
    out = {"kernel": an.kernel.name, "grid": list(an.grid), "block": list(an.block), "line_bytes": an.line_bytes,
           "instructions": [{"pc": pc, "kind": kind, "text": text} for pc, kind, text in an.instructions()],
           "warps": [{"block": list(w.block), "warp": w.warp,
                      "accesses": [{"pc": x.pc, "kind": x.kind, "lines": list(x.lines), "lanes": x.lanes,
                                    "epoch": x.epoch} for x in w.accesses]} for w in an.warps],
           "order_rule": rule,
           "order": [{"block": list(an.warps[w].block), "warp": an.warps[w].warp, "access": k} for w, k in order],
           "undecided": [{"block": list(u.block), "warp": u.warp, "pc": u.pc, "line": u.line, "what": u.what,
                          "text": u.text} for u in an.undecided]}
    if spec is not None and not an.undecided:
        out["l1"] = replay(static_sequence(an, rule), spec).to_json(spec)
    return out


def report(out: dict) -> str:
    """``analyze``'s text report."""
    lines = [f"kernel {out['kernel']}: grid {out['grid']}, block {out['block']}, "
             f"{len(out['instructions'])} global loads/stores, {out['line_bytes']}-byte lines",
             "pcs: " + ", ".join(f"{i['pc']} {i['kind']} ({i['text']})" for i in out["instructions"])]
    for w in out["warps"]:
        accs = "; ".join(f"pc {x['pc']} {x['kind']} lanes {x['lanes']}"
                         + (f" epoch {x['epoch']}" if x["epoch"] else "") + f" lines {x['lines']}"
                         for x in w["accesses"]) or "no global access"
        lines.append(f"block {w['block']} warp {w['warp']}: {accs}")
    lines.append(f"static order ({out['order_rule']}): " + ", ".join(
        f"B{o['block']}W{o['warp']}#{o['access']}" for o in out["order"]))
    if "l1" in out:
        l1 = out["l1"]
        lines.append(f"L1 {l1['size']} B, {l1['ways']} ways, replayed in the static order: {l1['loads']} load lines, "
                     f"{l1['load_misses']} misses (miss rate {l1['miss_rate']:.4f}), {l1['stores']} store lines")
    return "\n".join(lines)


def _analyze(a: argparse.Namespace) -> int:
    from warpcheck._reorder import analysis_of  # the API's function (imported here: it imports this module)

    r = analysis_of(a)
    if r.problem:
        if a.json:
            print(json.dumps(r.to_dict()))
        raise ConfigError(r.problem)
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return 0


def add_kernel_options(p: argparse.ArgumentParser, optional: bool = False) -> None:
    """The options that say which kernel runs how: file, entry, grid, block, parameters.

    ``optional``: the verb has a mode without a kernel (it checks that a kernel mode got them)."""
    p.add_argument("kernel", metavar="KERNEL", type=INPUT, nargs="?" if optional else None, help="a PTX file (nvcc -ptx)")
    p.add_argument("--entry", metavar="NAME", help="the kernel to analyse in a module with several")
    p.add_argument("--grid", required=not optional, metavar="X[,Y[,Z]]", help="blocks of the grid")
    p.add_argument("--block", required=not optional, metavar="X[,Y[,Z]]", help="threads of a block")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a kernel parameter (by name, by the suffix after the last '_', or by index); every "
                        "parameter must be given")
    p.add_argument("--line-bytes", type=int, default=128, metavar="N", help="L1 line size (default 128)")
    p.add_argument("--order", choices=ORDERS, default="round",
                   help="static order: round (k-th access of each warp, then block, then warp; default) or "
                        "barrier (barrier epoch first, then the round)")
    p.add_argument("--stores", choices=STORE_POLICIES, default="evict",
                   help="what a store that hits in L1 does (write-through, no allocate; default evict)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def register(sub) -> None:
    """Add the verbs analyze and reorder."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("analyze", help="list every warp's dynamic global loads/stores and the static order",
                       formatter_class=fmt,
                       description="The kernel analyzer of the reordering framework: run every warp of every "
                                   "block concretely and list each dynamic global load/store with its coalesced "
                                   "line addresses and active lanes, and the reordering unit's static order.",
                       epilog="example:\n  warpcheck analyze examples/reorder/paper_example.ptx --grid 1,2,1 "
                              "--block 16,4,1 --param in=0 --cache 16K:4\n"
                              "a branch, guard or address that depends on loaded data is named and the run "
                              "stops (exit 2)")
    add_kernel_options(p)
    p.add_argument("--cache", metavar="SIZE:WAYS", help="also replay the L1 in the static order (e.g. 16K:4)")
    p.add_argument("--timeout", type=positive_seconds, default=60.0, metavar="S",
                   help="seconds for the whole run, set-up included, before TIMEOUT, exit 4 (default 60)")
    p.set_defaults(func=_analyze)
    from warpcheck.cli.reorder import prove as reorder_prove

    reorder_prove.register(sub)
