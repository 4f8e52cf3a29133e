"""SIMT workloads: small kernels in the shared IR and the instruction streams they produce.

A :class:`Workload` is a :class:`~warpcheck.models.kernels.kernel.Kernel` plus what
decides its control flow: loop trip counts and the probability that a
data-dependent branch is taken.  Every warp runs the same kernel; its
data-dependent outcomes come from a generator seeded with (seed, warp).

Branch semantics (keyed by the branch's *target label*):

- a branch without a guard is always taken;
- a guarded branch whose target is in ``loops`` is a loop back edge: taken
  ``trips - 1`` times, then it falls through and its counter resets (so the
  body runs ``trips`` times per entry and nested loops work);
- a guarded branch whose target is in ``branches`` is taken with that
  probability, drawn per dynamic instance.

:class:`WorkloadSource` walks each warp's dynamic path once and serves it to
the driver (a *source*: ``(warp, k) -> Instr``, the k-th correct-path
instruction fetched after the warm-start ibuffer):

- ``dep``: a source register (or the guard) was written by one of the
  previous ``DEP_WINDOW`` = 4 dynamic instructions of the same warp.  The
  model keeps one scoreboard counter per warp, so a dependent instruction
  waits for every in-flight result of its warp;
- ``taken``: a taken branch (and ``exit`` is its own class);
- ``miss``: a small direct-mapped I-cache shared by all warps
  (:class:`ICache`), looked up when the request is first made, in fetch order
  across warps; a miss fills the line at once.  The warm-start ibuffer
  contents count as fetched, so their lines start filled; they stop after
  the first taken branch (the rest of the ibuffer is wrong-path filler).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Instruction, Kernel
from warpcheck.models.frontend.stream import FILLER, Instr

DEP_WINDOW = 4  # dynamic instructions whose results a later instruction may still wait for
MAX_DYNAMIC = 200_000  # per warp: a longer path is almost surely an endless loop

# Opcode -> instruction class.  Stores have no destination register.
OPCODE_CLASS: dict[str, str] = {
    **{op: "int" for op in ("mov", "li", "add", "addi", "sub", "mul", "mad", "shl", "shr", "and", "or",
                            "xor", "slt", "setp", "min", "max", "sel", "tid", "iadd", "imul")},
    **{op: "fadd" for op in ("fadd", "fsub", "flt", "fle", "feq", "fmin", "fmax", "fneg", "fabs")},
    "fmul": "fmul", **{op: "fmadd" for op in ("fmadd", "ffma", "fma", "fmsub")},
    **{op: "fcvt" for op in ("fcvt", "i2f", "f2i")}, "fdiv": "fdiv", "fsqrt": "fsqrt", "fexp": "fdiv",
    **{op: "mem" for op in ("ld", "lw", "flw", "st", "sw", "fsw")},
    **{op: "branch" for op in ("bra", "br", "jmp")},
    "exit": "exit", "ret": "exit", "nop": "nop",
}
STORES = frozenset({"st", "sw", "fsw"})


# -- kernel text ---------------------------------------------------------------
def parse_lines(name: str, lines: Sequence[str], opcodes: Mapping[str, str] | None = None) -> Kernel:
    """Parse instruction lines ("fadd f3 f1 f2", "@p0 bra LOOP", "LOOP:") into a Kernel.

    The first operand is the destination, the others sources (stores have
    only sources; a branch's operand is its target label).  ``#`` starts a
    comment.  ``opcodes`` adds or overrides opcode classes.
    """
    table = {**OPCODE_CLASS, **(opcodes or {})}
    instrs: list[Instruction] = []
    labels: dict[str, int] = {}
    for n, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        if text.endswith(":"):
            label = text[:-1].strip()
            if not label or label in labels:
                raise ConfigError(f"kernel {name!r} line {n}: label {label!r} is empty or defined twice; "
                                  "give each label once")
            labels[label] = len(instrs)
            continue
        instrs.append(_parse_instruction(name, n, text, table))
    if not instrs:
        raise ConfigError(f"kernel {name!r} has no instructions; give at least an 'exit'")
    return Kernel(name, tuple(instrs), labels)


def _parse_instruction(name: str, n: int, text: str, table: Mapping[str, str]) -> Instruction:
    words = text.replace(",", " ").split()
    guard = None
    if words[0].startswith("@"):
        guard, words = words[0][1:], words[1:]
        if not guard.lstrip("!") or not words:
            raise ConfigError(f"kernel {name!r} line {n}: {text!r} has a malformed guard; write '@p0 bra L'")
    opcode, ops = words[0].lower(), tuple(words[1:])
    if opcode not in table:
        raise ConfigError(f"kernel {name!r} line {n}: unknown opcode {opcode!r}; known opcodes: "
                          f"{', '.join(sorted(table))} (add one under [opcodes])")
    cls = table[opcode]
    if cls == "branch":
        if len(ops) != 1:
            raise ConfigError(f"kernel {name!r} line {n}: {text!r} needs exactly one target label")
        return Instruction(opcode, (), (), guard, ops[0], cls, text)
    if opcode in STORES or cls in ("exit", "nop"):
        return Instruction(opcode, (), ops, guard, None, cls, text)
    return Instruction(opcode, ops[:1], ops[1:], guard, None, cls, text)


# -- workloads -----------------------------------------------------------------
@dataclass(frozen=True)
class Workload:
    """A kernel with its loop trip counts and data-dependent branch probabilities."""

    name: str
    kernel: Kernel
    loops: Mapping[str, int] = field(default_factory=dict)
    branches: Mapping[str, float] = field(default_factory=dict)
    seed: int = 1
    description: str = ""
    _paths: dict[int, list[tuple[int, Instr]]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        labels = self.kernel.labels
        for label, trips in self.loops.items():
            if label not in labels:
                raise ConfigError(f"workload {self.name!r}: loop label {label!r} is not a label of the kernel; "
                                  f"labels: {', '.join(sorted(labels)) or 'none'}")
            if not isinstance(trips, int) or isinstance(trips, bool) or trips < 1:
                raise ConfigError(f"workload {self.name!r}: loops.{label} = {trips!r}; give an integer >= 1")
        for label, p in self.branches.items():
            if label not in labels or label in self.loops:
                raise ConfigError(f"workload {self.name!r}: branch label {label!r} is unknown or also a loop")
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
                raise ConfigError(f"workload {self.name!r}: branches.{label} = {p!r}; give a probability in [0, 1]")
        for pc, ins in enumerate(self.kernel.instructions):
            if ins.is_branch and ins.guard and ins.target not in self.loops and ins.target not in self.branches:
                raise ConfigError(f"workload {self.name!r}: conditional branch {ins.text or ins.opcode!r} "
                                  f"(instruction {pc}) needs loops.{ins.target} or branches.{ins.target}")
        if not any(ins.cls == "exit" for ins in self.kernel.instructions):
            raise ConfigError(f"workload {self.name!r} has no 'exit' instruction; end the kernel with 'exit'")

    def scaled(self, factor: float) -> "Workload":
        """The same workload with every loop trip count scaled (at least 1)."""
        return replace(self, loops={k: max(1, round(v * factor)) for k, v in self.loops.items()})

    def path(self, warp: int) -> list[tuple[int, Instr]]:
        """Warp ``warp``'s dynamic path: (pc, instruction as the front end sees it, no miss).

        Shared, do not modify: without data-dependent branches every warp has the same path.
        """
        key = warp if self.branches else 0
        if key not in self._paths:
            self._paths[key] = self._walk(warp)
        return self._paths[key]

    def _walk(self, warp: int) -> list[tuple[int, Instr]]:
        rng = random.Random(self.seed * 1_000_003 + warp)
        k = self.kernel
        out: list[tuple[int, Instr]] = []
        counters: dict[int, int] = {}
        writers: list[tuple[str, ...]] = []  # destinations of the last DEP_WINDOW instructions
        pc = 0
        while True:
            if pc >= len(k):
                raise ConfigError(f"workload {self.name!r}: warp {warp} runs past the last instruction; "
                                  "end every path with 'exit'")
            if len(out) >= MAX_DYNAMIC:
                raise ConfigError(f"workload {self.name!r}: warp {warp} exceeds {MAX_DYNAMIC} instructions; "
                                  "check the loop trip counts and unconditional back edges")
            ins = k.instructions[pc]
            reads = set(ins.srcs) | ({ins.guard.lstrip("!")} if ins.guard else set())
            dep = any(r in d for d in writers for r in reads)
            writers = (writers + [ins.dst])[-DEP_WINDOW:]
            if ins.cls == "exit":
                out.append((pc, Instr("exit", dep=dep)))
                return out
            taken = ins.is_branch and self._taken(pc, ins, counters, rng)
            out.append((pc, Instr(ins.cls, dep=dep, taken=taken)))
            pc = k.target_pc(pc) if taken else pc + 1

    def _taken(self, pc: int, ins: Instruction, counters: dict[int, int], rng: random.Random) -> bool:
        if not ins.guard:
            return True
        if ins.target in self.loops:
            counters[pc] = counters.get(pc, 0) + 1
            if counters[pc] < self.loops[ins.target]:
                return True
            counters[pc] = 0
            return False
        return rng.random() < self.branches[ins.target]

    def dynamic_count(self, warps: int) -> int:
        """Instructions the warps execute in all (the committed warp instructions of a full run)."""
        return sum(len(self.path(w)) for w in range(warps))


# -- I-cache and source ----------------------------------------------------------
class ICache:
    """A direct-mapped instruction cache of ``lines`` lines of ``line_size`` instructions."""

    def __init__(self, lines: int = 16, line_size: int = 4) -> None:
        if lines < 1 or line_size < 1:
            raise ConfigError(f"I-cache lines = {lines!r}, line_size = {line_size!r}; both must be >= 1")
        self.lines, self.line_size = lines, line_size
        self.tags: list[int | None] = [None] * lines

    def access(self, pc: int) -> bool:
        """Look ``pc`` up and fill its line; True on a hit."""
        block = pc // self.line_size
        slot = block % self.lines
        hit = self.tags[slot] == block
        self.tags[slot] = block
        return hit


class WorkloadSource:
    """A driver source over a workload's per-warp paths, with a shared I-cache."""

    def __init__(self, workload: Workload | None, warps: int, ibuffer: int, icache: ICache | None = None,
                 paths: Sequence[list[tuple[int, Instr]]] = ()) -> None:
        """Serve ``workload``'s paths, or the given per-warp ``paths`` (pc, instruction) when it is None."""
        self.workload, self.B = workload, ibuffer
        self.paths = list(paths) if workload is None else [workload.path(w) for w in range(warps)]
        self.icache = icache or ICache()
        self.memo: dict[tuple[int, int], Instr] = {}
        self.warm = [self._warm_length(p) for p in self.paths]
        for path, n in zip(self.paths, self.warm):  # the warm-start contents were fetched
            for pc, _ in path[:n]:
                self.icache.access(pc)

    def _warm_length(self, path: list[tuple[int, Instr]]) -> int:
        """How many of the path's first instructions the warm ibuffer holds.

        It stops after a taken branch or the exit: the model treats the
        entries behind one as wrong path (flushed when it issues).
        """
        for j, (_, ins) in enumerate(path[:self.B]):
            if ins.taken or ins.cls == "exit":
                return j + 1
        return min(self.B, len(path))

    def ibuffers(self) -> list[list[Instr]]:
        """Initial ibuffer contents: each warp's first instructions, then wrong-path filler."""
        return [[ins for _, ins in path[:n]] + [FILLER] * (self.B - n) for path, n in zip(self.paths, self.warm)]

    def __call__(self, warp: int, k: int) -> Instr:
        key = (warp, k)
        if key not in self.memo:
            path, at = self.paths[warp], self.warm[warp] + k
            if at >= len(path):
                return FILLER
            pc, ins = path[at]
            self.memo[key] = replace(ins, miss=not self.icache.access(pc))
        return self.memo[key]

    def dynamic_count(self) -> int:
        """Instructions all warps execute (warm-start ones included)."""
        return sum(len(p) for p in self.paths)
