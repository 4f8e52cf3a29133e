"""The options records of ``analyze`` and ``reorder prove|replay|simulate``: every default stated once, here.

A record is frozen and checks every field when it is made (a wrong value
raises :class:`OptionError` naming the field, which the command line re-spells
as the flag).  Fields are named like the verbs' argparse dests (``line_bytes``
is ``--line-bytes``).  The kernel launch (file, entry, grid,
block, parameters, line size, order rule, store policy) is shared by the three
kernel verbs through :class:`LaunchOptions`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpcheck._values import (DEFAULT_MEMORY_GIB, assignments, certificate_or_none, distinct_paths, flag, gib, integer, one_of,
                               optional_integer, path, seconds, settle, text, whole)
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.reorder.l1 import STORE_POLICIES, parse_cache
from warpcheck.models.reorder.order import ORDERS
from warpcheck.models.reorder.streams import MAX_STREAM_LENGTH, MAX_STREAM_LINES, MAX_STREAM_WARPS
from warpcheck.models.frontend.config import DESIGNS
from warpcheck.models.limits import MAX_BLOCKS, MAX_LATENCY, MAX_THREADS_PER_BLOCK
from warpcheck.verify.reorder.checks import CHECKS, STREAM_CHECKS

__all__ = ["LaunchOptions", "AnalyzeOptions", "ReorderProveOptions", "ReorderReplayOptions",
           "ReorderSimulateOptions", "CHANNEL", "KERNEL_CACHE", "STREAM_CACHE"]

CHANNEL = 2  # the channel depth the proofs cover, and the timing runs' default: one default for both verbs
KERNEL_CACHE = "16K:4"  # the L1 of a kernel proof or timing run
STREAM_CACHE = "1K:2"  # 4 sets of 2 ways at 128-byte lines: sets != ways, and 12 lines put three in each set
MAX_CHANNEL = 64
MAX_LINE_BYTES = 1 << 20  # as a witness file's line_bytes
LATENCY_WHY = "as an SM configuration's latencies: no memory takes longer"
Dim3 = tuple[int, int, int]


def dims(option: str, value: Any, limit: int) -> Dim3 | None:
    """``X``, ``(X, Y, Z)`` or ``"X,Y,Z"`` as a 3-tuple of positive ints whose product is at most ``limit``."""
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else [value] if isinstance(value, int) else value
    if not isinstance(parts, (list, tuple)) or not 1 <= len(parts) <= 3:
        raise OptionError(option, value, "not X[,Y[,Z]]; write e.g. 2,1,1")
    sizes = [integer(option, p.strip() if isinstance(p, str) else p, low=1) if _whole(p) else _bad_dims(option, value)
             for p in parts]
    out = (*sizes, *[1] * (3 - len(sizes)))
    if out[0] * out[1] * out[2] > limit:
        raise OptionError(option, value, f"above the ceiling of {limit} (the product of the sizes)")
    return out[0], out[1], out[2]


def _whole(p: Any) -> bool:
    return whole(p) is not None


def _bad_dims(option: str, value: Any) -> int:
    raise OptionError(option, value, "not X[,Y[,Z]]; write e.g. 2,1,1")


def params(option: str, value: Any) -> dict[str, int]:
    """Kernel parameters as ``{"in": 0}`` or ``["in=0"]``; in a list a name given twice is refused."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = [v.partition("=")[0].strip() for v in value]
        twice = [n for i, n in enumerate(names) if n in names[:i]]
        if twice:
            raise OptionError(option, value, f"gives {twice[0]!r} a second time; give each parameter once")
    return assignments(option, value, _param_value)


