"""Look-alikes of the nine benchmarks of Singh et al. (Table Ib), for the Fig. 4 experiment in miniature.

Written from the benchmarks' descriptions, not from their code: the mix of
instruction classes, the number of loads per loop iteration and how soon a
loaded value is used decide whether a kernel is compute-bound (CI: pc, pf,
2dc, dxtc, bin) or memory-bound (MI: vec, mm, his, atax).  ``his`` and
``atax`` are latency-bound, as the paper says they are: every iteration
waits on a chain of dependent loads (histogram: load a value, then load and
update its bin; atax: each product feeds the accumulator at once).  Trip
counts make each warp's path a few hundred instructions.
"""
from __future__ import annotations

from warpcheck.sim.frontend.workloads import Workload, parse_lines

# pc: purely compute, one load and one store around a loop of independent fp chains.
PC = """
    tid r1
    shl r2 r1
    add r3 r2 r10
    ld f1 r3
    mov r9 rz
LOOP:
    fmadd f2 f1 f20 f2
    fmul f3 f1 f21
    fmadd f4 f22 f23 f4
    fadd f5 f24 f25
    fmadd f6 f26 f27 f6
    fmul f7 f28 f29
    addi r9 r9
    slt p0 r9 r11
    @p0 bra LOOP
    fadd f8 f6 f7
    add r4 r2 r12
    st f8 r4
    exit
"""

# pf: pathfinder, one wall load per row, used rows later; min over neighbours in integers.
PF = """
    tid r1
    shl r2 r1
    mov r9 rz
    mov r5 rz
ROW:
    add r3 r2 r10
    ld r4 r3
    min r6 r5 r7
    min r6 r6 r8
    shl r7 r6
    shr r8 r6
    add r10 r10 r11
    add r5 r6 r4
    addi r9 r9
    slt p0 r9 r12
    @p0 bra ROW
    add r13 r2 r14
    st r5 r13
    exit
"""

# 2dc: 3x3 convolution over a sliding window: one new column load per pixel, the
# window's other columns in registers, nine multiply-adds with constant weights.
CONV2D = """
    tid r1
    shl r2 r1
    mov r9 rz
PIX:
    add r3 r2 r10
    ld f3 r3
    fmul f10 f20 f21
    fmul f11 f22 f23
    fmul f12 f24 f25
    fmadd f10 f1 f26 f10
    fmadd f11 f2 f27 f11
    fmadd f10 f1 f29 f10
    fmadd f11 f2 f30 f11
    fmadd f10 f2 f26 f10
    fmadd f11 f1 f27 f11
    fmadd f12 f3 f28 f12
    fmadd f12 f3 f31 f12
    fadd f1 f2 f20
    fadd f2 f3 f21
    fadd f13 f10 f11
    fadd f13 f13 f12
    add r6 r2 r12
    st f13 r6
    add r2 r2 r13
    addi r9 r9
    slt p0 r9 r14
    @p0 bra PIX
    exit
"""

# dxtc: block compression, one load per block, then fp distances, conversions and integer packing.
DXTC = """
    tid r1
    shl r2 r1
    mov r9 rz
BLOCK:
    add r3 r2 r10
    ld f1 r3
    fsub f2 f20 f21
    fmul f3 f2 f2
    fmadd f4 f22 f23 f3
    fcvt r4 f4
    min r5 r4 r11
    max r6 r4 r12
    shl r7 r5
    or r8 r7 r6
    fsub f5 f1 f24
    fmul f6 f5 f5
    fcvt r13 f6
    xor r8 r8 r13
    and r8 r8 r14
    add r2 r2 r15
    addi r9 r9
    slt p0 r9 r16
    @p0 bra BLOCK
    st r8 r2
    exit
"""

