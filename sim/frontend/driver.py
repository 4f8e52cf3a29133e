"""Feeding program-level streams into the front end, cycle by cycle (the explicit simulator)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.stream import FILLER, Instr, StreamBook

Source = Callable[[int, int], Instr]  # (warp, position) -> instruction


def list_source(streams: Sequence[Sequence[Instr]]) -> Source:
    """A source over fixed streams; an exhausted stream yields FILLER."""
    return lambda w, k: streams[w][k] if k < len(streams[w]) else FILLER


@dataclass
class Run:
    """A concrete run: states (start of each cycle) and the inputs fed."""

    fe: FrontEnd
    states: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[dict[str, Any]] = field(default_factory=list)


def initial_params(fe: FrontEnd, ibuffers: Sequence[Sequence[Instr]]) -> dict[str, Any]:
    """Model parameters from per-warp initial ibuffer contents."""
    p: dict[str, Any] = {}
    for w in range(fe.W):
        for j in range(fe.B):
            ins = ibuffers[w][j]
            for f, v in ins.fields().items():
                p[f"w{w}.b{j}.{f}"] = v
    return p


class Feeder:
    """Turns the next element of the fetching warp's stream into the step's inputs."""

    def __init__(self, fe: FrontEnd, source: Source, fetch_choice: Callable[[dict[str, Any]], int] | None = None,
                 hits: Callable[[dict[str, Any], int, bool], bool] | None = None) -> None:
        self.book, self.source = StreamBook(fe, fetch_choice, hits), source
        self.pos = [0] * fe.W

    def inputs(self, s: dict[str, Any]) -> dict[str, Any]:
        fw = self.book.fetcher(s, A)
        if fw is None:  # no fetch, or a wrong-path fetch: its content is never issued
            return {"f.cls": 1, "f.dep": False, "f.tk": False, "f.hit": True}
        ins = self.source(fw, self.pos[fw])
        asked = self.book.missed[fw] >= ins.misses  # the I-cache's answer to this fetch
        if self.book.hits(s, fw, asked, A):
            self.pos[fw] += 1
            self.book.missed[fw] = 0
        else:
            self.book.missed[fw] += 1
        hit = asked
        return {"f.cls": ins.fields()["cls"], "f.dep": ins.dep, "f.tk": ins.taken, "f.hit": hit}


def run_iter(fe: FrontEnd, ibuffers: Sequence[Sequence[Instr]], source: Source) -> Iterator[tuple[dict, dict]]:
    """Yield (state at the start of the cycle, inputs of the cycle), forever."""
    s = fe.init(A, initial_params(fe, ibuffers))
    feeder = Feeder(fe, source)
    while True:
        i = feeder.inputs(s)
        yield s, i
        s = fe.step(A, s, i)


def run(fe: FrontEnd, ibuffers: Sequence[Sequence[Instr]], source: Source, cycles: int) -> Run:
    """Run ``cycles`` cycles and keep every state (``cycles + 1`` of them) and input."""
    out = Run(fe)
    for t, (s, i) in enumerate(run_iter(fe, ibuffers, source)):
        out.states.append(s)
        if t == cycles:
            break
        out.inputs.append(i)
    return out
