"""The instruction table and the instruction reference agree on every opcode the kit accepts.

The table (``models/kernels/opcodes.py``, applied by the front ends) and the reference
(``spec/kernels/instructions.py``, written again from the PTX ISA) are compared on the
instructions the front ends really produce: every table entry with the type, space and
operation modifiers a compiler writes, each parsed by the kit.  Compared: the pipeline
class, the unit, the memory access, the state space, the per-lane flag and the latency
classes (the cost model's cycles with every class at its own power of two, so that the
cost names the classes it is made of).
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from warpcheck.models.errors import InputFileError
from warpcheck.models.kernels import opcodes
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.latencies import DEFAULT_LATENCIES, DEFAULT_SPACE_LATENCIES
from warpcheck.models.kernels.kernel import Instruction
from warpcheck.models.kernels.opcodes import PTX_TABLE, spec_of
from warpcheck.models.kernels.ptx import parse_ptx
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.spec.kernels.instructions import DEFAULT_CYCLES, reference

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n.extern .func ext ();\n"
TYPES = ("", ".s32", ".u64", ".b32", ".pred", ".f32", ".f64", ".f16", ".f16x2", ".bf16", ".bf16x2")
SPACES = ("", ".global", ".shared", ".shared::cta", ".shared::cluster", ".local", ".param", ".const")
# Modifiers an entry needs to be the instruction compilers write (the rest get TYPES, and SPACES if they access memory).
PTX_FORMS = {
    "cvt": [".rn.f32.s32", ".rzi.s32.f32", ".f64.f32", ".u32.u64", ".s64.s32", ".rn.f16.f32", ".rn.bf16x2.f32"],
    "setp": [f".lt{t}" for t in TYPES] + [".lt.and.f32", ".ne.or.s32"],
    "set": [".lt.u32.f32", ".lt.f32.s32", ".eq.u32.u32"],
    "slct": [".f32.s32", ".s32.f32"],
    "wmma.load": [f".a.sync.aligned.row.m16n16k16{s}.f16" for s in SPACES],
    "wmma.store": [f".d.sync.aligned.row.m16n16k16{s}.f32" for s in SPACES],
    "wmma.mma": [".sync.aligned.row.col.m16n16k16.f32.f32"],
    "mma": [".sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"],
    "ldmatrix": [".sync.aligned.m8n8.x4.shared.b16"], "stmatrix": [".sync.aligned.m8n8.x4.shared.b16"],
    "movmatrix": [".sync.aligned.m8n8.trans.b16"],
    "cp.async": [".ca.shared.global", ".cg.shared.global.L2::128B"],
    "cp.async.bulk": [".shared::cluster.global.mbarrier::complete_tx::bytes", ".global.shared::cta.bulk_group"],
    "cp.async.bulk.tensor": [".2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                             ".1d.global.shared::cta.bulk_group"],
    "cp.async.bulk.prefetch": [".L2.global"], "cp.async.bulk.prefetch.tensor": [".1d.L2.global.tile"],
    "cp.reduce.async.bulk": [".global.shared::cta.bulk_group.add.u32"],
    "cp.reduce.async.bulk.tensor": [".1d.global.shared::cta.add.tile.bulk_group"],
    "mbarrier": [".arrive.shared::cta.b64", ".try_wait.parity.shared::cta.b64", ".arrive.expect_tx.shared.b64"],
    "mbarrier.init": [".shared::cta.b64"], "mbarrier.inval": [".shared.b64"],
    "st.async": [".shared::cluster.mbarrier::complete_tx::bytes.b32"],
    "red.async": [".relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32"],
    "atom": [f"{s}.add.u32" for s in SPACES] + [".global.cas.b32", ".shared.exch.b64"],
    "red": [f"{s}.add.f32" for s in SPACES],
    "prefetch": [".global.L2", ".local.L1", ".L1"], "prefetchu": [".L1"],
    "bar": [".sync", ".arrive"], "bar.red": [".popc.u32", ".and.pred"],
    "ld": [f"{s}{t}" for s in SPACES for t in (".u32", ".f32", ".v2.f64")] + [".global.nc.f32"],
    "ldu": [".global.u32", ".f32"],
    "st": [f"{s}{t}" for s in SPACES for t in (".u32", ".f32", ".v4.b32")],
    "tex": [".2d.v4.f32.f32"], "tld4": [".r.2d.v4.f32.f32"], "suld": [".b.2d.b32.trap"],
    "sust": [".b.2d.b32.trap"], "sured": [".b.add.2d.u32.trap"],
}
SASS_FORMS = {
    "MUFU": [".RCP", ".RSQ", ".RCP64H", ".EX2", ".LG2", ".SIN", ".COS", ".SQRT"],
    "ISETP": [".LT.AND", ".GE.U32.AND"], "FSETP": [".GT.AND"], "LDG": [".E", ".E.64"], "STG": [".E"],
    "SHFL": [".BFLY", ".IDX"], "VOTE": [".ALL", ".ANY"], "HMMA": [".1688.F32"], "LDSM": [".16.M88.4"],
}


def _ptx_body(op: str, n: int) -> str:
    if op.startswith(("bra", "brx")):
        return f"{op} L{n};\nL{n}:"
    return f"{op} ext;" if op.startswith("call") else f"{op} %r1, [%rd1], %r2, %r3;"


def _ptx_instructions(ops: list[str]) -> list[Instruction | None]:
    """The instructions the PTX front end makes of ``ops`` (with operands it accepts), None where it refuses one.

    One module holds them all; when the front end refuses it, each is parsed alone.
    """
    text = HEAD + (".visible .entry k(.param .u64 k_param_0)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n"
                   ".reg .b64 %rd<4>;\nBODY\nret;\n}\n")
    try:
        found = parse_ptx(text.replace("BODY", "\n".join(_ptx_body(op, n) for n, op in enumerate(ops))))[0].instructions
        return list(found[:len(ops)])
    except InputFileError:
        if len(ops) == 1:
            return [None]
        return [_ptx_instructions([op])[0] for op in ops]


def _sass_instruction(op: str) -> Instruction | None:
    base = op.split(".")[0]
    body = {"BRA": f"{op} L ;\nL: EXIT ;", "SSY": f"{op} L ;\nL: EXIT ;", "SYNC": f"SSY L ;\n{op} ;\nL: EXIT ;"}.get(
        base, f"{op} R1, [R2], R3 ;")
    try:
        [k] = parse_sass(".kernel k\n" + body + "\n")
    except InputFileError:
        return None
    return k.instructions[1 if base == "SYNC" else 0]


def accepted(only: tuple[str, ...] = ()) -> list[tuple[str, Instruction]]:
    """Every table entry in the forms compilers write it, each as the kit parses it (refused forms left out).

    ``only``: the entries of these names only (all when empty).
    """
    out = []
    for name, spec in opcodes.PTX_TABLE.items():
        if only and name not in only:
            continue
        forms = PTX_FORMS.get(name) or [f"{s}{t}" for s in (SPACES if spec.access else ("",)) for t in TYPES]
        ops = [name] * (name not in PTX_FORMS) + [name + f for f in forms]
        out += [(name, ins) for ins in _ptx_instructions(ops) if ins is not None]
    for name in opcodes.SASS_TABLE:
        if only and name not in only:
            continue
        for op in [name] + [name + f for f in SASS_FORMS.get(name, [])]:
            ins = _sass_instruction(op)
            if ins is not None:
                out.append((name, ins))
    return out


CLASSES = sorted(set(DEFAULT_LATENCIES) | set(DEFAULT_SPACE_LATENCIES))
PROBE = {c: 2 ** i for i, c in enumerate(CLASSES)}  # a cost is then the set of classes it charges


def disagreements(only: tuple[str, ...] = ()) -> list[str]:
    """Where the table (as the front ends apply it) and the reference differ, and entries no form of is accepted."""
    found, covered, probe = [], set(), CostModel(PROBE)
    forms = accepted(only)
    assert len(forms) > (400 if not only else 0)
    for name, ins in forms:
        covered.add(name)
        spec, ref = spec_of(ins.opcode), reference(ins.opcode)
        if ref is None or spec is None:
            found.append(f"{ins.opcode}: the reference does not know it")
            continue
        table = (ins.cls, ins.unit, spec.access, ins.space, spec.varies, probe.latency(ins))
        mine = (ref.cls, ref.unit, ref.access, ref.space, ref.per_lane, sum(PROBE[c] for c in ref.latency))
        if table != mine:
            found.append(f"{ins.opcode}: table {table}, reference {mine} (class, unit, access, space, per lane, cost "
                         f"of {[c for c in CLASSES if probe.latency(ins) >> CLASSES.index(c) & 1]} vs {ref.latency})")
    names = [n for n in list(opcodes.PTX_TABLE) + list(opcodes.SASS_TABLE) if not only or n in only]
    found += [f"{name}: no form of it is accepted" for name in names if name not in covered]
    return found


def test_the_table_and_the_reference_agree_on_every_opcode_the_kit_accepts():
    assert disagreements() == []


def test_the_reference_states_the_cost_models_default_cycles():
    cost = CostModel()
    assert {c: {**cost.latencies, **cost.space_latencies}[c] for c in DEFAULT_CYCLES} == dict(DEFAULT_CYCLES)
    assert set(DEFAULT_CYCLES) == set(CLASSES)


def test_a_wrong_class_in_the_table_and_an_entry_the_reference_lacks_are_found(monkeypatch):
    table = dict(PTX_TABLE)
    table["rcp"] = replace(table["rcp"], cls="fmul")  # the mutant: rcp costed as a multiply
    table["frob"] = opcodes.OpSpec("frob", "int")
    monkeypatch.setattr(opcodes, "PTX_TABLE", table)
    found = disagreements(("rcp", "frob", "sqrt"))
    assert any(f.startswith("rcp.f32: table ('fmul'") and "['fmul'] vs ('fdiv',)" in f for f in found), found
    assert any(f.startswith("frob: the reference does not know it") for f in found), found


def test_local_memory_costed_as_on_chip_is_found(monkeypatch):
    from warpcheck.models.kernels import cfg

    monkeypatch.setattr(cfg, "DEFAULT_SPACE_LATENCIES", {**cfg.DEFAULT_SPACE_LATENCIES, "local": 20})
    found = disagreements(("ld", "st", "LDL", "STL", "LDS"))
    assert found and all(".local" in f.split(":")[0] or f.startswith(("LDL", "STL")) for f in found), found
    assert any(f.startswith("LDL") for f in found) and any(f.startswith("ld.local") for f in found)


@pytest.mark.parametrize("opcode, cls, unit, space, latency", [
    ("rcp.rn.f32", "fdiv", "", None, ("fdiv",)),
    ("ld.local.u32", "mem", "", "local", ("mem",)),
    ("ld.u32", "mem", "", "generic", ("mem",)),
    ("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16", "mem", "matrix", "shared", ("shared", "matrix")),
    ("cp.async.bulk.tensor.2d.shared::cluster.global.tile", "mem", "tma", "global", ("mem", "tma")),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "fmadd", "tensor", None, ("tensor",)),
    ("MUFU.RCP", "fdiv", "", None, ("fdiv",)), ("LDL", "mem", "", "local", ("mem",)),
])
def test_the_reference_reads_the_ptx_isa(opcode, cls, unit, space, latency):
    ref = reference(opcode)
    assert ref is not None and (ref.cls, ref.unit, ref.space, ref.latency) == (cls, unit, space, latency)
