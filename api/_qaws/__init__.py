"""QAWS for two kernels on one SWaS SM (Singh et al.): worst-case response, priority inversion, switch bound, runs.

``warpcheck qaws wcrt|inversion|switches`` and ``simulate --kernels`` build
their options record from argv and call the ``*_of`` functions here; the
public functions build the same record from keywords (named like the verbs'
options), so a script and the command line take one path and get one answer.

- :mod:`options`: one record per verb, every default stated once;
- :mod:`searches`: the searches on a record (solver, then replay on the simulator);
- :mod:`kernel_runs`: several workloads run together as kernels;
- :mod:`results`: the typed answers (``to_dict()`` is the verb's ``--json``);
- :mod:`mutation`: the mutation suite's harness (``benchmarks/mutants.py --domain qaws``).
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from warpcheck import _values as v
from warpcheck._guard import bounded
from warpcheck._lazy import lazy_names
from warpcheck._qaws.options import (QawsInversionOptions, QawsSwitchesOptions, QawsWcrtOptions,
                                     SimulateKernelsOptions)
from warpcheck.models.errors import OptionError

if TYPE_CHECKING:
    from warpcheck._qaws.kernel_runs import KernelRunsResult
    from warpcheck._qaws.results import (InversionRow, QawsInversionResult, QawsResult, QawsRun, QawsSwitchesResult,
                                         QawsWcrtResult, WcrtRow)
    from warpcheck.models.frontend.config import SMConfig
__getattr__ = lazy_names(__name__, {"KernelRunsResult": "kernel_runs", **dict.fromkeys(
    ["InversionRow", "QawsInversionResult", "QawsResult", "QawsRun", "QawsSwitchesResult", "QawsWcrtResult", "WcrtRow"],
    "results")})

__all__ = ["qaws_wcrt", "qaws_inversion", "qaws_switches", "simulate_kernels", "wcrt_of", "inversion_of",
           "switches_of", "kernel_runs_of", "QawsWcrtOptions", "QawsInversionOptions", "QawsSwitchesOptions",
           "SimulateKernelsOptions", "QawsResult", "QawsWcrtResult", "QawsInversionResult", "QawsSwitchesResult",
           "KernelRunsResult", "WcrtRow", "InversionRow", "QawsRun"]

Progress = Callable[[str], None]

# The keywords of the first API (before the options were named like the flags): old name -> (field, inverted?)
_OLD_NAMES = {"programs": ("program", False), "budgets": ("budget", False), "launches": ("launch", False),
              "misses": ("no_misses", True), "deps": ("no_deps", True), "branches": ("no_branches", True)}


def _record(record: type, where: str, keywords: Mapping[str, Any]) -> Any:
    """The record from a function's keywords; an old keyword (``budgets=``) works and is named in a refusal."""
    given, old = {}, {}
    for key, value in keywords.items():
        field, inverted = _OLD_NAMES.get(key, (key, False))
        if field != key:
            if field in keywords:
                raise OptionError(key, value, f"given twice, as {key}= and as {field}=; give {field}= only")
            old[field] = (key, value)
        given[field] = (not value if isinstance(value, bool) else value) if inverted else value
    try:
        return v.build(record, where, given)
    except OptionError as e:
        if e.option not in old:
            raise
        raise OptionError(old[e.option][0], old[e.option][1], e.problem) from None


def wcrt_of(o: QawsWcrtOptions, progress: Progress | None = None) -> QawsWcrtResult:
    """``qaws wcrt`` on its record, bounded by its ``timeout`` and ``memory``."""
    with bounded(o.timeout, o.memory):
        from warpcheck._qaws.searches import run_wcrt
        return run_wcrt(o, progress)


def inversion_of(o: QawsInversionOptions) -> QawsInversionResult:
    """``qaws inversion`` on its record, bounded by its ``timeout`` and ``memory``."""
    with bounded(o.timeout, o.memory):
        from warpcheck._qaws.searches import run_inversion
        return run_inversion(o)


def switches_of(o: QawsSwitchesOptions) -> QawsSwitchesResult:
    """``qaws switches`` on its record, bounded by its ``timeout`` and ``memory``."""
    with bounded(o.timeout, o.memory):
        from warpcheck._qaws.searches import run_switches
        return run_switches(o)


