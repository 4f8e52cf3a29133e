"""QAWS's mutation suite as the harness runs it: each mutant proved with the README's command.

``prove --design swas --policy qaws --warps 4 --kernel-of-warp 0,0,1,1 --budgets 1,4`` with the
default property (``exact``: the issue record, and QAWS's exported group and counts, equal the
analysis machine's); a mutant that needs a late launch adds ``--launches``.

The proof run is the front end's ``prove_run`` with the mutant as its model.
"""
from __future__ import annotations

import time
from pathlib import Path

from warpcheck._frontend.options import ProveOptions
from warpcheck._frontend.proof import prove_run
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.qaws.mutants import MUTANTS
from warpcheck.verify.mutation import Kill

__all__ = ["MUTANTS", "kill"]


def _flags(cfg: SMConfig) -> str:
    out = (f"--warps {cfg.warps} --kernel-of-warp {','.join(map(str, cfg.kernel_of_warp))} "
           f"--budgets {','.join(map(str, cfg.budgets))}")
    return out + (f" --launches {','.join(map(str, cfg.launches))}" if cfg.launches else "")


def kill(name: str, out: Path, prop: str = "", timeout: float = 120.0) -> Kill:
    """Prove mutant ``name`` of QAWS on SWaS; a kill is a FAIL whose witness replays on the mutant."""
    m = MUTANTS[name]
    cfg = SMConfig(design="swas", issue_policy="qaws").with_(**dict(m.config))
    job = ProveOptions(config=cfg, property=prop or None, timeout=timeout, witness=str(out / f"{m.name}.json"))
    t = time.monotonic()
    o = prove_run(job, model=m.make(cfg))
    cycle = o.replays[0].first_violation if o.replays else None
    evidence = (f"{Path(o.witness_path).name}, violation at cycle {cycle} ({o.result.engine})" if o.witness_path
                else o.result.label)
    return Kill(m.name, m.breaks, f"prove --design swas --policy qaws {_flags(cfg)} --property {job.prop}",
                o.result.status.value, m.equivalent, evidence, replayed=cycle is not None,
                seconds=time.monotonic() - t)
