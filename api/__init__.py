"""warpcheck: prove GPU warp schedulers predictable, replay their counterexamples, search worst-case makespans.

The public API, for scripts and notebooks (the ``warpcheck`` command is a thin
layer over the same functions):

- :func:`prove` a front-end property of a design and policy, for every input;
  :func:`replay` a witness cycle by cycle; :func:`simulate` workloads; :func:`demo`;
  :func:`run_job` a job file of proof tasks;
- :func:`makespan`: the exact worst-case makespan of a group of warps;
- :func:`qaws_wcrt`, :func:`qaws_inversion`, :func:`qaws_switches`: worst cases of
  two kernels under QAWS, GTO and LRR; :func:`simulate_kernels`: several kernels run on one SM;
- :func:`analyze` a kernel's loads and stores; :func:`reorder_prove`,
  :func:`reorder_replay`, :func:`reorder_simulate`: the load/store reordering unit;
- :func:`cfg` (the warp-level CFG), :func:`wcet` (its IPET bound), :func:`simt`
  (one warp run concretely) of a PTX or SASS kernel;
- :func:`export` a proof problem as SMT-LIB2, BTOR2, Verilog or a SymbiYosys project for other checkers;
- :class:`UserPolicy`: a scheduling policy of your own, proved like the kit's.

Errors are :class:`WarpcheckError` exceptions whose ``code`` is the exit code
the command line gives for them (2: bad input).  Nothing is printed unless
asked.  The names are imported on first use, so ``import warpcheck`` is quick
and the models never load a solver.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the private module that defines it
_HOME = {
    "prove": "_frontend", "replay": "_frontend", "simulate": "_frontend", "demo": "_frontend", "run_job": "_frontend",
    "ProofResult": "_frontend", "ReplayResult": "_frontend", "SimulationResult": "_frontend", "DemoResult": "_frontend",
    "RunResult": "_frontend", "ExportResult": "_frontend", "ProveOptions": "_frontend", "ReplayOptions": "_frontend",
    "SimulateOptions": "_frontend", "DemoOptions": "_frontend", "RunOptions": "_frontend", "ExportOptions": "_frontend",
    "makespan": "_makespan", "MakespanResult": "_makespan", "MakespanOptions": "_makespan",
    "CertificateCheck": "_makespan", "check_certificate": "_makespan",
    "export": "_frontend",
    "check": "_certificate", "CheckResult": "_certificate", "CheckOptions": "_certificate",
    "qaws_wcrt": "_qaws", "qaws_inversion": "_qaws", "qaws_switches": "_qaws", "simulate_kernels": "_qaws",
    "QawsResult": "_qaws", "QawsWcrtResult": "_qaws", "QawsInversionResult": "_qaws", "QawsSwitchesResult": "_qaws",
    "KernelRunsResult": "_qaws", "QawsWcrtOptions": "_qaws", "QawsInversionOptions": "_qaws",
    "QawsSwitchesOptions": "_qaws", "SimulateKernelsOptions": "_qaws",
    "analyze": "_reorder", "reorder_prove": "_reorder", "reorder_replay": "_reorder", "reorder_simulate": "_reorder",
    "AnalysisResult": "_reorder", "ReorderResult": "_reorder", "AnalyzeOptions": "_reorder",
    "ReorderProveOptions": "_reorder", "ReorderReplayOptions": "_reorder", "ReorderSimulateOptions": "_reorder",
    "cfg": "_kernels", "wcet": "_kernels", "simt": "_kernels", "KernelResult": "_kernels", "CfgResult": "_kernels",
    "WcetResult": "_kernels", "SimtResult": "_kernels", "RunTimeoutError": "_kernels", "CfgOptions": "_kernels",
    "WcetOptions": "_kernels", "SimtOptions": "_kernels",
    "sweep": "_sweep", "plot": "_sweep", "SweepOptions": "_sweep", "SweepResult": "_sweep", "PlotOptions": "_sweep",
    "PlotResult": "_sweep",
    "UserPolicy": "_policy", "register_policy": "_policy", "unregister_policy": "_policy",
    "WarpcheckError": "_errors", "ConfigError": "_errors", "InputFileError": "_errors", "KitError": "_errors",
}
__all__ = ["__version__", *_HOME]
__version__: str  # looked up on first use (__getattr__)

if TYPE_CHECKING:  # for type checkers and static doc tools; at run time the names load lazily
    from warpcheck._certificate import CheckOptions, CheckResult, check
    from warpcheck._errors import ConfigError, InputFileError, KitError, WarpcheckError
    from warpcheck._frontend import (DemoOptions, DemoResult, ExportOptions, ExportResult, ProofResult, ProveOptions,
                                     ReplayOptions, ReplayResult, RunOptions, RunResult, SimulateOptions,
                                     SimulationResult, demo, export, prove, replay, run_job, simulate)
    from warpcheck._kernels import (CfgOptions, CfgResult, KernelResult, RunTimeoutError, SimtOptions, SimtResult,
                                    WcetOptions, WcetResult, cfg, simt, wcet)
    from warpcheck._makespan import CertificateCheck, MakespanOptions, MakespanResult, check_certificate, makespan
    from warpcheck._sweep import PlotOptions, PlotResult, SweepOptions, SweepResult, plot, sweep
    from warpcheck._policy import UserPolicy, register_policy, unregister_policy
    from warpcheck._qaws import (KernelRunsResult, QawsInversionOptions, QawsInversionResult, QawsResult,
                                 QawsSwitchesOptions, QawsSwitchesResult, QawsWcrtOptions, QawsWcrtResult,
                                 SimulateKernelsOptions, qaws_inversion, qaws_switches, qaws_wcrt, simulate_kernels)
    from warpcheck._reorder import (AnalysisResult, AnalyzeOptions, ReorderProveOptions, ReorderReplayOptions,
                                    ReorderResult, ReorderSimulateOptions, analyze, reorder_prove, reorder_replay,
                                    reorder_simulate)


def _version() -> str:
    """The installed distribution's version (package metadata is read on first use: it is slow to look up)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("warpcheck")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        globals()[name] = _version()
        return globals()[name]
    if name not in _HOME:
        raise AttributeError(f"module 'warpcheck' has no attribute {name!r}")
    from warpcheck._guard import interrupts_deferred

    with interrupts_deferred():  # Ctrl-C is raised after the import, which it would leave half-done or be lost in
        value = getattr(importlib.import_module(f"warpcheck.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME, "__version__"})
