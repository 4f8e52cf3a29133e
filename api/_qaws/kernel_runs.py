"""``simulate --kernels``: several workloads on one SM as kernels K1, K2, ..., response times per policy side by side."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpcheck._qaws.options import SimulateKernelsOptions
from warpcheck.models.frontend.config import SMConfig, config_from_mapping, load_config
from warpcheck.sim.frontend.suite import resolve
from warpcheck.sim.qaws.kernels_run import Kernel, MultiRun, run_kernels

__all__ = ["KernelRunsResult", "kernels_of", "base_config", "run_kernel_set"]

BASE_WARPS = 8  # simulate's SM when neither --config nor --warps says otherwise (the runs set their own warps)


@dataclass(frozen=True)
class KernelRunsResult:
    """Each policy's run of the kernels: ``runs`` (per-kernel response and finish, the average execution time).

    ``code`` is 0 when every run finished within ``max_cycles``, 1 otherwise;
    ``note`` says when QAWS degenerates to GTO (one budget for all kernels).
    """

    kernels: tuple[Kernel, ...]
    runs: tuple[MultiRun, ...]
    note: str | None

    @property
    def code(self) -> int:
        """The exit code of ``simulate --kernels``."""
        return 0 if all(r.average is not None for r in self.runs) else 1

    @property
    def response(self) -> dict[str, dict[str, int | None]]:
        """Per policy, each kernel's response time (None: not finished)."""
        return {r.policy: {k.name: k.response for k in r.kernels} for r in self.runs}

    def to_dict(self) -> dict[str, Any]:
        """What ``simulate --kernels ... --json`` prints."""
        return {"kernels": [{"kernel": k.name, "workload": k.workload.name, "warps": k.warps, "budget": k.budget,
                             "launch": k.launch} for k in self.kernels],
                "note": self.note, "runs": [r.to_json() for r in self.runs]}

    def report(self) -> str:
        """The table ``simulate --kernels`` prints, and the note."""
        from tabulate import tabulate
        rows = [[r.policy, *[k.response if k.response is not None else "unfinished" for k in r.kernels],
                 "-" if r.average is None else f"{r.average:g}", r.cycles] for r in self.runs]
        heads = ["policy", *[f"{k.name} response (launch {k.launch}, budget {k.budget})" for k in self.kernels],
                 "average execution time", "cycles"]
        table = tabulate(rows, headers=heads, tablefmt="github")
        return f"{table}\nnote: {self.note}" if self.note else table


def kernels_of(o: SimulateKernelsOptions) -> tuple[Kernel, ...]:
    """The kernels of the record, with their budgets, launch cycles and an even share of the warps."""
    workloads = [resolve(s) for s in o.kernels]
    workloads = [w.scaled(o.scale) if o.scale != 1.0 else w for w in workloads]
    names = [f"K{n + 1}" for n in range(len(workloads))]
    share = int(o.warps or 0) // len(workloads)  # the record has split the warps evenly
    return tuple(Kernel(n, w, share, o.budget.get(n, 1), o.launch.get(n, k))
                 for k, (n, w) in enumerate(zip(names, workloads)))


def base_config(o: SimulateKernelsOptions) -> SMConfig:
    """The SM whose timing the runs take: the record's ``config`` file, or the default SM."""
    data = load_config(o.config).to_json() if o.config else {"warps": BASE_WARPS}
    return config_from_mapping({**data, "design": "baseline"}, where=o.config or "options")


def _note(kernels: tuple[Kernel, ...], policies: tuple[str, ...]) -> str | None:
    if "qaws" in policies and len({k.budget for k in kernels}) < 2:
        return "qaws with one kernel or equal budgets is GTO (one group; Alg. 1, line 9)"
    return None


def run_kernel_set(o: SimulateKernelsOptions, base: SMConfig | None = None) -> KernelRunsResult:
    """Run the kernels under each policy of the record (``base``: the SM's timing, default :func:`base_config`)."""
    kernels = kernels_of(o)
    sm = base if base is not None else base_config(o)
    engine = "reference" if o.engine == "reference" else "compiled"
    runs = tuple(run_kernels(kernels, sm, p, o.max_cycles, o.icache, engine) for p in o.policy)
    return KernelRunsResult(kernels, runs, _note(kernels, o.policy))
