"""``reorder replay``: rerun a FAIL's LD/ST schedules on the unit's simulator.

The witness names the kernel, its launch and the unit's options; the
analyzer reruns, and each schedule (one delivery per cycle) runs on the
design the witness was found on and on the other (with / without the unit).
"""
from __future__ import annotations

from typing import Any

from warpcheck._reorder.launch import launch_of, request_names, run_analysis, workload
from warpcheck.models.errors import InputFileError, OptionError, WarpcheckError
from warpcheck.models.file_schemas import ReorderStreamWitnessFile, ReorderWitnessFile, validated
from warpcheck.models.files import load_json
from warpcheck.models.reorder.l1 import parse_cache
from warpcheck.models.reorder.mutants import MUTANTS
from warpcheck.models.reorder.order import static_order
from warpcheck.models.reorder.unit import ReorderUnit
from warpcheck.sim.reorder.run import drain, l1_misses, longest_wait, simulate
from warpcheck.sim.reorder.stream_replay import FIELDS as STREAM_FIELDS, STREAM_FORMAT, replay_stream
from warpcheck.verify.reorder.checks import CHECKS, STREAM_CHECKS

FIELDS = ("kernel", "grid", "block", "params", "line_bytes", "cache", "stores", "channel", "order", "unit", "check",
          "schedules")


def load_witness(path: str) -> dict[str, Any]:
    """A reorder witness, checked for its format and fields."""
    data = load_json(path, "reorder witness")
    if isinstance(data, dict) and data.get("format") == STREAM_FORMAT and data.get("version") == 1:
        fields = STREAM_FIELDS
    elif isinstance(data, dict) and data.get("format") == "warpcheck-reorder-witness" and data.get("version") == 1:
        fields = FIELDS
    else:
        raise InputFileError(f"{path!r} is not a reorder witness (format warpcheck-reorder-witness or "
                             f"{STREAM_FORMAT}, version 1)")
    missing = [f for f in fields if f not in data]
    if missing:
        raise InputFileError(f"witness {path!r} lacks {', '.join(missing)}; write it again with reorder prove")
    validated(ReorderWitnessFile if fields is FIELDS else ReorderStreamWitnessFile, data, f"witness {path!r}")
    allowed = CHECKS if fields is FIELDS else STREAM_CHECKS
    if data["check"] not in allowed:
        raise InputFileError(f"witness {path!r}: check = {data['check']!r}; allowed: {', '.join(allowed)}")
    return data


def _check_deliveries(path: str, schedules: list, warps: int, requests: int) -> None:
    """Every delivery names a warp of the kernel (or -1: none) and one of its requests."""
    for n, schedule in enumerate(schedules):
        for t, (warp, index) in enumerate(schedule):
            if not (-1 <= warp < warps and -1 <= index < max(requests, 1)):
                raise InputFileError(f"witness {path!r}: schedule {n + 1}, cycle {t} delivers ({warp}, {index}); "
                                     f"a delivery is (warp 0..{warps - 1}, request 0..{max(requests, 1) - 1}), "
                                     "or -1 for none")


def _replay_stream(path: str, w: dict[str, Any]) -> dict[str, Any]:
    _check_deliveries(path, [w["schedule"]], len(w["streams"]["blocks"]), w["streams"]["length"])
    try:
        out = replay_stream(w)
    except WarpcheckError:  # says what is wrong itself (an unknown mutant, a bound past the model's ceiling)
        raise
    except (KeyError, TypeError, ValueError) as e:
        raise InputFileError(f"witness {path!r} has a malformed stream or schedule ({e}); write it again with "
                             f"reorder prove over streams")
    out["check"], out["mutant"] = w["check"], w["mutant"]
    out["line_bytes"] = w["streams"]["line_bytes"]
    return out


