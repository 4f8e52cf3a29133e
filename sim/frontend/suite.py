"""The built-in workloads (shaped like the six benchmarks of Crouzet et al.) and workload files.

These kernels are ours: small SIMT programs with the control flow and the
instruction mix of the paper's benchmarks (Sec. VI-A, Table I), not their
code.  A workload file is TOML::

    name = "saxpy"
    description = "y = a x + y"
    instructions = ["tid r1", "LOOP:", "ld f1 r1", ..., "@p0 bra LOOP", "exit"]
    seed = 1                      # optional: data-dependent branch outcomes
    [loops]                       # back-edge target label -> trip count
    LOOP = 16
    [branches]                    # forward-branch target label -> probability taken
    [opcodes]                     # optional: extra opcode -> class
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Mapping

from warpcheck.models.errors import ConfigError, InputFileError, WarpcheckError
from warpcheck.models.file_schemas import WorkloadFile, validated
from warpcheck.models.files import load_toml
from warpcheck.sim.frontend.workloads import Workload, parse_lines

# psort: each thread ranks its key against every key (an 18-instruction loop).
PSORT = """
    tid r1
    shl r9 r1
    add r9 r9 r10
    ld f1 r9            # my key
    mov r2 rz           # j
    mov r3 rz           # rank
LOOP:
    shl r4 r2
    add r5 r4 r10
    ld f2 r5            # a[j]: the same address for the whole warp, mostly a hit
    flt r6 f2 f1
    feq r7 f2 f1
    slt r8 r2 r1
    and r7 r7 r8
    or r6 r6 r7
    add r3 r3 r6        # rank += a[j] < key || (a[j] == key && j < i)
    addi r2 r2
    add r12 r12 r4
    xor r13 r13 r6
    shl r14 r2
    add r15 r14 r10
    mov r16 r15
    addi r17 r17
    slt p0 r2 r11
    @p0 bra LOOP
    shl r4 r3
    add r4 r4 r18
    st f1 r4
    exit
"""

# blackscholes: per option, a cumulative-normal chain with divisions and square roots.
BLACKSCHOLES = """
    tid r1
    mov r2 rz
OPT:
    shl r3 r1
    add r4 r3 r10
    ld f1 r4            # S
    add r5 r3 r11
    ld f2 r5            # X
    add r6 r3 r12
    ld f3 r6            # T
    fsqrt f4 f3         # sqrt(T)
    fdiv f5 f1 f2       # S / X
    fcvt f6 f5
    fmul f7 f0 f3
    fadd f8 f6 f7
    fmul f9 f20 f4
    fdiv f10 f8 f9      # d1
    fsub f11 f10 f9     # d2
    fmul f12 f10 f10
    fexp f13 f12
    fmadd f14 f21 f10 f22
    fdiv f15 f23 f14    # K = 1 / (1 + 0.23 |d|)
    fmul f16 f15 f13
    fmadd f17 f15 f24 f25
    fmul f18 f17 f16    # CND(d1)
    fmul f19 f11 f11
    fexp f26 f19
    fmadd f27 f21 f11 f22
    fdiv f28 f23 f27
    fmul f29 f28 f26    # CND(d2)
    fmul f30 f1 f18
    fmul f31 f2 f29
    fsub f0 f30 f31
    add r7 r3 r13
    st f0 r7
    add r1 r1 r14
    addi r2 r2
    slt p0 r2 r15
    @p0 bra OPT
    exit
"""

# sgemm: the k loop of C = A B, unrolled twice: two loads and one fmadd per step.
SGEMM = """
    tid r1
    shl r2 r1
    mov r3 r1
    mov r6 rz
KLOOP:
    add r4 r2 r10
    ld f1 r4
    add r5 r3 r11
    ld f2 r5
    fmadd f0 f1 f2 f0
    addi r2 r2
    add r3 r3 r12
    add r4 r2 r10
    ld f3 r4
    add r5 r3 r11
    ld f4 r5
    fmadd f0 f3 f4 f0
    addi r2 r2
    add r3 r3 r12
    addi r6 r6
    slt p0 r6 r13
    @p0 bra KLOOP
    shl r7 r1
    add r7 r7 r14
    st f0 r7
    exit
"""

# hotspot: a 5-point stencil step, repeated over iterations.
HOTSPOT = """
    tid r1
    mov r9 rz
STEP:
    shl r2 r1
    add r3 r2 r10
    ld f1 r3            # centre
    add r4 r3 r11
    ld f2 r4            # north
    sub r5 r3 r11
    ld f3 r5            # south
    addi r6 r3
    ld f4 r6            # east
    sub r7 r3 r12
    ld f5 r7            # west
    add r8 r2 r13
    ld f6 r8            # power
    fadd f7 f2 f3
    fadd f8 f4 f5
    fmul f9 f1 f20
    fsub f7 f7 f9
    fsub f8 f8 f9
    fmul f7 f7 f21
    fmul f8 f8 f22
    fadd f10 f7 f8
    fmadd f10 f6 f23 f10
    fmadd f11 f10 f24 f1
    add r14 r2 r15
    st f11 r14
    addi r9 r9
    slt p0 r9 r16
    @p0 bra STEP
    exit
