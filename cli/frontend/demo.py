"""The main job: prove SWaS for three policies, refute the nine baseline combinations, replay all."""
from __future__ import annotations

import time
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabulate import tabulate

from warpcheck._guard import worker_pool
from warpcheck.cli.frontend.run import Progress, ProveJob, ProveOutcome, prove_job_bounded, run_name
from warpcheck.models.frontend.config import SMConfig
from warpcheck.verify.result import Status

DEMO_POLICIES = ("gtlrr", "gtlo", "lrr")


def demo_jobs(warps: int, timeout: float, out: str) -> list[tuple[ProveJob, Status]]:
    """The twelve runs of the demo, each with its expected status."""
    jobs = [(ProveJob(SMConfig(warps=warps, design="swas", issue_policy=p), timeout=timeout, recheck=True),
             Status.PASS) for p in DEMO_POLICIES]
    for f in DEMO_POLICIES:
        for i in DEMO_POLICIES:
            cfg = SMConfig(warps=warps, design="baseline", fetch_policy=f, issue_policy=i)
            job = ProveJob(cfg, timeout=timeout)
            job.witness_path = str(Path(out) / f"{run_name(job)}.json")  # the name prove gives the same run
            jobs.append((job, Status.FAIL))
    return jobs


@dataclass
class DemoOutcome:
    """The summary of the demo."""

    rows: list[tuple[ProveOutcome, Status]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def as_expected(self) -> bool:
        return all(o.result.status is e for o, e in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {"as_expected": self.as_expected, "seconds": round(self.seconds, 2),
                "runs": [{**o.to_json(), "expected": e.value} for o, e in self.rows]}

    def report(self) -> str:
        table = []
        for o, expected in self.rows:
            c = o.job.config
            pol = c.issue_policy if c.design == "swas" else f"{c.fetch_policy} / {c.issue_policy}"
            rep = {r.design: r.first_violation for r in o.replays}
            table.append([c.design, pol, o.result.label, o.result.depth, f"{o.result.seconds:.1f}",
                          _cycle(rep.get("baseline")), _cycle(rep.get("swas")),
                          "yes" if o.result.status is expected else f"NO (expected {expected.value})",
                          o.witness_path or ""])
        head = ["design", "fetch / issue", "status", "depth", "s", "baseline leaves policy at",
                "swas leaves policy at", "as expected", "witness"]
        verdict = "all as expected" if self.as_expected else "SOME RESULTS ARE NOT AS EXPECTED"
        return (tabulate(table, headers=head) + f"\n\n{len(self.rows)} runs in {self.seconds:.1f} s: {verdict}."
                "\nswas: property 'exact' (the issue record equals the static analysis machine's every cycle), "
                "PASS re-checked by cvc5; baseline: property 'oracle' (the issued warp equals osched2's). "
                "Replay any witness with: warpcheck replay WITNESS")


def _cycle(v: int | None) -> str:
    return "-" if v is None else f"cycle {v}"


def run_demo(warps: int, timeout: float, out: str, progress: Progress = None) -> DemoOutcome:
    """Run the twelve jobs on a process pool (one solver context per process)."""
    start, jobs = time.monotonic(), demo_jobs(warps, timeout, out)
    if progress:  # the first answer takes a while (solver start-up, lemmas, cvc5): say what is coming
        progress(f"{len(jobs)} runs at W = {warps} on 2 processes: {len(DEMO_POLICIES)} SWaS proofs (each "
                 f"re-checked by cvc5) and {len(jobs) - len(DEMO_POLICIES)} baseline counterexamples, "
                 f"witnesses in {out}/")
    results: dict[int, ProveOutcome] = {}
    with worker_pool(2) as pool:
        futures = {pool.submit(prove_job_bounded, job): k for k, (job, _) in enumerate(jobs)}
        for fut in as_completed(futures):
            k = futures[fut]
            results[k] = fut.result()
            if progress:
                progress(f"{len(results)}/{len(jobs)} {results[k].name}: {results[k].result.label}")
    return DemoOutcome([(results[k], e) for k, (_, e) in enumerate(jobs)], time.monotonic() - start)
