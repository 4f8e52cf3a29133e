"""The load/store reordering framework: the kernel analyzer, proofs of the unit, witness replay, timing runs.

Each verb has one options record (:mod:`warpcheck._reorder.options`) and one
function that runs a record: :func:`analysis_of`, :func:`proof_of`,
:func:`replay_of`, :func:`simulation_of`.  ``warpcheck analyze`` and
``warpcheck reorder prove|replay|simulate`` build the record from argv and call
them; the public functions (:func:`analyze`, :func:`reorder_prove`,
:func:`reorder_replay`, :func:`reorder_simulate`) build it from keywords and
call them inside the run guard (``timeout=``, ``memory=``), so a script and
the command line take one path and get the same answers.  The workflows live
in modules of their own: ``launch`` (the kernel read, its parameters bound,
the analyzer run), ``analysis``, ``kernel_proof``, ``stream_proof``,
``replay``, ``simulate`` and ``mutation`` (the mutation suite's harness).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from warpcheck._guard import bounded
from warpcheck._reorder.options import (AnalyzeOptions, ReorderProveOptions, ReorderReplayOptions,
                                        ReorderSimulateOptions)
from warpcheck._values import build, callback, flag
from warpcheck.models.errors import ConfigError
from warpcheck.verify.result import EXIT_CODES, Status

if TYPE_CHECKING:
    from warpcheck.sim.reorder.accesses import Analysis

__all__ = ["analyze", "reorder_prove", "reorder_replay", "reorder_simulate", "AnalysisResult", "ReorderResult",
           "AnalyzeOptions", "ReorderProveOptions", "ReorderReplayOptions", "ReorderSimulateOptions",
           "analysis_of", "proof_of", "replay_of", "simulation_of"]


def _workflow(name: str) -> ModuleType:
    """A workflow module, imported when a verb runs (parsing a command line loads none of them)."""
    return importlib.import_module(f"{__name__}.{name}")


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
    def kernel(self) -> str:
        """The kernel's name."""
        return str(self.data["kernel"])

    @property
    def order(self) -> list[tuple[tuple[int, ...], int, int]]:
        """The static order: (block, warp in the block, access of the warp) per request."""
        return [(tuple(o["block"]), o["warp"], o["access"]) for o in self.data["order"]]

    @property
    def l1(self) -> dict[str, Any] | None:
        """The L1 replayed in the static order (``load_misses``, ``miss_rate``, ...), when a cache was given."""
        return self.data.get("l1")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck analyze --json`` prints); an undecided analysis is bad input, said first."""
        return {"status": "BAD_INPUT", "error": self.problem, **self.data} if self.problem else self.data

    def report(self) -> str:
        """The text report ``warpcheck analyze`` prints."""
        return _workflow("analysis").report(self.data)


@dataclass
class ReorderResult:
    """The end of a ``reorder`` run (``prove``, ``replay`` or ``simulate``): its status, its data, its exit code.

    ``status``: a proof's PASS, FAIL, UNKNOWN, TIMEOUT or ERROR (a FAIL
    whose schedules do not replay on the simulator is an ERROR); for a
    replay or a timing run, PASS when the simulator agrees (the witness
    reproduces, the unit kept the static order), FAIL when the unit
    deadlocked, ERROR for a bug of the kit.  ``witness`` is a FAIL's witness
    file (replay it with :func:`reorder_replay`); ``check``, ``kernel``,
    ``reproduced`` and ``configs`` (a timing run's configurations) read
    ``to_dict()``, which is what ``warpcheck reorder ACTION --json`` prints.
    """

    action: str
    status: str
    code: int
    data: dict[str, Any] = field(repr=False)

    @property
    def witness(self) -> str | None:
        """The witness file a FAIL wrote, else None."""
        return self.data.get("witness")

    @property
    def check(self) -> str | None:
        """The property proved or replayed (``order``, ``misses``, ``stream``, ...); None for a timing run."""
        return self.data.get("check")

    @property
    def kernel(self) -> str | None:
        """The kernel's name (None for a proof over every stream)."""
        return self.data.get("kernel")

    @property
    def reproduced(self) -> bool | None:
        """Whether the simulator reproduced the violation (a FAIL or a replay), else None."""
        return self.data.get("reproduced")

    @property
    def configs(self) -> dict[str, Any]:
        """A timing run's configurations (``default``, ``unit``, ``rr``): cycles, misses, bounds; else empty."""
        return dict(self.data.get("configs", {}))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck reorder ACTION --json`` prints)."""
        return self.data

    def report(self) -> str:
        """The text report the verb prints."""
        if self.action == "replay":
            return _workflow("replay").report(self.data)
        if self.action == "simulate":
            return _workflow("simulate").report(self.data)
        return _workflow("stream_proof" if self.data.get("mode") == "streams" else "kernel_proof").report(self.data)


def _keywords(given: dict[str, Any]) -> dict[str, Any]:
    """The functions' older keywords as the record's fields: ``params`` is ``param``, ``unit`` is ``not no_unit``."""
    out = dict(given)
    if "params" in out:
        if "param" in out:
            raise ConfigError("give param= or params= (the same option), not both")
        out["param"] = out.pop("params")
    if "unit" in out:
        if "no_unit" in out:
            raise ConfigError("give unit= or no_unit= (the same option, negated), not both")
        out["no_unit"] = not flag("unit", out.pop("unit"))
    return out


def analyze(kernel: str | Path | None = None, **keywords: Any) -> AnalysisResult:
    """Run every warp of a kernel (a PTX file) concretely and list its global loads/stores and the static order.

    The keywords are the fields of :class:`AnalyzeOptions` (the options of
    ``warpcheck analyze``): ``grid`` and ``block`` are ``X``, ``(X, Y, Z)``
    or ``"X,Y,Z"``; ``param`` (or ``params``) gives every kernel parameter
    (``{"in": 0}``, by name, suffix or index); ``entry`` picks a kernel in a
    module with several; ``cache`` (``"16K:4"``) also replays the L1 in the
    static order; ``order`` is ``round`` or ``barrier``; ``timeout`` and
    ``memory`` bound the run.  A branch, guard or address that depends on
    loaded data raises :class:`ConfigError` naming it.
    """
    o = build(AnalyzeOptions, "analyze", _keywords({"kernel": kernel, **keywords}))
    with bounded(o.timeout, o.memory):
        r = analysis_of(o)
    if r.problem:
        raise ConfigError(r.problem)
    return r


def analysis_of(o: AnalyzeOptions) -> AnalysisResult:
    """``analyze`` on its options (an undecided analysis is returned with its ``problem``, not raised)."""
    from warpcheck.models.reorder.l1 import parse_cache
    an = _workflow("launch").run_analysis(o)
    spec = parse_cache(o.cache, o.line_bytes, o.stores) if o.cache else None
    problem = an.undecided[0].describe(o.kernel or an.kernel.name) if an.undecided else None
    return AnalysisResult(_workflow("analysis").analysis_json(an, o.order, spec), an, problem)


def reorder_prove(kernel: str | Path | None = None, *, progress: Callable[[str], None] | None = None,
                  **keywords: Any) -> ReorderResult:
    """Prove the reordering unit sends requests to L1 in the static order: for a kernel, or for every stream.

    The keywords are the fields of :class:`ReorderProveOptions` (the options
    of ``warpcheck reorder prove``).  On a kernel (``kernel``, ``grid``,
    ``block``, ``param`` as for :func:`analyze`): ``check`` is ``order``
    (default), ``misses``, ``deadlock`` or ``wait``, proved by k-induction up
    to ``max_k``; ``no_unit=True`` (or ``unit=False``) searches (BMC) for
    schedules whose L1 orders differ and replays them.  With ``streams=N``
    (no kernel): every stream of 0..N requests per warp of ``warps`` warps
    over ``lines`` lines; ``check`` is ``stream`` (default: order, wait and
    misses), ``order``, ``wait`` or ``misses``; ``mutant`` proves a broken
    copy of the unit.  A FAIL's witness goes to ``witness`` (default: a new
    temporary folder).  ``progress`` receives a line on what a long proof is
    doing.
    """
    callback("progress", progress)
    o = build(ReorderProveOptions, "reorder_prove", _keywords({"kernel": kernel, **keywords}))
    with bounded(o.timeout, o.memory):
        return proof_of(o, progress)


def proof_of(o: ReorderProveOptions, progress: Callable[[str], None] | None = None,
             folder: str | None = None) -> ReorderResult:
    """``reorder prove`` on its options; a FAIL's witness without ``o.witness`` goes into ``folder`` (None: temp)."""
    certificate = _workflow("certificate")
    if o.streams is None:
        out = _workflow("kernel_proof").run_prove(o, progress, folder)
        members = certificate.kernel_members(o, out)
    else:
        members = []
        out = _workflow("stream_proof").run_streams(o, folder, members)
    if o.certificate or (out["status"] == "PASS" and not (o.no_certificate or o.no_unit)):  # every PASS has one
        certificate.attach(o, out, members, o.certificate or certificate.default_path(o, out, folder))
    return ReorderResult("prove", out["status"], EXIT_CODES[Status(out["status"])], out)


