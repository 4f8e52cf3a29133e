"""A makespan kernel string from a PTX entry on an SM (``warpcheck makespan --ptx FILE --sm SM.toml``).

The path is the one ``wcet`` takes: the warp-level CFG
(``models/kernels/warp_cfg.py``) and the IPET worst case over it, with the
loop bounds of ``bounds`` / ``loop_bound`` / ``max_loop_bound``; its
node counts are walked from the entry (at each node, on to the successor
with the most executions left), so that every loop runs as many times as
IPET counts it.  Each instruction of the walk becomes the unit letter of its
role on the SM (``models/makespan/ptx_units.py``), and each unit's sigma is
its lanes over the warp size.  What cannot be mapped is refused by name.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from warpcheck.models.errors import ConfigError, InputFileError, OptionError
from warpcheck.models.file_schemas import LoopBoundsFile, validated
from warpcheck.models.files import load_toml, read_text
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.ptx import parse_ptx_module
from warpcheck.models.kernels.warp_cfg import END, WarpCFG, build_warp_cfg
from warpcheck.models.makespan.ptx_units import ROLES, SmUnits, role_of

MAX_PATH = 16384  # instructions on the path, before the sigma transform: runs, certificates and replays grow with it


@dataclass
class PtxKernel:
    """The kernel string built from a PTX entry, its sigmas, and the mapping that produced it."""

    entry: str
    sm: str
    text: str
    sigma: dict[str, str]
    roles: dict[str, dict[str, Any]] = field(default_factory=dict)  # role -> unit, sigma, count, opcodes
    dropped: dict[str, int] = field(default_factory=dict)  # IPET executions on loops the path never enters
    pcs: list[int] = field(default_factory=list)  # per letter, its instruction's index in the (inlined) entry

    def to_json(self) -> dict[str, Any]:
        """Plain data for the report."""
        return {"entry": self.entry, "sm": self.sm, "instructions": len(self.text), "sigma": self.sigma,
                "roles": self.roles, "dropped": self.dropped}


def load_sm(path: str) -> SmUnits:
    """Read an SM file's ``[makespan]`` table (warp_size, lanes, roles)."""
    data = load_toml(path, "SM file")
    table = data.get("makespan")
    if not isinstance(table, dict):
        raise InputFileError(f"SM file {path!r} has no [makespan] table; see examples/sm/fermi-makespan.toml")
    lanes, roles = table.get("lanes"), table.get("roles")
    if not isinstance(lanes, dict) or not all(isinstance(k, str) and len(k) == 1 and k.isupper() and type(v) is int
                                              for k, v in lanes.items()):
        raise InputFileError(f"SM file {path!r}: [makespan.lanes] must map upper-case unit letters to integers")
    if not isinstance(roles, dict) or not all(isinstance(v, str) for v in roles.values()):
        raise InputFileError(f"SM file {path!r}: [makespan.roles] must map roles ({', '.join(ROLES)}) to unit letters")
    size = table.get("warp_size", 32)
    if type(size) is not int:
        raise InputFileError(f"SM file {path!r}: warp_size {size!r} must be an integer")
    return SmUnits(str(table.get("name", path)), size, lanes, roles)


def loop_bounds(bounds: str | None, named: Mapping[str, int] | None) -> dict[str, int]:
    """Loop bounds from a file (``[loops] LABEL = N``) and then the ``named`` ones, as ``wcet`` reads them."""
    out: dict[str, int] = {}
    if bounds:
        out.update(validated(LoopBoundsFile, load_toml(bounds, "loop bounds file"), bounds).loops)
    out.update(named or {})
    return out


def load_entry(path: str, entry: str | None) -> Kernel:
    """The PTX entry named ``entry`` (or the only one), with its calls inlined."""
    module = parse_ptx_module(read_text(path, "PTX file"), path)
    names = [k.name for k in module.entries]
    if not names:
        raise InputFileError(f"{path!r} holds no kernel (.entry); give a PTX module with at least one kernel")
    if entry is None and len(names) > 1:
        raise OptionError("entry", None, f"{path!r} holds {len(names)} kernels; name one ({', '.join(names)})")
    picked = [k for k in module.entries if entry is None or k.name == entry] or \
        [k for k in module.entries if entry in k.name]
    if len(picked) != 1:
        what = "no kernel" if not picked else "several kernels"
        raise OptionError("entry", entry, f"matches {what} in {path!r}; its kernels: {', '.join(names)}")
    return module.inlined(picked[0])