def _param_value(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ValueError(f"{v!r} is not an integer")
    return v if isinstance(v, int) else int(v.strip(), 0)  # too many digits: a ValueError, refused by name


def cache_text(option: str, value: Any, line_bytes: int, stores: str) -> str | None:
    """An L1 as ``SIZE:WAYS`` (``16K:4``), checked by building it."""
    if value is None:
        return None
    text(option, value, optional=False)
    parse_cache(value, line_bytes, stores, option)
    return value


@dataclass(frozen=True)
class LaunchOptions:
    """Which kernel runs how: the PTX file, its entry, the grid and block, every parameter; the L1 line and order.

    ``grid`` and ``block`` are ``X``, ``(X, Y, Z)`` or ``"X,Y,Z"`` (stored as
    3-tuples); ``param`` maps each kernel parameter (by name, by the suffix
    after its last ``_``, or by index) to an integer (``{"in": 0}``, or the
    command line's ``["in=0"]``).  ``order``: the static order, ``round`` or
    ``barrier``; ``stores``: what a store that hits in L1 does.
    """

    kernel: str | None = None
    entry: str | None = None
    grid: Any = None
    block: Any = None
    param: Any = None
    line_bytes: int = 128
    order: str = "round"
    stores: str = "evict"

    def __post_init__(self) -> None:
        line_bytes = integer("line_bytes", self.line_bytes, high=MAX_LINE_BYTES)
        if line_bytes < 1 or line_bytes & (line_bytes - 1):
            raise OptionError("line_bytes", self.line_bytes, "not a positive power of two; use e.g. 128")
        settle(self, kernel=path("kernel", self.kernel), entry=text("entry", self.entry),
               grid=dims("grid", self.grid, MAX_BLOCKS), block=dims("block", self.block, MAX_THREADS_PER_BLOCK),
               param=params("param", self.param), line_bytes=line_bytes,
               order=one_of("order", self.order, ORDERS), stores=one_of("stores", self.stores, STORE_POLICIES))

    def _launch_given(self, verb: str, other: str = "") -> None:
        """Refuse a record whose kernel, grid or block is missing (named as fields: the keywords, the flags' dests)."""
        missing = [name for name in ("kernel", "grid", "block") if getattr(self, name) is None]
        if missing:
            raise ConfigError(f"{verb} needs {', '.join(missing)} (a PTX file and its launch){other}")

    def _budget(self, timeout: Any, memory: Any) -> None:
        settle(self, timeout=seconds("timeout", timeout), memory=gib("memory", memory))


@dataclass(frozen=True)
class AnalyzeOptions(LaunchOptions):
    """``warpcheck analyze``: the launch, and ``cache`` (``SIZE:WAYS``) to replay the L1 in the static order."""

    cache: str | None = None
    timeout: float | None = 60.0
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        super().__post_init__()
        self._launch_given("analyze")
        settle(self, cache=cache_text("cache", self.cache, self.line_bytes, self.stores))
        self._budget(self.timeout, self.memory)


@dataclass(frozen=True)
class ReorderProveOptions(LaunchOptions):
    """``warpcheck reorder prove``: the unit proved on a kernel's launch, or (``streams``) for every stream.

    On a kernel: ``check`` is ``order`` (the default), ``misses``,
    ``deadlock`` or ``wait``; ``no_unit`` sends requests to L1 in arrival
    order (BMC to ``depth``, default requests + 2).  With ``streams=N``:
    ``warps`` warps (each one's block in ``blocks``) of 0..N requests over
    ``lines`` lines, at most ``barriers`` bar.sync counting per warp (default:
    any number, then a second proof with at most N - 2); ``check`` is
    ``stream`` (the default: order, wait, progress and misses), ``order``,
    ``wait``, ``progress`` or ``misses``; ``mutant`` proves a broken
    copy of the unit.  ``cache`` defaults to 16K:4 on a kernel and 1K:2 over
    streams; ``witness`` is where a FAIL's witness goes; ``certificate``
    where a PASS's certificates go (SMT-LIB2, one per proof: of the barrier
    family over streams, of the check and of progress on a kernel;
    ``warpcheck check`` runs them): by default beside the witness a FAIL would
    have had; ``no_certificate`` writes none.
    """

    streams: int | None = None
    warps: int = 2
    blocks: Any = None
    lines: int = 12
    barriers: int | None = None
    mutant: str | None = None
    no_unit: bool = False
    check: str | None = None
    channel: int = CHANNEL
    cache: str | None = None
    max_k: int = 4
    depth: int | None = None
    samples: int = 50
    witness: str | None = None
    certificate: str | None = None
    no_certificate: bool = False
    timeout: float | None = 300.0
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mutant is not None:
            from warpcheck.models.reorder.mutants import MUTANTS  # the unit's model: loaded only to name a mutant
            one_of("mutant", self.mutant, MUTANTS)
        streams = optional_integer("streams", self.streams, 1, MAX_STREAM_LENGTH)
        warps = integer("warps", self.warps, 1, MAX_STREAM_WARPS)
        settle(self, streams=streams, warps=warps, lines=integer("lines", self.lines, 1, MAX_STREAM_LINES),
               barriers=optional_integer("barriers", self.barriers, 0, MAX_STREAM_LENGTH),
               no_unit=flag("no_unit", self.no_unit), channel=integer("channel", self.channel, 1, MAX_CHANNEL),
               max_k=integer("max_k", self.max_k, 1, 64), depth=optional_integer("depth", self.depth, 1, 10_000),
               samples=integer("samples", self.samples, 1, 100_000), witness=path("witness", self.witness),
               certificate=path("certificate", self.certificate), no_certificate=flag("no_certificate", self.no_certificate))
        distinct_paths(self, inputs=("kernel",), outputs=("witness", "certificate"))
        certificate_or_none(self)
        if streams is None:
            self._kernel_mode()
        else:
            self._stream_mode()
        settle(self, cache=cache_text("cache", self.cache, self.line_bytes, self.stores))
        self._budget(self.timeout, self.memory)

    def _kernel_mode(self) -> None:
        self._launch_given("reorder prove", ", or streams to prove the unit for every stream")
        if self.barriers is not None:
            raise OptionError("barriers", self.barriers, "goes with streams (a kernel's barriers are its own)")
        if self.certificate is not None and self.no_unit:
            raise OptionError("certificate", self.certificate, "goes with the unit: no_unit searches schedules by "
                                                               "BMC, which never proves for every cycle")
        if self.mutant is not None and self.no_unit:
            raise OptionError("mutant", self.mutant, "is a broken copy of the unit; it goes without no_unit")
        check = one_of("check", "order" if self.check is None else self.check,
                       CHECKS + tuple(c for c in STREAM_CHECKS if c not in CHECKS))
        if check not in CHECKS:
            raise OptionError("check", check, f"for streams; on a kernel check one of: {', '.join(CHECKS)}")
        if self.no_unit and check in ("deadlock", "wait", "progress"):
            raise OptionError("check", check, "needs the unit; without the unit check order or misses")
        settle(self, check=check, cache=KERNEL_CACHE if self.cache is None else self.cache)

    def _stream_mode(self) -> None:
        given = [n for n in ("kernel", "grid", "block", "entry", "param", "no_unit") if getattr(self, n)]
        if self.barriers is not None and self.streams is not None and self.barriers > self.streams:
            raise OptionError("barriers", self.barriers, f"above the stream length {self.streams}; give 0 to "
                                                         f"{self.streams}")
        if given:
            raise OptionError(given[0], getattr(self, given[0]), "not for streams: they prove the unit for every "
                                                                 "stream, without a kernel")
        check = one_of("check", "stream" if self.check is None else self.check, STREAM_CHECKS + tuple(c for c in CHECKS
                                                                             if c not in STREAM_CHECKS))
        if check not in STREAM_CHECKS:
            raise OptionError("check", check, f"for a kernel; with streams check one of: {', '.join(STREAM_CHECKS)}")
        settle(self, check=check, cache=STREAM_CACHE if self.cache is None else self.cache, blocks=self._blocks())

    def _blocks(self) -> tuple[int, ...]:
        """Each warp's block (default: all in block 0)."""
        if self.blocks is None:
            return (0,) * self.warps
        parts = self.blocks.split(",") if isinstance(self.blocks, str) else self.blocks
        if not isinstance(parts, (list, tuple)) or len(parts) != self.warps or not all(_whole(p) for p in parts):
            raise OptionError("blocks", self.blocks, f"not one block number per warp ({self.warps}); write e.g. "
                                                     + ",".join("0" * self.warps))
        return tuple(integer("blocks", p.strip() if isinstance(p, str) else p, low=0) for p in parts)


@dataclass(frozen=True)
class ReorderReplayOptions:
    """``warpcheck reorder replay``: the witness file a FAIL of ``reorder prove`` wrote."""

    witness: str | None = None
    timeout: float | None = 600.0
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        settle(self, witness=path("witness", self.witness, optional=False), timeout=seconds("timeout", self.timeout),
               memory=gib("memory", self.memory))


@dataclass(frozen=True)
class ReorderSimulateOptions(LaunchOptions):
    """``warpcheck reorder simulate``: the launch, the L1 (``cache``), its latencies and jitter, seeds, the SM.

    A hit takes ``hit`` cycles, a miss ``miss`` + 0..``jitter`` (drawn per
    seed); each configuration runs ``seeds`` times; ``design`` is the SM front
    end; ``channel`` the unit's depth (the default of ``reorder prove``).
    """

    cache: str = KERNEL_CACHE
    hit: int = 20
    miss: int = 200
    jitter: int = 0
    seeds: int = 1
    design: str = "baseline"
    channel: int = CHANNEL
    timeout: float | None = 600.0
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        super().__post_init__()
        self._launch_given("reorder simulate")
        hit = integer("hit", self.hit, 1, MAX_LATENCY, LATENCY_WHY)
        cache = KERNEL_CACHE if self.cache is None else self.cache  # None: not given, as in reorder prove
        settle(self, cache=cache_text("cache", cache, self.line_bytes, self.stores), hit=hit,
               miss=integer("miss", self.miss, 1, MAX_LATENCY, LATENCY_WHY),
               jitter=integer("jitter", self.jitter, 0, MAX_LATENCY, LATENCY_WHY),
               seeds=integer("seeds", self.seeds, 1, 10_000), design=one_of("design", self.design, DESIGNS),
               channel=integer("channel", self.channel, 1, MAX_CHANNEL))
        if self.miss < hit:
            raise OptionError("miss", self.miss, f"not allowed; it must be >= {hit} (hit: a miss takes at least as "
                                                 "long as a hit)")
        self._budget(self.timeout, self.memory)

