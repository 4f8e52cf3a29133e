"""Kernels (PTX, SASS-style listings): the warp-level CFG, its IPET WCET bound, one warp run concretely.

Each public function builds its verb's options record from the caller's
keywords (:class:`CfgOptions`, :class:`WcetOptions`, :class:`SimtOptions`) and
runs it; ``warpcheck cfg|wcet|simt`` build the same record from argv and call
:func:`run_cfg`, :func:`run_wcet`, :func:`run_simt`, so a script and the
command line take one path and get the same answers and the same errors.

The modules, one idea each: ``options`` (the records), ``loaders`` (kernel
files, entries, inputs, loop bounds), ``warp_level_cfg`` (``cfg``),
``ipet_bound`` (``wcet``), ``warp_run`` (``simt``), ``results`` (what they
give back), ``mutation`` (the kernels' mutation suite).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from warpcheck import _guard as guard, _values as values
from warpcheck._kernels.options import CfgOptions, KernelOptions, SimtOptions, WcetOptions
from warpcheck._lazy import lazy_names
from warpcheck.models.errors import ConfigError, RunTimeoutError, WarpcheckError

if TYPE_CHECKING:
    from warpcheck._kernels.results import CfgResult, KernelResult, SimtResult, WcetResult
    from warpcheck.models.kernels.kernel import Kernel
__getattr__ = lazy_names(__name__, dict.fromkeys(["CfgResult", "KernelResult", "SimtResult", "WcetResult"], "results"))

__all__ = ["cfg", "wcet", "simt", "run_cfg", "run_wcet", "run_simt", "CfgOptions", "WcetOptions", "SimtOptions",
           "KernelResult", "CfgResult", "WcetResult", "SimtResult", "RunTimeoutError"]

R = TypeVar("R", bound="KernelResult")
O = TypeVar("O", bound=KernelOptions)
Progress = Callable[[str], None]


def cfg(kernel: str | Path | CfgOptions, *, progress: Progress | None = None, **options: Any) -> CfgResult:
    """Build the warp-level CFG of a kernel: its blocks paired with abstract activation stacks.

    ``kernel`` is a PTX file or a SASS-style listing (``.sass``), or a whole
    :class:`CfgOptions`; the keywords are its fields: ``entry`` names a kernel
    of a module with several (a part of its name works; a list for several),
    ``all_entries=True`` takes every one (the file is parsed once);
    ``value_agreement=False`` treats every guarded branch as possibly
    divergent; ``latency`` overrides class latencies (``{"mem": 200}``);
    ``dot`` also writes the graph as Graphviz DOT.  The run stops after
    ``timeout`` seconds with :class:`RunTimeoutError` (code 4).  With several
    entries, ``progress`` gets each entry's text as it ends.
    """
    return run_cfg(_record(CfgOptions, "cfg", kernel, options, progress), progress)


def wcet(kernel: str | Path | WcetOptions, *, progress: Progress | None = None, **options: Any) -> WcetResult:
    """Bound the execution time of one warp in isolation by IPET over its warp-level CFG.

    The keywords are the fields of :class:`WcetOptions`: ``loop_bounds``
    names loops by their header's label (``{"$L__BB0_3": 16}``), ``bounds``
    reads them from a TOML file (``[loops] LABEL = N``) and
    ``max_loop_bound`` bounds every loop not named; a loop with no bound is
    refused.  The bound is Z3's optimum, re-solved by HiGHS unless
    ``cross_check=False``.  The other keywords are :func:`cfg`'s.
    """
    return run_wcet(_record(WcetOptions, "wcet", kernel, options, progress), progress)


def simt(kernel: str | Path | SimtOptions, **options: Any) -> SimtResult:
    """Run one warp of a kernel concretely (per-thread registers, activation stack).

    The keywords are the fields of :class:`SimtOptions`: ``inputs`` is a TOML
    or JSON file, or its mapping directly (``{"params": {"param_2": 8},
    "ctaid": [0], "ntid": [32], "seed": 1}``); ``warp`` picks the warp of the
    block (``%tid.x = warp * threads + lane``); past ``max_steps`` blocks the
    kernel is refused as not ending.
    """
    return run_simt(_record(SimtOptions, "simt", kernel, options))


def _record(kind: type[O], verb: str, kernel: Any, options: dict[str, Any], progress: Any = None) -> O:
    """The verb's record: given whole, or built from the kernel and the keywords (an unknown one refused by name)."""
    values.callback("progress", progress)
    if isinstance(kernel, kind):
        if options:
            raise ConfigError(f"{verb}: give the options in the {kind.__name__} or as keywords, not both "
                              f"(got {', '.join(options)})")
        return kernel
    return values.build(kind, verb, {"kernel": kernel, **options})


def run_cfg(o: CfgOptions, progress: Progress | None = None) -> CfgResult:
    """``cfg`` on its record, within ``o.timeout`` and ``o.memory``."""
    from warpcheck._kernels.results import CfgResult
    from warpcheck._kernels.warp_level_cfg import cfg_one
    with guard.bounded(o.timeout, o.memory):
        return _each_entry(o, CfgResult, cfg_one, progress)


def run_wcet(o: WcetOptions, progress: Progress | None = None) -> WcetResult:
    """``wcet`` on its record, within ``o.timeout`` and ``o.memory``."""
    from warpcheck._kernels.ipet_bound import wcet_one
    from warpcheck._kernels.results import WcetResult
    with guard.bounded(o.timeout, o.memory):
        return _each_entry(o, WcetResult, wcet_one, progress)


def run_simt(o: SimtOptions) -> SimtResult:
    """``simt`` on its record, within ``o.timeout`` and ``o.memory``."""
    from warpcheck._kernels.warp_run import simt_one
    with guard.bounded(o.timeout, o.memory):
        return simt_one(o)


def _each_entry(o: Any, kind: type[R], one: Callable[[Any, Kernel], R], progress: Progress | None) -> R:
    """``one`` on each entry chosen; several give one result whose ``entries`` are theirs (refusals kept)."""
    from warpcheck._kernels.loaders import chosen_entries, load_kernel, one_parse_per_file
    with one_parse_per_file():
        names = chosen_entries(o.kernel, o.entry, o.all_entries)
        if not o.several:
            return one(o, load_kernel(o.kernel, names[0]))
        done, texts, refused = [], [], {}
        for name in names:
            try:
                r = one(o, load_kernel(o.kernel, name))
                done.append(r)
                text = r.text
            except WarpcheckError as e:
                if e.code != guard.EXIT_BAD_INPUT:
                    raise
                refused[str(name)] = str(e)
                text = f"kernel {name}: refused: {e}"
            texts.append(text)
            if progress is not None:
                progress(text)
    return kind(text="\n\n".join(texts), file=o.kernel, entries=done, refused=refused, order=[str(n) for n in names])
