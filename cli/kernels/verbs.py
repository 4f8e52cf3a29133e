"""Verbs on kernels: cfg (the warp-level CFG), wcet (its IPET bound), simt (one concrete warp run)."""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
import time
from pathlib import Path

from warpcheck.cli.options import INPUT, OUTPUT_FILE, at_most, positive_seconds
from warpcheck.models.kernels.abstract_stack import describe
from warpcheck.models.kernels.cfg import CLASSES_WITH_LATENCY, CostModel
from warpcheck.models.errors import ConfigError, InputFileError, WarpcheckError
from warpcheck.models.file_schemas import MAX_LOOP_BOUND, KernelInputsFile, LoopBoundsFile, validated
from warpcheck.models.files import atomic_write_text, load_json, load_toml
from warpcheck.models.files import read_text
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.ptx import parse_ptx_module
from warpcheck.models.kernels.ptx_calls import PtxModule
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import END, StateLimit, WarpCFG, build_warp_cfg

KERNEL_HELP = "a PTX file (nvcc -ptx) or a SASS-style listing (.sass) with SSY/SYNC/BRA/EXIT"


# Modules read during one verb's run, by (path, content hash): its entries parse their file once.
# None outside a run, so a later call (or a patched parser, as in the mutation suite) reads afresh.
_MODULES: dict[tuple[str, str], PtxModule | list[Kernel]] | None = None


# The ceilings of --max-loop-bound and --max-steps (the API reads its keywords through them too).
LOOP_BOUND = at_most(MAX_LOOP_BOUND, low=0, why="past it the two IPET solvers' floating-point answers no longer agree")
MAX_STEPS = at_most(10**6, why="a warp runs about 3,000 blocks/s: more would take over 5 minutes")

