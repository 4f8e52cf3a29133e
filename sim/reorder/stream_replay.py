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

from typing import Any, Sequence

from warpcheck.models.errors import InputFileError
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.spec.reorder.record_check import Record, judge
from warpcheck.spec.reorder.reference import static_order
from warpcheck.spec.reorder.reference_l1 import Geometry
from warpcheck.models.reorder.streams import Streams
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.sim.reorder.run import simulate

STREAM_FORMAT = "warpcheck-reorder-stream-witness"
FIELDS = ("streams", "stream", "channel", "order", "cache", "stores", "mutant", "check", "schedule")  # and "record"


def unit_of(w: dict[str, Any]) -> ReorderUnit:
    """The unit (or the named mutant of it) over the witness's stream bounds, with its L1."""
    b = w["streams"]
    work = Streams(tuple(b["blocks"]), b["length"], b["lines"], b["line_bytes"], b.get("barriers"), b.get("addresses", 0))
    if w["mutant"] is not None and w["mutant"] not in MUTANTS:
        raise InputFileError(f"witness names mutant {w['mutant']!r}; known mutants: {', '.join(MUTANTS)}")
    cls = MUTANTS[w["mutant"]].make() if w["mutant"] else ReorderUnit
    return cls(work, w["channel"], w["order"], l1=parse_cache(w["cache"], b["line_bytes"], w["stores"]))


PARTS = {"order": ("order", "made"), "wait": ("wait", "accepts"), "progress": ("progress", "accepts"),
         "misses": ("misses",)}  # a proof's property -> the reference judgements that show it


def record_of(ts: ReorderUnit, states: Sequence[dict[str, Any]], schedule: Sequence[Sequence[int]],
              order: Sequence[tuple[int, int]]) -> Record:
    """A run's record read off its states (a simulation's, or a solver trace's): what went to L1 each cycle, the
    running misses, and whether the unit accepted the static order's next request in each state (a trace's own
    ``r.acc``, recorded one cycle later, so the last state has none; for a simulation, asked of the unit)."""
    sent, accepts, n = [], [], 0
    for t, s in enumerate(states):
        if t:  # state t holds the output of cycle t - 1, and a proof's trace the unit's acceptance in state t - 1
            sent.append((int(s["o_warp"]), int(s["o_idx"])) if s["o_valid"] else (-1, -1))
            n += bool(s["o_valid"])
        due = order[n] if n < len(order) else (-1, 0)
        if "r.acc" in s:
            accepts += [bool(s["r.acc"])] if t else []
        else:  # a simulation asks the unit
            accepts.append(bool(ts.assume(A, s, {"a_warp": due[0], "a_idx": due[1]})))
    misses = tuple(int(s["misses"]) for s in states[1:]) if ts.l1 is not None else None
    return Record(tuple((int(w), int(k)) for w, k in schedule), tuple(sent), misses, tuple(accepts))


def judged(w: dict[str, Any], record: Record) -> dict[str, str]:
    """The reference's judgement of a record of the witness's stream (no model code runs)."""
    b = w["streams"]
    work = Streams(tuple(b["blocks"]), b["length"], b["lines"], b["line_bytes"], b.get("barriers"), b.get("addresses", 0))
    concrete = work.concrete({v.name: w["stream"][v.name] for v in work.vars()})
    spec = parse_cache(w["cache"], b["line_bytes"], w["stores"])
    g = Geometry(spec.size, spec.ways, spec.line_bytes, spec.stores)
    reqs = [[tuple(r) for r in warp] for warp in concrete["warps"]]
    return judge(concrete["blocks"], reqs, w["order"], w["channel"], g, record, stream_pcs(w, work))


def stream_pcs(w: dict[str, Any], work: Streams) -> list[list[int]] | None:
    if w["order"] != "paper":
        return None
    return [[int(w["stream"][f"pc.{q}.{k}"]) for k in range(int(w["stream"][f"len.{q}"]))] for q in range(work.warps)]


def replay_stream(w: dict[str, Any]) -> dict[str, Any]:
    """Run the witness's schedule on the unit; say which properties the run violates, by the reference."""
    ts = unit_of(w)
    work = ts.work
    params = {v.name: w["stream"][v.name] for v in work.vars()}
    concrete = work.concrete(params)
    schedule = [tuple(d) for d in w["schedule"]]
    run = simulate(ts, schedule, params=params)
    epochs = [[e for e, _, _ in reqs] for reqs in concrete["warps"]]
    order = static_order(epochs, w["order"], stream_pcs(w, work))
    violated = judged(w, record_of(ts, run.states, run.schedule, order))
    return {"static_order": [list(r) for r in order], "sent": [[t, q, j] for t, (q, j) in run.sent],
            "refused": run.refused, "violated": violated, "stream": concrete,
            "reproduced": run.refused is None and any(p in violated for p in PARTS.get(w["check"], (w["check"],)))}
