"""Replaying a stream witness: the unit's simulator against the plain-Python reference.

A stream witness is a concrete stream (the values the solver chose for the
symbolic one), an LD/ST schedule (one delivery or stall per cycle) and the
unit's options (and, for the mutation suite, the mutant it was found on).  The
unit runs cycle by cycle with plain values; what it sent to L1 is then held
against the reference computed apart from any solver: the static order by
sorting, the wait of the static order's next request counted cycle by cycle,
the misses by the reference LRU replay.  A violation reproduced here is
independent of the solver that found it.
"""
from __future__ import annotations

from typing import Any

from warpcheck.models.errors import InputFileError
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.spec.reorder.reference import static_order
from warpcheck.spec.reorder.reference_l1 import Geometry, lru_replay
from warpcheck.models.reorder.streams import Streams
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.sim.reorder.run import longest_wait, simulate

STREAM_FORMAT = "warpcheck-reorder-stream-witness"
FIELDS = ("streams", "stream", "channel", "order", "cache", "stores", "mutant", "check", "schedule")


def unit_of(w: dict[str, Any]) -> ReorderUnit:
    """The unit (or the named mutant of it) over the witness's stream bounds, with its L1."""
    b = w["streams"]
    work = Streams(tuple(b["blocks"]), b["length"], b["lines"], b["line_bytes"])
    if w["mutant"] is not None and w["mutant"] not in MUTANTS:
        raise InputFileError(f"witness names mutant {w['mutant']!r}; known mutants: {', '.join(MUTANTS)}")
    cls = MUTANTS[w["mutant"]].make() if w["mutant"] else ReorderUnit
    return cls(work, w["channel"], w["order"], l1=parse_cache(w["cache"], b["line_bytes"], w["stores"]))


def replay_stream(w: dict[str, Any]) -> dict[str, Any]:
    """Run the witness's schedule on the unit; say which properties the run violates, by the reference."""
    ts = unit_of(w)
    work = ts.work
    params = {v.name: w["stream"][v.name] for v in work.vars()}
    concrete = work.concrete(params)
    run = simulate(ts, [tuple(d) for d in w["schedule"]], params=params)
    epochs = [[e for e, _, _ in reqs] for reqs in concrete["warps"]]
    order = static_order(epochs, w["order"])
    sent = run.order
    g = Geometry(ts.l1.spec.size, ts.l1.spec.ways, ts.l1.spec.line_bytes, ts.l1.spec.stores)
    violated: dict[str, str] = {}
    bad_order = [n for n, r in enumerate(sent) if n >= len(order) or r != order[n]]
    if bad_order:
        n = bad_order[0]
        violated["order"] = (f"request {n} sent to L1 is {list(sent[n])}, the static order's is "
                             f"{list(order[n]) if n < len(order) else 'none (all were sent)'}")
    wait = longest_wait(run, order, w["channel"] - 1)
    if wait is not None:
        violated["wait"] = f"{list(wait[1])} waited {wait[0]} cycles in the unit (bound {w['channel'] - 1})"
    lines = [[(kind, (addr,)) for _, kind, addr in reqs] for reqs in concrete["warps"]]
    for n in range(1, min(len(sent), len(order)) + 1):
        ref = lru_replay([lines[q][j] for q, j in order[:n]], g).load_misses
        got = run.states[[t for t, _ in run.sent][n - 1] + 1]["misses"]
        if got != ref:
            violated["misses"] = f"after {n} requests the unit's L1 counts {got} load misses, the reference {ref}"
            break
    return {"static_order": [list(r) for r in order], "sent": [[t, q, j] for t, (q, j) in run.sent],
            "refused": run.refused, "violated": violated, "stream": concrete,
            "reproduced": run.refused is None and w["check"] in violated}
