"""The reordering unit's mutation suite as the harness runs it: each mutant proved over every stream.

Every mutant is proved with ``reorder prove --streams 3 --warps 2 --channel 2``
(the order rule it shows under; the L1 512:2 with lines 0..5); a kill is a
FAIL whose witness ``reorder replay`` reproduces on the simulator against the
plain-Python reference.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from warpcheck.cli.reorder.streams import run_streams
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.verify.mutation import Kill

__all__ = ["MUTANTS", "kill", "stream_args"]


def stream_args(mutant: str | None, out: Path, length: int = 3, warps: int = 2, channel: int = 2,
                timeout: float = 120.0) -> argparse.Namespace:
    """The options of ``reorder prove --streams`` the suite runs (the mutant's order rule)."""
    order = MUTANTS[mutant].order if mutant else "round"
    return argparse.Namespace(streams=length, warps=warps, blocks=None, lines=6, line_bytes=128, cache=None,
                              stores="evict", channel=channel, order=order, check="stream", mutant=mutant,
                              max_k=4, timeout=timeout, depth=None, json=False,
                              witness=str(out / f"reorder-{mutant or 'unit'}.json"))


def kill(name: str, out: Path, length: int = 3, warps: int = 2, channel: int = 2, timeout: float = 120.0) -> Kill:
    """Prove mutant ``name`` over every stream; a kill is a FAIL whose witness the simulator reproduces."""
    m = MUTANTS[name]
    a = stream_args(name, out, length, warps, channel, timeout)
    t = time.monotonic()
    o = run_streams(a)
    if "witness" in o:
        evidence = f"{Path(o['witness']).name}: {o['violation']} at cycle {o['cycle']}"
    else:
        evidence = o["label"]
    check = (f"reorder prove --streams {length} --warps {warps} --channel {channel} --order {a.order} "
             f"--mutant {name}")
    return Kill(m.name, m.breaks, check, o["status"], m.equivalent, evidence,
                replayed=bool(o.get("reproduced")), seconds=time.monotonic() - t)
