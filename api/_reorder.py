"""The load/store reordering framework: the kernel analyzer, proofs of the unit, witness replay, timing runs.

``warpcheck analyze`` and ``warpcheck reorder prove|replay|simulate`` call the
``*_of`` functions here on their parsed options; the public functions build
the same options from keywords, so a script and the command line take one path
and get the same one-line errors.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from warpcheck._options import assignments, checked, choice, integer, joined, namespace
from warpcheck.cli.options import at_most, positive_seconds
from warpcheck.cli.reorder import prove as proving, streams as stream_proofs
from warpcheck.cli.reorder.replay import replay_file
from warpcheck.cli.reorder.sim import run_simulate
from warpcheck.cli.reorder.verbs import analysis_json, report as analysis_report, run_analysis
from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.l1 import STORE_POLICIES, parse_cache
from warpcheck.models.reorder.order import ORDERS
from warpcheck.models.reorder.streams import MAX_STREAM_LENGTH, MAX_STREAM_LINES, MAX_STREAM_WARPS
from warpcheck.sim.reorder.accesses import Analysis
from warpcheck.sim.reorder.timing import DESIGNS
from warpcheck.verify.reorder.props import CHECKS
from warpcheck.verify.reorder.streams import STREAM_CHECKS
from warpcheck.verify.result import EXIT_CODES, Status

__all__ = ["analyze", "reorder_prove", "reorder_replay", "reorder_simulate", "AnalysisResult", "ReorderResult"]

@dataclass
class AnalysisResult:
    """What the analyzer found: every warp's dynamic global loads/stores, their lines and the static order.

    ``to_dict()`` is what ``warpcheck analyze --json`` prints (keys
    ``instructions``, ``warps``, ``order``, ``l1`` when a cache was given);
    ``analysis`` is the analyzer's own record.  ``problem`` names what the
    analysis could not decide (a branch, guard or address that depends on
    loaded data); :func:`analyze` raises it as a :class:`ConfigError`.
    """

    data: dict[str, Any] = field(repr=False)
    analysis: Analysis = field(repr=False)
    problem: str | None = None

    @property
    def code(self) -> int:
        """The exit code of ``warpcheck analyze`` (0, or 2 for an undecided analysis)."""
        return ConfigError.code if self.problem else 0

    @property
    def order(self) -> list[tuple[tuple[int, ...], int, int]]:
        """The static order: (block, warp in the block, access of the warp) per request."""
        return [(tuple(o["block"]), o["warp"], o["access"]) for o in self.data["order"]]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck analyze --json`` prints)."""
        return self.data

    def report(self) -> str:
        """The text report ``warpcheck analyze`` prints."""
        return analysis_report(self.data)


