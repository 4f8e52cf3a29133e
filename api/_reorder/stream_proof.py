"""``reorder prove`` with ``streams=N``: the reordering unit proved as a design, for every stream.

No kernel: each of ``warps`` warps sends a symbolic stream of 0 .. N
requests (any ``bar.sync`` before any request, each request a load or a store
of one of ``lines`` line numbers), the LD/ST side any schedule, interleaving
and stall within its rules.  k-induction (lemmas proved first) shows, at every
cycle, that what goes to L1 is the static order's next request (``order``),
that the static order's next request, once delivered, waits at most
channel - 1 cycles (``wait``: none is lost), and that the L1 load misses are
the reference LRU replay's (``misses``).  A FAIL writes a witness that
``warpcheck reorder replay`` reruns on the simulator against the reference.
"""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from warpcheck._reorder.options import ReorderProveOptions
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.files import atomic_write_text
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.models.reorder.streams import Streams
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.sim.reorder.run import schedule_pairs
from warpcheck.sim.reorder.stream_replay import STREAM_FORMAT, judged, record_of, replay_stream, stream_pcs
from warpcheck.spec.reorder.record_check import Record
from warpcheck.spec.reorder.reference import static_order
from warpcheck.verify.reorder.streams import StreamMonitor, prove_streams
from warpcheck.verify.result import Status


PAPER_ADDRESSES = 3  # instruction addresses of a stream request under the paper's order: 0..2 (loops, paths)


def build(a: ReorderProveOptions, barriers: int | None = None) -> StreamMonitor:
    """The monitored unit (or mutant) over the options' stream bounds."""
    assert a.streams is not None and a.cache is not None  # the record settled them
    work = Streams(a.blocks, a.streams, a.lines, a.line_bytes, barriers, PAPER_ADDRESSES if a.order == "paper" else 0)
    spec = parse_cache(a.cache, a.line_bytes, a.stores)
    cls = MUTANTS[a.mutant].make() if a.mutant else ReorderUnit
    return StreamMonitor(cls(work, a.channel, a.order, l1=spec, channel_lemmas=True))


def covered(m: StreamMonitor) -> str:
    """What a PASS covers, in one sentence."""
    w, spec = m.inner.work, m.inner.l1.spec
    return (f"every stream of {w.warps} warps (blocks {list(w.blocks)}) of 0..{w.length} requests each, any "
            f"bar.sync before any request ({'any number' if w.barriers is None else f'at most {w.barriers}'} "
            f"counting per warp){_addresses(w)}, each request a load or store of one of lines 0..{w.lines - 1} "
            f"(L1 {spec.size} B, {spec.ways} ways, {spec.line_bytes}-byte lines: {spec.sets} sets, stores "
            f"{spec.stores}), channel depth {m.inner.channel}, order {m.inner.order}, every LD/ST schedule, "
            f"interleaving and stall")


def _addresses(w: Streams) -> str:
    return f", each request from any of instruction addresses 0..{w.addresses - 1}" if w.addresses else ""


def failing_part(m: StreamMonitor, check: str, states: list[dict]) -> tuple[str, int]:
    """The first property the trace violates and the cycle (the solver's trace, read concretely)."""
    for t, s in enumerate(states):
        for name, p in m.parts(check).items():
            if not p(CONCRETE, s):
                return name, t
    return check, len(states) - 1


def family(a: ReorderProveOptions) -> list[int | None]:
    """The barrier bounds a proof runs over: ``a.barriers``, or by default at most length - 2 per warp (so that the
    barrier key's two bounds, longest stream and largest epoch, differ) and then any number of barriers."""
    assert a.streams is not None
    if a.barriers is not None:
        return [a.barriers]
    return ([a.streams - 2] if a.streams >= 3 else []) + [None]


def run_streams(a: ReorderProveOptions, folder: str | None = None,
                members: list[tuple[int | None, dict[str, Any]]] | None = None) -> dict[str, Any]:
    """Prove (or refute) the stream properties over the family of barrier bounds; the first that does not PASS
    ends the run (its witness written and replayed into ``folder``, None: a temporary folder).  ``members``
    receives each proof's barrier bound and data (its lemmas, its k), for the certificates."""
    runs = []
    for barriers in family(a):
        runs.append(_run_one(a, barriers, folder))
        if members is not None:
            members.append((barriers, runs[-1]))
        if runs[-1]["status"] != Status.PASS.value:
            break
    out = runs[-1]
    out["family"] = [{"covered": r["covered"], "status": r["status"], "seconds": r["seconds"]} for r in runs]
    out["seconds"] = round(sum(r["seconds"] for r in runs), 3)
    return out


