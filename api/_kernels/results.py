"""What the kernel verbs give back: one typed result per verb, ``to_dict()`` its ``--json``, ``report()`` its text."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from warpcheck import _guard as guard
from warpcheck.models.kernels.warp_cfg import WarpCFG

__all__ = ["KernelResult", "CfgResult", "WcetResult", "SimtResult"]


@dataclass(repr=False)
class KernelResult:
    """What a kernel verb found for one entry, or for several (``entries``); ``to_dict()`` is its ``--json``.

    With several entries (``entry=[...]`` or ``all_entries=True``), ``file``
    is the module, ``entries`` holds each entry's result, ``refused`` maps
    each entry refused to its one-line reason (the others still ran; ``code``
    is then 2), and the attributes of one entry (``kernel``, ...) are None.
    """

    kernel: str | None = None
    text: str = field(default="", repr=False)
    file: str | None = None
    entries: list[Any] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list, repr=False)  # the entries' names in the run's order

    @property
    def code(self) -> int:
        """The verb's exit code: 0, or 2 when an entry was refused."""
        return guard.EXIT_BAD_INPUT if self.refused else 0

    def __repr__(self) -> str:
        what = f"kernel={self.kernel!r}" if self.file is None else f"entries={[e.kernel for e in self.entries]!r}"
        return f"{type(self).__name__}({what}, code={self.code}{self._headline()})"

    def _headline(self) -> str:
        return ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what the verb's ``--json`` prints)."""
        if self.file is None:
            return self._entry_dict()
        return {"file": self.file, "entries": list(self._entry_dicts())}

    def _entry_dicts(self) -> Iterator[dict[str, Any]]:
        done = iter(self.entries)
        for name in self.order:
            yield ({"kernel": name, "status": "BAD_INPUT", "error": self.refused[name]} if name in self.refused
                   else next(done).to_dict())

    def _entry_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel}

    def report(self) -> str:
        """The text report the verb prints."""
        return self.text


@dataclass(repr=False)
class CfgResult(KernelResult):
    """The warp-level CFG of a kernel: blocks paired with abstract activation stacks.

    ``nodes`` (id, block, stack, cost), ``edges`` (from, to, kinds) and
    ``branches`` (each conditional branch, ``uniform`` when value agreement
    proves it); ``blocks`` is the number of basic blocks, ``nodes_other_mode``
    the number of nodes with value agreement the other way (None past
    ``max_states``); ``warp_cfg`` is the graph itself (a networkx ``graph``,
    the thread-level ``cfg``) for a script to walk.
    """

    value_agreement: bool | None = None
    blocks: int | None = None
    nodes: list[dict[str, Any]] | None = None
    edges: list[dict[str, Any]] | None = None
    nodes_other_mode: int | None = None
    branches: list[dict[str, Any]] | None = None
    seconds: float | None = None
    warp_cfg: WarpCFG | None = field(default=None, repr=False, compare=False)

    def _entry_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "value_agreement": self.value_agreement, "blocks": self.blocks,
                "nodes": self.nodes, "edges": self.edges, "nodes_other_mode": self.nodes_other_mode,
                "branches": self.branches, "seconds": self.seconds}


@dataclass(repr=False)
class WcetResult(KernelResult):
    """The IPET bound of one warp in isolation: ``wcet`` cycles, the worst path and the loop bounds used.

    ``path``: each warp-level node executed on the worst path with its
    count; ``blocks``: each block's cost and count; ``loops``: each loop
    header's bound; ``solvers``: ``["z3", "highs"]`` when HiGHS re-solved the
    same problem and agreed.
    """

    wcet: int | None = None
    value_agreement: bool | None = None
    blocks: list[dict[str, Any]] | None = None
    path: list[dict[str, Any]] | None = None
    branches: list[dict[str, Any]] | None = None
    warp_cfg_nodes: int | None = None
    loops: list[dict[str, Any]] | None = None
    solvers: list[str] | None = None
    seconds: float | None = None

    def _headline(self) -> str:
        return f", wcet={self.wcet}" if self.wcet is not None else ""

    def _entry_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "wcet": self.wcet, "value_agreement": self.value_agreement,
                "blocks": self.blocks, "path": self.path, "branches": self.branches,
                "warp_cfg_nodes": self.warp_cfg_nodes, "loops": self.loops, "solvers": self.solvers,
                "seconds": self.seconds}


@dataclass(repr=False)
class SimtResult(KernelResult):
    """One warp run concretely through the activation stack: the (block, active mask) steps and the cycles."""

    threads: int | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    cycles: int = 0

    def _headline(self) -> str:
        return f", cycles={self.cycles}"

    def _entry_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "threads": self.threads, "steps": self.steps, "cycles": self.cycles}
