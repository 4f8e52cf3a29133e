"""Kernels (PTX, SASS-style listings): the warp-level CFG, its IPET WCET bound, one warp run concretely.

``warpcheck cfg|wcet|simt`` call the ``*_of`` functions here on their parsed
options; the public functions build the same options from keywords, so a
script and the command line take one path and get the same one-line errors.
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

from warpcheck._options import assignments, checked, integer, namespace
from warpcheck import _guard as guard
from warpcheck.cli.kernels import verbs as kv
from warpcheck.cli.options import positive_seconds
from warpcheck.models.errors import ConfigError, WarpcheckError
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.warp_cfg import WarpCFG

__all__ = ["cfg", "wcet", "simt", "KernelResult", "CfgResult", "WcetResult", "SimtResult", "RunTimeoutError"]

R = TypeVar("R", bound="KernelResult")
Show = Callable[[str], None]


class RunTimeoutError(WarpcheckError, TimeoutError):
    """The run went past its ``timeout`` (set-up included): exit code 4, as ``--timeout`` gives."""

    code = guard.EXIT_TIMEOUT


@dataclass(repr=False)
class KernelResult:
    """What a kernel verb found for one entry, or for several (``entries``); ``to_dict()`` is its ``--json``.

    With several entries (``entry=[...]`` or ``all_entries=True``),
    ``entries`` holds each entry's result, ``refused`` maps each entry
    refused to its one-line reason (the others still ran; ``code`` is then
    2), and the attributes of one entry (``kernel``, ...) are None.
    """

    data: dict[str, Any] = field(repr=False)
    text: str = field(repr=False, default="")
    entries: list[Any] = field(repr=False, default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)

    @property
    def code(self) -> int:
        """The verb's exit code: 0, or 2 when an entry was refused."""
        return guard.EXIT_BAD_INPUT if self.refused else 0

    @property
    def kernel(self) -> str | None:
        """The kernel's (entry's) name."""
        return self.data.get("kernel")

    def __repr__(self) -> str:
        what = f"kernel={self.kernel!r}" if self.kernel else f"entries={[e.kernel for e in self.entries]!r}"
        return f"{type(self).__name__}({what}, code={self.code}{self._headline()})"

    def _headline(self) -> str:
        return ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what the verb's ``--json`` prints)."""
        return self.data

    def report(self) -> str:
        """The text report the verb prints."""
        return self.text


@dataclass(repr=False)
class CfgResult(KernelResult):
    """The warp-level CFG of a kernel: blocks paired with abstract activation stacks.

    ``nodes`` (id, block, stack, cost), ``edges`` (from, to, kinds) and
    ``branches`` (each conditional branch, ``uniform`` when value agreement
    proves it); ``warp_cfg`` is the graph itself (a networkx ``graph``, the
    thread-level ``cfg``) for a script to walk.
    """

    warp_cfg: WarpCFG | None = field(repr=False, default=None)

    @property
    def nodes(self) -> list[dict[str, Any]] | None:
        """The warp-level nodes (the end node left out)."""
        return self.data.get("nodes")

    @property
    def edges(self) -> list[dict[str, Any]] | None:
        """The edges, each with its kinds (taken, fallthrough, ...)."""
        return self.data.get("edges")

    @property
    def branches(self) -> list[dict[str, Any]] | None:
        """The conditional branches and whether each is proved uniform."""
        return self.data.get("branches")


@dataclass(repr=False)
class WcetResult(KernelResult):
    """The IPET bound of one warp in isolation: ``wcet`` cycles, the worst path and the loop bounds used.

    ``path``: each warp-level node executed on the worst path with its
    count; ``blocks``: each block's cost and count; ``loops``: each loop
    header's bound; ``solvers``: ``["z3", "highs"]`` when HiGHS re-solved the
    same problem and agreed.
    """

    def _headline(self) -> str:
        return f", wcet={self.wcet}" if self.wcet is not None else ""

    @property
    def wcet(self) -> int | None:
        """The bound, in cycles."""
        return self.data.get("wcet")

    @property
    def path(self) -> list[dict[str, Any]] | None:
        """The worst-case path: warp-level node, block, stack, count."""
        return self.data.get("path")

    @property
    def blocks(self) -> list[dict[str, Any]] | None:
        """Each basic block: label, cost, count on the worst path, instructions."""
        return self.data.get("blocks")

    @property
    def loops(self) -> list[dict[str, Any]] | None:
        """Each loop: header, bound, nodes."""
        return self.data.get("loops")

    @property
    def branches(self) -> list[dict[str, Any]] | None:
        """The conditional branches and whether each is proved uniform."""
        return self.data.get("branches")