def read_module(path: str) -> PtxModule | list[Kernel]:
    """The parsed file: a PTX module, or the kernels of a SASS-style listing (cached within a run)."""
    text = read_text(path, "kernel file", lenient=True)  # bounded: /dev/zero or a runaway file is refused
    key = (path, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if _MODULES is not None and key in _MODULES:
        return _MODULES[key]
    is_ptx = path.endswith(".ptx") or (not path.endswith(".sass") and (".entry" in text or ".version" in text))
    found = parse_ptx_module(text, path) if is_ptx else parse_sass(text, path)
    if _MODULES is not None:
        _MODULES[key] = found
    return found


@contextlib.contextmanager
def one_parse_per_file():
    """Within the block, a file read again with the same content is not parsed again."""
    global _MODULES
    outer, _MODULES = _MODULES, {} if _MODULES is None else _MODULES
    try:
        yield
    finally:
        _MODULES = outer


def entry_names(path: str) -> list[str]:
    """The kernels of a file, in file order."""
    found = read_module(path)
    return [k.name for k in (found.entries if isinstance(found, PtxModule) else found)]


def load_kernel(path: str, entry: str | None = None) -> Kernel:
    """Read and parse a kernel file; pick the kernel named by ``entry`` in a module with several."""
    found = read_module(path)
    if not isinstance(found, PtxModule):
        return _pick(found, entry, path)
    if not found.entries:
        raise InputFileError(f"{path!r} holds no kernel (.entry); give a PTX module with at least one kernel")
    return found.inlined(_pick(list(found.entries), entry, path))


def chosen_entries(a: argparse.Namespace) -> list[str | None]:
    """The entries ``--entry`` (repeatable) and ``--all-entries`` name; [None] when neither is given."""
    given = a.entry or []
    if a.all_entries and given:
        raise ConfigError("--all-entries and --entry exclude each other; give one of them")
    if not a.all_entries and not given:
        return [None]
    names = entry_names(a.kernel)
    if not names:
        raise InputFileError(f"{a.kernel!r} holds no kernel (.entry); give a PTX module with at least one kernel")
    if a.all_entries:
        return list(names)
    return list(dict.fromkeys(names[pick_name(names, e, a.kernel)] for e in given))


def _pick(kernels: list[Kernel], entry: str | None, path: str) -> Kernel:
    return kernels[pick_name([k.name for k in kernels], entry, path)]


def pick_name(names: list[str], entry: str | None, path: str) -> int:
    """The index of the kernel ``entry`` names: exactly, or as the one name it is part of."""
    if entry is None:
        if len(names) > 1:
            raise ConfigError(f"{path!r} holds {len(names)} kernels ({', '.join(names)}); choose one with --entry NAME")
        return 0
    exact = [i for i, n in enumerate(names) if n == entry]
    near = exact or [i for i, n in enumerate(names) if entry in n]
    if len(near) != 1:
        what = "no kernel" if not near else "several kernels"
        raise ConfigError(f"--entry {entry!r} matches {what} in {path!r}; known kernels: {', '.join(names)}")
    return near[0]


def _cost_model(a: argparse.Namespace) -> CostModel:
    latencies = dict(_pairs(a.latency or [], "--latency", CLASSES_WITH_LATENCY))
    if a.mem_latency is not None:
        latencies["mem"] = a.mem_latency
    return CostModel(latencies)


def _pairs(items: list[str], option: str, allowed=None) -> list[tuple[str, int]]:
    out = []
    for item in items:
        name, sep, value = item.rpartition("=")
        if not sep or not name or not value.strip().lstrip("-").isdigit():
            raise ConfigError(f"{option} {item!r} is not NAME=N; write e.g. {option} {name or 'NAME'}=10")
        if allowed is not None and name not in allowed:
            raise ConfigError(f"{option} names {name!r}; known names: {', '.join(allowed)}")
        if int(value) < 0:
            raise ConfigError(f"{option} {item!r} is negative; use a non-negative integer")
        out.append((name, int(value)))
    return out


def _bounds(a: argparse.Namespace) -> dict[str, int]:
    bounds: dict[str, int] = {}
    if a.bounds:
        bounds.update(validated(LoopBoundsFile, load_toml(a.bounds, "loop bounds file"), a.bounds).loops)
    for name, value in _pairs(a.loop_bound or [], "--loop-bound"):
        if value > MAX_LOOP_BOUND:
            raise ConfigError(f"--loop-bound {name}={value} is above the ceiling of {MAX_LOOP_BOUND} "
                              "(past it the two IPET solvers' floating-point answers no longer agree)")
        bounds[name] = value
    return bounds


def _add_common(p: argparse.ArgumentParser, several: bool = False) -> None:
    p.add_argument("kernel", metavar="KERNEL", type=INPUT, help=KERNEL_HELP)
    if several:
        p.add_argument("--entry", metavar="NAME", action="append",
                       help="a kernel to analyse in a module with several (a substring works); repeat for several")
        p.add_argument("--all-entries", action="store_true",
                       help="analyse every kernel of the module (the file is parsed once)")
    else:
        p.add_argument("--entry", metavar="NAME", help="the kernel to analyse in a module with several (a substring works)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _add_timeout(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timeout", type=positive_seconds, default=60.0, metavar="S",
                   help="seconds for the whole run (every entry, set-up included) before TIMEOUT, exit 4 (default 60)")


def _add_analysis(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-value-agreement", action="store_true",
                   help="treat every guarded branch as possibly divergent (to compare)")
    p.add_argument("--threads", type=int, default=32, metavar="W", help="warp width (default 32)")
    p.add_argument("--max-states", type=int, default=20000, metavar="N",
                   help="give up when the warp-level CFG exceeds N nodes (default 20000)")


def _warp_cfg(a: argparse.Namespace, kernel: Kernel) -> WarpCFG:
    if not 1 <= a.threads <= 64:
        raise ConfigError(f"--threads is {a.threads!r}; a warp has 1 to 64 threads")
    wcfg = build_warp_cfg(kernel, not a.no_value_agreement, a.threads, a.max_states)
    _ = wcfg.cfg.loops  # an irreducible thread-level CFG is reported here
    return wcfg


def _branches(wcfg: WarpCFG) -> list[dict]:
    out = []
    for pc, info in wcfg.branches.items():
        block = next(b for b in wcfg.cfg.blocks if b.start <= pc < b.end)
        out.append({"block": block.label, "pc": pc, "uniform": bool(info["uniform"]), "reached": info["reached"],
                    "instruction": " ".join(wcfg.kernel.instructions[pc].text.split())})
    return out


# -- the verbs: thin layers over warpcheck.cfg / wcet / simt -------------------
def _show(a: argparse.Namespace, r) -> int:
    """Print the API's result as the verb does and give its exit code.

    One entry: its object or text.  Several (``--entry`` repeated,
    ``--all-entries``): the texts were shown as each entry ended; with --json one
    object ``{"file", "entries": [...]}``; an entry refused has its one-line
    reason (``"status": "BAD_INPUT"``) and the exit code is 2.
    """
    several = a.all_entries or len(a.entry or []) > 1
    if a.json:
        print(json.dumps(r.to_dict()))
    elif not several:
        print(r.report())
    if r.refused:
        name, why = next(iter(r.refused.items()))
        print(f"warpcheck {a.verb}: error: {len(r.refused)} of {len(r.to_dict()['entries'])} entries refused; "
              f"first: {name}: {why}", file=sys.stderr)
    return r.code


def _shown(a: argparse.Namespace):
    """Print each entry's text as it ends (several entries, text output): a timeout keeps those done."""
    return None if a.json else lambda text: print(text + "\n", flush=True)


# -- cfg ------------------------------------------------------------------
def _cfg(a: argparse.Namespace) -> int:
    from warpcheck._kernels import cfg_of

    return _show(a, cfg_of(a, _shown(a)))


def cfg_one(a: argparse.Namespace, kernel: Kernel) -> tuple[dict, str, WarpCFG]:
    """The CFG of one kernel: its JSON object, its text and the graph."""
    start = time.perf_counter()
    wcfg = _warp_cfg(a, kernel)
    other = _nodes_other_mode(a, kernel)
    seconds = time.perf_counter() - start
    cost = _cost_model(a)
    nodes = [n for n in wcfg.graph.nodes if n != END]
    if a.dot:
        atomic_write_text(a.dot, to_dot(wcfg, cost), "DOT file")
    obj = {"kernel": kernel.name, "value_agreement": wcfg.value_agreement, "blocks": len(wcfg.cfg.blocks),
           "nodes": [{"id": n, "block": wcfg.label(n), "stack": describe(wcfg.graph.nodes[n]["stack"]),
                      "cost": _node_cost(wcfg, n, cost)} for n in nodes],
           "edges": [{"from": u, "to": v, "kinds": sorted(d["kinds"])} for u, v, d in wcfg.graph.edges(data=True)],
           "nodes_other_mode": other, "branches": _branches(wcfg), "seconds": seconds}
    return obj, _cfg_report(wcfg, other, cost, seconds), wcfg


def _nodes_other_mode(a: argparse.Namespace, kernel: Kernel) -> int | None:
    """Nodes of the warp-level CFG with value agreement the other way; None past the state limit."""
    try:
        return build_warp_cfg(kernel, a.no_value_agreement, a.threads, a.max_states).graph.number_of_nodes() - 1
    except StateLimit:
        return None


def _node_cost(wcfg: WarpCFG, node: int, cost: CostModel) -> int:
    return wcfg.cfg.block_cost(wcfg.cfg.blocks[wcfg.block(node)], cost)


def _cfg_report(wcfg: WarpCFG, other: int | None, cost: CostModel, seconds: float) -> str:
    from tabulate import tabulate

    va = "on" if wcfg.value_agreement else "off"
    rows = []
    for n in sorted(x for x in wcfg.graph.nodes if x != END):
        succ = ", ".join("end" if s == END else str(s) for s in sorted(wcfg.graph.successors(n), key=str))
        rows.append([n, wcfg.label(n), describe(wcfg.graph.nodes[n]["stack"]), _node_cost(wcfg, n, cost), succ])
    lines = [f"kernel {wcfg.kernel.name}: {len(wcfg.cfg.blocks)} blocks, warp-level CFG {len(rows)} nodes, "
             f"{wcfg.graph.number_of_edges()} edges (value agreement {va}; "
             f"{'more than --max-states' if other is None else other} nodes with it "
             f"{'off' if wcfg.value_agreement else 'on'}), "
             f"{seconds:.2f} s",
             tabulate(rows, headers=["node", "block", "abstract stack (top first)", "cost", "successors"]),
             "", _branch_table(wcfg)]
    return "\n".join(lines)


def _branch_table(wcfg: WarpCFG) -> str:
    from tabulate import tabulate

    rows = [[b["block"], b["instruction"], "uniform" if b["uniform"] else "may diverge",
             "" if b["reached"] else "unreached"] for b in _branches(wcfg)]
    return tabulate(rows, headers=["block", "conditional branch", "value agreement", ""]) if rows else \
        "no conditional branches"


def to_dot(wcfg: WarpCFG, cost: CostModel) -> str:
    """The warp-level CFG in Graphviz DOT."""
    out = [f'digraph "{wcfg.kernel.name}" {{', "  node [shape=box, fontname=monospace];"]
    for n in wcfg.graph.nodes:
        if n == END:
            out.append('  END [shape=doublecircle, label="end"];')
            continue
        label = f"{wcfg.label(n)} ({_node_cost(wcfg, n, cost)} cy)\\n{describe(wcfg.graph.nodes[n]['stack'])}"
        out.append(f'  n{n} [label="{label}"];')
    for u, v, d in wcfg.graph.edges(data=True):
        target = "END" if v == END else f"n{v}"
        out.append(f'  n{u} -> {target} [label="{",".join(sorted(d["kinds"]))}"];')
    out.append("}")
    return "\n".join(out) + "\n"


# -- wcet -----------------------------------------------------------------
def _wcet(a: argparse.Namespace) -> int:
    from warpcheck._kernels import wcet_of

    return _show(a, wcet_of(a, _shown(a)))


def wcet_one(a: argparse.Namespace, kernel: Kernel) -> tuple[dict, str]:
    """The IPET bound of one kernel: its JSON object and its text."""
    from warpcheck.encodings.kernels.ipet import wcet

    bounds, cost = _bounds(a), _cost_model(a)
    start = time.perf_counter()
    wcfg = _warp_cfg(a, kernel)
    result, prob = wcet(wcfg, bounds, a.max_loop_bound, cost, cross_check=not a.no_cross_check)
    seconds = time.perf_counter() - start
    out = _wcet_json(wcfg, result, prob, cost, seconds, not a.no_cross_check)
    return out, _wcet_report(out)


def _wcet_json(wcfg: WarpCFG, result, prob, cost: CostModel, seconds: float, checked: bool) -> dict:
    counts: dict[str, int] = {}
    for n, c in result.node_counts.items():
        counts[wcfg.label(n)] = counts.get(wcfg.label(n), 0) + c
    blocks = [{"label": b.label, "cost": wcfg.cfg.block_cost(b, cost), "count": counts.get(b.label, 0),
               "instructions": b.end - b.start} for b in wcfg.cfg.blocks]
    path = [{"node": n, "block": wcfg.label(n), "stack": describe(wcfg.graph.nodes[n]["stack"]), "count": c}
            for n, c in sorted(result.node_counts.items())]
    return {"kernel": wcfg.kernel.name, "wcet": result.wcet, "value_agreement": wcfg.value_agreement,
            "blocks": blocks, "path": path, "branches": _branches(wcfg),
            "warp_cfg_nodes": wcfg.graph.number_of_nodes() - 1,
            "loops": [{"header": lp["header"], "bound": lp["bound"], "nodes": len(lp["nodes"])} for lp in prob.loops],
            "solvers": ["z3", "highs"] if checked else ["z3"], "seconds": round(seconds, 4)}


def _wcet_report(out: dict) -> str:
    from tabulate import tabulate

    va = "on" if out["value_agreement"] else "off"
    checked = "Z3 = HiGHS" if len(out["solvers"]) == 2 else "Z3 only"
    lines = [f"kernel {out['kernel']}: WCET bound {out['wcet']} cycles for one warp in isolation "
             f"(value agreement {va}; {out['warp_cfg_nodes']} warp-level nodes; {checked}; {out['seconds']:.2f} s)",
             "", "worst-case path (warp-level nodes executed):",
             tabulate([[p["block"], p["stack"], p["count"]] for p in out["path"]],
                      headers=["block", "abstract stack (top first)", "count"]),
             "", "block costs used:",
             tabulate([[b["label"], b["instructions"], b["cost"], b["count"]] for b in out["blocks"]],
                      headers=["block", "instructions", "cycles", "count on worst path"]),
             "", "conditional branches:",
             tabulate([[b["block"], b["instruction"], "uniform (proved)" if b["uniform"] else "may diverge"]
                       for b in out["branches"]], headers=["block", "branch", "value agreement"])]
    return "\n".join(lines)


# -- simt -----------------------------------------------------------------
def load_inputs(path: str | None, kernel: Kernel):
    """Warp inputs from a TOML or JSON file (params by full name, ``param_N`` suffix or index)."""
    from warpcheck.spec.kernels.thread_ops import WarpInputs

    if path is None:
        return WarpInputs()
    data = load_json(path, "inputs file") if path.endswith(".json") else load_toml(path, "inputs file")
    return inputs_from_mapping(data, kernel, path)


def inputs_from_mapping(data: dict, kernel: Kernel, where: str = "inputs"):
    """Build WarpInputs from a mapping checked against :class:`KernelInputsFile`."""
    from warpcheck.spec.kernels.thread_ops import WarpInputs

    spec = validated(KernelInputsFile, data, where)
    params = {kernel.param_named(key, f"{where}: parameter"): value for key, value in spec.params.items()}
    dims = {k: tuple(v + [0 if k == "ctaid" else 1] * (3 - len(v)))
            for k, v in (("ctaid", spec.ctaid), ("ntid", spec.ntid), ("nctaid", spec.nctaid))}
    return WarpInputs(params, dims["ctaid"], dims["ntid"], dims["nctaid"], spec.seed, spec.int_max)


def _simt(a: argparse.Namespace) -> int:
    from warpcheck._kernels import simt_of

    r = simt_of(a)
    print(json.dumps(r.to_dict()) if a.json else r.report())
    return r.code


def simt_one(a: argparse.Namespace) -> tuple[dict, str]:
    """One warp run concretely: its JSON object and its text."""
    from tabulate import tabulate

    from warpcheck.models.kernels.cfg import KernelCFG
    from warpcheck.sim.kernels.simt import run_warp

    kernel = load_kernel(a.kernel, a.entry)
    inputs = inputs_from_mapping(a.inputs, kernel) if isinstance(a.inputs, dict) else load_inputs(a.inputs, kernel)
    if a.max_steps < 1:
        raise ConfigError(f"--max-steps is {a.max_steps!r}; use a positive number of blocks")
    run = run_warp(kernel, inputs, a.threads, _cost_model(a), a.max_steps, a.warp)
    cfg = KernelCFG(kernel)
    steps = [{"block": cfg.blocks[b].label, "mask": _bits(m, a.threads)} for b, m in run.steps]
    obj = {"kernel": kernel.name, "threads": a.threads, "steps": steps, "cycles": run.cycles}
    text = (f"kernel {kernel.name}: one warp of {a.threads} threads, {len(steps)} blocks, {run.cycles} cycles\n"
            + tabulate([[i, s["block"], s["mask"]] for i, s in enumerate(steps)],
                       headers=["step", "block", "active mask (thread 0 first)"]))
    return obj, text


def _bits(mask: int, width: int) -> str:
    return "".join("1" if mask >> t & 1 else "0" for t in range(width))


def _add_cost(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cost model (cycles per instruction class)")
    g.add_argument("--latency", action="append", metavar="CLASS=N",
                   help="override a class latency (int 1, fadd/fmul/fmadd 4, fcvt 5, fdiv/fsqrt 16, mem 100, "
                        "branch 1, exit 1; shared 20, param/const 4; tensor 32, and added to an access's space: "
                        "matrix 16, cp_async 20, bulk_copy 200, tma 200)")
    g.add_argument("--mem-latency", type=int, metavar="N", help="latency of global/local memory (default 100)")


def register(sub) -> None:
    """Add the kernel verbs: cfg, wcet, simt."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("cfg", help="print the warp-level CFG of a kernel", formatter_class=fmt,
                       description="Build the warp-level CFG (blocks paired with abstract activation stacks).",
                       epilog="example:\n  warpcheck cfg examples/kernels/reduction.ptx --dot reduce.dot\n"
                              "  warpcheck cfg examples/corpus/dmath.ptx --all-entries --json\n"
                              "  warpcheck cfg examples/sass/slides.sass --no-value-agreement")
    _add_common(p, several=True)
    _add_analysis(p)
    _add_cost(p)
    _add_timeout(p)
    p.add_argument("--dot", metavar="FILE", type=OUTPUT_FILE, help="also write the warp-level CFG as Graphviz DOT")
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
    _add_analysis(p)
    _add_cost(p)
    _add_timeout(p)
    p.add_argument("--loop-bound", action="append", metavar="LABEL=N", help="bound of the loop headed by LABEL")
    p.add_argument("--bounds", metavar="FILE.toml", type=INPUT, help="loop bounds from a TOML file ([loops] LABEL = N)")
    p.add_argument("--max-loop-bound", metavar="N",
                   type=LOOP_BOUND, help="bound of every loop not named")
    p.add_argument("--no-cross-check", action="store_true", help="skip the HiGHS re-solve")
    p.set_defaults(func=_wcet)

    p = sub.add_parser("simt", help="run one warp concretely through the activation stack", formatter_class=fmt,
                       description="Execute one warp (per-thread registers, activation stack) and print the "
                                   "executed (block, active mask) sequence and its cycles.",
                       epilog="example:\n  warpcheck simt examples/kernels/nw.ptx --threads 32 --inputs in.toml\n"
                              "inputs (TOML/JSON): params = {param_2 = 8}, ctaid = [0], ntid = [32], seed = 1, "
                              "int_max = 8")
    _add_common(p)
    _add_cost(p)
    p.add_argument("--threads", type=int, default=32, metavar="W", help="warp width (default 32)")
    p.add_argument("--inputs", metavar="FILE", type=INPUT, help="parameters, block index/size and memory seed")
    p.add_argument("--warp", type=int, default=0, metavar="N",
                   help="which warp of the block runs (%%tid.x = N * W + lane; default 0)")
    p.add_argument("--max-steps", type=MAX_STEPS, default=100000, metavar="N",
                   help="give up after N blocks, as bad input (default 100000, about 30 s: about 3,000 blocks run "
                        "per second, so a kernel that never ends meets this before the default --timeout)")
    _add_timeout(p)
    p.set_defaults(func=_simt)
