"""The concrete SIMT activation stack of one warp.

A stack is a tuple of :class:`Entry`, the top (last) entry being the one that
runs: its ``pc`` is where the active threads (``mask``, one bit per thread)
resume.  Two reconvergence disciplines share the representation:

* ``sass`` (Pascal, as in the slides): ``SSY t`` replaces the running entry
  by ``(t, mask, SSY)`` and pushes ``(pc+1, mask, NIL)`` above it; a divergent
  ``@P BRA t`` leaves ``(pc+1, not-taken, NIL)`` below and runs
  ``(t, taken, NIL)`` on top; ``SYNC`` empties the running entry's mask
  (a guarded SYNC removes only the threads whose guard holds) and an empty
  entry is popped, so the entry below resumes;
* ``ptx`` (GPGPU-Sim): a divergent branch turns the running entry into a
  reconvergence entry ``(ipdom, mask, REC)`` and pushes one entry per path,
  each with ``rpc = ipdom`` (the taken path on top); an entry whose ``pc``
  reaches its ``rpc`` is popped.  If the running entry already reconverges at
  the same ipdom, the paths replace it instead of nesting.

``EXIT`` removes the exiting threads from every entry.  In both disciplines
entries with an empty mask are popped; an empty stack means the warp is done.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

NIL, SSY, REC = "NIL", "SSY", "REC"


@dataclass(frozen=True)
class Entry:
    """One activation-stack entry: resume ``pc`` with the threads of ``mask``."""

    pc: int
    mask: int
    kind: str = NIL
    rpc: int | None = None

    def render(self, width: int) -> str:
        """The entry as in the slides' tables: pc, mask (thread 0 leftmost), type."""
        bits = "".join("1" if self.mask >> t & 1 else "0" for t in range(width))
        return f"{self.pc:#x} {bits} {self.kind}"


Stack = tuple[Entry, ...]


def initial(mask: int, pc: int = 0) -> Stack:
    """The stack of a warp that starts at ``pc`` with the threads of ``mask``."""
    return normalize((Entry(pc, mask),), "sass")


def goto(stack: Stack, pc: int, syntax: str) -> Stack:
    """Move the running entry to ``pc`` (fallthrough or uniform branch)."""
    return normalize(stack[:-1] + (replace(stack[-1], pc=pc),), syntax)


def ssy(stack: Stack, target: int, next_pc: int) -> Stack:
    """Execute ``SSY target`` at the running entry."""
    top = stack[-1]
    return stack[:-1] + (Entry(target, top.mask, SSY, top.rpc), Entry(next_pc, top.mask, NIL, top.rpc))


def branch(stack: Stack, taken: int, target: int, next_pc: int, syntax: str, ipdom: int | None = None) -> Stack:
    """Execute a conditional branch whose guard holds for the threads of ``taken``."""
    top = stack[-1]
    t, n = taken & top.mask, top.mask & ~taken
    if not n:
        return goto(stack, target, syntax)
    if not t:
        return goto(stack, next_pc, syntax)
    if syntax == "sass":
        return stack[:-1] + (Entry(next_pc, n, NIL, top.rpc), Entry(target, t, NIL, top.rpc))
    if ipdom is None:
        raise ValueError("a divergent PTX branch needs its immediate post-dominator")
    paths = tuple(Entry(pc, m, NIL, ipdom) for pc, m in ((next_pc, n), (target, t)) if pc != ipdom)
    if ipdom == top.rpc:
        return normalize(stack[:-1] + paths, syntax)
    return normalize(stack[:-1] + (Entry(ipdom, top.mask, REC, top.rpc),) + paths, syntax)


def sync(stack: Stack, syncing: int, next_pc: int) -> Stack:
    """Execute ``SYNC`` for the threads of ``syncing`` (all active ones when unguarded)."""
    top = stack[-1]
    rest = top.mask & ~syncing
    return normalize(stack[:-1] + (replace(top, mask=rest, pc=next_pc),), "sass")


def deactivate(stack: Stack, threads: int) -> Stack:
    """The stack with ``threads`` cleared from the running entry, before any pop."""
    top = stack[-1]
    return stack[:-1] + (replace(top, mask=top.mask & ~threads),)


def exit_threads(stack: Stack, exiting: int, next_pc: int, syntax: str) -> Stack:
    """Execute ``EXIT`` for the threads of ``exiting``; the others go on at ``next_pc``."""
    kept = tuple(replace(e, mask=e.mask & ~exiting) for e in stack)
    return normalize(kept[:-1] + (replace(kept[-1], pc=next_pc),), syntax)


def normalize(stack: Stack, syntax: str) -> Stack:
    """Pop empty entries (and, for ptx, entries that reached their reconvergence pc)."""
    while stack and (not stack[-1].mask or (syntax == "ptx" and stack[-1].pc == stack[-1].rpc)):
        stack = stack[:-1]
    return stack


def render(stack: Stack, width: int) -> list[str]:
    """The stack top first, one line per entry, as in the slides' tables."""
    return [e.render(width) for e in reversed(stack)]