def kernel_runs_of(o: SimulateKernelsOptions, base: SMConfig | None = None) -> KernelRunsResult:
    """``simulate --kernels`` on its record (``base``: the SM's timing), bounded by its ``timeout`` and ``memory``."""
    with bounded(o.timeout, o.memory):
        from warpcheck._qaws.kernel_runs import run_kernel_set
        return run_kernel_set(o, base)


def qaws_wcrt(policy: Any = None, *, progress: Progress | None = None, **options: Any) -> QawsWcrtResult:
    """K2's worst-case response time under each policy, over every stall pattern, proved maximal and replayed.

    The keywords are ``qaws wcrt``'s options (:class:`QawsWcrtOptions`):
    ``policy`` some of ``lrr``, ``gto``, ``qaws`` (a list or a comma string);
    ``program`` each kernel's program (``{"K2": "mem,int"}`` or a list of
    classes); ``warps`` the warps of K1 and K2 (default ``(1, 2)``);
    ``budget`` and ``launch`` per kernel (default K1 1, K2 2; launch K1 0,
    K2 1); ``latency`` per class; ``t_fetch``, ``t_decode``, ``ibuffer``,
    ``miss_latency`` the small SM of the verb; ``no_misses``, ``no_deps``,
    ``no_branches``; ``horizon``; ``exhaustive=True`` also enumerates every
    stall pattern (small instances only); ``timeout`` (seconds, None: no
    limit) and ``memory`` (GiB).  The first names ``programs``, ``budgets``,
    ``launches``, ``misses``, ``deps``, ``branches`` still work.  Each row of
    the result (:class:`WcrtRow`) has K2's ``response`` and ``finish``, its
    ``status`` (PASS: proved maximal; UNKNOWN: the horizon, a lower bound),
    the ``run`` that reaches it and ``replayed``.
    """
    if policy is not None:
        options["policy"] = policy
    v.callback("progress", progress)
    return wcrt_of(_record(QawsWcrtOptions, "qaws_wcrt", options), progress)


def qaws_inversion(policy: Any = None, **options: Any) -> QawsInversionResult:
    """A run, per policy, in which K2 (the kernel of higher QoS) finishes after K1, searched up to ``depth`` cycles.

    The keywords are :func:`qaws_wcrt`'s, with ``depth`` (default 40) for
    ``horizon`` and ``exhaustive`` (:class:`QawsInversionOptions`).  A row
    (:class:`InversionRow`) has ``found`` (an inversion: status FAIL, with
    the ``run``, replayed on the simulator) or not (a PASS bounded by
    ``depth``); ``code`` is 1 when one is found.
    """
    if policy is not None:
        options["policy"] = policy
    return inversion_of(_record(QawsInversionOptions, "qaws_inversion", options))


def qaws_switches(policy: Any = None, **options: Any) -> QawsSwitchesResult:
    """Prove that while a K2 warp is eligible, K1 switches warps at most b(K1) times before K2 issues again.

    k-induction on the full SWaS front end, for every program and stall
    pattern (:class:`QawsSwitchesOptions`): ``policy`` (default qaws),
    ``warps`` (default ``(2, 2)``), ``budget`` (default K1 1, K2 4; K2's must
    be the larger), ``depth``, ``timeout``, ``memory``.  Under ``gto`` (it
    ignores the budgets) the bound FAILs and ``schedule`` shows the run.
    """
    if policy is not None:
        options["policy"] = policy
    if options.get("certificate") is None and not options.get("no_certificate"):  # a script writes into no cwd
        options["certificate"] = str(Path(tempfile.mkdtemp(prefix="warpcheck-")) / "switches.smt2")
    return switches_of(_record(QawsSwitchesOptions, "qaws_switches", options))


def simulate_kernels(kernels: Any = None, **options: Any) -> KernelRunsResult:
    """Run several workloads together on one SM as kernels K1, K2, ... under each policy (``simulate --kernels``).

    ``kernels``: workload names or TOML files (a list or a comma string);
    the other keywords are :class:`SimulateKernelsOptions`'s (``policy``,
    ``budget``, ``launch``, ``warps``, ``scale``, ``max_cycles``, ``icache``,
    ``engine``, ``config``, ``timeout``, ``memory``).  The result's ``runs``
    give each policy's per-kernel response times.
    """
    if kernels is not None:
        options["kernels"] = kernels
    return kernel_runs_of(_record(SimulateKernelsOptions, "simulate_kernels", options))