def _stream_report(out: dict[str, Any]) -> str:
    who = f"mutant {out['mutant']}" if out["mutant"] else "the unit"
    lines = [f"stream witness on {who}, check {out['check']}: "
             f"{'reproduced' if out['reproduced'] else 'NOT reproduced'} by the simulator"]
    for n, reqs in enumerate(out["stream"]["warps"]):
        lines.append(f"warp {n}: " + (", ".join(f"{kind}{addr // out['line_bytes']}"
                                               f"{'@e' + str(e) if e else ''}" for e, kind, addr in reqs)
                                     or "no request"))
    lines.append("static order: " + ", ".join(f"W{q}#{j}" for q, j in out["static_order"]))
    lines.append("sent to L1: " + (", ".join(f"W{q}#{j}@{t}" for t, q, j in out["sent"]) or "nothing"))
    lines += [f"{name}: {why}" for name, why in out["violated"].items()] or ["no property violated"]
    return "\n".join(lines)


def replay_file(path: str) -> dict[str, Any]:
    """Rerun a reorder witness (kernel or stream): the verb's JSON object, nothing printed."""
    w = load_witness(path)
    if w["format"] == STREAM_FORMAT:
        return _replay_stream(path, w)
    try:
        launch = launch_of(w["kernel"], w.get("entry"), w["grid"], w["block"], w["params"], w["line_bytes"])
    except OptionError as e:
        raise InputFileError(f"witness {path!r}: {e}") from None
    an = run_analysis(launch)
    work, lines = workload(an, w["kernel"])
    _check_deliveries(path, w["schedules"], work.warps, max((len(e) for e in work.epochs), default=0))
    spec = parse_cache(w["cache"], w["line_bytes"], w["stores"])
    order = static_order(work.epochs, w["order"], work.pcs)
    out: dict[str, Any] = {"kernel": an.kernel.name, "check": w["check"], "static_order": request_names(an, order),
                           "runs": []}
    mutant = w.get("mutant")
    if mutant is not None and mutant not in MUTANTS:
        raise InputFileError(f"witness {path!r} names mutant {mutant!r}; known mutants: {', '.join(MUTANTS)}")
    found_on = MUTANTS[mutant].make() if mutant else ReorderUnit
    for unit in (w["unit"], not w["unit"]):
        ts = (found_on if unit == w["unit"] else ReorderUnit)(work, w["channel"], w["order"], unit=unit)
        for n, schedule in enumerate(w["schedules"]):
            run = drain(ts, [tuple(d) for d in schedule])
            out["runs"].append({"unit": unit, "schedule": n, "order": request_names(an, run.order),
                                "complete": len(run.order) == len(order), "static": run.order == order,
                                **l1_misses(run.order, lines, spec)})
    found = [r for r in out["runs"] if r["unit"] == w["unit"]]
    out["reproduced"] = _reproduced(w["check"], found, w["unit"])
    if w["check"] in ("wait", "progress"):  # the schedule itself (not drained): the due request waited too long
        ts = found_on(work, w["channel"], w["order"], unit=True)
        late = any(longest_wait(simulate(ts, [tuple(d) for d in s]), order, w["channel"] - 1)
                   for s in w["schedules"])
        out["reproduced"] = late or w["check"] == "progress" and any(not r["complete"] for r in found)
    return out


def _reproduced(check: str, runs: list[dict], unit: bool) -> bool:
    if check == "deadlock":
        return any(not r["complete"] for r in runs)
    if check == "misses":
        return len({r["load_misses"] for r in runs}) > 1 or any(not r["static"] for r in runs)
    return any(not r["static"] for r in runs)


def report(out: dict) -> str:
    """The verb's text report of a replay (kernel or stream witness)."""
    if "sent" in out:
        return _stream_report(out)
    lines = [f"kernel {out['kernel']}: witness of check {out['check']}: "
             f"{'reproduced' if out['reproduced'] else 'NOT reproduced'}",
             "static order: " + ", ".join(out["static_order"])]
    for r in out["runs"]:
        state = "complete" if r["complete"] else "stuck (deadlock)"
        lines.append(f"schedule {r['schedule'] + 1} {'with' if r['unit'] else 'without'} the unit: {state}; "
                     f"{'static order' if r['static'] else 'other order'}; {r['load_misses']} load misses; "
                     f"L1 order {', '.join(r['order']) or 'nothing'}")
    return "\n".join(lines)
