"""The instruction table: every opcode the kernel front ends accept, and what the kit models of it.

An opcode is either in this table, with its pipeline class, its latency class,
whether (and how) it accesses memory and whether its result differs from lane
to lane, or it is refused by name.  Nothing is defaulted: an unknown opcode is
bad input, not a one-cycle integer operation.

An opcode is looked up by its longest dotted prefix in the table
(``wmma.load.a.sync.aligned.row.m16n16k16.global.f16`` -> ``wmma.load``).

Latency classes (``unit``): an ordinary instruction costs the latency of its
pipeline class; ``"by type"`` takes a float class when the operand type is a
float (``add.f32`` -> ``fadd``).  A memory access costs the latency of its state
space (``mem`` for global/local/generic, ``shared``, ``param``, ``const``); the
tensor-core and asynchronous-copy classes (``tensor``, ``matrix``, ``cp_async``,
``bulk_copy``, ``tma``) add their own latency to that, or are the whole cost
when the instruction does not touch memory (``mma``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Latency classes beyond the pipeline classes, with their default cycles (configurable with the verbs' latency option).
EXTRA_UNITS = {"tensor": 32, "matrix": 16, "cp_async": 20, "bulk_copy": 200, "tma": 200}

# How an instruction touches memory: what ``analyze`` must list (or refuse) when the space is global.
ACCESS_KINDS = ("", "load", "store", "atomic", "copy", "bulk", "prefetch")


@dataclass(frozen=True)
class OpSpec:
    """What the kit models of one opcode (a dotted prefix)."""

    name: str
    cls: str          # pipeline class (kernel.CLASSES), or "by type" (int, or the float class of its operation)
    unit: str = ""    # latency class added to a memory access, or replacing the class ("" = the class's)
    access: str = ""  # "" (no memory), load, store, atomic, copy (global -> shared), bulk (by direction), prefetch
    space: str = ""   # fixed state space ("" = from the modifiers, "generic" when none is written)
    varies: bool = False  # the result differs from lane to lane whatever the sources (fragments, shuffles)
    dst: bool = True      # the first operand is what it writes
    what: str = ""

    @property
    def touches_memory(self) -> bool:
        return bool(self.access)


def _ops(names: str, cls: str, what: str, **kw) -> list[OpSpec]:
    return [OpSpec(n, cls, what=what, **kw) for n in names.split()]


_PTX: list[OpSpec] = [
    *_ops("add sub mul mad fma div rem abs neg min max setp set selp slct copysign testp", "by type",
          "arithmetic / compare: int (div, rem: fdiv), or its float class on a float type"),
    *_ops("rcp sqrt rsqrt ex2 lg2 sin cos tanh", "by type", "special function: fdiv / fsqrt class on floats"),
    *_ops("mul24 mad24 sad addc subc madc popc clz bfind fns brev bfe bfi dp4a dp2a and or xor not cnot lop3 "
          "shf shl shr prmt mov cvta isspacep mapa getctarank createpolicy bmsk szext", "int", "integer / bit / move"),
    OpSpec("cvt", "by type", what="conversion: fcvt when a float type is involved, else int"),
    *_ops("shfl vote match activemask elect", "int", "warp-wide exchange: the result differs per lane", varies=True),
    OpSpec("redux", "int", varies=True, what="warp reduction (its result taken as per-lane, conservatively)"),
    *_ops("bra brx", "branch", "branch (brx: refused by the CFG)", dst=False),
    OpSpec("call", "int", what="call: inlined when the module defines the callee, else refused by wcet"),
    *_ops("ret exit", "exit", "leaves the function / kernel", dst=False),
    *_ops("bar barrier membar fence griddepcontrol setmaxnreg pmevent trap brkpt", "int",
          "barrier / fence / hint: one issue slot (one warp in isolation never waits)", dst=False),
    OpSpec("bar.red", "int", what="barrier reduction: writes a predicate or count, the same in the CTA"),
    *_ops("ld ldu", "mem", "load from the state space of its modifier", access="load"),
    OpSpec("st", "mem", access="store", dst=False, what="store to the state space of its modifier"),
    OpSpec("st.async", "mem", access="store", space="shared", dst=False, what="store to a cluster CTA's shared memory"),
    OpSpec("red.async", "mem", access="atomic", space="shared", dst=False, what="reduction in a cluster CTA's shared memory"),
    OpSpec("atom", "mem", access="atomic", varies=True, what="atomic read-modify-write (the old value per lane)"),
    OpSpec("red", "mem", access="atomic", dst=False, what="atomic reduction, no result"),
    *_ops("prefetch prefetchu", "mem", "cache prefetch (no result)", access="prefetch", dst=False),
    *_ops("tex tld4 suld", "mem", "texture / surface read", access="load", space="global"),
    *_ops("sust sured", "mem", "surface write", access="store", space="global", dst=False),
    *_ops("txq suq", "int", "texture / surface query"),
    OpSpec("mbarrier", "mem", access="atomic", space="shared", varies=True,
           what="mbarrier operation on a shared-memory barrier object"),
    *_ops("mbarrier.init mbarrier.inval", "mem", "mbarrier set-up", access="store", space="shared", dst=False),
    # tensor cores
    OpSpec("mma", "fmadd", unit="tensor", varies=True, what="tensor-core matrix multiply-accumulate (per-lane fragments)"),
    OpSpec("wmma.mma", "fmadd", unit="tensor", varies=True, what="tensor-core multiply-accumulate of wmma fragments"),
    OpSpec("wmma.load", "mem", unit="matrix", access="load", varies=True,
           what="fragment load of a matrix tile (space latency + matrix)"),
    OpSpec("wmma.store", "mem", unit="matrix", access="store", dst=False,
           what="fragment store of a matrix tile (space latency + matrix)"),
    OpSpec("ldmatrix", "mem", unit="matrix", access="load", space="shared", varies=True,
           what="shared-memory matrix load into fragments (shared + matrix)"),
    OpSpec("stmatrix", "mem", unit="matrix", access="store", space="shared", dst=False,
           what="fragment store to shared memory (shared + matrix)"),
    OpSpec("movmatrix", "int", unit="matrix", varies=True, what="fragment transpose in registers (matrix)"),
    # asynchronous copies: the copy's whole latency is charged when it is issued, the waits cost one slot
    OpSpec("cp.async", "mem", unit="cp_async", access="copy", space="global", dst=False,
           what="asynchronous copy global -> shared (mem + cp_async, charged at issue)"),
    *_ops("cp.async.commit_group cp.async.wait_group cp.async.wait_all cp.async.mbarrier.arrive "
          "cp.async.bulk.commit_group cp.async.bulk.wait_group", "int",
          "asynchronous-copy group / wait (the copy was charged at issue)", dst=False),
    OpSpec("cp.async.bulk", "mem", unit="bulk_copy", access="bulk", dst=False,
           what="bulk copy global <-> shared (space + bulk_copy per instruction, any size)"),
    OpSpec("cp.async.bulk.prefetch", "mem", unit="bulk_copy", access="prefetch", space="global", dst=False,
           what="bulk prefetch of global memory into L2"),
    OpSpec("cp.reduce.async.bulk", "mem", unit="bulk_copy", access="atomic", dst=False,
           what="bulk reduction into global or shared memory"),
    OpSpec("cp.async.bulk.tensor", "mem", unit="tma", access="bulk", dst=False,
           what="TMA tensor copy through a tensor map (space + tma)"),
    OpSpec("cp.async.bulk.prefetch.tensor", "mem", unit="tma", access="prefetch", space="global", dst=False,
           what="TMA prefetch into L2"),
    OpSpec("cp.reduce.async.bulk.tensor", "mem", unit="tma", access="atomic", dst=False,
           what="TMA reduction through a tensor map"),
]

# Opcodes refused by name: what they are, and why the kit cannot give a sound answer on them.
PTX_REFUSED = {
    "nanosleep": "a sleep of an unbounded number of cycles",
    "wgmma": "a warpgroup MMA (asynchronous across four warps)",
    "tcgen05": "a fifth-generation tensor-core operation (tensor memory)",
    "multimem": "a multimem access (several GPUs' memory)",
    "alloca": "a dynamic stack allocation", "stacksave": "a stack save", "stackrestore": "a stack restore",
    "discard": "a cache-line discard", "applypriority": "a cache priority change",
    "clusterlaunchcontrol": "a cluster launch control query",
    "istypep": "a texture / sampler type test",
    "tensormap": "a tensor-map update",
    **dict.fromkeys("vadd vsub vmad vabsdiff vmin vmax vset vshl vshr vadd2 vadd4 vsub2 vsub4 vavrg2 vavrg4 "
                    "vabsdiff2 vabsdiff4 vmin2 vmin4 vmax2 vmax4 vset2 vset4".split(), "a video instruction"),
}

_SASS: list[OpSpec] = [
    *_ops("IADD IADD3 IMUL IMAD ISCADD LEA ISETP IMNMX IABS S2R CS2R SEL LOP LOP3 MOV SHL SHR SHF POPC FLO BFE "
          "BFI PRMT XMAD P2R R2P PSETP PLOP3", "int", "integer / bit / move"),
    *_ops("SHFL VOTE", "int", "warp-wide exchange: the result differs per lane", varies=True),
    *_ops("NOP BAR MEMBAR DEPBAR", "int", "barrier / fence: one issue slot", dst=False),
    *_ops("FADD FSETP FMNMX FSET", "fadd", "float add / compare"),
    OpSpec("FMUL", "fmul", what="float multiply"), OpSpec("FFMA", "fmadd", what="float fused multiply-add"),
    *_ops("F2I I2F F2F I2I", "fcvt", "conversion"),
    OpSpec("MUFU", "fsqrt", what="special function (MUFU.RCP: fdiv class)"),
    *_ops("BRA SSY SYNC", "branch", "branch / reconvergence", dst=False),
    *_ops("EXIT RET", "exit", "leaves the kernel", dst=False),
    OpSpec("LDG", "mem", access="load", space="global", what="global load"),
    OpSpec("LDS", "mem", access="load", space="shared", what="shared load"),
    OpSpec("LDL", "mem", access="load", space="local", what="local load"),
    OpSpec("LDC", "mem", access="load", space="const", what="constant load"),
    OpSpec("LD", "mem", access="load", space="generic", what="generic load"),
    OpSpec("STG", "mem", access="store", space="global", dst=False, what="global store"),
    OpSpec("STS", "mem", access="store", space="shared", dst=False, what="shared store"),
    OpSpec("STL", "mem", access="store", space="local", dst=False, what="local store"),
    OpSpec("ST", "mem", access="store", space="generic", dst=False, what="generic store"),
    OpSpec("ATOM", "mem", access="atomic", space="global", varies=True, what="global atomic"),
    OpSpec("ATOMS", "mem", access="atomic", space="shared", varies=True, what="shared atomic"),
    OpSpec("RED", "mem", access="atomic", space="global", dst=False, what="global reduction"),
    OpSpec("HMMA", "fmadd", unit="tensor", varies=True, what="tensor-core multiply-accumulate"),
    OpSpec("LDSM", "mem", unit="matrix", access="load", space="shared", varies=True, what="ldmatrix"),
    OpSpec("LDGSTS", "mem", unit="cp_async", access="copy", space="global", dst=False, what="cp.async"),
]

PTX_TABLE: dict[str, OpSpec] = {s.name: s for s in _PTX}
SASS_TABLE: dict[str, OpSpec] = {s.name: s for s in _SASS}


def lookup(opcode: str, table: dict[str, OpSpec]) -> OpSpec | None:
    """The entry of ``opcode``'s longest dotted prefix in ``table``, or None."""
    parts = opcode.split(".")
    for n in range(len(parts), 0, -1):
        spec = table.get(".".join(parts[:n]))
        if spec is not None:
            return spec
    return None


