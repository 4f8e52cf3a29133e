"""Broken copies of the kernel analyses: the mutation suite of the warp-level CFG and its WCET bound.

Each mutant is one single-point bug, written as a replacement of one function
of one module (the replacement wraps or rewrites the original).  The checks
that must see it (``warpcheck._kernels.mutation``) compare the design with
a computation that does not use the patched point: each thread run alone
(``spec/kernels/reference.py``) for the SIMT stack, the concrete warp run for
value agreement, and a thread's observed time for the instruction classes and
the IPET bound.  IPET's mutants live in ``encodings/kernels/mutants.py`` (layers).
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

from warpcheck.models.kernels import simt_stack as st


@dataclass(frozen=True)
class Mutant:
    """One single-point bug: ``target`` (``module:attribute``) replaced by ``make(original)``.

    ``check`` names the comparison that must see it (``paths``, ``reconverge``,
    ``uniform`` or ``bound``), on ``kernel`` (a path in the repository; ``entry`` names the
    kernel in a module with several) with ``params`` for every kernel parameter.
    """

    name: str
    breaks: str
    target: str
    make: Callable[[Any], Any]
    check: str
    kernel: str
    params: tuple[int, ...] = ()
    equivalent: bool = False
    seeds: tuple[int, ...] = field(default=(0, 1, 2))
    entry: str | None = None

    @contextmanager
    def applied(self) -> Iterator[None]:
        """The design with this bug, for the duration of the block."""
        module_name, attr = self.target.split(":")
        module = importlib.import_module(f"warpcheck.{module_name}")
        owner, _, name = attr.rpartition(".")
        obj = getattr(module, owner) if owner else module
        original = getattr(obj, name)
        setattr(obj, name, self.make(original))
        try:
            yield
        finally:
            setattr(obj, name, original)


# -- the parser's classes -----------------------------------------------------
def _global_load_as_alu(make):
    def patched(op, args, guard, line, lineno, spec, column=0):
        ins = make(op, args, guard, line, lineno, spec, column)
        return replace(ins, cls="int") if ins.base == "ld" and ins.space in ("global", "generic") else ins
    return patched


def _cp_async_as_int(make):
    def patched(op, args, guard, line, lineno, spec, column=0):
        ins = make(op, args, guard, line, lineno, spec, column)
        return replace(ins, cls="int", unit="") if op.startswith("cp.async.c") else ins
    return patched


def _rcp_as_multiply(table):
    return {**table, "rcp": replace(table["rcp"], cls="fmul")}


def _local_on_chip(space_latencies):
    return {**space_latencies, "local": space_latencies["shared"]}


# -- the SIMT stack -----------------------------------------------------------
def _reconverge_at_target(branch):
    def patched(stack, taken, target, next_pc, syntax, ipdom=None):
        return branch(stack, taken, target, next_pc, syntax, target if syntax == "ptx" else ipdom)
    return patched


def _ipdom_fallthrough(ipdom_pc):
    def patched(self):
        return {b.index: b.end if b.end < len(self.kernel) else -1 for b in self.blocks}
    return property(patched)


def _exit_clears_running_entry_only(exit_threads):
    def patched(stack, exiting, next_pc, syntax):
        top = replace(stack[-1], mask=stack[-1].mask & ~exiting, pc=next_pc)
        return st.normalize(stack[:-1] + (top,), syntax)
    return patched


def _guarded_sync_syncs_all(sync):
    def patched(stack, syncing, next_pc):
        return sync(stack, stack[-1].mask, next_pc)
    return patched


def _not_taken_path_lost(branch):
    def patched(stack, taken, target, next_pc, syntax, ipdom=None):
        top = stack[-1]
        if syntax == "sass" and taken & top.mask and top.mask & ~taken:
            return stack[:-1] + (st.Entry(target, taken & top.mask, st.NIL, top.rpc),)
        return branch(stack, taken, target, next_pc, syntax, ipdom)
    return patched


# -- value agreement ------------------------------------------------------------
def _fragment_agrees(table):
    return {**table, "wmma.load": replace(table["wmma.load"], varies=False)}


def _partial_write_agrees(transfer):
    def patched(self, pc, facts, group):
        _, _, _, _, _, regs = self.info[pc]
        out = transfer(self, pc, facts, group)
        # the groups strictly containing the running one keep their agreement on what it wrote
        return {k: (v & ~regs) | (facts[k] & regs) if k & group and k & group != k else v for k, v in out.items()}
    return patched


def _guarded_write_forgets_old_value(decode):
    def patched(self, pc, ins, per_lane):
        info = decode(self, pc, ins, per_lane)
        return info._replace(guarded=info.guard)  # under a guard, only the guard matters: the old value is dropped
    return patched


def _tid_agrees(source_varies):
    def patched(reg, varying):
        if reg in ("%tid.x", "SR_TID.X"):
            return reg in varying
        return source_varies(reg, varying)
    return patched


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    Mutant("global-load-classed-alu", "instruction classes: a global load is classed as a one-cycle int op",
           "models.kernels.ptx:_make", _global_load_as_alu, "bound", "examples/kernels/saxpy_rows.ptx",
           (0, 0, 0, 4, 3, 1)),
    Mutant("cp-async-classed-int", "instruction classes: cp.async is costed as a one-cycle int op (its global "
           "read is not charged)", "models.kernels.ptx:_make", _cp_async_as_int, "bound",
           "examples/kernels/wmma_gemm.ptx", (0, 65536, 131072, 64)),
    Mutant("rcp-costed-as-multiply", "instruction classes: rcp (a reciprocal, division class) is costed as a "
           "float multiply (its class in the instruction table)", "models.kernels.opcodes:PTX_TABLE", _rcp_as_multiply,
           "bound", "examples/kernels/backprop.ptx"),
    Mutant("local-memory-on-chip", "instruction classes: local memory (off-chip, per-lane DRAM) is costed as "
           "on-chip shared memory (its space's latency class)", "models.kernels.cfg:DEFAULT_SPACE_LATENCIES",
           _local_on_chip, "bound", "examples/corpus/local_array.ptx", entry="_Z10local_pickPiPKiii"),
    Mutant("reconverge-at-branch-target", "SIMT stack: a divergent PTX branch reconverges at its target, "
           "not at its immediate post-dominator", "models.kernels.simt_stack:branch", _reconverge_at_target,
           "reconverge", "examples/kernels/nested_loops.ptx", (0, 2, 2)),
    Mutant("ipdom-is-fallthrough", "thread-level CFG: a branch's reconvergence point is its fall-through block, "
           "not its immediate post-dominator", "models.kernels.cfg:KernelCFG.ipdom_pc", _ipdom_fallthrough,
           "reconverge", "examples/kernels/nested_loops.ptx", (0, 2, 2)),
    Mutant("exit-clears-running-entry-only", "SIMT stack: EXIT removes the exiting threads from the running "
           "entry only, they resume from the entries below", "models.kernels.simt_stack:exit_threads",
           _exit_clears_running_entry_only, "paths", "examples/sass/early_exit.sass", (3,)),
    Mutant("guarded-sync-syncs-all", "SIMT stack: a guarded SYNC takes every active thread to the "
           "reconvergence point, not only those whose guard holds", "models.kernels.simt_stack:sync",
           _guarded_sync_syncs_all, "paths", "examples/sass/loop.sass", (3,)),
    Mutant("not-taken-path-lost", "SIMT stack: a divergent SASS branch pushes only its taken path",
           "models.kernels.simt_stack:branch", _not_taken_path_lost, "paths", "examples/sass/slides.sass", ()),
    Mutant("partial-write-agrees", "value agreement: a register written by part of a group keeps its "
           "agreement in the enclosing group", "models.kernels.value_agreement:RegisterBits.transfer",
           _partial_write_agrees, "uniform", "examples/sass/partial_write.sass", ()),
    Mutant("fragment-agrees", "value agreement: a wmma fragment loaded from one address is taken as the same "
           "in every thread (the instruction table's per-lane flag)", "models.kernels.opcodes:PTX_TABLE",
           _fragment_agrees, "uniform", "examples/kernels/fragment_branch.ptx", (0, 4096, 2)),
    Mutant("guarded-write-forgets-old-value", "value agreement: a guarded write of an agreeing value under an "
           "agreeing guard makes the register agree, though the threads whose guard fails keep their old value",
           "models.kernels.value_agreement:RegisterBits._decode", _guarded_write_forgets_old_value, "bound",
           "examples/sass/guarded_write.sass", (5,)),
    Mutant("tid-agrees", "value agreement: %tid.x is taken as the same in every thread",
           "models.kernels.value_agreement:source_varies", _tid_agrees, "uniform", "examples/sass/slides.sass", ()),
]}
