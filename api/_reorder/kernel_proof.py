"""``reorder prove`` on a kernel: the L1 order under the reordering unit, for every LD/ST schedule.

With the unit, k-induction (lemmas proved before use) shows that the k-th
request sent to L1 is the k-th of the static order, or that the unit never
deadlocks at a barrier (check ``deadlock``).  Without it (``no_unit``),
BMC finds a schedule whose L1 order leaves the static order; the simulator
replays it next to the schedule that delivers in the static order and
compares their L1 misses.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

from warpcheck._reorder.launch import request_names, run_analysis, workload
from warpcheck._reorder.options import ReorderProveOptions
from warpcheck._reorder.stream_proof import witness_folder
from warpcheck.models.files import atomic_write_text
from warpcheck.models.reorder.l1 import L1Spec, parse_cache
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.spec.reorder.reference import static_order
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.sim.reorder.accesses import Analysis
from warpcheck.sim.reorder.run import Delivery, Lines, UnitRun, drain, l1_misses, longest_wait, random_schedule, simulate
from warpcheck.spec.reorder.l1_replay import replay
from warpcheck.verify.reorder.props import Monitored, prove, schedule_of
from warpcheck.verify.result import Result, Status

WITNESS_FORMAT = "warpcheck-reorder-witness"


def _with_unit(a: ReorderProveOptions, an: Analysis, m: Monitored, lines: Lines, spec: L1Spec,
               progress: Callable[[str], None] | None = None) -> dict:
    r = prove(m, a.check, a.max_k, a.timeout, progress=progress)
    out = _result_json(r)
    if r.status is Status.FAIL and r.trace is not None:
        out.update(_replay_fail(a, an, m, schedule_of(r.trace), a.check))
        return out
    if a.check != "progress":
        out.update(_progress(a, an, m, r.seconds, progress))
        if out["status"] == Status.FAIL.value:
            return out
    probe = drain(m.inner, [])
    out["all_sent_after"] = probe.sent[-1][0] + 1 if len(probe.sent) == len(m.order) and probe.sent else None
    if out["all_sent_after"] is None:
        return {**out, **_hang(an, m, probe, "a run that delivers whatever the LD/ST rules allow")}
    if a.check != "deadlock" and out["status"] == Status.PASS.value:
        out["l1"], stuck = _exact_misses(m, lines, spec, a.samples)
        if stuck is not None:
            out.update(_hang(an, m, stuck, "a random legal schedule"))
    return out


def _progress(a: ReorderProveOptions, an: Analysis, m: Monitored, spent: float,
              progress: Callable[[str], None] | None) -> dict:
    """The ``progress`` proof that goes with every check: every request sent within a bound, the run ends."""
    left = None if a.timeout is None else max(0.001, a.timeout - spent)
    watch = progress_system(m)
    r = prove(watch, "progress", a.max_k, left, progress=progress)
    out: dict[str, Any] = {"progress": {"status": r.status.value, "label": r.label, "seconds": r.seconds,
                                        "message": r.message, "engine": r.engine, "depth": r.depth,
                                        "bounded": r.bounded, "lemmas": r.lemmas}}
    if r.status is Status.PASS:
        return out
    out["status"] = r.status.value
    out["label"] = f"{r.label} (check progress: every request sent within a bound, the run ends)"
    if r.status is Status.FAIL and r.trace is not None:
        out.update(_replay_fail(a, an, watch, schedule_of(r.trace), "progress"))
    return out


def progress_system(m: Monitored) -> Monitored:
    """The system of the ``progress`` proof that goes with every check on a kernel: the unit without its L1."""
    unit = type(m.inner)(m.inner.work, m.inner.channel, m.inner.order, l1=None, channel_lemmas=True)
    return Monitored(unit, m.expected_misses, wait=True)


def monitored(a: ReorderProveOptions) -> tuple[Analysis, Lines, L1Spec, Monitored]:
    """The analysis of the options' kernel, its lines, the L1 and the system the check proves."""
    assert a.kernel is not None and a.cache is not None and a.check is not None  # the record settled them
    an = run_analysis(a)
    work, lines = workload(an, a.kernel)
    spec = parse_cache(a.cache, a.line_bytes, a.stores)
    expected = replay([lines[w][k] for w, k in static_order(work.epochs, a.order, work.pcs)], spec).load_misses
    cls = MUTANTS[a.mutant].make() if a.mutant else ReorderUnit
    watched = a.check in ("wait", "progress")
    unit = cls(work, a.channel, a.order, unit=not a.no_unit, l1=spec if a.check == "misses" else None,
               channel_lemmas=watched)
    return an, lines, spec, Monitored(unit, expected, wait=watched)


def _hang(an: Analysis, m: Monitored, run: UnitRun, how: str) -> dict:
    """A concrete run that never sends every request: a FAIL of ``progress`` with the run's schedule as witness."""
    due = m.order[len(run.order)] if len(run.order) < len(m.order) else None
    why = (f"{how} ends with {len(run.order)} of {len(m.order)} requests sent to L1"
           + (f"; the unit waits for {request_names(an, [due])[0]}" if due is not None else ""))
    return {"status": Status.FAIL.value, "label": "FAIL (the run never ends)", "message": why,
            "witness_check": "progress", "schedule": run.schedule, "replayed_order": request_names(an, run.order),
            "reproduced": True, "probe": why}