def ptx_spec(opcode: str) -> OpSpec | None:
    """The entry of a PTX opcode, or None (unknown or refused)."""
    return lookup(opcode.lower(), PTX_TABLE)


def sass_spec(opcode: str) -> OpSpec | None:
    """The entry of a SASS opcode (its base, upper case), or None."""
    return SASS_TABLE.get(opcode.split(".")[0].upper())


def refused_reason(opcode: str) -> str | None:
    """Why a PTX opcode is refused by name, or None."""
    return PTX_REFUSED.get(opcode.split(".")[0].lower())


def spec_of(opcode: str) -> OpSpec | None:
    """The entry of an instruction's opcode in the table of its syntax (SASS opcodes are upper case)."""
    return sass_spec(opcode) if opcode[:1].isupper() else ptx_spec(opcode)


_BITS = {"b1": 1, "s4": 4, "u4": 4, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8, "f16": 16, "bf16": 16,
         "tf32": 32, "f32": 32, "s32": 32, "f64": 64}


def wmma_tile(opcode: str) -> tuple[int, int, int]:
    """(rows in memory, elements per row, bits per element) of a ``wmma.load``/``wmma.store`` tile.

    Matrix a is M x K, b is K x N, c and d are M x N (shape ``mMnNkK``); a row-major tile
    lies in memory as its rows, a column-major one as its columns.
    """
    parts = opcode.lower().split(".")
    shape = next((p for p in parts if re.fullmatch(r"m\d+n\d+k\d+", p)), None)
    matrix = next((p for p in parts[2:3] if p in ("a", "b", "c", "d")), None)
    bits = next((_BITS[p] for p in reversed(parts) if p in _BITS), None)
    layout = next((p for p in parts if p in ("row", "col")), None)
    if shape is None or matrix is None or bits is None or layout is None:
        raise ValueError("it needs a matrix (a, b, c, d), a layout (row, col), a shape (mMnNkK) and an element type")
    m, n, k = map(int, re.findall(r"\d+", shape))
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[matrix]
    return (rows, cols, bits) if layout == "row" else (cols, rows, bits)


