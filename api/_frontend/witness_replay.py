"""A witness replayed cycle by cycle on the design it was found on, on the other, or on both side by side."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpcheck._frontend.options import ReplayOptions
from warpcheck.models.errors import ConfigError
from warpcheck.sim.frontend.replay import Replay, replay, side_by_side
from warpcheck.sim.frontend.vcd import write_vcd
from warpcheck.verify.frontend import witness as wit


@dataclass
class ReplayOutcome:
    """A witness replayed on one or two designs."""

    witness: wit.Witness
    replays: list[Replay]
    not_replayed: dict[str, str] = field(default_factory=dict)  # --design both: designs that refuse the witness

    @property
    def reproduced(self) -> bool:
        """The witness's own design leaves the policy at the witness's cycle."""
        mine = next((r for r in self.replays if r.design == self.witness.config.design), None)
        return mine is None or self.witness.cycle is None or mine.first_violation == self.witness.cycle

    def to_json(self) -> dict[str, Any]:
        mine = next((r for r in self.replays if r.design == self.witness.config.design), self.replays[0])
        return {"reproduced": self.reproduced, "cycle": mine.first_violation, "design": mine.design,
                "expected_cycle": self.witness.cycle,
                "designs": {r.design: {"first_violation": r.first_violation,
                                       "issued": [c.issued for c in r.cycles],
                                       "reference": [c.reference for c in r.cycles]} for r in self.replays},
                "not_replayed": self.not_replayed}

    def report(self) -> str:
        lines = []
        for r in self.replays:
            fv = r.first_violation
            verdict = (f"leaves the policy at cycle {fv}" if fv is not None
                       else f"stays on the policy for all {len(r.cycles)} cycles")
            lines.append(f"{r.design}: {verdict}")
        lines += [f"{d}: not replayed: {why}" for d, why in self.not_replayed.items()]
        status = "reproduced" if self.reproduced else "NOT reproduced (a bug of warpcheck: please report it)"
        lines.append(f"witness {status} (expected cycle {self.witness.cycle})")
        return "\n".join(lines) + "\n\n" + side_by_side(self.replays)


def replay_run(o: ReplayOptions) -> ReplayOutcome:
    """Load the witness and replay it on ``o.design`` ('baseline', 'swas' or 'both')."""
    w, design = wit.load(o.witness), o.design
    n = o.cycles if o.cycles is not None else (w.cycle or 0) + 4
    configs, skipped = [wit.on_design(w, design if design != "both" else w.config.design)], {}
    for d in wit.other_designs(w) if design == "both" else []:
        try:
            configs.append(wit.on_design(w, d))
        except ConfigError as e:  # "both" means every design that accepts the configuration
            skipped[d] = str(e)
    replays = [replay(c, w.initial_ibuffer, w.streams, w.property, n, w.prologue) for c in configs]
    if o.vcd:
        write_vcd(replays, o.vcd)
    return ReplayOutcome(w, replays, skipped)
