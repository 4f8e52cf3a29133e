"""The PTX and SASS-style front ends: fixtures, round trips, classes, and bad input."""
from __future__ import annotations

import pytest

from warpcheck.models.kernels.cfg import KernelCFG
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.kernels.ptx import format_ptx, parse_ptx
from warpcheck.models.kernels.sass import format_sass, parse_sass

from kernel_fixtures import ALL, PTX, SASS, kernel


def projection(k):
    return (k.name, k.params, dict(k.labels),
            [(i.opcode, i.dst, i.srcs, i.guard, i.target, i.cls, i.space, i.dtype) for i in k.instructions])


def test_there_are_at_least_eight_nvcc_fixtures_with_loops_and_guarded_branches():
    assert len(PTX) >= 8
    for path in PTX:
        k = kernel(path)
        assert KernelCFG(k).loops, path.name
        assert any(i.base == "bra" and i.guard for i in k.instructions), path.name


@pytest.mark.parametrize("path", PTX, ids=lambda p: p.name)
def test_ptx_round_trip(path):
    k = kernel(path)
    assert projection(parse_ptx(format_ptx(k))[0]) == projection(k)


@pytest.mark.parametrize("path", SASS, ids=lambda p: p.name)
def test_sass_round_trip(path):
    k = kernel(path)
    assert projection(parse_sass(format_sass(k))[0]) == projection(k)


def test_ptx_instruction_fields():
    k = parse_ptx(MODULE)[0]
    ld, setp, bra, st = k.instructions[0], k.instructions[2], k.instructions[3], k.instructions[4]
    assert (ld.opcode, ld.dst, ld.srcs, ld.cls, ld.space, ld.dtype) == \
        ("ld.param.u32", ("%r1",), ("[k_param_0]",), "mem", "param", "u32")
    assert (setp.dst, setp.srcs, setp.cls) == (("%p1",), ("%r2", "%r1"), "int")
    assert (bra.guard, bra.target, bra.cls) == ("!%p1", "$L_end", "branch")
    assert (st.dst, st.srcs, st.space) == ((), ("[%rd1+4]", "%f1"), "global")
    assert k.instructions[5].cls == "fdiv" and k.instructions[6].cls == "exit"
    assert k.params == ("k_param_0",)


MODULE = """
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(
    .param .u32 k_param_0
)
{
    .reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<2>; .reg .f32 %f<4>;
    ld.param.u32 %r1, [k_param_0];
    mov.u32 %r2, %tid.x;
    setp.lt.s32 %p1, %r2, %r1;   // thread-dependent
    @!%p1 bra $L_end;
    st.global.f32 [%rd1+4], %f1;
    div.rn.f32 %f2, %f1, %f3;
$L_end:
    ret;
}
"""


def test_several_kernels_in_one_module():
    two = MODULE + MODULE.split(".address_size 64")[1].replace("entry k(", "entry k2(").replace("k_param", "k2_param")
    assert [k.name for k in parse_ptx(two)] == ["k", "k2"]


def test_unparsable_ptx_line_names_file_line_column_and_token():
    bad = MODULE.replace("mov.u32 %r2, %tid.x;", "mov.u32 %r2, %tid.x")
    with pytest.raises(InputFileError, match=r"^k\.ptx:11:\d+: cannot parse '%tid\.x'"):
        parse_ptx(bad, "k.ptx")
    with pytest.raises(InputFileError, match=r"^k\.ptx:11:5: cannot parse '#mov"):
        parse_ptx(MODULE.replace("mov.u32", "#mov.u32"), "k.ptx")


def test_branch_to_unknown_label_is_reported_with_its_line():
    with pytest.raises(InputFileError, match=r"^k\.ptx:13:\d+: bra in kernel 'k' branches to unknown label '\$L_nowhere'"):
        parse_ptx(MODULE.replace("bra $L_end", "bra $L_nowhere"), "k.ptx")


def test_sass_errors():
    with pytest.raises(InputFileError, match=r"^s\.sass:2:9: cannot parse 'iadd'"):
        parse_sass(".kernel s\n        iadd R1, R2, R3 ;\n", "s.sass")
    with pytest.raises(InputFileError, match=r"^s\.sass:1:\d+: cannot parse '\?\?'"):
        parse_sass("IADD R1, ??, R3 ;\n", "s.sass")
    with pytest.raises(InputFileError, match=r"unknown label 'NOWHERE'"):
        parse_sass("BRA NOWHERE ;\nEXIT ;\n", "s.sass")


def test_irreducible_cfg_is_a_clear_error():
    text = """
        S2R R0, SR_TID.X ;
        ISETP.LT P0, R0, 4 ;
        @P0 BRA B ;
    A:  IADD R1, R1, 1 ;
        BRA B ;
    B:  IADD R2, R2, 1 ;
        @P0 BRA A ;
        EXIT ;
    """
    with pytest.raises(ConfigError, match=r"irreducible control-flow graph"):
        KernelCFG(parse_sass(text, "irr.sass")[0]).loops


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_fixture_ends_every_path_and_has_known_classes(path):
    k = kernel(path)
    cfg = KernelCFG(k)
    assert "EXIT" in cfg.graph
    assert all(i.cls in ("nop", "int", "fadd", "fmul", "fmadd", "fcvt", "fdiv", "fsqrt", "mem", "branch", "exit")
               for i in k.instructions)


CALL = """
.version 7.0
.target sm_75
.address_size 64
.func  (.param .b32 func_retval0) f(
    .param .b32 f_param_0
)
{   .reg .f32 %f<2>;
    ld.param.f32 %f1, [f_param_0];
    st.param.f32 [func_retval0+0], %f1;
    ret;
}
.visible .entry k(
    .param .u32 k_param_0
)
{   .reg .b32 %r<2>; .reg .f32 %f<3>;
    ld.param.u32 %r1, [k_param_0];
    { // callseq 0, 0
    .param .b32 param0;
    st.param.f32 [param0+0], %f1;
    .param .b32 retval0;
    call.uni (retval0),
    f,
    (
    param0
    );
    ld.param.f32 %f2, [retval0+0];
    } // callseq 0
    ret;
}
"""


def test_multi_line_call_sequences_parse_and_are_inlined():
    from warpcheck.models.kernels.value_agreement import result_varies

    [k] = parse_ptx(CALL, "call.ptx")
    assert [i.base for i in k.instructions] == ["ld", "mov", "bra", "mov", "mov", "bra", "mov", "ret"]
    assert k.instructions[2].line == 22 and k.instructions[2].target == "f$c1"
    assert k.instructions[0].space == "param" and not result_varies(k.instructions[0], frozenset())
    assert [i.srcs for i in k.instructions if i.base == "mov"] == [
        ("%f1",), ("%cs$param0$3$0",), ("%f1$c1",), ("%cs$retval0$4$0",)]
