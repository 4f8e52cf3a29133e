"""The reference's judgement of a run of the reordering unit, from its inputs and output record alone.

A run is what the LD/ST side delivered each cycle (the schedule) and what the
unit exported each cycle (its record: the request sent to L1 or none, the
running L1 load-miss count, whether it accepted the static order's next
request).  Whoever produced the record (the solver's trace of a proof, the
simulator), this module judges it with plain Python, written from the paper:
the static order by sorting (``reference.static_order``), the LD/ST rules
(channel depth, barriers), the waits counted cycle by cycle, the misses by
the LRU replay of the static order (``reference_l1.lru_replay``).  It imports
nothing of the unit, so a mutant's record judged here is evidence that does not
come from the mutated code.

Cycle conventions (the unit's): the delivery of cycle t is in its channel from
t + 1, so a request sent at cycle t was delivered before t; ``accepts[t]`` is
the unit's acceptance, in the state of cycle t, of the request the static order
sends next.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from warpcheck.spec.reorder.reference import static_order
from warpcheck.spec.reorder.reference_l1 import Geometry, lru_replay

Request = tuple[int, int]
StreamReq = tuple[int, str, int]  # (epoch, kind "L"|"S", line address)


@dataclass(frozen=True)
class Record:
    """One run: per cycle the delivery ((-1, 0): none), the request sent ((-1, -1): none), the running misses
    (None: no L1) and whether the unit accepted the static order's next request (None: not recorded)."""

    schedule: tuple[Request, ...]
    sent: tuple[Request, ...]
    misses: tuple[int, ...] | None = None
    accepts: tuple[bool, ...] | None = None


def judge(blocks: Sequence[int], warps: Sequence[Sequence[StreamReq]], rule: str, channel: int,
          g: Geometry | None, run: Record, pcs: Sequence[Sequence[int]] | None = None) -> dict[str, str]:
    """Which properties the run violates (name -> why, the first cycle of each); empty when none.

    ``pcs``: each request's instruction address (the ``paper`` rule needs them)."""
    epochs = [[e for e, _, _ in reqs] for reqs in warps]
    order = static_order(epochs, rule, pcs)
    out: dict[str, str] = {}
    delivered: set[Request] = set()
    sent: list[Request] = []
    wait = 0
    for t, (d, s) in enumerate(zip(run.schedule, run.sent)):
        due = order[len(sent)] if len(sent) < len(order) else None
        _progress(out, t, due, delivered, sent, blocks, epochs, order, run)
        if d[0] != -1:
            why = _illegal(d, delivered, sent, blocks, epochs, channel)
            if why and "accepts" not in out:
                out["accepts"] = f"cycle {t}: the unit accepted {list(d)}, which {why}"
        if s[0] != -1:
            _sent(out, t, s, due, delivered, len(sent))
            sent.append(s)
            wait = 0
        elif due is not None and due in delivered:
            wait += 1
            if wait > channel - 1 and "wait" not in out:
                out["wait"] = f"{list(due)} waited {wait} cycles in the unit (bound {channel - 1}) at cycle {t}"
        if d[0] != -1:
            delivered.add((d[0], d[1]))
        if g is not None and run.misses is not None and "misses" not in out:
            ref = lru_replay([(warps[q][j][1], (warps[q][j][2],)) for q, j in order[:len(sent)]], g).load_misses
            if run.misses[t] != ref:
                out["misses"] = (f"after cycle {t} ({len(sent)} requests sent) the unit's L1 counts {run.misses[t]} "
                                 f"load misses, the reference LRU replay of the static order {ref}")
    t = len(run.schedule)  # the state after the last cycle
    if run.accepts is not None and len(run.accepts) > t:
        _progress(out, t, order[len(sent)] if len(sent) < len(order) else None, delivered, sent, blocks, epochs,
                  order, run)
    return out


def _sent(out: dict[str, str], t: int, s: Request, due: Request | None, delivered: set[Request], n: int) -> None:
    if s != due and "order" not in out:
        out["order"] = (f"request {n} sent to L1 (cycle {t}) is {list(s)}, the static order's is "
                        f"{list(due) if due is not None else 'none (all were sent)'}")
    if s not in delivered and "made" not in out:
        out["made"] = f"cycle {t}: the unit sent {list(s)}, which the LD/ST side never delivered (a phantom request)"


def _progress(out: dict[str, str], t: int, due: Request | None, delivered: set[Request], sent: list[Request],
              blocks: Sequence[int], epochs: Sequence[Sequence[int]], order: Sequence[Request], run: Record) -> None:
    """The due request, not yet delivered, must be accepted when the LD/ST rules allow it."""
    if run.accepts is None or due is None or due in delivered or run.accepts[t] or "progress" in out:
        return
    held = _barrier_holders(due, sent, blocks, epochs)
    if not held:
        out["progress"] = (f"cycle {t}: the unit does not accept {list(due)}, the static order's next request, "
                           f"which the LD/ST side may deliver (every request it waits for is sent): the run hangs")


def _barrier_holders(r: Request, sent: Sequence[Request], blocks: Sequence[int],
                     epochs: Sequence[Sequence[int]]) -> list[Request]:
    """The unsent requests of ``r``'s block from an earlier barrier epoch than ``r``'s."""
    w, k = r
    done = set(sent)
    return [(q, j) for q in range(len(epochs)) if blocks[q] == blocks[w] for j in range(len(epochs[q]))
            if epochs[q][j] < epochs[w][k] and (q, j) not in done]


def _illegal(d: Request, delivered: set[Request], sent: Sequence[Request], blocks: Sequence[int],
             epochs: Sequence[Sequence[int]], channel: int) -> str:
    """Why the LD/ST rules forbid delivery ``d`` now ('' when they allow it)."""
    w, k = d
    done = set(sent)
    if not (0 <= w < len(epochs) and 0 <= k < len(epochs[w])):
        return "no warp made"
    if d in delivered:
        return "was delivered before"
    if any((w, j) not in done for j in range(k - channel + 1)):
        return f"lies more than the channel depth ({channel}) past its warp's oldest unsent request"
    if _barrier_holders(d, sent, blocks, epochs):
        return "waits at a barrier for requests not yet sent"
    return ""