def _result_json(r: Result) -> dict:
    out = r.to_json()
    out["label"] = r.label
    return out


def _exact_misses(m: Monitored, lines: Lines, spec: L1Spec, samples: int) -> tuple[dict, UnitRun | None]:
    """The L1 replayed in the static order, the misses simulated under the unit for random schedules, and the
    first of those runs that did not send every request (None if all did)."""
    static = replay([lines[w][k] for w, k in m.order], spec)
    rng, simulated, complete, stuck = random.Random(0), set(), 0, None
    for _ in range(samples):
        run = simulate(m.inner, random_schedule(m.inner, rng), extra=4 * m.inner.channel * m.inner.work.warps)
        if len(run.order) == len(m.order):
            complete += 1
            simulated.add(l1_misses(run.order, lines, spec)["load_misses"])
        elif stuck is None:
            stuck = run
    return {**static.to_json(spec), "simulated_load_misses": sorted(simulated), "schedules": samples,
            "complete": complete, "exact": complete > 0 and simulated == {static.load_misses}}, stuck


def _replay_fail(a: ReorderProveOptions, an: Analysis, m: Monitored, schedule: list[Delivery], check: str) -> dict:
    run = drain(m.inner, schedule)
    sent = run.order
    stuck = len(sent) < len(m.order)
    reproduced = stuck if check == "deadlock" else sent[:len(m.order)] != m.order[:len(sent)]
    if check in ("wait", "progress"):
        late = longest_wait(simulate(m.inner, schedule), m.order, m.bound) is not None
        reproduced = late or (check == "progress" and stuck)
    out: dict[str, Any] = {"schedule": run.schedule, "replayed_order": request_names(an, sent),
                           "reproduced": reproduced, "witness_check": check}
    if check in ("deadlock", "progress") and stuck:
        out["waits_for"] = request_names(an, [m.order[len(sent)]])[0]
    return out


def _without_unit(a: ReorderProveOptions, an: Analysis, m: Monitored, lines: Lines, spec: L1Spec,
                  progress: Callable[[str], None] | None = None) -> dict:
    r = prove(m, a.check, a.max_k, a.timeout, depth=a.depth, progress=progress)
    out = _result_json(r)
    if r.status is not Status.FAIL or r.trace is None:
        return out
    first = drain(m.inner, schedule_of(r.trace))
    if a.check == "misses":
        second = simulate(m.inner, list(m.order), extra=1)
        pair = [_schedule_json(an, first, lines, spec), _schedule_json(an, second, lines, spec)]
        out["schedules"] = pair
        out["reproduced"] = pair[0]["load_misses"] != m.expected_misses == pair[1]["load_misses"]
        out["misses_differ"] = out["reproduced"]
        return out
    second = simulate(m.inner, list(m.order), extra=1)
    pair = [_schedule_json(an, first, lines, spec), _schedule_json(an, second, lines, spec)]
    if pair[0]["load_misses"] == pair[1]["load_misses"]:
        other = _differing_misses(m, lines, spec, pair[1]["load_misses"], a.samples)
        if other is not None:
            pair[0] = _schedule_json(an, other, lines, spec)
    out["schedules"] = pair
    out["reproduced"] = pair[0]["order"] != pair[1]["order"] and second.refused is None
    out["misses_differ"] = pair[0]["load_misses"] != pair[1]["load_misses"]
    return out


def _differing_misses(m: Monitored, lines: Lines, spec: L1Spec, misses: int, samples: int) -> UnitRun | None:
    """A random schedule whose L1 misses differ from ``misses``, if one of ``samples`` has them."""
    rng = random.Random(1)
    for _ in range(samples):
        run = simulate(m.inner, random_schedule(m.inner, rng), extra=1)
        if l1_misses(run.order, lines, spec)["load_misses"] != misses:
            return run
    return None


def _schedule_json(an: Analysis, run: UnitRun, lines: Lines, spec: L1Spec) -> dict:
    return {"schedule": run.schedule, "deliveries": _deliveries(run), "order": request_names(an, run.order), **l1_misses(run.order, lines, spec)}


def _deliveries(run: UnitRun) -> list[list[int]]:
    return [[t, w, k] for t, (w, k) in run.sent]


