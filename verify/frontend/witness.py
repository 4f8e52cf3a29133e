"""Witnesses: a counterexample at the level of the program, versioned, replayable on any design.

A witness holds the configuration, each warp's initial ibuffer contents and
its stream of correct-path instructions in fetch order (class, dependence,
taken branch, I-cache miss).  Per-cycle inputs, states and traces are derived
from it by replay; so the same witness runs on the baseline and on SWaS.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.encodings.unroll import Trace
from warpcheck.models.frontend.config import SMConfig, config_from_mapping
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.file_schemas import InstrRecord, WitnessFile, validated
from warpcheck.models.files import atomic_write_text, load_json
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.stream import FILLER, Instr, StreamBook, instr_of

FORMAT, VERSION = "warpcheck-witness", 2  # 2: the cycle is the issue cycle of the violation
PROPERTY_NAMES = ("exact", "oracle", "ideal")


@dataclass
class Witness:
    """A program-level counterexample (or any scenario) for the front end."""

    config: SMConfig
    initial_ibuffer: list[list[Instr]]
    streams: list[list[Instr]]
    property: str = "oracle"
    cycle: int | None = None  # the cycle at which the property fails on config's design
    note: dict[str, Any] = field(default_factory=dict)
    prologue: int = 0  # violations before this cycle do not count

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "config": self.config.to_json(),
                "property": self.property, "cycle": self.cycle, "prologue": self.prologue, "note": self.note,
                "initial_ibuffer": [[x.to_json() for x in b] for b in self.initial_ibuffer],
                "streams": [[x.to_json() for x in st] for st in self.streams]}

    def text(self) -> str:
        """The witness file's text (JSON)."""
        return json.dumps(self.to_json(), indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        atomic_write_text(path, self.text(), "witness")


def from_trace(fe: FrontEnd, trace: Trace, prop: str, prologue: int = 0) -> Witness:
    """Read the program-level streams back off a solver trace (same bookkeeping as the feeder)."""
    book = StreamBook(fe)
    streams: list[list[Instr]] = [[] for _ in range(fe.W)]
    for s, i in zip(trace.states, trace.inputs):
        fw = book.fetcher(s, A)
        if fw is None:
            continue
        n = book.missed[fw]
        if book.hits(s, fw, i["f.hit"], A):
            streams[fw].append(Instr(**{**instr_of(i, "f").__dict__, "miss": n > 0, "refetch_misses": max(0, n - 1)}))
            book.missed[fw] = 0
        else:
            book.missed[fw] += 1
    for w, n in enumerate(book.missed):  # a miss whose refetch lies beyond the trace
        if n:
            streams[w].append(Instr(FILLER.cls, miss=True, refetch_misses=n - 1))
    ibuf = [[instr_of(trace.states[0], f"w{w}.b{j}") for j in range(fe.B)] for w in range(fe.W)]
    # the issue record of cycle t is read in state t + 1: the violation is at the last cycle stepped
    return Witness(fe.c, ibuf, streams, prop, cycle=len(trace.inputs) - 1, prologue=prologue)


def load(path: str | Path) -> Witness:
    """Read and check a witness file; one clear error for anything wrong."""
    where = str(path)
    data = load_json(path, "witness")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputFileError(f"{where}: not a warpcheck witness (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise InputFileError(f"{where}: witness version {data.get('version')!r} is not supported; "
                             f"this warpcheck reads version {VERSION}")
    raw = validated(WitnessFile, data, where)
    config = config_from_mapping(raw.config, where=f"{where}: config")
    ibuf = _instr_lists(raw.initial_ibuffer, where, "initial_ibuffer")
    streams = _instr_lists(raw.streams, where, "streams")
    _check_shape(config, ibuf, streams, where)
    if raw.property not in PROPERTY_NAMES:
        raise InputFileError(f"{where}: property {raw.property!r} is unknown; known: {', '.join(PROPERTY_NAMES)}")
    return Witness(config, ibuf, streams, raw.property, raw.cycle, dict(raw.note), raw.prologue)


def _instr_lists(raw: list[list[InstrRecord]], where: str, key: str) -> list[list[Instr]]:
    return [[Instr.from_json(d.model_dump(), f"{where}: {key}[{w}]") for d in lst] for w, lst in enumerate(raw)]


def _check_shape(c: SMConfig, ibuf: list, streams: list, where: str) -> None:
    if len(ibuf) != c.warps or len(streams) != c.warps:
        raise InputFileError(f"{where}: the witness is for {c.warps} warps but lists "
                             f"{len(ibuf)} ibuffers and {len(streams)} streams")
    bad = [w for w, b in enumerate(ibuf) if len(b) != c.ibuffer]
    if bad:
        raise InputFileError(f"{where}: initial_ibuffer[{bad[0]}] has {len(ibuf[bad[0]])} entries; "
                             f"the configuration's ibuffer holds {c.ibuffer}")


def other_designs(w: Witness) -> list[str]:
    """The designs a witness is replayed on besides its own."""
    return ["swas" if w.config.design == "baseline" else "baseline"]


def on_design(w: Witness, design: str) -> SMConfig:
    """The witness's configuration moved to another design (same timing and policy)."""
    if design == w.config.design:
        return w.config
    try:
        if design == "swas":
            return w.config.with_(design="swas")
        return w.config.with_(design="baseline", fetch_policy=w.config.issue_policy)
    except ConfigError as e:
        raise ConfigError(f"cannot replay this witness on {design!r}: {e}") from None
