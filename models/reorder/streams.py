"""Symbolic per-warp request streams: what the unit sees of *any* kernel, up to a bound.

The reordering unit's claim is about the unit, not about one kernel: for any
per-warp streams of requests the L1 sees the static order.  A :class:`Streams`
is the workload of that claim.  Each warp ``w`` sends ``len.w`` requests
(0 .. ``length``); before its k-th request it may pass a ``bar.sync``
(``bar.w.k``: the request's barrier epoch is the number of barriers up to it,
at most ``barriers``: a warp's barriers past that bound do not count);
the request touches one line, ``ln.w.k`` (a line number 0 .. ``lines`` - 1,
address ``ln * line_bytes``), as a load (``ld.w.k``) or a store; with
``addresses``, it comes from instruction address ``pc.w.k`` (0 .. addresses - 1,
any sequence: loops and paths as the paper's order sees them).  All of these
are free parameters of the initial state and never change, so one proof covers
every stream within the bound.

The stream variables are the vocabulary shared by the unit and its reference:
they describe the input, not what the unit does with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpcheck.models.errors import ConfigError
from warpcheck.models.ts import State, Var

MAX_STREAM_WARPS, MAX_STREAM_LENGTH, MAX_STREAM_LINES = 6, 8, 16


@dataclass(frozen=True)
class Streams:
    """Bounds of the symbolic streams: warps (with their blocks), requests per warp, line numbers."""

    blocks: tuple[int, ...]
    length: int
    lines: int = 4
    line_bytes: int = 128
    barriers: int | None = None  # at most this many bar.sync count per warp (None: the length, any number)
    addresses: int = 0  # instruction addresses a request may have, 0 .. addresses - 1 (0: none; the paper's order)

    def __post_init__(self) -> None:
        if not 1 <= len(self.blocks) <= MAX_STREAM_WARPS:
            raise ConfigError(f"streams of {len(self.blocks)} warps; give 1 to {MAX_STREAM_WARPS} warps")
        if not 1 <= self.length <= MAX_STREAM_LENGTH:
            raise ConfigError(f"stream length {self.length}; give 1 to {MAX_STREAM_LENGTH} requests per warp")
        if not 1 <= self.lines <= MAX_STREAM_LINES:
            raise ConfigError(f"{self.lines} line numbers; give 1 to {MAX_STREAM_LINES}")
        if not 0 <= self.addresses <= MAX_STREAM_LINES:
            raise ConfigError(f"{self.addresses} instruction addresses; give 0 to {MAX_STREAM_LINES}")
        if self.barriers is not None and not 0 <= self.barriers <= self.length:
            raise ConfigError(f"{self.barriers} barriers per warp; give 0 to the stream length {self.length}")
        if list(self.blocks) != sorted(self.blocks):
            raise ConfigError(f"blocks {list(self.blocks)}: warps are numbered block by block; give them ascending")

    symbolic = True

    @property
    def warps(self) -> int:
        return len(self.blocks)

    def count(self, w: int) -> int:
        """The most requests warp ``w`` may send (the bound; ``len.w`` is the stream's own)."""
        return self.length

    @property
    def longest(self) -> int:
        return self.length

    @property
    def max_epoch(self) -> int:
        """The largest barrier epoch of a request (the barrier bound)."""
        return self.length if self.barriers is None else self.barriers

    @property
    def total(self) -> int:
        return self.warps * self.length

    def peers(self, w: int) -> list[int]:
        return [q for q in range(self.warps) if self.blocks[q] == self.blocks[w]]

    def universe(self) -> list[int]:
        """Every line address a request may touch, by line number."""
        return [n * self.line_bytes for n in range(self.lines)]

    def vars(self) -> list[Var]:
        """The stream: lengths, barriers, lines and kinds (free in the initial state, then constant)."""
        W, n = self.warps, self.length
        out = [Var(f"len.{w}", "int", 0, n) for w in range(W)]
        for w in range(W):
            out += [Var(f"bar.{w}.{k}", "bool") for k in range(n)]
            out += [Var(f"ln.{w}.{k}", "int", 0, self.lines - 1) for k in range(n)]
            out += [Var(f"ld.{w}.{k}", "bool") for k in range(n)]
            out += [Var(f"pc.{w}.{k}", "int", 0, self.addresses - 1) for k in range(n) if self.addresses]
        return out

    # -- the stream read from a state (the unit's view) ------------------------------
    def size(self, A: Any, s: State, w: int) -> Any:
        return s[f"len.{w}"]

    def exists(self, A: Any, s: State, w: int, k: int) -> Any:
        return A.lt(A.const(k), s[f"len.{w}"])

    def epoch(self, A: Any, s: State, w: int, k: int) -> Any:
        """Barriers up to request k, at most ``max_epoch`` (a warp's barriers past the bound do not count)."""
        return A.min(A.count([s[f"bar.{w}.{j}"] for j in range(k + 1)]), A.const(self.max_epoch))

    def line(self, A: Any, s: State, w: int, k: int) -> Any:
        return s[f"ln.{w}.{k}"]

    def is_load(self, A: Any, s: State, w: int, k: int) -> Any:
        return s[f"ld.{w}.{k}"]

    def pc(self, A: Any, s: State, w: int, k: int) -> Any:
        """The instruction address of request (w, k) (streams with ``addresses``)."""
        return s[f"pc.{w}.{k}"]

    def concrete(self, params: dict[str, Any]) -> dict[str, Any]:
        """One stream as plain lists: per warp, its requests' (epoch, kind, line address)."""
        out = []
        for w in range(self.warps):
            reqs, epoch = [], 0
            for k in range(int(params[f"len.{w}"])):
                epoch = min(epoch + bool(params[f"bar.{w}.{k}"]), self.max_epoch)
                reqs.append((epoch, "L" if params[f"ld.{w}.{k}"] else "S",
                             int(params[f"ln.{w}.{k}"]) * self.line_bytes))
            out.append(reqs)
        return {"blocks": list(self.blocks), "warps": out}