# bin: binomial options, a backward-induction loop of fp arithmetic on values kept in registers.
BIN = """
    tid r1
    shl r2 r1
    add r3 r2 r10
    ld f1 r3
    mov r9 rz
STEP:
    fmul f2 f20 f21
    fmadd f3 f22 f23 f2
    fmax f4 f3 f24
    fmul f5 f25 f26
    fmadd f6 f27 f28 f5
    fmax f7 f6 f29
    fadd f8 f4 f7
    addi r9 r9
    slt p0 r9 r11
    @p0 bra STEP
    fadd f9 f8 f1
    st f9 r3
    exit
"""

# vec: vector add, two loads, one add, one store per element.
VEC = """
    tid r1
    shl r2 r1
    mov r9 rz
ELEM:
    add r3 r2 r10
    ld f1 r3
    add r4 r2 r11
    ld f2 r4
    fadd f3 f1 f2
    add r5 r2 r12
    st f3 r5
    add r2 r2 r13
    addi r9 r9
    slt p0 r9 r14
    @p0 bra ELEM
    exit
"""

# mm: naive matrix multiply, two loads feeding one multiply-add per step.
MM = """
    tid r1
    shl r2 r1
    mov r9 rz
KLOOP:
    add r3 r2 r10
    ld f1 r3
    add r4 r9 r11
    ld f2 r4
    fmadd f0 f1 f2 f0
    add r2 r2 r12
    addi r9 r9
    slt p0 r9 r13
    @p0 bra KLOOP
    st f0 r5
    exit
"""

# his: histogram, load a value, then load, increment and store its bin (a dependent load chain).
HIS = """
    tid r1
    shl r2 r1
    mov r9 rz
VAL:
    add r3 r2 r10
    ld r4 r3
    shr r5 r4
    add r6 r5 r11
    ld r7 r6
    addi r7 r7
    st r7 r6
    add r2 r2 r12
    addi r9 r9
    slt p0 r9 r13
    @p0 bra VAL
    exit
"""

# atax: y = A^T (A x), each loaded product feeds the accumulator at once (latency-bound).
ATAX = """
    tid r1
    shl r2 r1
    mov r9 rz
COL:
    add r3 r2 r10
    ld f1 r3
    fmadd f0 f1 f20 f0
    add r4 r9 r11
    ld f2 r4
    fmadd f5 f2 f0 f5
    add r2 r2 r12
    addi r9 r9
    slt p0 r9 r13
    @p0 bra COL
    st f5 r6
    exit
"""

COMPUTE_BOUND = ("pc", "pf", "2dc", "dxtc", "bin")
MEMORY_BOUND = ("vec", "mm", "his", "atax")


def _look_alike(name: str, text: str, trips: int, description: str) -> Workload:
    kernel = parse_lines(name, text.splitlines())
    loop = next(label for label in kernel.labels)
    return Workload(name, kernel, {loop: trips}, {}, 1, description)


PAPER_WORKLOADS: dict[str, Workload] = {w.name: w for w in [
    _look_alike("pc", PC, 32, "purely compute: one load, one store, a loop of independent fp chains (CI)"),
    _look_alike("pf", PF, 32, "pathfinder: one wall load per row, integer min over neighbours (CI)"),
    _look_alike("2dc", CONV2D, 12, "2D convolution: three row loads, nine multiply-adds per pixel (CI)"),
    _look_alike("dxtc", DXTC, 16, "DXT compression: one load per block, fp distances and integer packing (CI)"),
    _look_alike("bin", BIN, 32, "binomial options: backward induction in registers (CI)"),
    _look_alike("vec", VEC, 24, "vector add: two loads, an add, a store per element (MI)"),
    _look_alike("mm", MM, 32, "matrix multiply: two loads per multiply-add (MI)"),
    _look_alike("his", HIS, 24, "histogram: a value load, then a dependent bin load and store (MI, latency-bound)"),
    _look_alike("atax", ATAX, 24, "A^T A x: loaded values feed the accumulators at once (MI, latency-bound)"),
]}
