"""VCD waveforms of a replay (a view derived from the same replay, for GTKWave and the like)."""
from __future__ import annotations

import io
from pathlib import Path

from vcd import VCDWriter

from warpcheck.models.files import atomic_write_text
from warpcheck.sim.frontend.replay import Replay


def write_vcd(replays: list[Replay], path: str | Path) -> None:
    """Write :func:`vcd_text` of the replays to ``path``."""
    atomic_write_text(path, vcd_text(replays), "VCD file")


def vcd_text(replays: list[Replay]) -> str:
    """VCD waveforms, one scope per design: issued, reference and fetching warp, and each warp's occupancy."""
    f = io.StringIO()
    with VCDWriter(f, timescale="1 ns", date="today") as w:
        sigs = []
        for r in replays:
            scope = f"warpcheck.{r.design}"
            occ = [w.register_var(scope, f"occupancy_w{k}", "integer", size=8)
                   for k in range(len(r.cycles[0].occupancy))]
            sigs.append((r, w.register_var(scope, "issued", "integer", size=16),
                         w.register_var(scope, "reference", "integer", size=16),
                         w.register_var(scope, "fetched", "integer", size=16),
                         w.register_var(scope, "violation", "wire", size=1), occ))
        n = max(len(r.cycles) for r in replays)
        for t in range(n):
            for r, iss, ref, fet, bad, occ in sigs:
                if t < len(r.cycles):
                    c = r.cycles[t]
                    w.change(iss, t, c.issued)
                    w.change(ref, t, c.reference)
                    w.change(fet, t, c.fetched)
                    w.change(bad, t, int(c.issued != c.reference))
                    for k, v in enumerate(c.occupancy):
                        w.change(occ[k], t, v)
    return f.getvalue()
