"""The main job: prove SWaS for three policies, refute the nine baseline combinations, replay all."""
from __future__ import annotations

import time
from concurrent.futures import as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tabulate import tabulate

from warpcheck._guard import worker_pool
from warpcheck._frontend.options import DemoOptions, ProveOptions
from warpcheck._frontend.proof import Progress, ProveOutcome, prove_run_bounded, run_name
from warpcheck.verify.result import Status

DEMO_POLICIES = ("gtlrr", "gtlo", "lrr")


def demo_jobs(o: DemoOptions) -> list[tuple[ProveOptions, Status]]:
    """The twelve runs of the demo, each with its expected status.

    Each proof is bounded by work, not by the clock: k-induction up to the configuration's horizon for
    SWaS, BMC to the same depth for the baseline (the shortest violation), one engine per proof rather
    than auto's three racing processes, so that a busy machine makes the demo slower, never wrong.
    """
    jobs = []
    for p in DEMO_POLICIES:
        job = ProveOptions(design="swas", policy=p, warps=o.warps, engine="kind", timeout=o.timeout, recheck=True)
        jobs.append((replace(job, certificate=str(Path(o.out) / f"{run_name(job)}.smt2")), Status.PASS))
    for f in DEMO_POLICIES:
        for i in DEMO_POLICIES:
            job = ProveOptions(design="baseline", fetch=f, issue=i, warps=o.warps, engine="bmc", timeout=o.timeout)
            job = replace(job, witness=str(Path(o.out) / f"{run_name(job)}.json"))  # the name prove gives the run
            jobs.append((job, Status.FAIL))
    return jobs


@dataclass
class DemoResult:
    """The summary of the demo."""

    rows: list[tuple[ProveOutcome, Status]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def as_expected(self) -> bool:
        return all(o.result.status is e for o, e in self.rows)

    @property
    def code(self) -> int:
        """The exit code of ``warpcheck demo``: 0 when every run ends as expected, 1 otherwise."""
        return 0 if self.as_expected else 1

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck demo --json`` prints."""
        return self.to_json()

    def to_json(self) -> dict[str, Any]:
        """The summary as plain data."""
        return {"as_expected": self.as_expected, "seconds": round(self.seconds, 2),
                "runs": [{**o.to_json(), "expected": e.value} for o, e in self.rows]}

    def report(self) -> str:
        """The summary table ``warpcheck demo`` prints."""
        table = []
        for o, expected in self.rows:
            c = o.options.sm
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


def demo_run(o: DemoOptions, progress: Progress = None) -> DemoResult:
    """Run the twelve jobs on a process pool (one solver context per process)."""
    start, jobs, warps, out = time.monotonic(), demo_jobs(o), o.warps, o.out
    if progress:  # the first answer takes a while (solver start-up, lemmas, cvc5): say what is coming
        progress(f"{len(jobs)} runs at W = {warps} on 2 processes: {len(DEMO_POLICIES)} SWaS proofs (each "
                 f"re-checked by cvc5) and {len(jobs) - len(DEMO_POLICIES)} baseline counterexamples, "
                 f"witnesses and certificates in {out}/")
    results: dict[int, ProveOutcome] = {}
    with worker_pool(2) as pool:
        futures = {pool.submit(prove_run_bounded, job): k for k, (job, _) in enumerate(jobs)}
        for fut in as_completed(futures):
            k = futures[fut]
            results[k] = fut.result()
            if progress:
                progress(f"{len(results)}/{len(jobs)} {results[k].name}: {results[k].result.label}")
    return DemoResult([(results[k], e) for k, (_, e) in enumerate(jobs)], time.monotonic() - start)
