"""The reordering unit's mutation suite as the harness runs it: each mutant proved over every stream.

Every mutant is proved as ``reorder prove --streams 3 --warps 2 --channel 2``
would (the order rule it shows under; the L1 512:2 with lines 0..5); a kill is
a FAIL whose witness ``reorder replay`` reproduces on the simulator against the
plain-Python reference.
"""
from __future__ import annotations

import time
from pathlib import Path

from warpcheck._reorder.options import ReorderProveOptions
from warpcheck._reorder.stream_proof import run_streams
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.verify.mutation import Kill

__all__ = ["MUTANTS", "kill", "stream_options"]


def stream_options(mutant: str | None, out: Path, length: int = 3, warps: int = 2, channel: int = 2,
                   timeout: float = 120.0) -> ReorderProveOptions:
    """The options of ``reorder prove --streams`` the suite runs (the mutant's order rule)."""
    order = MUTANTS[mutant].order if mutant else "round"
    return ReorderProveOptions(streams=length, warps=warps, channel=channel, order=order, mutant=mutant,
                               timeout=timeout, witness=str(out / f"reorder-{mutant or 'unit'}.json"))


def kill(name: str, out: Path, length: int = 3, warps: int = 2, channel: int = 2, timeout: float = 120.0) -> Kill:
    """Prove mutant ``name`` over every stream; a kill is a FAIL whose witness the simulator reproduces."""
    m = MUTANTS[name]
    a = stream_options(name, out, length, warps, channel, timeout)
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
