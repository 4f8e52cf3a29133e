"""The front end's mutation suite as the harness runs it: each SWaS mutant proved with the default property."""
from __future__ import annotations

import time
from pathlib import Path

from warpcheck._frontend.options import ProveOptions
from warpcheck._frontend.proof import prove_run
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.mutants import MUTANTS
from warpcheck.verify.mutation import Kill

__all__ = ["MUTANTS", "kill"]


def kill(name: str, out: Path, warps: int = 4, prop: str = "", timeout: float = 120.0) -> Kill:
    """Prove mutant ``name`` (of SWaS unless it says otherwise); a kill is a FAIL whose witness replays on the mutant."""
    m = MUTANTS[name]
    cfg = SMConfig(warps=warps, design="swas", issue_policy=m.policy or "gtlrr", check_buffer=False)
    cfg = cfg.with_(**dict(m.config))
    o = ProveOptions(config=cfg, property=prop or None, timeout=timeout, witness=str(out / f"{m.name}.json"))
    t = time.monotonic()
    run = prove_run(o, model=m.make(cfg))
    cycle = run.replays[0].first_violation if run.replays else None
    evidence = f"{Path(run.witness_path).name}, violation at cycle {cycle}" if run.witness_path else run.result.label
    policies = f"--policy {cfg.issue_policy}" if cfg.design == "swas" else \
        f"--fetch {cfg.fetch_policy} --issue {cfg.issue_policy}"
    return Kill(m.name, m.breaks, f"prove --design {cfg.design} {policies} --warps {warps} --property {o.prop}",
                run.result.status.value, m.equivalent, evidence, replayed=cycle is not None,
                seconds=time.monotonic() - t)