@dataclass(repr=False)
class SimtResult(KernelResult):
    """One warp run concretely through the activation stack: the (block, active mask) steps and the cycles."""

    def _headline(self) -> str:
        return f", cycles={self.cycles}"

    @property
    def steps(self) -> list[dict[str, Any]]:
        """Each block executed and its active mask (thread 0 first)."""
        return self.data["steps"]

    @property
    def cycles(self) -> int:
        """The run's cycles under the cost model."""
        return self.data["cycles"]


# -- keywords into the verbs' options ------------------------------------
def _entries(entry: str | Sequence[str] | None) -> list[str] | None:
    if entry is None:
        return None
    return [entry] if isinstance(entry, str) else [str(e) for e in entry]


def _seconds(timeout: float | None) -> float | None:
    if isinstance(timeout, float) and not math.isfinite(timeout):
        raise ConfigError(f"--timeout {timeout} is not allowed; give a finite number")
    return checked("--timeout", timeout, positive_seconds)


def _analysis(kernel: str | Path, entry: Any, all_entries: bool, value_agreement: bool, threads: int,
              max_states: int, latency: Any, mem_latency: int | None) -> dict[str, Any]:
    """The options ``cfg`` and ``wcet`` share (``--entry``, ``--threads``, the cost model), from keywords."""
    return dict(kernel=str(kernel), entry=_entries(entry), all_entries=bool(all_entries),
                no_value_agreement=not value_agreement, threads=checked("--threads", threads, integer),
                max_states=checked("--max-states", max_states, integer), latency=assignments(latency) or None,
                mem_latency=checked("--mem-latency", mem_latency, integer), json=True)


def _within(timeout: float | None, run: Callable[[], R]) -> R:
    """``run()`` stopped after ``timeout`` seconds as the command line stops it (none inside a guarded run)."""
    if timeout is None or guard.GUARDING:
        return run()
    started = time.monotonic()
    try:
        with guard.guarded(timeout, started):
            return run()
    except guard.RunTimeout:
        raise RunTimeoutError(f"the run did not finish within timeout = {timeout:g} s (set-up included)") from None


# -- the public functions --------------------------------------------------
def cfg(kernel: str | Path, *, entry: str | Sequence[str] | None = None, all_entries: bool = False,
        value_agreement: bool = True, threads: int = 32, max_states: int = 20000,
        latency: Mapping[str, int] | None = None, mem_latency: int | None = None, dot: str | Path | None = None,
        timeout: float | None = 60.0) -> CfgResult:
    """Build the warp-level CFG of a kernel: its blocks paired with abstract activation stacks.

    ``kernel`` is a PTX file or a SASS-style listing (``.sass``); ``entry``
    names a kernel of a module with several (a substring works; a list for
    several), ``all_entries=True`` takes every one (the file is parsed once);
    ``value_agreement=False`` treats every guarded branch as possibly
    divergent; ``latency`` overrides class latencies (``{"mem": 200}``);
    ``dot`` also writes the graph as Graphviz DOT.  The run stops after
    ``timeout`` seconds with :class:`RunTimeoutError` (code 4).
    """
    a = namespace(**_analysis(kernel, entry, all_entries, value_agreement, threads, max_states, latency,
                              mem_latency), dot=None if dot is None else str(dot), timeout=_seconds(timeout))
    return _within(a.timeout, lambda: cfg_of(a))


def wcet(kernel: str | Path, *, entry: str | Sequence[str] | None = None, all_entries: bool = False,
         max_loop_bound: int | None = None, loop_bounds: Mapping[str, int] | Sequence[str] | None = None,
         bounds: str | Path | None = None, latency: Mapping[str, int] | None = None, mem_latency: int | None = None,
         value_agreement: bool = True, threads: int = 32, max_states: int = 20000, cross_check: bool = True,
         timeout: float | None = 60.0) -> WcetResult:
    """Bound the execution time of one warp in isolation by IPET over its warp-level CFG.

    A loop bound N: each thread executes the loop's header at most N times
    per entry into the loop.  ``loop_bounds`` names loops by their header's
    label (``{"$L__BB0_3": 16}``), ``bounds`` reads them from a TOML file
    (``[loops] LABEL = N``) and ``max_loop_bound`` bounds every loop not
    named; a loop with no bound is refused.  The bound is Z3's optimum,
    re-solved by HiGHS unless ``cross_check=False``.  The other keywords are
    :func:`cfg`'s.
    """
    a = namespace(**_analysis(kernel, entry, all_entries, value_agreement, threads, max_states, latency,
                              mem_latency),
                  max_loop_bound=checked("--max-loop-bound", max_loop_bound, kv.LOOP_BOUND),
                  loop_bound=assignments(loop_bounds) or None, bounds=None if bounds is None else str(bounds),
                  no_cross_check=not cross_check, timeout=_seconds(timeout))
    return _within(a.timeout, lambda: wcet_of(a))


