"""Every verb as the library knows it: its options record and the function that runs one.

The command line parses argv into a verb's record, a script passes keywords, and a sweep a TOML row:
all three end here, so the same record gives the same run whoever built it.  The table names each
verb's home lazily (a module path), so that ``import warpcheck`` stays quick.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping, Sequence

from warpcheck._guard import bounded
from warpcheck._values import build
from warpcheck.models.errors import ConfigError


@dataclass(frozen=True)
class Verb:
    """A verb: where its record and runner live, and which record fields its positional arguments fill."""

    name: str
    home: str  # the module holding both, e.g. "warpcheck._makespan"
    record: str
    runner: str  # runner(options, progress=None) -> a result with to_dict() and code
    positional: tuple[str, ...] = ()  # fields filled, in order, by the sweep file's `arguments`
    many: bool = False  # the one positional field takes a list (simulate's WORKLOAD ...)
    progress: bool = True  # the runner takes progress=
    switch: tuple[str, str] | None = None  # (option, verb): with that option given, the other verb runs

    def options_type(self) -> type:
        """The verb's options record (a frozen dataclass)."""
        return getattr(importlib.import_module(self.home), self.record)  # type: ignore[no-any-return]

    def run(self, options: Any, progress: Callable[[str], None] | None = None) -> Any:
        """Run one record within its ``timeout`` and ``memory``; the result's ``to_dict()`` is the verb's ``--json``."""
        runner = getattr(importlib.import_module(self.home), self.runner)
        budget = getattr(options, "budget", getattr(options, "timeout", None))  # makespan: its method's own budget
        with bounded(budget, getattr(options, "memory", None)):
            return runner(options, progress=progress) if self.progress else runner(options)


_F, _K, _R, _Q, _M = "warpcheck._frontend", "warpcheck._kernels", "warpcheck._reorder", "warpcheck._qaws", \
    "warpcheck._makespan"
VERBS: dict[str, Verb] = {v.name: v for v in [
    Verb("prove", _F, "ProveOptions", "prove_options"),
    Verb("replay", _F, "ReplayOptions", "replay_options", ("witness",), progress=False),
    Verb("simulate", _F, "SimulateOptions", "simulate_options", ("workloads",), many=True,
         switch=("kernels", "simulate --kernels")),
    Verb("simulate --kernels", _Q, "SimulateKernelsOptions", "kernel_runs_of", progress=False),
    Verb("demo", _F, "DemoOptions", "demo_options"),
    Verb("run", _F, "RunOptions", "run_options", ("job",)),
    Verb("export", _F, "ExportOptions", "export_options", progress=False),
    Verb("check", "warpcheck._certificate", "CheckOptions", "check_options", ("certificate",)),
    Verb("makespan", _M, "MakespanOptions", "run", ("kernel",)),
    Verb("cfg", _K, "CfgOptions", "run_cfg", ("kernel",)),
    Verb("wcet", _K, "WcetOptions", "run_wcet", ("kernel",)),
    Verb("simt", _K, "SimtOptions", "run_simt", ("kernel",), progress=False),
    Verb("analyze", _R, "AnalyzeOptions", "analysis_of", ("kernel",), progress=False),
    Verb("reorder prove", _R, "ReorderProveOptions", "proof_of", ("kernel",)),
    Verb("reorder replay", _R, "ReorderReplayOptions", "replay_of", ("witness",), progress=False),
    Verb("reorder simulate", _R, "ReorderSimulateOptions", "simulation_of", ("kernel",), progress=False),
    Verb("qaws wcrt", _Q, "QawsWcrtOptions", "wcrt_of"),
    Verb("qaws inversion", _Q, "QawsInversionOptions", "inversion_of", progress=False),
    Verb("qaws switches", _Q, "QawsSwitchesOptions", "switches_of", progress=False),
]}


def verb(name: str) -> Verb:
    """The verb named ``name`` (two words for the verbs with actions: ``"reorder prove"``)."""
    if name not in VERBS:
        runnable = ", ".join(n for n in VERBS if " --" not in n)
        raise ConfigError(f"verb {name!r} is not a verb a sweep runs; choose one of {runnable}")
    return VERBS[name]


def chosen(name: str, params: Mapping[str, Any]) -> Verb:
    """The verb that runs ``name`` with ``params``: ``simulate`` with ``kernels`` is the kernel-pair simulation."""
    v = verb(name)
    if v.switch is not None and params.get(v.switch[0]) is not None:
        return VERBS[v.switch[1]]
    return v


def options_of(name: str, arguments: Sequence[str], params: Mapping[str, Any]) -> Any:
    """The record of verb ``name`` from positional ``arguments`` and named ``params`` (dashes as underscores)."""
    given = {k.replace("-", "_"): value for k, value in params.items()}
    v = chosen(name, given)
    if v.many:
        given[v.positional[0]] = list(arguments)
    else:
        if len(arguments) > len(v.positional):
            raise ConfigError(f"{name}: {len(arguments)} positional argument(s) given, it takes "
                              f"{len(v.positional)} ({', '.join(v.positional) or 'none'})")
        given.update(zip(v.positional, arguments))
    return build(v.options_type(), v.name, given)


def field_names(name: str) -> list[str]:
    """The option names verb ``name`` takes (its record's fields)."""
    return [f.name for f in fields(verb(name).options_type())]
