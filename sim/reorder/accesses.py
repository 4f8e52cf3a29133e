"""The kernel analyzer of the reordering framework: every dynamic global access of every warp.

Every warp of every block runs concretely (per-thread registers, the SIMT
activation stack, guards).  Each global load or store a warp runs with at
least one active lane is one dynamic access: a load in a loop is listed once
per iteration.  Its lanes' byte addresses are coalesced into line addresses
(each line listed once, ascending).  ``bar.sync`` counts the warp's barrier
*epoch*: an access made after the e-th barrier has epoch e.

The analyzer follows which registers hold values derived from loaded data
(a taint per lane).  A branch, a guard of a global access, or a global
address that depends on loaded data cannot be decided statically: the warp
stops there and the point is reported as *undecided*, never guessed.

Generic-space loads and stores (``ld`` without a state space) are taken as
global.  Every instruction the instruction table says accesses memory is
listed when it reaches global memory: ``ld``/``ldu``/``st``, the tiles of
``wmma.load``/``wmma.store`` (each row of the tile), the global side of
``cp.async`` (its ``src-size`` bytes) and of ``cp.async.bulk`` (a load when it
copies into shared memory, a store when it copies out).  The rest that reaches
global memory is refused by name: atomics, prefetches, texture and surface
accesses, calls, TMA copies (their addresses come from a tensor map).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping

from warpcheck.models.kernels import simt_stack as st
from warpcheck.models.kernels.cfg import KernelCFG
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.kernels.opcodes import spec_of, wmma_tile
from warpcheck.models.kernels.ptx import operand_registers
from warpcheck.models.limits import MAX_BLOCKS, MAX_THREADS_PER_BLOCK
from warpcheck.spec.kernels.thread_ops import Machine, ThreadState, WarpInputs

Dim3 = tuple[int, int, int]
WARP_SIZE = 32
GLOBAL_SPACES = ("global", "generic")
UNSUPPORTED = {"atom": "an atomic", "red": "an atomic reduction", "call": "a call", "tex": "a texture fetch",
               "tld4": "a texture fetch", "suld": "a surface load", "sust": "a surface store",
               "sured": "a surface reduction"}
MAX_COPY_BYTES = 1 << 20  # a larger bulk copy is refused (its line list would be huge)
LISTED = ("load", "store", "copy", "bulk")  # the accesses whose global footprint the analyzer computes


@dataclass(frozen=True)
class Access:
    """One dynamic global access of a warp: its pc, kind ("L" or "S"), lines, active lanes, epoch."""

    pc: int
    kind: str
    lines: tuple[int, ...]
    lanes: int
    epoch: int = 0


@dataclass(frozen=True)
class Undecided:
    """A point a static analyzer cannot decide: the branch, guard or address depends on loaded data."""

    block: Dim3
    warp: int
    pc: int
    line: int
    what: str
    text: str
    column: int = 0

    def describe(self, filename: str) -> str:
        """One line naming the point: where (FILE:LINE:COL), what, which warp."""
        where = f"{filename}:{self.line}" + (f":{self.column}" if self.column else "")
        return (f"{where}: {self.what} of {self.text!r} depends on loaded data "
                f"(block {list(self.block)}, warp {self.warp}); a static analyzer cannot decide it")


@dataclass(frozen=True)
class WarpStream:
    """The dynamic global accesses of one warp, in program order."""

    block: Dim3
    warp: int
    accesses: tuple[Access, ...]
    trace: tuple[tuple[int, int], ...] = ()  # every instruction the warp issued: (pc, access index or -1)
    lanes: tuple[int, ...] = ()  # per instruction of ``trace``: its active lanes (the activation mask's)


@dataclass
class Analysis:
    """What the analyzer found: static accesses, per-warp streams and undecided points."""

    kernel: Kernel
    grid: Dim3
    block: Dim3
    line_bytes: int
    warps: list[WarpStream] = field(default_factory=list)
    undecided: list[Undecided] = field(default_factory=list)

    def instructions(self) -> list[tuple[int, str, str]]:
        """The static global loads and stores: (pc, kind, text)."""
        return [(pc, _kind(ins), " ".join(ins.text.split())) for pc, ins in enumerate(self.kernel.instructions)
                if _is_global_access(ins)]


def analyze(kernel: Kernel, grid: Dim3, block: Dim3, params: Mapping[str, int], line_bytes: int = 128,
            max_steps: int = 100000) -> Analysis:
    """Run every warp of every block and collect its dynamic global accesses."""
    _check_dims(grid, "grid", MAX_BLOCKS)
    _check_dims(block, "block", MAX_THREADS_PER_BLOCK)
    if line_bytes <= 0 or line_bytes & (line_bytes - 1):
        raise OptionError("line_bytes", line_bytes, "not a positive power of two; use e.g. 128")
    _refuse_unsupported(kernel)
    out = Analysis(kernel, grid, block, line_bytes)
    threads = block[0] * block[1] * block[2]
    for b in blocks_of(grid):
        for w in range((threads + WARP_SIZE - 1) // WARP_SIZE):
            stream, stop = _run(kernel, grid, block, b, w, dict(params), line_bytes, max_steps)
            out.warps.append(stream)
            if stop is not None:
                out.undecided.append(stop)
    return out


def blocks_of(grid: Dim3) -> list[Dim3]:
    """Block indices in linear order (x fastest, then y, then z)."""
    return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]


def _check_dims(dims: Dim3, option: str, limit: int) -> None:
    total = dims[0] * dims[1] * dims[2]
    if len(dims) != 3 or min(dims) <= 0 or total > limit:
        raise OptionError(option, dims, f"not 1 to 3 positive sizes with a product of at most {limit}")


def _refuse_unsupported(kernel: Kernel) -> None:
    for ins in kernel.instructions:
        what = _unsupported(ins)
        if what is not None:
            raise ConfigError(f"{kernel.where(ins)}: {' '.join(ins.text.split())!r} is {what}, which the analyzer "
                              f"does not support; remove it from kernel {kernel.name!r} (it lists "
                              f"ld/ldu/st, wmma.load/store, cp.async and cp.async.bulk)")


def _unsupported(ins: Instruction) -> str | None:
    """What ``ins`` is when it may reach global memory in a way the analyzer cannot list, else None."""
    if ins.base in UNSUPPORTED:
        return UNSUPPORTED[ins.base]
    spec = spec_of(ins.opcode)
    if spec is None or not spec.access or ins.space not in GLOBAL_SPACES:
        return None
    if spec.unit == "tma":
        return "a TMA copy (its global addresses come from a tensor map)"
    if spec.access not in LISTED:
        return f"a global {spec.access} ({spec.name})"
    if spec.access in ("copy", "bulk") and len(ins.srcs) < 3:
        return f"a copy without a size operand ({spec.name}: its size is in its opcode)"
    return None


def _is_global_access(ins: Instruction) -> bool:
    spec = spec_of(ins.opcode)
    return spec is not None and spec.access in LISTED and ins.space in GLOBAL_SPACES


def _is_copy(ins: Instruction) -> bool:
    """A ``cp.async`` or ``cp.async.bulk`` (with a global side, when it is a global access)."""
    spec = spec_of(ins.opcode)
    return spec is not None and spec.access in ("copy", "bulk")


def _kind(ins: Instruction) -> str:
    spec = spec_of(ins.opcode)
    if spec is not None and spec.access == "bulk":
        spaces = [p.split("::")[0] for p in ins.opcode.split(".")[3:]]
        return "S" if next((p for p in spaces if p in ("global", "shared")), "") == "global" else "L"
    return "S" if spec is not None and spec.access == "store" else "L"


def _access_bytes(ins: Instruction) -> int:
    """Bytes one lane reads or writes: the type size times the vector width."""
    m = re.search(r"[sbuf](\d+)$", ins.dtype or "")
    size = int(m.group(1)) // 8 if m else 4
    vec = re.search(r"\.v(\d)\b", ins.opcode)
    return max(1, size) * (int(vec.group(1)) if vec else 1)


def coalesce(addresses: list[int], size: int, line_bytes: int) -> tuple[int, ...]:
    """The line addresses touched by the lanes' accesses, each once, ascending (Alg. 3)."""
    lines = set()
    for a in addresses:
        lines.add(a - a % line_bytes)
        last = a + size - 1
        lines.add(last - last % line_bytes)
    return tuple(sorted(lines))