def edge_flows(wcfg: WarpCFG, counts: dict[int, int]) -> dict[tuple[Any, Any], int]:
    """Edge executions that carry the IPET node counts (one entry, one exit): a feasible flow, by network simplex."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_node(("src",), demand=-1)
    g.add_node(("in", END), demand=1)
    g.add_edge(("src",), ("in", wcfg.entry), weight=0)
    for v, c in counts.items():
        g.add_node(("in", v), demand=c)
        g.add_node(("out", v), demand=-c)
    for u, v in wcfg.graph.edges:
        if counts.get(u, 0) and (v == END or counts.get(v, 0)):
            g.add_edge(("out", u), ("in", v), weight=1)
    try:
        _, flow = nx.network_simplex(g)
    except (nx.NetworkXUnfeasible, nx.NetworkXError):
        raise ConfigError(f"kernel {wcfg.kernel.name!r}: the worst path's node counts carry no flow from the entry "
                          "to the end; they do not form one walk") from None
    return {(u[1], v[1]): f for u, out in flow.items() if u[0] == "out" for v, f in out.items() if f}


def worst_path(wcfg: WarpCFG, counts: dict[int, int]) -> tuple[list[int], dict[str, int]]:
    """The pcs of one walk from the entry to the end that runs every node as often as IPET counts it.

    Hierholzer's construction over the edge flows: an Euler path of the
    multigraph.  IPET may count a loop that no path from the entry enters (a
    circulation apart from the path: its bound constraints do not forbid it);
    such executions cannot be on a warp's path and are left out, and returned
    (block label -> executions) so that the verb prints them.
    """
    flows = edge_flows(wcfg, counts)
    reach, todo = {wcfg.entry}, [wcfg.entry]
    while todo:
        u = todo.pop()
        for (a, b) in flows:
            if a == u and b not in reach:
                reach.add(b)
                todo.append(b)
    dropped: dict[str, int] = {}
    for (a, b), f in flows.items():
        if a not in reach:
            dropped[wcfg.label(b)] = dropped.get(wcfg.label(b), 0) + f
    size = sum(f * _block_size(wcfg, u) for (u, _), f in flows.items() if u in reach)
    if size > MAX_PATH:  # before the walk is built: large loop bounds would exhaust memory first
        raise ConfigError(f"kernel {wcfg.kernel.name!r}: the worst path has {size:,} instructions, more than "
                          f"{MAX_PATH:,}; give smaller loop bounds (bounds, loop_bound, max_loop_bound)")
    out_edges: dict[Any, list[Any]] = {}
    for (u, v), f in sorted(flows.items(), key=lambda e: (str(e[0][0]), str(e[0][1]))):
        if u in reach:
            out_edges.setdefault(u, []).extend([v] * f)
    stack, walk = [wcfg.entry], []
    while stack:
        top = stack[-1]
        if out_edges.get(top):
            stack.append(out_edges[top].pop())
        else:
            walk.append(stack.pop())
    walk.reverse()
    pcs: list[int] = []
    for node in walk[:-1]:
        block = wcfg.cfg.blocks[wcfg.block(node)]
        pcs += range(block.start, block.end)
    return pcs, dropped


def _block_size(wcfg: WarpCFG, node: Any) -> int:
    """Instructions of the block a warp-level CFG node runs."""
    block = wcfg.cfg.blocks[wcfg.block(node)]
    return block.end - block.start


def ptx_kernel(ptx: str, sm: str | None, entry: str | None = None, bounds: str | None = None,
               loop_bound: Mapping[str, int] | None = None, max_loop_bound: int | None = None) -> PtxKernel:
    """Build the makespan kernel of the PTX ``entry`` of ``ptx`` on the SM file ``sm`` (see the module docstring)."""
    from warpcheck.encodings.kernels.ipet import wcet

    if not sm:
        raise OptionError("ptx", ptx, "needs an SM file too (sm: the SM's lanes per unit, e.g. "
                          "examples/sm/fermi-makespan.toml for the paper's Fermi, examples/sm/ampere-makespan.toml "
                          "for a recent SM)")
    if max_loop_bound is not None and max_loop_bound < 0:
        raise OptionError("max_loop_bound", max_loop_bound, "not allowed; it must be >= 0")
    units = load_sm(sm)
    kernel = load_entry(ptx, entry)
    wcfg = build_warp_cfg(kernel)
    result, _ = wcet(wcfg, loop_bounds(bounds, loop_bound), max_loop_bound)
    pcs, dropped = worst_path(wcfg, result.node_counts)
    pk = _mapped(kernel, units, [kernel.instructions[pc] for pc in pcs], ptx)
    pk.dropped, pk.pcs = dropped, pcs
    return pk


def _mapped(kernel: Kernel, sm: SmUnits, path: list[Instruction], where: str) -> PtxKernel:
    letters = [sm.unit_of(ins, f"{where}: {kernel.name} line {ins.line}") for ins in path]
    roles: dict[str, dict[str, Any]] = {}
    for ins, letter in zip(path, letters):
        r = roles.setdefault(role_of(ins), {"unit": letter, "sigma": str(sm.sigma(letter)), "count": 0,
                                            "opcodes": Counter()})
        r["count"] += 1
        r["opcodes"][ins.opcode.split(".")[0]] += 1
    for r in roles.values():
        r["opcodes"] = dict(r["opcodes"].most_common())
    sigma = {u: str(sm.sigma(u)) for u in sorted(set(letters))}
    return PtxKernel(kernel.name, sm.name, "".join(letters), sigma, roles)


def mapping_lines(pk: PtxKernel) -> list[str]:
    """The mapping as printed before the answer: one line per role."""
    out = [f"kernel from PTX entry {pk.entry} on SM {pk.sm}: {len(pk.text)} instructions along the worst path "
           f"(loops unrolled by their bounds)"]
    for role, r in sorted(pk.roles.items(), key=lambda kv: -kv[1]["count"]):
        ops = ", ".join(f"{op} {n}" for op, n in list(r["opcodes"].items())[:6])
        out.append(f"  {role:6s} -> unit {r['unit']} (sigma {r['sigma']}): {r['count']} instructions ({ops})")
    if pk.dropped:
        out.append("  left out: IPET counts executions of loops that no path from the entry enters ("
                   + ", ".join(f"{b} x{n}" for b, n in sorted(pk.dropped.items())) + ")")
    return out