def simt(kernel: str | Path, *, entry: str | None = None, inputs: str | Path | Mapping[str, Any] | None = None,
         threads: int = 32, warp: int = 0, max_steps: int = 100000, latency: Mapping[str, int] | None = None,
         mem_latency: int | None = None, timeout: float | None = 60.0) -> SimtResult:
    """Run one warp of a kernel concretely (per-thread registers, activation stack).

    ``inputs`` is a TOML or JSON file, or its mapping directly
    (``{"params": {"param_2": 8}, "ctaid": [0], "ntid": [32], "seed": 1}``);
    ``warp`` picks the warp of the block (``%tid.x = warp * threads + lane``);
    past ``max_steps`` blocks the kernel is refused as not ending.
    """
    a = namespace(kernel=str(kernel), entry=entry, inputs=dict(inputs) if isinstance(inputs, Mapping)
                  else None if inputs is None else str(inputs), threads=checked("--threads", threads, integer),
                  warp=checked("--warp", warp, integer),
                  max_steps=checked("--max-steps", max_steps, kv.MAX_STEPS),
                  latency=assignments(latency) or None, mem_latency=checked("--mem-latency", mem_latency, integer),
                  timeout=_seconds(timeout), json=True)
    return _within(a.timeout, lambda: simt_of(a))


# -- on parsed options (the verbs) -----------------------------------------
def cfg_of(a: argparse.Namespace, show: Show | None = None) -> CfgResult:
    """``cfg`` on parsed options; ``show`` gets each entry's text as it ends (several entries)."""
    if a.dot and (a.all_entries or len(a.entry or []) > 1):
        raise ConfigError("--dot writes the CFG of one entry; give a single --entry with --dot")
    return _each_entry(a, CfgResult, _cfg_one, show)


def _cfg_one(a: argparse.Namespace, kernel: Kernel) -> CfgResult:
    obj, text, wcfg = kv.cfg_one(a, kernel)
    return CfgResult(obj, text, warp_cfg=wcfg)


def wcet_of(a: argparse.Namespace, show: Show | None = None) -> WcetResult:
    """``wcet`` on parsed options; ``show`` gets each entry's text as it ends (several entries)."""
    if a.max_loop_bound is not None and a.max_loop_bound < 0:
        raise ConfigError(f"--max-loop-bound is {a.max_loop_bound!r}; use a non-negative integer")
    return _each_entry(a, WcetResult, lambda a, k: WcetResult(*kv.wcet_one(a, k)), show)


def simt_of(a: argparse.Namespace) -> SimtResult:
    """``simt`` on parsed options."""
    return SimtResult(*kv.simt_one(a))


def _each_entry(a: argparse.Namespace, kind: type[R], one: Callable[[argparse.Namespace, Kernel], R],
                show: Show | None) -> R:
    """``one`` on each entry chosen; several give one result whose ``entries`` are theirs (refusals kept)."""
    with kv.one_parse_per_file():
        names = kv.chosen_entries(a)
        if not (a.all_entries or len(a.entry or []) > 1):
            return one(a, kv.load_kernel(a.kernel, names[0]))
        done, objects, texts, refused = [], [], [], {}
        for name in names:
            try:
                r = one(a, kv.load_kernel(a.kernel, name))
                done.append(r)
                obj, text = r.data, r.text
            except WarpcheckError as e:
                refused[str(name)] = str(e)
                obj, text = {"kernel": name, "status": "BAD_INPUT", "error": str(e)}, f"kernel {name}: refused: {e}"
            objects.append(obj)
            texts.append(text)
            if show is not None:
                show(text)
    return kind({"file": a.kernel, "entries": objects}, "\n\n".join(texts), done, refused)
