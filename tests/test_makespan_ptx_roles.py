"""The PTX-to-unit mapping of ``makespan --ptx`` against a reference that reads the PTX itself.

The reference (``spec/makespan/ptx_roles.py``) is written from the documented
table and imports nothing of ``models/makespan`` or ``models/kernels``; the
comparisons are ``api/_makespan/ptx_check.py``'s; the mutants of the roles are
``models/makespan/mutants.py``'s ``ptx-*``, judged by ``api/_makespan/mutation.py``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from warpcheck._makespan.mutation import MUTANTS, _kill_ptx, kill
from warpcheck._makespan.ptx_check import (Disagreement, first_disagreement, first_kernel_disagreement,
                                           module_disagreement)
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.makespan.mutants import Mutant
from warpcheck.spec.makespan.ptx_roles import entry_instructions, role, sm_roles

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "examples" / "kernels"
FERMI, AMPERE = str(ROOT / "examples/sm/fermi-makespan.toml"), str(ROOT / "examples/sm/ampere-makespan.toml")
PTX_MUTANTS = [n for n, m in MUTANTS.items() if m.method == "ptx-roles"]


def _options(ptx: Path, sm: str) -> dict[str, object]:
    """The makespan options of an example, as benchmarks/makespan_long.py::ptx_entries gives them.

    lud's bounds file gives a worst path of about 10,000 instructions (slow here): one trip per loop instead.
    """
    toml = ptx.with_suffix(".toml")
    bounds = {"max_loop_bound": 1} if ptx.stem == "lud" else \
        {"bounds": str(toml)} if toml.exists() else {"max_loop_bound": 4}
    return {"ptx": str(ptx), "sm": sm, **bounds}


# every example on the SM ptx_entries pairs it with (Ampere for tensor cores, else Fermi), and on Ampere
PAIRS = [(p.stem, AMPERE if "wmma" in p.name else FERMI) for p in sorted(KERNELS.glob("*.ptx"))] + \
    [(p.stem, AMPERE) for p in sorted(KERNELS.glob("*.ptx")) if "wmma" not in p.name]


@pytest.mark.parametrize("name", sorted(p.stem for p in KERNELS.glob("*.ptx")))
def test_every_static_instruction_of_each_example_has_the_reference_s_role(name):
    assert first_disagreement(str(KERNELS / f"{name}.ptx")) is None


@pytest.mark.parametrize("name,sm", PAIRS, ids=[f"{n}-{Path(s).stem.split('-')[0]}" for n, s in PAIRS])
def test_every_letter_of_each_example_s_kernel_string_is_on_the_reference_s_unit(name, sm):
    found, checked = first_kernel_disagreement(**_options(KERNELS / f"{name}.ptx", sm))
    assert found is None and checked > 0


@pytest.mark.parametrize("ptx", sorted((ROOT / "examples" / "corpus").glob("*.ptx")) +
                         sorted((ROOT / "examples" / "reorder").glob("*.ptx")), ids=lambda p: p.name)
def test_every_entry_and_function_of_the_other_examples_agrees(ptx):
    """Compiled PTX from nvcc, NVVM, Triton and OptiX: double precision, calls, debug directives."""
    assert module_disagreement(str(ptx)) is None


FAMILIES = """\
.version 8.0
.target sm_90
.address_size 64
// one instruction of each family of the documented table (and of the opcode table where it is silent)
.visible .entry families(.param .u64 p)
{
\t.reg .pred %p<4>; .reg .b32 %r<20>; .reg .f32 %f<20>; .reg .f64 %fd<20>; .reg .b64 %rd<20>; .reg .b16 %h<8>;
\tld.param.u64 %rd1, [p];
\tcvt.f64.f32 %fd1, %f1;
\tcvt.rn.f32.f64 %f2, %fd1;
\tcvt.rn.f64.s32 %fd2, %r1;
\tcvt.rn.f32.s32 %f3, %r1;
\tcvt.u64.u32 %rd2, %r1;
\tcvt.rn.f16.f32 %h5, %f1;
\tadd.f64 %fd3, %fd1, %fd2; fma.rn.f64 %fd4, %fd1, %fd2, %fd3;
\tsetp.lt.f64 %p1, %fd1, %fd2; setp.lt.f32 %p2, %f1, %f2; setp.lt.s32 %p3, %r1, %r2;
\tdiv.rn.f64 %fd5, %fd1, %fd2; rcp.rn.f64 %fd6, %fd1; sqrt.rn.f32 %f9, %f1; tanh.approx.f32 %f5, %f1;
\tdiv.s32 %r3, %r1, %r2; rem.u32 %r4, %r1, %r2;
\tselp.f32 %f6, %f1, %f2, %p1; mov.f64 %fd9, %fd1; abs.f64 %fd10, %fd1; add.f16 %h4, %h2, %h3;
\tmul.wide.s32 %rd3, %r1, 4; testp.finite.f64 %p2, %fd1; set.lt.u32.f64 %r9, %fd1, %fd2;
\tshfl.sync.bfly.b32 %r10, %r1, 1, 31, -1; vote.sync.ballot.b32 %r11, %p1, -1; lop3.b32 %r12, %r1, %r2, %r3, 0x96;
\tatom.global.add.u32 %r13, [%rd1], 1; red.global.add.u32 [%rd1], 1; st.global.f64 [%rd1], %fd1;
\ttex.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [tex0, {%f1, %f2}];
\tcp.async.ca.shared.global [%r1], [%rd1], 16; cp.async.commit_group; cp.async.wait_group 0;
\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];
\tcp.async.bulk.commit_group; cp.async.bulk.wait_group 0;
\tmbarrier.arrive.shared.b64 %rd4, [%r1];
\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4}, [%rd1], 16;
\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2}, {%r1, %r2}, {%r3, %r4}, {%f3, %f4};
\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};
\tldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r5}, [%r1];
\tmovmatrix.sync.aligned.m8n8.trans.b16 %r6, %r5;
\tbar.sync 0; membar.gl; fence.acq_rel.gpu; txq.width.b32 %r14, [tex0];
\t@%p1 bra $L1;
$L1:
\tret;
}
"""


def test_one_instruction_of_every_family_agrees(tmp_path):
    """Beyond the examples: conversions from and to .f64 are fp64 (the docs' "on .f64 operands"), integer div
    and rem sfu (the fdiv class), copy waits int, fragment loads ldst, movmatrix tensor."""
    ptx = tmp_path / "families.ptx"
    ptx.write_text(FAMILIES)
    assert first_disagreement(str(ptx)) is None
    roles = {r.opcode: r.role for r in entry_instructions(FAMILIES)}
    assert (roles["cvt.f64.f32"], roles["cvt.rn.f64.s32"], roles["div.s32"], roles["cp.async.wait_group"],
            roles["movmatrix.sync.aligned.m8n8.trans.b16"]) == ("fp64", "fp64", "sfu", "int", "tensor")


def test_packed_half_types_take_their_float_class(tmp_path):
    """add.rn.f16x2, fma.rn.bf16 and mul.bf16x2 are float arithmetic (docs/kernels.md: a float type takes its
    operation's float class); the design reads their class from the suffix, and both readers agree."""
    ptx = tmp_path / "half.ptx"
    ptx.write_text(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry h()\n{\n"
                   "\t.reg .b32 %r<4>;\n\tadd.rn.f16x2 %r1, %r2, %r3;\n\tfma.rn.bf16 %r1, %r2, %r3, %r1;\n"
                   "\tmul.rn.bf16x2 %r1, %r2, %r3;\n\tadd.s32 %r1, %r2, %r3;\n\tret;\n}\n")
    assert first_disagreement(str(ptx)) is None
    roles = [r.role for r in entry_instructions(ptx.read_text())]
    assert roles[:4] == ["float", "float", "float", "int"]


def test_the_reader_skips_labels_directives_braces_comments_and_guards():
    text = ("/* a */ .version 8.0\n.visible .entry k(\n .param .u32 a\n)\n.maxntid 32, 1, 1\n{\n"
            "\t.reg .b32 %r<4>; // x { } ;\n\t.loc 1 2 3\n$L0: @!%p1 bra $L0;\n"
            "\t{ .param .b32 q; st.param.b32 [q], %r1; call(%r2), f, (q); }\n"
            "\tmov.b64 %rd1, {%r1, %r2}; add.s32 %r3,\n\t\t%r1, %r2;\n}\n.func f() { ret; }\n")
    assert [(r.line, r.opcode, r.role) for r in entry_instructions(text, "k")] == [
        (9, "bra", "int"), (10, "st.param.b32", "ldst"), (10, "call", "int"), (11, "mov.b64", "int"),
        (11, "add.s32", "int")]
    assert [r.opcode for r in entry_instructions(text, "f")] == ["ret"]


@pytest.mark.parametrize("opcode,says", [("nanosleep.u32", "'nanosleep.u32' is in no row"),
                                         ("sqrt.s32", "'sqrt.s32' is in no row"),
                                         ("add", "'add' is in no row"),
                                         ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "'wgmma")])
def test_the_reference_refuses_an_opcode_no_table_names(opcode, says):
    with pytest.raises(ConfigError, match=says):
        role(opcode)
    with pytest.raises(ConfigError, match=r"^k\.ptx:3: opcode"):
        entry_instructions(f".entry e()\n{{\n\t{opcode} %r1, %r2;\n}}\n", "e", "k.ptx")


def test_the_reference_refuses_a_missing_entry_an_open_body_and_a_bad_sm(tmp_path):
    with pytest.raises(ConfigError, match="holds no entry or function 'x'"):
        entry_instructions(".entry e()\n{\n\tret;\n}\n", "x")
    with pytest.raises(ConfigError, match="holds 2 entries; name one: a, b"):
        entry_instructions(".entry a()\n{\n}\n.entry b()\n{\n}\n")
    with pytest.raises(InputFileError, match="never closed"):
        entry_instructions(".entry e()\n{\n\tret;\n")
    bad = tmp_path / "sm.toml"
    bad.write_text('[makespan.roles]\nvector = "V"\n')
    with pytest.raises(InputFileError, match=r"\[makespan.roles\] must map roles"):
        sm_roles(str(bad))
    assert sm_roles(FERMI)["fp64"] == "D" and "tensor" not in sm_roles(FERMI)


EVIDENCE = {"ptx-sfu-as-float": "ex2.approx.f32: design role float, reference sfu; kernel string: unit C",
            "ptx-fp64-as-float": "add.f64: design role float, reference fp64; kernel string: unit C",
            "ptx-copy-waits-as-ldst": "cp.async.commit_group: design role ldst, reference int; kernel string: unit L",
            "ptx-fragments-as-tensor": "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16: design role tensor, "
                                       "reference ldst; kernel string: unit T",
            "ptx-float-compare-as-int": "setp.lt.f32: design role int, reference float; kernel string: unit I"}


@pytest.mark.parametrize("name", PTX_MUTANTS)
def test_each_ptx_mutant_is_killed_and_its_evidence_names_the_instruction(name, tmp_path):
    k = kill(name, tmp_path)
    assert (k.status, k.replayed, k.verdict) == ("FAIL", True, "killed"), k.evidence
    assert EVIDENCE[name] in k.evidence


def test_the_suite_has_a_ptx_mutant_for_each_case_above():
    assert sorted(PTX_MUTANTS) == sorted(EVIDENCE)


@pytest.mark.parametrize("name", PTX_MUTANTS)
def test_the_unmutated_design_passes_the_same_judge(name):
    m = MUTANTS[name]
    k = _kill_ptx(Mutant(m.name, m.breaks, {}, "", method=m.method, ptx=m.ptx))
    assert k.status == "PASS" and "every role and all" in k.evidence, k.evidence