class _WarpRun:
    """One warp's registers, taints and activation stack."""

    def __init__(self, kernel: Kernel, machine: Machine, lanes: list[ThreadState]) -> None:
        self.kernel, self.machine, self.lanes = kernel, machine, lanes
        self.taint: list[set[str]] = [set() for _ in lanes]
        self.accesses: list[Access] = []
        self.trace: list[tuple[int, int]] = []
        self.active: list[int] = []  # active lanes of each instruction of the trace
        self.epoch = 0

    def tainted(self, lane: int, operands: tuple[str, ...] | list[str]) -> bool:
        taint = self.taint[lane]
        return bool(taint) and any(r in taint for op in operands for r in _registers(op))

    def guard_tainted(self, lane: int, ins: Instruction) -> bool:
        return ins.guard is not None and self.tainted(lane, [ins.guard.lstrip("!")])


@lru_cache(maxsize=None)
def _registers(operand: str) -> tuple[str, ...]:
    """``operand_registers`` of one operand text (read again for every lane of every instruction run)."""
    return tuple(operand_registers(operand))


def _run(kernel: Kernel, grid: Dim3, block: Dim3, b: Dim3, w: int, params: dict, line_bytes: int,
         max_steps: int) -> tuple[WarpStream, Undecided | None]:
    inputs = WarpInputs(params, b, block, grid)
    machine = Machine(kernel.params, inputs, {}, where=kernel.where)
    total = block[0] * block[1] * block[2]
    lanes = [_thread(lane, w, block, inputs) for lane in range(min(WARP_SIZE, total - w * WARP_SIZE))]
    run = _WarpRun(kernel, machine, lanes)
    stop = _walk(run, KernelCFG(kernel), (1 << len(lanes)) - 1, max_steps, line_bytes)
    at = None if stop is None else kernel.instructions[stop[0]]
    undecided = None if at is None or stop is None else Undecided(b, w, stop[0], at.line, stop[1],
                                                                  " ".join(at.text.split()), at.column)
    return WarpStream(b, w, tuple(run.accesses), tuple(run.trace), tuple(run.active)), undecided


