"""Explicit simulation of the reordering unit: schedules of the LD/ST side, L1 order, misses.

The unit's step runs with plain Python values.  A *schedule* says what the
LD/ST side delivers each cycle: ``(warp, index)`` or ``(-1, 0)`` for a stall.
The requests the unit sends go, in that order, through the reference L1
(``spec.reorder.reference_l1``: its own set index and LRU, not the unit's).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.reorder.l1 import L1Spec
from warpcheck.spec.reorder.reference_l1 import Geometry, lru_replay
from warpcheck.models.reorder.unit import ReorderUnit, Workload
from warpcheck.models.ts import State, check_state

Delivery = tuple[int, int]
Lines = tuple[tuple[tuple[str, tuple[int, ...]], ...], ...]  # per warp, per request: (kind, line addresses)


@dataclass
class UnitRun:
    """One simulated run: the states, what went to L1 and when, and whether inputs were refused."""

    states: list[State] = field(default_factory=list)
    schedule: list[Delivery] = field(default_factory=list)  # the deliveries actually run
    sent: list[tuple[int, Delivery]] = field(default_factory=list)  # (cycle, (warp, index))
    refused: int | None = None  # first cycle whose delivery the LD/ST rules forbid

    @property
    def order(self) -> list[Delivery]:
        return [r for _, r in self.sent]


def simulate(ts: ReorderUnit, schedule: Sequence[Delivery], extra: int = 0,
             params: dict | None = None) -> UnitRun:
    """Run the schedule (then ``extra`` stall cycles); stop at the first delivery the rules forbid.

    ``params`` gives a symbolic workload's stream (``Streams``); a kernel's needs none."""
    s = ts.init(A, params or {})
    run = UnitRun(states=[s])
    for t, (w, k) in enumerate(list(schedule) + [(-1, 0)] * extra):
        i = {"a_warp": w, "a_idx": k}
        if not ts.assume(A, s, i):
            run.refused = t
            break
        s = ts.step(A, s, i)
        check_state(ts, s)
        run.states.append(s)
        run.schedule.append((w, k))
        if s["o_valid"]:
            run.sent.append((t, (s["o_warp"], s["o_idx"])))
    return run


def deliverable(ts: ReorderUnit, s: State) -> list[Delivery]:
    """Every request the LD/ST side may deliver in state ``s``."""
    return [(w, k) for w in range(ts.work.warps) for k in range(ts.work.count(w)) if ts.deliverable(A, s, w, k)]


def random_schedule(ts: ReorderUnit, rng: random.Random, stall: float = 0.3, limit: int = 10000,
                    params: dict | None = None) -> list[Delivery]:
    """A legal schedule that delivers every request (random order, random stalls), if the unit lets it."""
    s = ts.init(A, params or {})
    out: list[Delivery] = []
    for _ in range(limit):
        if all(s[f"st.{w}.{k}"] == 2 for w in range(ts.work.warps) for k in range(ts.work.count(w))
               if ts.work.exists(A, s, w, k)):
            return out
        options = deliverable(ts, s)
        pick = (-1, 0) if not options or rng.random() < stall else rng.choice(options)
        out.append(pick)
        s = ts.step(A, s, {"a_warp": pick[0], "a_idx": pick[1]})
    return out


def drain(ts: ReorderUnit, schedule: Sequence[Delivery], limit: int = 1000) -> UnitRun:
    """Run ``schedule`` (up to a delivery the rules refuse), then deliver whatever they allow until nothing moves."""
    run = simulate(ts, schedule)
    s, sched, idle = run.states[-1], list(run.schedule), 0
    quiet = 2 * ts.channel * ts.work.warps + 2  # idle cycles after which the search pointers have seen all
    while idle <= quiet and len(sched) < len(schedule) + limit:
        options = deliverable(ts, s)
        pick = options[0] if options else (-1, 0)
        sched.append(pick)
        s = ts.step(A, s, {"a_warp": pick[0], "a_idx": pick[1]})
        idle = 0 if options or s["o_valid"] else idle + 1
    return simulate(ts, sched)


def l1_misses(order: Sequence[Delivery], lines: Lines, spec: L1Spec) -> dict[str, int]:
    """Load and store line accesses and load misses of the requests in ``order``: the reference LRU replay."""
    r = lru_replay([lines[w][k] for w, k in order], Geometry(spec.size, spec.ways, spec.line_bytes, spec.stores))
    return {"loads": r.loads, "load_misses": r.load_misses, "stores": r.stores}


def longest_wait(run: UnitRun, order: Sequence[Delivery], bound: int) -> tuple[int, Delivery] | None:
    """The first wait past ``bound`` cycles of the static order's next request once delivered: (cycles, request).

    The wait is counted as the reference counts it: a cycle in which the request
    due next (by ``order``) was delivered in an earlier cycle and nothing was sent."""
    delivered: set[Delivery] = set()
    sent_at = {t: r for t, r in run.sent}
    done, wait = 0, 0
    for t, d in enumerate(run.schedule):
        due = order[done] if done < len(order) else None
        if t in sent_at:
            done, wait = done + 1, 0
        elif due is not None and due in delivered:
            wait += 1
            if wait > bound:
                return wait, due
        else:
            wait = 0
        if d[0] != -1:
            delivered.add((d[0], d[1]))
    return None


def schedule_pairs(inputs: Sequence[dict]) -> list[list[int]]:
    """A trace's inputs as the LD/ST schedule: [warp, index] per cycle, [-1, 0] for a stall."""
    return [[int(i["a_warp"]), int(i["a_idx"]) if int(i["a_warp"]) != -1 else 0] for i in inputs]


def workload_of(epochs: Sequence[Sequence[int]], blocks: Sequence[int]) -> Workload:
    """A Workload from per-warp epochs and block indices."""
    return Workload(tuple(tuple(e) for e in epochs), tuple(blocks))
