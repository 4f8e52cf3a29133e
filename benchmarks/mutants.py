"""The mutation suite's kill table: every mutant of SWaS proved with the default property.

Usage: python benchmarks/mutants.py [--warps 4] [--property exact] [--timeout 120] [--json FILE]

A mutant is killed when `prove` ends FAIL with a witness that replays on the
mutant at the solver's cycle; an `equivalent` mutant must PASS instead.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from warpcheck.cli.frontend.run import ProveJob, prove_job
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.mutants import MUTANTS, Mutant


def run_one(m: Mutant, warps: int, prop: str, timeout: float, out: Path) -> dict:
    """Prove one mutant and say whether the verdict is the expected one."""
    cfg = SMConfig(warps=warps, design="swas", issue_policy=m.policy or "gtlrr", check_buffer=False)
    cfg = cfg.with_(**dict(m.config))  # e.g. the kernels and budgets a QAWS bug needs
    job = ProveJob(cfg, prop, "auto", 0, timeout, str(out / f"{m.name}.json"), design=m.make(cfg))
    t = time.monotonic()
    o = prove_job(job)
    status = o.result.status.value
    ok = status == ("PASS" if m.equivalent else "FAIL") and (m.equivalent or o.witness_path is not None)
    return {"mutant": m.name, "breaks": m.breaks, "policy": cfg.issue_policy, "status": status,
            "cycle": o.replays[0].first_violation if o.replays else None, "engine": o.result.engine,
            "seconds": round(time.monotonic() - t, 2), "as_expected": ok}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warps", type=int, default=4)
    ap.add_argument("--property", default="exact")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for m in MUTANTS.values():
            rows.append(run_one(m, a.warps, a.property, a.timeout, Path(d)))
            print(f"  .. {rows[-1]['mutant']}: {rows[-1]['status']} ({rows[-1]['seconds']} s)", file=sys.stderr)
    print(tabulate([[r["mutant"], r["policy"], r["status"], r["cycle"], r["seconds"],
                     "yes" if r["as_expected"] else "NO"] for r in rows],
                   headers=["mutant", "policy", "status", "violation at cycle", "s", "as expected"]))
    killed = sum(r["status"] == "FAIL" for r in rows)
    equivalent = sum(MUTANTS[r["mutant"]].equivalent for r in rows)
    print(f"\n{killed} of {len(rows) - equivalent} non-equivalent mutants killed; "
          f"{equivalent} proved equivalent; W = {a.warps}, property {a.property}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r["as_expected"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
