"""``analyze``: every warp's dynamic global loads/stores, their coalesced lines, and the static order.

The analyzer (``sim.reorder.accesses``) runs every warp of every block
concretely; this module puts its findings in the verb's JSON object and text
report, and replays the L1 (the reference LRU) in the static order when a cache
is given.
"""
from __future__ import annotations

from typing import Any

from warpcheck.models.reorder.l1 import L1Spec
from warpcheck.models.reorder.order import static_order
from warpcheck.sim.reorder.accesses import Analysis
from warpcheck.spec.reorder.l1_replay import replay


def warp_epochs(an: Analysis) -> list[list[int]]:
    """Each warp's access epochs, warps in global order."""
    return [[acc.epoch for acc in w.accesses] for w in an.warps]


def static_sequence(an: Analysis, rule: str) -> list[tuple[str, tuple[int, ...]]]:
    """The (kind, lines) of every access in the static order."""
    return [(an.warps[w].accesses[k].kind, an.warps[w].accesses[k].lines)
            for w, k in static_order(warp_epochs(an), rule, [[acc.pc for acc in w.accesses] for w in an.warps])]


def analysis_json(an: Analysis, rule: str, spec: L1Spec | None) -> dict[str, Any]:
    """The analyzer's findings with the keys of the issue."""
    order = [] if an.undecided else static_order(warp_epochs(an), rule, [[acc.pc for acc in w.accesses] for w in an.warps])
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


def report(out: dict[str, Any]) -> str:
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