"""

# hotspot3D: a 7-point stencil over z planes (inner loop), repeated over iterations.
HOTSPOT3D = """
    tid r1
    mov r9 rz
ITER:
    mov r20 rz
    shl r2 r1
PLANE:
    add r3 r2 r10
    ld f1 r3            # centre
    addi r4 r3
    ld f2 r4            # east
    sub r5 r3 r12
    ld f3 r5            # west
    add r6 r3 r11
    ld f4 r6            # north
    sub r7 r3 r11
    ld f5 r7            # south
    add r8 r3 r13
    ld f6 r8            # above
    sub r15 r3 r13
    ld f7 r15           # below
    add r16 r2 r14
    ld f8 r16           # power
    fmul f9 f1 f20
    fmul f10 f2 f21
    fmadd f10 f3 f21 f10
    fmadd f10 f4 f22 f10
    fmadd f10 f5 f22 f10
    fmul f11 f6 f23
    fmadd f11 f7 f23 f11
    fadd f12 f9 f10
    fadd f12 f12 f11
    fmadd f12 f8 f24 f12
    fadd f12 f12 f25
    add r17 r2 r18
    st f12 r17
    add r2 r2 r13
    addi r20 r20
    slt p1 r20 r19
    @p1 bra PLANE
    addi r9 r9
    slt p0 r9 r21
    @p0 bra ITER
    exit
"""

# kmeans: for each cluster, the distance over the features; keep the nearest.
KMEANS = """
    tid r1
    shl r2 r1
    mov r3 rz           # cluster
    mov r30 rz          # best
CLUSTER:
    mov r4 rz           # feature
    fsub f0 f0 f0       # dist = 0
FEATURE:
    add r5 r2 r4
    add r5 r5 r10
    ld f1 r5            # point feature
    add r6 r3 r4
    add r6 r6 r11
    ld f2 r6            # centre feature: the same for the whole warp
    fsub f3 f1 f2
    fmadd f0 f3 f3 f0
    addi r4 r4
    slt p0 r4 r12
    @p0 bra FEATURE
    flt p1 f0 f9
    @!p1 bra FARTHER
    fmov f9 f0
    mov r30 r3
FARTHER:
    addi r3 r3
    slt p2 r3 r13
    @p2 bra CLUSTER
    add r7 r1 r14
    st r30 r7
    exit
"""


def _builtin(name: str, text: str, loops: Mapping[str, int], branches: Mapping[str, float] | None = None,
             description: str = "") -> Workload:
    kernel = parse_lines(name, text.splitlines(), {"fmov": "fadd"})
    return Workload(name, kernel, dict(loops), dict(branches or {}), 1, description)


BUILTIN: dict[str, Workload] = {w.name: w for w in [
    _builtin("psort", PSORT, {"LOOP": 24},
             description="rank sort: an 18-instruction loop taken every iteration, compares, warp-uniform loads"),
    _builtin("blackscholes", BLACKSCHOLES, {"OPT": 3},
             description="option pricing: fp chain with unpipelined 16-cycle fdiv/fsqrt"),
    _builtin("sgemm", SGEMM, {"KLOOP": 12},
             description="matrix product inner loop: two loads feeding an fmadd chain, unrolled twice"),
    _builtin("hotspot", HOTSPOT, {"STEP": 6},
             description="2D 5-point stencil: six loads, fadd/fmul/fmadd, one store per step"),
    _builtin("hotspot3D", HOTSPOT3D, {"PLANE": 4, "ITER": 2},
             description="3D 7-point stencil: eight loads per plane, nested plane/iteration loops"),
    _builtin("kmeans", KMEANS, {"FEATURE": 4, "CLUSTER": 5}, {"FARTHER": 0.6},
             description="nearest centre: feature loop (loads, fmadd), data-dependent compare branch, cluster loop"),
]}


def builtin(name: str) -> Workload:
    """The built-in workload called ``name``, or a ConfigError listing them."""
    if name not in BUILTIN:
        raise ConfigError(f"unknown workload {name!r}; built-in workloads: {', '.join(BUILTIN)} "
                          "(or give a workload TOML file)")
    return BUILTIN[name]


def workload_from_mapping(data: Mapping[str, Any], where: str) -> Workload:
    """Build a workload from a parsed TOML table checked against :class:`WorkloadFile`."""
    spec = validated(WorkloadFile, data, where)
    name = spec.name or Path(where).stem
    try:
        kernel = parse_lines(name, spec.instructions, spec.opcodes)
        return Workload(name, kernel, spec.loops, spec.branches, spec.seed, spec.description)
    except WarpcheckError as e:
        raise InputFileError(f"{where}: {e}") from None


def load_workload(path: str | Path) -> Workload:
    """Read a workload TOML file."""
    data = load_toml(path, "workload")
    return workload_from_mapping(data, str(path))


def resolve(name_or_path: str) -> Workload:
    """A built-in workload by name, or a workload file by path (ends in .toml)."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return load_workload(name_or_path)
    return builtin(name_or_path)