def _run_one(a: ReorderProveOptions, barriers: int | None, folder: str | None) -> dict[str, Any]:
    """One proof of the family."""
    assert a.check is not None
    m = build(a, barriers)
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
                           f"a bug of the channel's capacity cannot show; give streams {m.inner.channel + 1} or more")
        out["claim"] = (f"for {out['covered']}: at every cycle the request sent to L1 is the static order's "
                        f"next (none twice, none that its warp did not deliver), the static order's next request "
                        f"waits at most {m.bound} cycles once delivered (none lost) and, until delivered, is one "
                        f"the unit accepts (unless the order itself deadlocks at its barrier), so every request "
                        f"reaches L1 within requests x {m.inner.channel} cycles of an LD/ST side that delivers "
                        f"it when accepted; and the L1 load misses equal the reference LRU replay's")
    if r.status is Status.FAIL and r.trace is not None:
        part, cycle = failing_part(m, a.check, r.trace.states)
        w = witness(a, m, r.trace, part)
        out["witness"] = write_witness(a, w, folder)
        rep = replay_stream(w)
        out.update(violation=part, cycle=cycle, replay=rep["violated"], reproduced=rep["reproduced"],
                   stream=rep["stream"], schedule=w["schedule"], judged=judged(w, stored_record(w)))
        if not rep["reproduced"]:
            out["status"], out["label"] = Status.ERROR.value, "ERROR (the witness does not replay)"
    out["seconds"] = round(time.monotonic() - t, 3)
    return out


def witness(a: ReorderProveOptions, m: StreamMonitor, trace: Any, part: str) -> dict[str, Any]:
    """The FAIL's witness: the solver's stream and schedule, and the run's record as the solver's trace has it."""
    w = m.inner.work
    out = {"format": STREAM_FORMAT, "version": 1,
           "streams": {"blocks": list(w.blocks), "length": w.length, "lines": w.lines, "line_bytes": w.line_bytes,
                       "barriers": w.barriers, "addresses": w.addresses},
           "stream": {v.name: trace.params[v.name] for v in w.vars()}, "channel": a.channel, "order": a.order,
           "cache": a.cache, "stores": a.stores, "mutant": a.mutant, "check": part,
           "schedule": schedule_pairs(trace.inputs)}
    concrete = w.concrete(dict(trace.params))
    epochs = [[e for e, _, _ in reqs] for reqs in concrete["warps"]]
    order = static_order(epochs, a.order, stream_pcs(out, w))
    rec = record_of(m.inner, trace.states, out["schedule"], order)
    out["record"] = {"sent": [list(x) for x in rec.sent], "misses": None if rec.misses is None else list(rec.misses),
                     "accepts": list(rec.accepts) if rec.accepts is not None else None}
    return out


def stored_record(w: dict[str, Any]) -> Record:
    """The record a witness carries (the solver's trace), as the reference reads it."""
    r = w["record"]
    return Record(tuple((int(x), int(y)) for x, y in w["schedule"]), tuple((int(x), int(y)) for x, y in r["sent"]),
                  None if r["misses"] is None else tuple(r["misses"]),
                  None if r["accepts"] is None else tuple(r["accepts"]))


def witness_folder(folder: str | None) -> str:
    """Where a FAIL's witness goes when no witness path is given: ``folder``, or a new temporary folder."""
    return folder if folder is not None else tempfile.mkdtemp(prefix="warpcheck-")


def write_witness(a: ReorderProveOptions, data: dict[str, Any], folder: str | None) -> str:
    """Write a stream witness; its path."""
    path = Path(a.witness or f"{witness_folder(folder)}/reorder-streams-{a.mutant or 'unit'}-{data['check']}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=1) + "\n", "witness")
    return str(path)


def report(out: dict[str, Any]) -> str:
    """The verb's text report of a stream proof."""
    who = f"mutant {out['mutant']} of the reordering unit" if out["mutant"] else "the reordering unit"
    head = (f"{who}, check {out['check']}: {out['label']} ({out['engine']}, {out['seconds']:.2f} s)"
            f"{': ' + out['message'] if out['message'] else ''}")
    lines = [head]
    if len(out.get("family", [])) > 1:
        lines += [f"  {r['status']} ({r['seconds']:.2f} s): {r['covered']}" for r in out["family"][:-1]]
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
    lines += [f"certificate: {c} (check it with: warpcheck check {c})" for c in out.get("certificates", [])]
    if out.get("no_certificate"):
        lines.append(f"no certificate: {out['no_certificate']}")
    return "\n".join(lines)
