"""A cycle bound for a kernel on one SM with the LD/ST side of the reordering unit, by charging every cycle.

The paper's Eq. 3-4 (``models.segment_wcet``) estimate; this bounds.  The
argument: every cycle before the end of a finishing run, at least one of
the following *items* is under way, and each item is under way for at most
the cycles given (so the cycles are at most the sum):

========================================  ==========================================
item                                      cycles under way, at most
========================================  ==========================================
an issue                                  1 per dynamic instruction
an ALU result in flight (scoreboard)      latency - 1 per ALU instruction
a param/shared/local access               its latency
a fetch request in the pipe               t_fetch + t_decode per fetch; fetches:
                                          one per instruction plus one per I-cache miss
an I-cache miss                           1 + miss latency
the LD/ST delivering a request            1 per request
the unit looking for the expected         channel depth + 1 per request (the search
request in its channel                    pointer's round, then the send)
a request between L1 and its completion   its latency: hit or miss (+ jitter) as the
                                          L1 answers it, + 1 per extra line
SWaS: a NOP issued                        1 per I-cache miss, ibuffer + pipe per flush
========================================  ==========================================

Why some item is always under way: with none, no warp waits on a latency;
a warp with an empty ibuffer would be fetching (the fetch policy, LRR, takes
any warp that can fetch), a warp whose head is ready would issue (the issue
policy is work-conserving), a request could be delivered or is held by one
that is under way, a barrier waits for peers or requests that are under way;
so the state never changes again: a deadlock, not a finishing run.  Pure
round robin (the kit's ``srr``) is not work-conserving: its turn may sit on a
finished warp; such idle cycles come in runs of at most warps - 1, each
ended by an issue, so the bound adds (warps - 1) per issue.

This is an argument on paper, checked against simulation (the tests), not a
machine-checked proof.  Under the unit the L1 answer of each request is the
static order's LRU replay (proved by ``reorder prove --check misses``); without
the unit every load is taken to miss.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Work:
    """What the bound counts, over every warp of the launch."""

    instructions: int  # dynamic instructions issued
    alu_wait: int  # sum of (latency - 1) over the ALU instructions
    local_memory: int  # sum of the latencies of memory accesses that do not go to L1
    requests: tuple[int, ...]  # per global request: cycles from L1 to its completion, at most
    icache_misses: int  # an upper bound on the I-cache misses
    flushes: int  # taken branches and exits


@dataclass(frozen=True)
class Machine:
    """The parts of the SM the bound depends on."""

    warps: int
    pipe: int  # t_fetch + t_decode
    icache_miss: int  # I-cache miss latency
    ibuffer: int
    swas: bool = False
    channel: int = 0  # the unit's channel depth; 0: no unit
    round_robin: bool = False  # pure round robin issue (not work-conserving)


def charged_cycles(work: Work, m: Machine) -> dict[str, int]:
    """Each item's share of the bound and the ``total``."""
    nops = work.icache_misses + work.flushes * (m.ibuffer + m.pipe) if m.swas else 0
    terms = {
        "issue": work.instructions,
        "alu": work.alu_wait,
        "local_memory": work.local_memory,
        "fetch": (work.instructions + work.icache_misses) * m.pipe,
        "icache": work.icache_misses * (1 + m.icache_miss),
        "ldst": len(work.requests),
        "unit": len(work.requests) * (m.channel + 1) if m.channel else 0,
        "l1": sum(work.requests),
        "nops": nops,
        "turns": (m.warps - 1) * (work.instructions + nops) if m.round_robin else 0,
    }
    terms["total"] = sum(terms.values())
    return terms
