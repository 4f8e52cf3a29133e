"""``warpcheck reorder prove --streams N``: the reordering unit proved as a design, for every stream.

No kernel: each of ``--warps`` warps sends a symbolic stream of 0 .. N
requests (any ``bar.sync`` before any request, each request a load or a store
of one of ``--lines`` line numbers), the LD/ST side any schedule, interleaving
and stall within its rules.  k-induction (lemmas proved first) shows, at every
cycle, that what goes to L1 is the static order's next request (``order``),
that the static order's next request, once delivered, waits at most
channel - 1 cycles (``wait``: none is lost), and that the L1 load misses are
the reference LRU replay's (``misses``).  A FAIL writes a witness that
``warpcheck reorder replay`` reruns on the simulator against the reference.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from warpcheck.cli.options import at_most
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.errors import ConfigError
from warpcheck.models.files import atomic_write_text
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.models.reorder.streams import MAX_STREAM_LENGTH, MAX_STREAM_LINES, MAX_STREAM_WARPS, Streams
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.sim.reorder.run import schedule_pairs
from warpcheck.sim.reorder.stream_replay import STREAM_FORMAT, replay_stream
from warpcheck.verify.reorder.streams import STREAM_CHECKS, StreamMonitor, prove_streams
from warpcheck.verify.result import Status

STREAM_CACHE = "512:2"  # 2 sets of 2 ways at 128-byte lines: small enough that lines collide and get evicted


def parse_blocks(text: str | None, warps: int) -> tuple[int, ...]:
    """``--blocks 0,0,1``: each warp's block (default: one block)."""
    if text is None:
        return (0,) * warps
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != warps or not all(p.isdigit() for p in parts):
        raise ConfigError(f"--blocks {text!r} needs one block number per warp ({warps}); write e.g. --blocks "
                          + ",".join("0" * 1 for _ in range(warps)))
    return tuple(int(p) for p in parts)


def build(a: argparse.Namespace) -> StreamMonitor:
    """The monitored unit (or mutant) over the options' stream bounds."""
    work = Streams(parse_blocks(a.blocks, a.warps), a.streams, a.lines, a.line_bytes)
    spec = parse_cache(a.cache or STREAM_CACHE, a.line_bytes, a.stores)
    if a.mutant is not None and a.mutant not in MUTANTS:
        raise ConfigError(f"--mutant {a.mutant!r} is unknown; known mutants: {', '.join(MUTANTS)}")
    cls = MUTANTS[a.mutant].make() if a.mutant else ReorderUnit
    return StreamMonitor(cls(work, a.channel, a.order, l1=spec, channel_lemmas=True))


def covered(m: StreamMonitor) -> str:
    """What a PASS covers, in one sentence."""
    w, spec = m.inner.work, m.inner.l1.spec
    return (f"every stream of {w.warps} warps (blocks {list(w.blocks)}) of 0..{w.length} requests each, any "
            f"bar.sync before any request, each request a load or store of one of lines 0..{w.lines - 1} "
            f"(L1 {spec.size} B, {spec.ways} ways, {spec.line_bytes}-byte lines: {spec.sets} sets, stores "
            f"{spec.stores}), channel depth {m.inner.channel}, order {m.inner.order}, every LD/ST schedule, "
            f"interleaving and stall")


def failing_part(m: StreamMonitor, check: str, states: list[dict]) -> tuple[str, int]:
    """The first property the trace violates and the cycle (the solver's trace, read concretely)."""
    for t, s in enumerate(states):
        for name, p in m.parts(check).items():
            if not p(CONCRETE, s):
                return name, t
    return check, len(states) - 1


