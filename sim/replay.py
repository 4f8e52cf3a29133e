"""Replaying a witness on a design, cycle by cycle, and showing designs side by side."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.config import SMConfig
from warpcheck.models.frontend import FrontEnd
from warpcheck.models.oracles import REFERENCE
from warpcheck.models.stream import instr_of
from warpcheck.sim.driver import list_source, run


@dataclass
class Cycle:
    """What one design did in one cycle."""

    issued: int
    reference: int
    fetched: int
    head: str
    occupancy: list[int]


@dataclass
class Replay:
    """A replay of a scenario on one design."""

    design: str
    config: SMConfig
    cycles: list[Cycle] = field(default_factory=list)
    prologue: int = 0

    @property
    def first_violation(self) -> int | None:
        """The first cycle (after the prologue) where the issued warp leaves the reference policy, or None."""
        return next((t for t, c in enumerate(self.cycles) if t >= self.prologue and c.issued != c.reference), None)


def replay(config: SMConfig, ibuffers: list, streams: list, prop: str, cycles: int, prologue: int = 0) -> Replay:
    """Run the scenario for ``cycles`` cycles on ``config`` and record each cycle."""
    fe = FrontEnd(config)
    r = run(fe, ibuffers, list_source(streams), cycles)
    out = Replay(config.design, config, prologue=prologue)
    ref = REFERENCE[prop]
    for s in r.states:
        iw = fe.issue_choice(A, s)
        head = instr_of(s, f"w{iw}.b0").short() if iw >= 0 else "-"
        occ = [fe.occupancy(A, s, w) for w in range(fe.W)]
        out.cycles.append(Cycle(iw, ref(fe, A, s), fe.fetch_choice(A, s), head, occ))
    return out


def _cell(c: Cycle) -> str:
    mark = "" if c.issued == c.reference else f"  <-- policy says w{c.reference}"
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
        key = (c.issued, c.fetched, c.issued == c.reference)
        if key != last:
            flag = "" if c.issued == c.reference else f"   VIOLATION: policy says w{c.reference}"
            flag += " (in the prologue, not counted)" if flag and t < r.prologue else ""
            lines.append(f"{t:5d}  issue {_cell(c).split('  <--')[0]:<16} fetch "
                         f"{('w' + str(c.fetched)) if c.fetched >= 0 else '-'}{flag}")
            last = key
    return "\n".join(lines)