def supported_names(table: dict[str, OpSpec]) -> str:
    """The table's opcode names, comma-separated (for one-line refusals)."""
    return ", ".join(sorted(table))


def markdown_table() -> str:
    """The supported-instruction tables of docs/kernels.md (generated from this module; a test compares).

    Opcodes whose entries agree on everything are one row.
    """
    out = []
    for title, table in (("PTX", PTX_TABLE), ("SASS-style", SASS_TABLE)):
        out += [f"#### {title}", "", "| opcodes (prefixes) | class | latency class | memory | space | per-lane result | what |",
                "|---|---|---|---|---|---|---|"]
        rows: dict[tuple, list[str]] = {}
        for s in sorted(table.values(), key=lambda s: s.name.lower()):
            unit = s.unit + " + space" if s.unit and s.access else s.unit or ("space" if s.access else s.cls)
            key = (s.cls, unit, s.access or "-", s.space or ("modifier" if s.access else "-"),
                   "yes" if s.varies else "-", s.what)
            rows.setdefault(key, []).append(f"`{s.name}`")
        out += [f"| {' '.join(names)} | {' | '.join(key)} |" for key, names in rows.items()]
        out.append("")
    out += ["#### Refused by name (PTX)", "", "| opcodes | why |", "|---|---|"]
    why: dict[str, list[str]] = {}
    for name, reason in sorted(PTX_REFUSED.items()):
        why.setdefault(reason, []).append(f"`{name}`")
    out += [f"| {' '.join(names)} | {reason} |" for reason, names in why.items()]
    return "\n".join(out) + "\n"


DOC_START, DOC_END = "<!-- instruction table: generated, do not edit -->\n", "<!-- end of instruction table -->"


def with_table(doc: str) -> str:
    """``doc`` with the text between the table's markers replaced by :func:`markdown_table`."""
    i, j = doc.index(DOC_START) + len(DOC_START), doc.index(DOC_END)
    return doc[:i] + "\n" + markdown_table() + "\n" + doc[j:]


if __name__ == "__main__":  # python -m warpcheck.models.kernels.opcodes [docs/kernels.md]: print, or rewrite the doc
    import sys
    from pathlib import Path

    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(with_table(Path(sys.argv[1]).read_text()))
    else:
        print(markdown_table(), end="")