def run_streams(a: argparse.Namespace) -> dict[str, Any]:
    """Prove (or refute) the stream properties; write and replay the witness of a FAIL."""
    if a.check not in STREAM_CHECKS:
        raise ConfigError(f"--check {a.check!r} is for a kernel; with --streams check one of: "
                          f"{', '.join(STREAM_CHECKS)}")
    m = build(a)
    t = time.monotonic()
    r = prove_streams(m, a.check, a.max_k, a.timeout, a.depth)
    out: dict[str, Any] = {"mode": "streams", "check": a.check, "mutant": a.mutant, "covered": covered(m),
                           "wait_bound": m.bound, **r.to_json(), "label": r.label}
    if r.status is Status.PASS:
        w = m.inner.work
        out["label"] = (f"PASS (every cycle, unbounded in time; streams bounded: {w.warps} warps x 0..{w.length} "
                        f"requests, lines 0..{w.lines - 1}, channel {m.inner.channel})")
        if w.length <= m.inner.channel:
            out["note"] = (f"no warp sends more requests ({w.length}) than its channel holds ({m.inner.channel}): "
                           f"a bug of the channel's capacity cannot show; give --streams {m.inner.channel + 1} or more")
        out["claim"] = (f"for {out['covered']}: at every cycle the request sent to L1 is the static order's "
                        f"next (none twice), the static order's next request waits at most {m.bound} cycles "
                        f"once delivered (none lost), and the L1 load misses equal the reference LRU replay's")
    if r.status is Status.FAIL and r.trace is not None:
        part, cycle = failing_part(m, a.check, r.trace.states)
        w = witness(a, m, r.trace, part)
        out["witness"] = write_witness(a, w)
        rep = replay_stream(w)
        out.update(violation=part, cycle=cycle, replay=rep["violated"], reproduced=rep["reproduced"],
                   stream=rep["stream"], schedule=w["schedule"])
        if not rep["reproduced"]:
            out["status"], out["label"] = Status.ERROR.value, "ERROR (the witness does not replay)"
    out["seconds"] = round(time.monotonic() - t, 3)
    return out


def witness(a: argparse.Namespace, m: StreamMonitor, trace: Any, part: str) -> dict[str, Any]:
    w = m.inner.work
    return {"format": STREAM_FORMAT, "version": 1,
            "streams": {"blocks": list(w.blocks), "length": w.length, "lines": w.lines, "line_bytes": w.line_bytes},
            "stream": {v.name: trace.params[v.name] for v in w.vars()}, "channel": a.channel, "order": a.order,
            "cache": a.cache or STREAM_CACHE, "stores": a.stores, "mutant": a.mutant, "check": part,
            "schedule": schedule_pairs(trace.inputs)}


def witness_folder(a: argparse.Namespace) -> str:
    """Where a FAIL's witness goes without --witness: warpcheck-out, or (the API's) a new temporary folder."""
    return tempfile.mkdtemp(prefix="warpcheck-") if getattr(a, "temporary", False) else "warpcheck-out"


def write_witness(a: argparse.Namespace, data: dict[str, Any]) -> str:
    path = Path(a.witness or f"{witness_folder(a)}/reorder-streams-{a.mutant or 'unit'}-{data['check']}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=1) + "\n", "witness")
    return str(path)


def report(out: dict[str, Any]) -> str:
    """The verb's text report of a stream proof."""
    who = f"mutant {out['mutant']} of the reordering unit" if out["mutant"] else "the reordering unit"
    head = (f"{who}, check {out['check']}: {out['label']} ({out['engine']}, {out['seconds']:.2f} s)"
            f"{': ' + out['message'] if out['message'] else ''}")
    lines = [head]
    if "claim" in out:
        lines.append("proved " + out["claim"])
        lines.append(f"lemmas proved and used: {len(out['lemmas'])}")
        if "note" in out:
            lines.append("note: " + out["note"])
    else:
        lines.append(f"streams: {out['covered']}")
    if "witness" in out:
        lines.append(f"violation of {out['violation']} at cycle {out['cycle']}; witness: {out['witness']} "
                     f"(replay: warpcheck reorder replay {out['witness']})")
        for name, why in out["replay"].items():
            lines.append(f"replayed on the simulator, {name}: {why}")
        if not out["reproduced"]:
            lines.append("the simulator does NOT reproduce the violation: a bug of the kit")
    return "\n".join(lines)


def add_stream_options(q: argparse.ArgumentParser) -> None:
    g = q.add_argument_group("the unit as a design, without a kernel (--streams)")
    g.add_argument("--streams", type=at_most(MAX_STREAM_LENGTH), metavar="N",
                   help=f"prove the unit for every stream of 0..N requests per warp (1..{MAX_STREAM_LENGTH}) "
                        "instead of a kernel")
    g.add_argument("--warps", type=at_most(MAX_STREAM_WARPS), default=2, metavar="W",
                   help=f"warps of the streams (1..{MAX_STREAM_WARPS}, default 2)")
    g.add_argument("--blocks", metavar="B,B,..", help="each warp's block, ascending (default: all in block 0)")
    g.add_argument("--lines", type=at_most(MAX_STREAM_LINES), default=6, metavar="L",
                   help=f"line numbers a request may touch, 0..L-1 (at most {MAX_STREAM_LINES}; default 6: three "
                        "per set of the default L1)")
    g.add_argument("--mutant", metavar="NAME", help="prove a deliberately broken copy of the unit "
                   "(the mutation suite; see benchmarks/mutants.py --domain reorder)")