@dataclass
class ReorderResult:
    """The end of a ``reorder`` run (``prove``, ``replay`` or ``simulate``): its status, its data, its exit code.

    ``status``: a proof's PASS, FAIL, UNKNOWN, TIMEOUT or ERROR (a FAIL
    whose schedules do not replay on the simulator is an ERROR); for a
    replay or a timing run, PASS when the simulator agrees (the witness
    reproduces, the unit kept the static order), FAIL when the unit
    deadlocked, ERROR for a bug of the kit.  ``witness`` is a FAIL's witness
    file (replay it with :func:`reorder_replay`).
    """

    action: str
    status: str
    code: int
    data: dict[str, Any] = field(repr=False)
    text: str = field(repr=False, default="")

    @property
    def witness(self) -> str | None:
        """The witness file a FAIL wrote, else None."""
        return self.data.get("witness")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck reorder ACTION --json`` prints)."""
        return self.data

    def report(self) -> str:
        """The text report the verb prints."""
        return self.text


def _kernel_options(kernel: str | Path | None, grid: Any, block: Any, params: Any, entry: str | None,
                    line_bytes: int, order: str, stores: str) -> dict[str, Any]:
    """The options every kernel verb shares (``add_kernel_options``), from keywords."""
    return dict(kernel=None if kernel is None else str(kernel), entry=entry, grid=joined(grid), block=joined(block),
                param=assignments(params) or None, line_bytes=checked("--line-bytes", line_bytes, integer),
                order=choice("--order", order, ORDERS), stores=choice("--stores", stores, STORE_POLICIES), json=True)


def _needs(**given: Any) -> None:
    missing = [f"{k}=" for k, v in given.items() if v is None]
    if missing:
        raise ConfigError(f"give {', '.join(missing)} (the launch of the kernel, e.g. grid=(1, 2, 1), block=32)")


def analyze(kernel: str | Path, *, grid: Any, block: Any, params: Any = None, entry: str | None = None,
            cache: str | None = None, line_bytes: int = 128, order: str = "round",
            stores: str = "evict") -> AnalysisResult:
    """Run every warp of a kernel (a PTX file) concretely and list its global loads/stores and the static order.

    ``grid`` and ``block`` are ``X``, ``(X, Y, Z)`` or ``"X,Y,Z"``;
    ``params`` gives every kernel parameter (``{"in": 0}``, by name, suffix
    or index); ``entry`` picks a kernel in a module with several; ``cache``
    (``"16K:4"``) also replays the L1 in the static order; ``order`` is
    ``round`` or ``barrier``.  A branch, guard or address that depends on
    loaded data raises :class:`ConfigError` naming it.
    """
    _needs(grid=grid, block=block)
    r = analysis_of(namespace(**_kernel_options(kernel, grid, block, params, entry, line_bytes, order, stores),
                              cache=cache))
    if r.problem:
        raise ConfigError(r.problem)
    return r


def analysis_of(a: argparse.Namespace) -> AnalysisResult:
    """``analyze`` on parsed options (an undecided analysis is returned with its ``problem``, not raised)."""
    an = run_analysis(a)
    spec = parse_cache(a.cache, a.line_bytes, a.stores) if a.cache else None
    problem = an.undecided[0].describe(a.kernel) if an.undecided else None
    return AnalysisResult(analysis_json(an, a.order, spec), an, problem)


def reorder_prove(kernel: str | Path | None = None, *, grid: Any = None, block: Any = None, params: Any = None,
                  entry: str | None = None, streams: int | None = None, warps: int = 2,
                  blocks: Sequence[int] | str | None = None, lines: int = 6, mutant: str | None = None,
                  unit: bool = True, check: str | None = None, channel: int = 2, cache: str | None = None,
                  max_k: int = 4, depth: int | None = None, timeout: float | None = 300.0, samples: int = 50,
                  witness: str | Path | None = None, order: str = "round", stores: str = "evict",
                  line_bytes: int = 128, progress: Callable[[str], None] | None = None) -> ReorderResult:
    """Prove the reordering unit sends requests to L1 in the static order: for a kernel, or for every stream.

    On a kernel (``kernel``, ``grid``, ``block``, ``params`` as for
    :func:`analyze`): ``check`` is ``order`` (default), ``misses``,
    ``deadlock`` or ``wait``, proved by k-induction up to ``max_k``;
    ``unit=False`` searches (BMC) for schedules whose L1 orders differ and
    replays them.  With ``streams=N`` (no kernel): every stream of 0..N
    requests per warp of ``warps`` warps over ``lines`` lines; ``check`` is
    ``stream`` (default: order, wait and misses), ``order``, ``wait`` or
    ``misses``; ``mutant`` proves a broken copy of the unit.  A FAIL's
    witness goes to ``witness`` (default: a new temporary folder).
    """
    if streams is None:
        _needs(kernel=kernel, grid=grid, block=block)
    known = CHECKS + tuple(c for c in STREAM_CHECKS if c not in CHECKS)
    a = namespace(**_kernel_options(kernel, grid, block, params, entry, line_bytes, order, stores),
                  streams=checked("--streams", streams, at_most(MAX_STREAM_LENGTH)),
                  warps=checked("--warps", warps, at_most(MAX_STREAM_WARPS)), blocks=joined(blocks),
                  lines=checked("--lines", lines, at_most(MAX_STREAM_LINES)), mutant=mutant, no_unit=not unit,
                  check=choice("--check", check, known), channel=checked("--channel", channel, at_most(64)),
                  cache=cache, max_k=checked("--max-k", max_k, at_most(64)),
                  depth=checked("--depth", depth, at_most(10_000)),
                  timeout=checked("--timeout", 300.0 if timeout is None else timeout, positive_seconds),
                  samples=checked("--samples", samples, at_most(100_000)),
                  witness=None if witness is None else str(witness), temporary=True)
    return proof_of(a, progress)


def proof_of(a: argparse.Namespace, progress: Callable[[str], None] | None = None) -> ReorderResult:
    """``reorder prove`` on parsed options."""
    out = proving.run_prove(a, progress)
    text = stream_proofs.report(out) if out.get("mode") == "streams" else proving.report(out)
    return ReorderResult("prove", out["status"], EXIT_CODES[Status(out["status"])], out, text)


def reorder_replay(witness: str | Path | ReorderResult) -> ReorderResult:
    """Rerun a reorder witness (a file, or the result of a FAIL) on the unit's simulator.

    A kernel witness runs each schedule with and without the unit; a stream
    witness replays the stream against the reference.  ``status`` is PASS
    (``code`` 0) when the violation reproduces, ERROR (5: a bug of the kit)
    when it does not.
    """
    if isinstance(witness, ReorderResult):
        if witness.witness is None:
            raise ConfigError(f"the reorder {witness.action} ended {witness.status}: it has no witness to replay")
        witness = witness.witness
    return replay_of(str(witness))


def replay_of(path: str) -> ReorderResult:
    """``reorder replay`` of a witness file."""
    out, text = replay_file(path)
    ok = bool(out["reproduced"])
    return ReorderResult("replay", "PASS" if ok else "ERROR", 0 if ok else EXIT_CODES[Status.ERROR], out, text)


def reorder_simulate(kernel: str | Path, *, grid: Any, block: Any, params: Any = None, entry: str | None = None,
                     cache: str = "16K:4", hit: int = 20, miss: int = 200, jitter: int = 0, seeds: int = 1,
                     design: str = "baseline", channel: int = 2, order: str = "round", stores: str = "evict",
                     line_bytes: int = 128) -> ReorderResult:
    """Cycles and L1 misses of a kernel: LRR, LRR with the reordering unit, and pure round robin.

    Each configuration runs once per seed of the memory-side jitter (a miss
    takes ``miss`` + 0..``jitter`` cycles); ``design`` is the SM front end
    (``baseline`` or ``swas``).  ``to_dict()["configs"]`` holds each
    configuration's cycles, load misses and charged cycle bound.  Under the
    unit the L1 order must be the static order (else ERROR, a bug of the
    kit); a unit that deadlocks at a barrier is a FAIL.
    """
    _needs(grid=grid, block=block)
    a = namespace(**_kernel_options(kernel, grid, block, params, entry, line_bytes, order, stores), cache=cache,
                  hit=checked("--hit", hit, integer), miss=checked("--miss", miss, integer),
                  jitter=checked("--jitter", jitter, integer), seeds=checked("--seeds", seeds, at_most(10_000)),
                  design=choice("--design", design, DESIGNS), channel=checked("--channel", channel, at_most(64)))
    return simulation_of(a)


def simulation_of(a: argparse.Namespace) -> ReorderResult:
    """``reorder simulate`` on parsed options."""
    out, code, text = run_simulate(a)
    status = {0: Status.PASS, 1: Status.FAIL}.get(code, Status.ERROR)
    return ReorderResult("simulate", status.value, code, out, text)
