"""The reordering unit's mutation suite as the harness runs it: each mutant proved over every stream.

Every mutant is proved as ``reorder prove --streams 3 --warps 2 --channel 2``
would (the order rule it shows under; the default L1 and lines).  A kill is a
FAIL whose evidence does not come from the mutated code: the run's record as
the solver's trace has it (what went to L1 each cycle, the misses, whether the
unit accepted the due request) judged by the plain-Python reference
(``spec.reorder.record_check``), and the same stream and schedule run on the
unmutated unit, which violates nothing there.  A replay through the mutant's
own step is printed by ``reorder replay`` but is not the evidence.
"""
from __future__ import annotations

import time
from pathlib import Path

from warpcheck._reorder.options import ReorderProveOptions
from warpcheck._reorder.stream_proof import run_streams
from warpcheck.models.files import load_json
from warpcheck.sim.reorder.stream_replay import replay_stream
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.verify.mutation import Kill

__all__ = ["MUTANTS", "kill", "stream_options"]


def stream_options(mutant: str | None, out: Path, length: int = 3, warps: int = 2, channel: int = 2,
                   timeout: float = 300.0) -> ReorderProveOptions:
    """The options of ``reorder prove --streams`` the suite runs (the mutant's order rule)."""
    order = MUTANTS[mutant].order if mutant else "round"
    return ReorderProveOptions(streams=length, warps=warps, channel=channel, order=order, mutant=mutant,
                               timeout=timeout, witness=str(out / f"reorder-{mutant or 'unit'}.json"))


def kill(name: str, out: Path, length: int = 3, warps: int = 2, channel: int = 2, timeout: float = 300.0) -> Kill:
    """Prove mutant ``name`` over every stream; a kill is a FAIL whose witness the simulator reproduces."""
    m = MUTANTS[name]
    a = stream_options(name, out, length, warps, channel, timeout)
    t = time.monotonic()
    o = run_streams(a)
    killed = False
    if "witness" in o:
        judged, clean = o["judged"], unmutated(o["witness"])
        # the reference sees the violation in the trace, and the unmutated unit does not commit it (or refuses the
        # schedule, when what the reference saw is the mutant accepting a delivery the LD/ST rules forbid)
        killed = bool(judged) and (not set(judged) & set(clean) if clean is not None else "accepts" in judged)
        evidence = (f"{Path(o['witness']).name}: {o['violation']} at cycle {o['cycle']}; reference on the trace: "
                    f"{', '.join(judged) or 'nothing'}; unmutated unit: "
                    f"{'refuses the schedule' if clean is None else ', '.join(clean) or 'nothing violated'}")
    else:
        evidence = o["label"]
    check = (f"reorder prove --streams {length} --warps {warps} --channel {channel} --order {a.order} "
             f"--mutant {name}")
    return Kill(m.name, m.breaks, check, o["status"], m.equivalent, evidence,
                replayed=killed, seconds=time.monotonic() - t)


def unmutated(path: str) -> dict[str, str] | None:
    """What the unit without the mutant violates on the witness's stream and schedule (None: it refuses it)."""
    w = load_json(path, "reorder witness")
    rep = replay_stream({**w, "mutant": None})
    return None if rep["refused"] is not None else rep["violated"]
