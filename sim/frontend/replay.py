"""Replaying a witness on a design, cycle by cycle, and showing designs side by side."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.frontend.checked import CONTRACT, PREFIX, Checked, reference_part
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.kernels.kernel import CLASSES
from warpcheck.spec.frontend.issue_reference import RECORD, REFERENCES, AnalysisMachine
from warpcheck.models.frontend.stream import Instr
from warpcheck.sim.frontend.driver import Feeder, Source, initial_params, list_source


@dataclass
class Cycle:
    """What one design did in one cycle, beside what its reference did."""

    issued: int
    reference: int
    fetched: int
    head: str
    occupancy: list[int]
    ref_head: str = ""
    agree: bool = True
    broken: tuple[str, ...] = ()  # the contract terms a user's policy broke in this cycle (none: it kept them)


@dataclass
class Replay:
    """A replay of a scenario on one design."""

    design: str
    config: SMConfig
    cycles: list[Cycle] = field(default_factory=list)
    prologue: int = 0

    @property
    def first_violation(self) -> int | None:
        """The first cycle (after the prologue) where the issue record leaves the reference's, or None."""
        return next((t for t, c in enumerate(self.cycles) if t >= self.prologue and not c.agree), None)


class ProgramFeed:
    """Feeds the analysis machine's own fetches from the program streams (the same rule as the design's)."""

    def __init__(self, am: AnalysisMachine, source: Source) -> None:
        self.am, self.source = am, source
        self.pos, self.missed = [0] * am.W, [False] * am.W

    def inputs(self, r: dict[str, Any]) -> dict[str, Any]:
        fw = self.am.choice(A, r)
        if fw < 0 or r[f"w{fw}.wrong"]:  # no fetch, or a wrong-path one: never issued
            return {"f.cls": 1, "f.dep": False, "f.tk": False, "f.hit": True}
        ins = self.source(fw, self.pos[fw])
        hit = r[f"w{fw}.refetch"] or not ins.miss or self.missed[fw]
        self.pos[fw] += hit
        self.missed[fw] = not hit
        return {"f.cls": ins.fields()["cls"], "f.dep": ins.dep, "f.tk": ins.taken, "f.hit": hit}


def _text(s: dict[str, Any], p: str) -> str:
    if s[f"{p}w"] < 0:
        return "-"
    return Instr(CLASSES[s[f"{p}cls"]], s[f"{p}dep"], s[f"{p}tk"]).short()


def replay(config: SMConfig, ibuffers: list, streams: list, prop: str, cycles: int, prologue: int = 0,
           design: FrontEnd | None = None) -> Replay:
    """Run the scenario for ``cycles`` cycles on ``config`` beside the property's reference.

    On SWaS the reference takes the same inputs as in the proofs.  On the
    baseline, which fetches by another policy, the analysis machine is fed
    from the program streams and only the issue part of the record is compared.
    """
    fe = design or FrontEnd(config)
    ref = REFERENCES[prop](config)
    ts, source = Checked(fe, ref), list_source(streams)
    s = ts.init(A, initial_params(fe, ibuffers))
    own = ProgramFeed(ref, source) if isinstance(ref, AnalysisMachine) and config.design != "swas" else None
    fields = [(f, PREFIX + f) for f in ref.compared if f in RECORD] if own else ts.pairs()
    feed = Feeder(fe, source)
    out = Replay(config.design, config, prologue=prologue)
    for _ in range(cycles):
        i = feed.inputs(s)
        ri = own.inputs(reference_part(s)) if own else i
        fw, occ = fe.fetch_choice(A, s), [fe.occupancy(A, s, w) for w in range(fe.W)]
        broken = tuple(what for what, ok in fe.contract_terms(A, s) if not ok)
        s = ts.step_with(A, s, i, ri)
        out.cycles.append(Cycle(s["o.w"], s[PREFIX + "o.w"], fw, _text(s, "o."), occ, _text(s, PREFIX + "o."),
                                all(s[d] == s[r] for d, r in fields) and s.get(CONTRACT, True), broken))
    return out


def _cell(c: Cycle) -> str:
    said = f"w{c.reference} {c.ref_head}" if c.reference >= 0 else "idle"
    mark = "" if c.agree else f"  <-- broken: {'; '.join(c.broken)}" if c.broken else f"  <-- reference: {said}"
    issued = f"w{c.issued} {c.head}" if c.issued >= 0 else "idle"
    return f"{issued}{mark}"


def side_by_side(replays: list[Replay]) -> str:
    """A cycle x design table: issued warp (and instruction), fetching warp, ibuffer occupancy."""
    n = max(len(r.cycles) for r in replays)
    headers = ["cycle"]
    for r in replays:
        headers += [f"{r.design}: issue", "fetch", "occupancy"]
    rows = []
    for t in range(n):
        row: list[Any] = [t]
        for r in replays:
            c = r.cycles[t] if t < len(r.cycles) else None
            row += ["", "", ""] if c is None else [_cell(c), f"w{c.fetched}" if c.fetched >= 0 else "-",
                                                   " ".join(map(str, c.occupancy))]
        rows.append(row)
    return tabulate(rows, headers=headers, tablefmt="simple")


def changes_only(r: Replay) -> str:
    """A compact text trace: one line per cycle where the issued or fetching warp changes."""
    lines, last = [], None
    for t, c in enumerate(r.cycles):
        key = (c.issued, c.fetched, c.agree)
        if key != last:
            said = f"w{c.reference} {c.ref_head}" if c.reference >= 0 else "idle"
            flag = "" if c.agree else f"   VIOLATION: {'; '.join(c.broken)}" if c.broken else \
                f"   VIOLATION: reference issues {said}"
            flag += " (in the prologue, not counted)" if flag and t < r.prologue else ""
            lines.append(f"{t:5d}  issue {_cell(c).split('  <--')[0]:<16} fetch "
                         f"{('w' + str(c.fetched)) if c.fetched >= 0 else '-'}{flag}")
            last = key
    return "\n".join(lines)