def reorder_replay(witness: str | Path | ReorderResult, **keywords: Any) -> ReorderResult:
    """Rerun a reorder witness (a file, or the result of a FAIL) on the unit's simulator.

    A kernel witness runs each schedule with and without the unit; a stream
    witness replays the stream against the reference.  ``status`` is PASS
    (``code`` 0) when the violation reproduces, ERROR (5: a bug of the kit)
    when it does not.  The keywords are ``timeout`` and ``memory``.
    """
    if isinstance(witness, ReorderResult):
        if witness.witness is None:
            raise ConfigError(f"the reorder {witness.action} ended {witness.status}: it has no witness to replay")
        witness = witness.witness
    o = build(ReorderReplayOptions, "reorder_replay", {"witness": witness, **keywords})
    with bounded(o.timeout, o.memory):
        return replay_of(o)


def replay_of(o: ReorderReplayOptions) -> ReorderResult:
    """``reorder replay`` of the options' witness file."""
    assert o.witness is not None  # the record refuses a missing one
    out = _workflow("replay").replay_file(o.witness)
    ok = bool(out["reproduced"])
    return ReorderResult("replay", "PASS" if ok else "ERROR", 0 if ok else EXIT_CODES[Status.ERROR], out)


def reorder_simulate(kernel: str | Path | None = None, **keywords: Any) -> ReorderResult:
    """Cycles and L1 misses of a kernel: LRR, LRR with the reordering unit, and pure round robin.

    The keywords are the fields of :class:`ReorderSimulateOptions` (the
    options of ``warpcheck reorder simulate``; the launch as for
    :func:`analyze`).  Each configuration runs once per seed of the
    memory-side jitter (a miss takes ``miss`` + 0..``jitter`` cycles);
    ``design`` is the SM front end (``baseline`` or ``swas``).
    ``to_dict()["configs"]`` holds each configuration's cycles, load misses
    and charged cycle bound.  Under the unit the L1 order must be the static
    order (else ERROR, a bug of the kit); a unit that deadlocks at a barrier
    is a FAIL.
    """
    o = build(ReorderSimulateOptions, "reorder_simulate", _keywords({"kernel": kernel, **keywords}))
    with bounded(o.timeout, o.memory):
        return simulation_of(o)


def simulation_of(o: ReorderSimulateOptions) -> ReorderResult:
    """``reorder simulate`` on its options."""
    out, code = _workflow("simulate").run_simulate(o)
    status = {0: Status.PASS, 1: Status.FAIL}.get(code, Status.ERROR)
    return ReorderResult("simulate", status.value, code, out)