def _thread(lane: int, w: int, block: Dim3, inputs: WarpInputs) -> ThreadState:
    """Lane ``lane`` of warp ``w``: its 3-D thread index from the linear one."""
    t = ThreadState(lane, inputs, w, WARP_SIZE)
    linear = w * WARP_SIZE + lane
    tid = (linear % block[0], linear // block[0] % block[1], linear // (block[0] * block[1]))
    for axis, value in zip("xyz", tid):
        t.special[f"%tid.{axis}"] = value
    return t


def _walk(run: _WarpRun, cfg: KernelCFG, mask: int, max_steps: int, line_bytes: int) -> tuple[int, str] | None:
    """Run the warp to its end; return (pc, what) of the first undecided point, if any."""
    stack = st.initial(mask)
    for _ in range(max_steps):
        if not stack:
            return None
        blk = cfg.blocks[cfg.block_of_pc(stack[-1].pc)]
        nxt = _block(run, cfg, stack, blk, line_bytes)
        if isinstance(nxt, _Stop):
            return nxt.pc, nxt.what
        stack = nxt
    raise ConfigError(f"kernel {run.kernel.name!r} did not finish within {max_steps} basic blocks per warp; "
                      f"check the parameters (a loop bound may be huge)")


@dataclass(frozen=True)
class _Stop:
    pc: int
    what: str


def _block(run: _WarpRun, cfg: KernelCFG, stack: st.Stack, blk, line_bytes: int) -> st.Stack | _Stop:
    mask = stack[-1].mask
    for pc in range(blk.start, blk.end):
        ins = run.kernel.instructions[pc]
        glob = _is_global_access(ins)
        active = [i for i in range(len(run.lanes)) if mask >> i & 1]
        if ins.guard is not None and any(run.guard_tainted(i, ins) for i in active):
            if ins.base in ("bra", "exit", "ret") or glob:
                return _Stop(pc, "the branch condition" if ins.base == "bra" else "the guard")
        holds = [i for i in active if run.machine.guard(run.lanes[i], ins.guard)]
        if ins.base != "ssy":
            run.trace.append((pc, len(run.accesses) if glob and holds else -1))
            run.active.append(len(active))
        if ins.base in ("bra", "exit", "ret", "sync"):
            return _terminate(run.kernel, cfg, stack, blk, ins, pc, sum(1 << i for i in holds))
        if glob and holds:
            stop = _record(run, ins, pc, holds, line_bytes)
            if stop is not None:
                return stop
        if ins.base in ("bar", "barrier") and not ins.opcode.startswith("bar.warp") and active:  # bar.warp.sync: one warp
            run.epoch += 1
        _execute(run, ins, active, holds)
    return st.goto(stack, blk.end, run.kernel.syntax)


def _record(run: _WarpRun, ins: Instruction, pc: int, holds: list[int], line_bytes: int) -> _Stop | None:
    operands = _footprint_operands(ins)
    if any(run.tainted(i, operands) for i in holds):
        return _Stop(pc, "the address")
    regions = _regions(run.machine, [run.lanes[i] for i in holds], ins)
    big = next((n for _, n in regions if n > MAX_COPY_BYTES), None)
    if big is not None:
        raise ConfigError(f"{run.kernel.where(ins)}: {' '.join(ins.text.split())!r} copies {big} bytes; the analyzer lists "
                          f"copies of at most {MAX_COPY_BYTES} bytes (check the size operand or the parameters)")
    lines = tuple(sorted({line for a, n in regions if n > 0 for line in _lines(a, n, line_bytes)}))
    if lines:
        run.accesses.append(Access(pc, _kind(ins), lines, len(holds), run.epoch))
    else:  # every lane reads nothing (cp.async with src-size 0): no access, as for a warp with no active lane
        run.trace[-1] = (pc, -1)
    return None


def _footprint_operands(ins: Instruction) -> list[str]:
    """The operands that fix which global bytes ``ins`` touches (addresses, strides, sizes)."""
    if _is_copy(ins):
        return [ins.srcs[0] if _kind(ins) == "S" else ins.srcs[1], ins.srcs[2]] + ([ins.srcs[3]] if _src_size(ins) else [])
    if ins.base == "wmma":
        return [o for o in ins.srcs if o.startswith("[")] + ([ins.srcs[-1]] if _has_stride(ins) else [])
    return [next((o for o in ins.srcs if o.startswith("[")), ins.srcs[0])]


def _regions(machine: Machine, lanes: list[ThreadState], ins: Instruction) -> list[tuple[int, int]]:
    """The global byte ranges (start, length) each lane of ``lanes`` touches, lane after lane."""
    if _is_copy(ins):
        global_side, src_size = ins.srcs[0] if _kind(ins) == "S" else ins.srcs[1], _src_size(ins)
        out = []
        for t in lanes:
            size = int(machine.value(t, ins.srcs[2], "u32"))
            if src_size:
                size = min(size, int(machine.value(t, ins.srcs[3], "u32")))
            out.append((machine.address(t, global_side), size))
        return out
    if ins.base == "wmma":
        rows, cols, bits = wmma_tile(ins.opcode)
        operand, stride_given = next(o for o in ins.srcs if o.startswith("[")), _has_stride(ins)
        out = []
        for t in lanes:
            base = machine.address(t, operand)
            stride = int(machine.value(t, ins.srcs[-1], "u32")) if stride_given else cols
            out += [(base + r * stride * bits // 8, (cols * bits + 7) // 8) for r in range(rows)]
        return out
    operand, size = next((o for o in ins.srcs if o.startswith("[")), ins.srcs[0]), _access_bytes(ins)
    return [(machine.address(t, operand), size) for t in lanes]


def _src_size(ins: Instruction) -> bool:
    """Whether a ``cp.async`` names a src-size (how many of its bytes it reads; the rest is zero-filled)."""
    policy = "cache_hint" in ins.opcode
    return ins.opcode.startswith("cp.async.c") and len(ins.srcs) - policy >= 4


def _has_stride(ins: Instruction) -> bool:
    """Whether a ``wmma.load``/``wmma.store`` names its stride (its last operand, after the address)."""
    at = next(i for i, o in enumerate(ins.srcs) if o.startswith("["))
    return ins.opcode.startswith("wmma.load") and len(ins.srcs) > at + 1 or \
        ins.opcode.startswith("wmma.store") and len(ins.srcs) > at + 2


def _lines(start: int, size: int, line_bytes: int) -> range:
    """The line addresses of the bytes ``[start, start + size)``."""
    return range(start - start % line_bytes, start + size, line_bytes)


def _execute(run: _WarpRun, ins: Instruction, active: list[int], holds: list[int]) -> None:
    """Run ``ins`` on the lanes whose guard holds and update the taints of its destinations."""
    spec = spec_of(ins.opcode)
    loads_data = spec is not None and spec.access in ("load", "atomic") and ins.space != "param"
    holding = set(holds)
    for i in active:
        guard_tainted = run.guard_tainted(i, ins)
        dirty = loads_data or run.tainted(i, ins.srcs) or guard_tainted
        if i in holding or guard_tainted:
            for d in ins.dst:
                (run.taint[i].add if dirty else run.taint[i].discard)(d)
    for i in holds:
        run.machine.execute(run.lanes[i], ins)


def _terminate(kernel: Kernel, cfg: KernelCFG, stack: st.Stack, blk, ins: Instruction, pc: int,
               taken: int) -> st.Stack:
    if ins.base == "bra":
        ipdom = cfg.ipdom_pc[blk.index] if kernel.syntax == "ptx" else None
        return st.branch(stack, taken, kernel.target_pc(pc), pc + 1, kernel.syntax, ipdom)
    if ins.base in ("exit", "ret"):
        return st.exit_threads(stack, taken, pc + 1, kernel.syntax)
    return st.sync(stack, taken, pc + 1)