def run_prove(a: ReorderProveOptions, progress: Callable[[str], None] | None = None,
              folder: str | None = None) -> dict[str, Any]:
    """``reorder prove`` on a kernel: the verb's JSON object (its ``status`` final), nothing printed.

    A FAIL's witness goes to ``a.witness``, else into ``folder`` (None: a new temporary folder).
    """
    an, lines, spec, m = monitored(a)
    work, expected = m.inner.work, m.expected_misses
    out = {"kernel": an.kernel.name, "check": a.check, "unit": not a.no_unit, "order_rule": a.order, "mutant": a.mutant,
           "channel": a.channel, "warps": work.warps, "requests": work.total,
           "static_order": request_names(an, static_order(work.epochs, a.order, work.pcs)), "expected_misses": expected}
    if progress:  # the proof may take a while: say what it is doing
        how = "BMC for a schedule that breaks it" if a.no_unit else \
            f"k-induction up to k = {a.max_k}, lemmas proved first" + ("" if a.check == "deadlock" else "; then random schedules replayed")
        progress(f"{an.kernel.name}: {work.warps} warps, {work.total} requests; check {a.check} "
                 f"{'without' if a.no_unit else 'with'} the unit: {how}")
    run = _without_unit if a.no_unit else _with_unit
    out.update(run(a, an, m, lines, spec, progress))
    status = _final_status(out)
    out["status"] = status.value
    if "schedule" in out or "schedules" in out:
        out["witness"] = _write_witness(a, out, folder)
    return out


def _final_status(out: dict) -> Status:
    """The engine's status, or ERROR when a FAIL does not replay on the simulator."""
    status = Status(out["status"])
    if status is Status.FAIL and not out.get("reproduced", False):
        return Status.ERROR
    return status


def _write_witness(a: ReorderProveOptions, out: dict, folder: str | None) -> str:
    """Write the FAIL's schedules (LD/ST deliveries per cycle) with what is needed to rerun them."""
    data = {"format": WITNESS_FORMAT, "version": 1, "kernel": a.kernel, "entry": out["kernel"],
            "grid": ",".join(map(str, a.grid)), "block": ",".join(map(str, a.block)),
            "params": [f"{k}={v}" for k, v in a.param.items()], "line_bytes": a.line_bytes, "cache": a.cache,
            "stores": a.stores, "channel": a.channel, "order": a.order, "unit": out["unit"], "check": out.get("witness_check", out["check"]), "mutant": a.mutant,
            "schedules": [out["schedule"]] if "schedule" in out else [s["schedule"] for s in out["schedules"]]}
    path = Path(a.witness or f"{witness_folder(folder)}/reorder-{out['kernel']}-{out.get('witness_check', out['check'])}"
                f"{'' if out['unit'] else '-nounit'}{'-' + a.mutant if a.mutant else ''}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=1) + "\n", "witness")
    return str(path)


def report(out: dict) -> str:
    """The verb's text report of a kernel proof."""
    head = (f"kernel {out['kernel']}: {out['warps']} warps, {out['requests']} requests, "
            f"{'with' if out['unit'] else 'without'} the reordering unit (channel depth {out['channel']}, "
            f"order {out['order_rule']}); check {out['check']}: {out['label']} ({out['engine']}, "
            f"{out['seconds']:.2f} s){': ' + out['message'] if out['message'] else ''}")
    lines = [head, "static order: " + ", ".join(out["static_order"])]
    if out.get("lemmas"):
        lines.append(f"lemmas proved and used: {len(out['lemmas'])}")
    if "progress" in out:
        p = out["progress"]
        lines.append(f"progress (every request sent within {out['channel'] - 1} cycles of its delivery, the due one "
                     f"never held from the LD/ST side: the run ends): {p['label']} ({p['seconds']:.2f} s)")
    if "probe" in out:
        lines.append(f"probe: {out['probe']}: the unit hangs")
    if out.get("all_sent_after") is not None:
        lines.append(f"not vacuous: a legal schedule sends every request to L1 within {out['all_sent_after']} cycles")
    if "l1" in out:
        l1 = out["l1"]
        sim = (f"simulated under the unit ({l1['complete']} of {l1['schedules']} random schedules completed): "
               f"{l1['simulated_load_misses']}") if l1["complete"] else \
            f"none of {l1['schedules']} random schedules completed (see the check deadlock)"
        lines.append(f"L1 {l1['size']} B {l1['ways']}-way: static replay {l1['load_misses']} load misses of "
                     f"{l1['loads']}; {sim}")
    if out["check"] == "misses":
        lines.append(f"expected load misses (LRU replay of the static order): {out['expected_misses']}")
    if "witness" in out:
        lines.append(f"witness: {out['witness']} (replay: warpcheck reorder replay {out['witness']})")
    if "replayed_order" in out:
        lines.append("replayed L1 order: " + (", ".join(out["replayed_order"]) or "nothing"))
    if "waits_for" in out and out.get("witness_check", out["check"]) == "deadlock":
        lines.append(f"deadlock: the unit waits for {out['waits_for']}, which needs a barrier held by a request "
                     f"queued behind it")
    elif "waits_for" in out:
        lines.append(f"the unit hangs: once the LD/ST side has delivered whatever its rules allow, it still waits "
                     f"for {out['waits_for']}, which never reaches L1")
    for n, s in enumerate(out.get("schedules", []), 1):
        lines.append(f"schedule {n}: L1 order {', '.join(s['order'])}; {s['load_misses']} load misses of "
                     f"{s['loads']} load lines")
    lines += [f"certificate: {c} (check it with: warpcheck check {c})" for c in out.get("certificates", [])]
    if out.get("no_certificate"):
        lines.append(f"no certificate: {out['no_certificate']}")
    return "\n".join(lines)
