"""The QAWS paper's Fig. 3 example rebuilt from its text (Singh et al., Sec. IV): programs, runs, statements.

Four warps (w0, w1 of K1; w2, w3 of K2), the same nine-instruction program
in every warp (the ninth is ``exit``), K2 launched one cycle after K1; GTO,
LRR, and QAWS with budgets (K1, K2) = (1, 4) and (1, 6).  The figure is not
in the text, so a :class:`Program` is a candidate; :func:`fig3_statements`
checks each statement the text makes against the runs.  Instruction fetch is
left out (every fetch hits), as in the paper's example.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from warpcheck.models.frontend.config import DEFAULT_LATENCY, SMConfig
from warpcheck.sim.qaws.kernels_run import Kernel, MultiRun, run_kernels
from warpcheck.sim.frontend.workloads import Workload, parse_lines

CASES = {"gto": ("gto", (1, 1)), "lrr": ("lrr", (1, 1)), "qaws-1-4": ("qaws", (1, 4)), "qaws-1-6": ("qaws", (1, 6))}
K1, K2 = (0, 1), (2, 3)


@dataclass(frozen=True)
class Program:
    """Eight (opcode, depends on the previous instruction) pairs, then ``exit``; and the classes' latencies."""

    body: tuple[tuple[str, bool], ...]
    latency: Mapping[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The program as workload text: instruction k writes r{k+1} and reads r{k} when dependent."""
        out = []
        for k, (op, dep) in enumerate(self.body):
            src = f"r{k}" if dep and k > 0 else "rz"
            out.append(f"{op} r{k + 1} {src} rz")
        return out + ["exit"]

    def workload(self) -> Workload:
        return Workload("fig3", parse_lines("fig3", self.lines()))

    def config(self) -> SMConfig:
        return SMConfig(latency={**DEFAULT_LATENCY, **self.latency}, miss_latency=2)


def fig3_runs(p: Program, engine: str = "compiled") -> dict[str, MultiRun]:
    """The four cases of Fig. 3 (a: GTO, b: LRR, c: QAWS (1, 4), d: QAWS (1, 6))."""
    wl, out = p.workload(), {}
    for name, (policy, (b1, b2)) in CASES.items():
        ks = [Kernel("K1", wl, 2, b1, 0), Kernel("K2", wl, 2, b2, 1)]
        out[name] = run_kernels(ks, p.config(), policy, max_cycles=500, icache=None, engine=engine)
    return out


# Found by benchmarks/qaws_fig3_search.py; every statement of the text holds for it (tests/test_qaws_fig3.py).
FIG3 = Program((("fmul", False), ("fcvt", True), ("ld", False), ("add", True), ("add", False), ("fcvt", True),
                ("fadd", False), ("add", True)), {"fadd": 5, "fmul": 2, "fcvt": 3, "mem": 3})


def _runs_k2(order: tuple[int, ...], start: int, end: int) -> bool:
    return len(order) > end and all(w in K2 for w in order[start:end]) and order[end] in K1


def _exit_cycle(r: MultiRun, warp: int) -> int:
    k = r.kernels[warp // 2]
    t = k.warp_times[warp % 2]
    return -1 if t is None else t - 1 + k.launch


def fig3_statements(runs: Mapping[str, MultiRun]) -> dict[str, tuple[bool, str]]:
    """Each statement of the text about Fig. 3: (holds, what the runs show)."""
    c, d = runs["qaws-1-4"].order, runs["qaws-1-6"].order
    resp = {n: [k.response for k in r.kernels] for n, r in runs.items()}
    avg = {n: r.average for n, r in runs.items()}
    w3 = [t for t in range(len(c)) if c[t] == 3]
    gap = next(((a, b) for a, b in zip(w3, w3[1:]) if b - a > 1 and a >= 15), None)
    others = [n for n in runs if n != "gto"]
    return {
        "(c) w0 issues at 0 and stalls at 1; w1 issues at 1": (c[:2] == (0, 1), f"cycles 0-1: {c[:2]}"),
        "(c) K2 issues from cycle 2 to 12, then K1": (_runs_k2(c, 2, 12), f"cycles 2-12: {c[2:13]}"),
        "(d) K2 issues from cycle 2 to 18, then K1": (_runs_k2(d, 2, 18), f"cycles 2-18: {d[2:19]}"),
        "(c) w3 stalls at 22 and issues again at 26, w2 done": (
            gap == (21, 26) and _exit_cycle(runs["qaws-1-4"], 2) < 22, f"w3's first gap after 15: {gap}"),
        "(d) average execution time 31": (avg["qaws-1-6"] == 31, f"{avg['qaws-1-6']}"),
        "(a) GTO average execution time 29": (avg["gto"] == 29, f"{avg['gto']}"),
        "(a) GTO best for K1, worst for K2": (
            all(resp["gto"][0] <= resp[n][0] and resp["gto"][1] >= resp[n][1] for n in others), f"{resp}"),
    }
