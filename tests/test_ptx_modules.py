"""PTX modules as nvcc writes them: prototypes, scoped blocks, inline-asm predicates, inlined calls.

Every module here is our own reproducer, written in the style of nvcc's output.
"""
from __future__ import annotations

import json

import pytest

from warpcheck.cli.main import main
from warpcheck.encodings.kernels.ipet import wcet
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.kernels.ptx import parse_ptx, parse_ptx_module
from warpcheck.models.kernels.warp_cfg import build_warp_cfg
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.spec.kernels.thread_ops import WarpInputs

def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` holding ``needle``."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


HEAD = ".version 8.0\n.target sm_75\n.address_size 64\n"

PROTOTYPES = HEAD + """
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func  (.param .b64 func_retval0) slow_half
(
	.param .b64 slow_half_param_0
)
;
.visible .entry first(
	.param .u64 first_param_0
)
{
	.reg .b32 	%r<3>;
	mov.u32 	%r1, %tid.x;
	ret;
}
.visible .entry second(
	.param .u64 second_param_0
)
{	.reg .b32 	%r<3>;
	mov.u32 	%r1, %ctaid.x;
	ret;
}
.func  (.param .b64 func_retval0) slow_half(
	.param .b64 slow_half_param_0
)
{
	.reg .f64 	%fd<3>;
	ld.param.f64 	%fd1, [slow_half_param_0];
	mul.f64 	%fd2, %fd1, 0d3FE0000000000000;
	st.param.f64 	[func_retval0+0], %fd2;
	ret;
}
"""


def test_a_prototype_does_not_swallow_the_next_entry():
    module = parse_ptx_module(PROTOTYPES, "proto.ptx")
    assert [k.name for k in module.entries] == ["first", "second"]
    assert {"vprintf", "slow_half"} <= module.prototypes and list(module.functions) == ["slow_half"]
    assert [i.base for i in module.functions["slow_half"].instructions] == ["ld", "mul", "st", "ret"]


def test_a_prototype_at_the_end_without_its_semicolon_is_one_clear_line():
    with pytest.raises(InputFileError, match=r"^p\.ptx:\d+:1: cannot parse 'g': the function has no body"):
        parse_ptx(HEAD + ".func (.param .b32 func_retval0) g\n(\n.param .b32 g_param_0\n)\n", "p.ptx")


SCOPED = HEAD + """
.visible .entry scoped(
	.param .u64 scoped_param_0
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<3>;
	.shared .align 4 .b8 tile[128];
	mov.u32 	%r1, %tid.x;
	mov.u64 	%rd1, tile;
	{ .reg .b64 %t; cvta.shared.u64 %t, %rd1; cvt.u32.u64 %r2, %t; }
	{ .reg .u32 %r1; mov.u32 %r1, 7; add.u32 %r3, %r1, %r2; }
	{
	.reg .pred P1;
	elect.sync _|P1, 0xffffffff;
	selp.b32 %r4, 1, 0, P1;
	}
	setp.eq.s32 	%p1, %r3, 0;
	@%p1 bra 	$L__uniform;
	add.s32 	%r5, %r5, 1;
$L__uniform:
	setp.lt.u32 	%p2, %r1, 5;
	@%p2 bra 	$L__by_tid;
	add.s32 	%r5, %r5, 2;
$L__by_tid:
	setp.ne.s32 	%p1, %r4, 0;
	@%p1 bra 	$L__elected;
	add.s32 	%r5, %r5, 3;
$L__elected:
	ret;
}
"""


def test_one_line_scoped_blocks_and_bare_inline_asm_predicates_parse_with_renamed_registers():
    [k] = parse_ptx(SCOPED, "scoped.ptx")
    texts = [(i.opcode, i.dst, i.srcs) for i in k.instructions]
    assert ("cvta.shared.u64", ("%t$4",), ("%rd1",)) in texts
    assert ("mov.u32", ("%r1$5",), ("7",)) in texts       # the scoped %r1 shadows the outer one
    assert ("add.u32", ("%r3",), ("%r1$5", "%r2")) in texts
    assert ("elect.sync", ("%p$P1$6",), ("0xffffffff",)) in texts
    assert ("selp.b32", ("%r4",), ("1", "0", "%p$P1$6")) in texts


def test_scoped_registers_keep_value_agreement_sound():
    """The outer %r1 (= %tid.x) still decides its branch; the elected lane's flag differs across lanes."""
    w = build_warp_cfg(parse_ptx(SCOPED)[0])
    uniform = [info["uniform"] for _, info in sorted(w.branches.items())]
    assert uniform == [True, False, False]
    run = run_warp(parse_ptx(SCOPED)[0], WarpInputs(), threads=8)
    splits = [(pc, mask, holds) for pc, mask, holds in run.guards if holds not in (0, mask)]
    assert {pc for pc, _, _ in splits} == {pc for pc, info in w.branches.items() if not info["uniform"]}


CALLS = HEAD + """
.func  (.param .b32 func_retval0) repeat_add
(
	.param .b32 repeat_add_param_0,
	.param .b32 repeat_add_param_1
)
;
.visible .entry caller(
	.param .u32 caller_param_0
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<12>;
	ld.param.u32 	%r1, [caller_param_0];
	mov.u32 	%r2, %tid.x;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 param1;
	st.param.b32 	[param1+0], 3;
	.param .b32 retval0;
	call.uni (retval0),
	repeat_add,
	(
	param0,
	param1
	);
	ld.param.b32 	%r3, [retval0+0];
	} // callseq 0
	setp.eq.s32 	%p1, %r3, 12;
	@%p1 bra 	$L__BB0_2;
	add.s32 	%r4, %r4, 1;
$L__BB0_2:
	and.b32 	%r5, %r2, 3;
	{ // callseq 1, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r5;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r1;
	.param .b32 retval0;
	call.uni (retval0),
	repeat_add,
	(
	param0,
	param1
	);
	ld.param.b32 	%r6, [retval0+0];
	} // callseq 1
	setp.gt.s32 	%p2, %r6, 2;
	@%p2 bra 	$L__BB0_4;
	add.s32 	%r4, %r4, 2;
$L__BB0_4:
	ret;
}
.func  (.param .b32 func_retval0) repeat_add(
	.param .b32 repeat_add_param_0,
	.param .b32 repeat_add_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [repeat_add_param_0];
	ld.param.u32 	%r2, [repeat_add_param_1];
	mov.u32 	%r3, 0;
$L__BB1_1:
	add.s32 	%r3, %r3, %r2;
	add.s32 	%r1, %r1, -1;
	setp.gt.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB1_1;
	st.param.b32 	[func_retval0+0], %r3;
	ret;
}
"""


def test_calls_are_inlined_with_parameters_return_values_and_renamed_registers():
    [k] = parse_ptx(CALLS, "calls.ptx")
    assert not any(i.base == "call" for i in k.instructions)
    assert {"repeat_add$c1", "repeat_add$c2", "$L__BB1_1$c1", "$L__BB1_1$c2"} <= set(k.labels)
    movs = [(i.dst, i.srcs) for i in k.instructions if i.base == "mov" and "%cs$" in i.text]
    assert (("%r1$c1",), ("%cs$param0$3$0",)) in movs and (("%r3",), ("%cs$retval0$5$0",)) in movs
    w = build_warp_cfg(k)
    assert [info["uniform"] for _, info in sorted(w.branches.items())] == [True, True, False, False]


def test_inlined_calls_run_concretely_and_are_bounded():
    [k] = parse_ptx(CALLS, "calls.ptx")
    run = run_warp(k, WarpInputs(params={"caller_param_0": 4}), threads=8)
    first = [(mask, holds) for pc, mask, holds in run.guards if k.instructions[pc].guard == "%p1"]
    assert first[-1] == (0xFF, 0xFF)  # repeat_add(4, 3) returned 12 in every lane
    result, _ = wcet(build_warp_cfg(k), {"$L__BB1_1": 4})
    assert run.cycles <= result.wcet


def test_wcet_of_a_module_with_calls_from_the_command_line(capsys, tmp_path):
    path = tmp_path / "calls.ptx"
    path.write_text(CALLS)
    assert main(["wcet", str(path), "--loop-bound", "$L__BB1_1=4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["wcet"] > 0 and {lp["bound"] for lp in out["loops"]} == {4}


def test_loop_bounds_name_a_loop_of_the_inlined_kernel(capsys, tmp_path):
    """A bound may name an inlined copy's header ($L__BB1_1$c1) or the label it was copied from, nothing else."""
    path = tmp_path / "calls.ptx"
    path.write_text(CALLS)
    for name in ("$L__BB1_1", "$L__BB1_1$c2"):
        assert main(["wcet", str(path), "--loop-bound", f"{name}=4", "--max-loop-bound", "9", "--json"]) == 0
        assert 4 in {lp["bound"] for lp in json.loads(capsys.readouterr().out)["loops"]}
    assert main(["wcet", str(path), "--loop-bound", "NOPE=3", "--max-loop-bound", "9"]) == 2
    err = capsys.readouterr().err
    assert "'NOPE', which heads no loop" in err and "$L__BB1_1, $L__BB1_1$c1, $L__BB1_1$c2" in err


RECURSIVE = HEAD + """
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func  (.param .b32 func_retval0) down(
	.param .b32 down_param_0
)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [down_param_0];
	{ // callseq 2, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), down, (param0);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 2
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}
.visible .entry top()
{
	.reg .b32 	%r<3>;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], 5;
	.param .b32 retval0;
	call.uni (retval0), down, (param0);
	ld.param.b32 	%r1, [retval0+0];
	} // callseq 0
	ret;
}
.visible .entry printing()
{
	.reg .b64 	%rd<3>;
	{ // callseq 1, 0
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	} // callseq 1
	ret;
}
"""


def test_recursion_is_refused_in_one_line_naming_the_function_and_line(capsys, tmp_path):
    path = tmp_path / "rec.ptx"
    path.write_text(RECURSIVE)
    code = main(["cfg", str(path), "--entry", "top"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    line = line_of(RECURSIVE, "call.uni (retval0), down")
    assert f"{path}:{line}:2: call of 'down' is recursive (down -> down)" in err
    assert main(["cfg", str(path), "--entry", "printing", "--json"]) == 0  # the other entry is fine


def test_a_call_without_a_body_is_kept_and_wcet_names_it():
    module = parse_ptx_module(RECURSIVE, "rec.ptx")
    k = module.inlined(module.entries[1])
    line = line_of(RECURSIVE, "call.uni (retval0), vprintf")
    with pytest.raises(ConfigError, match=rf"^rec\.ptx:{line}:2: kernel 'printing' calls 'vprintf', which has no body"):
        wcet(build_warp_cfg(k))


LOCAL_ARRAY = HEAD + """
.visible .entry local_flag(
	.param .u64 local_flag_param_0
)
{
	.local .align 4 .b8 	__local_depot0[16];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<6>;
	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd1, [local_flag_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	add.u64 	%rd3, %SP, 0;
	st.u32 	[%rd3], %r1;
	ld.u32 	%r2, [%rd3];
	setp.eq.s32 	%p1, %r2, 0;
	@%p1 bra 	$L__BB0_2;
	add.s32 	%r5, %r5, 1;
$L__BB0_2:
	ld.global.u32 	%r3, [%rd2];
	setp.eq.s32 	%p2, %r3, 0;
	@%p2 bra 	$L__BB0_4;
	add.s32 	%r5, %r5, 2;
$L__BB0_4:
	atom.global.add.u32 	%r4, [%rd2+4], 1;
	setp.eq.s32 	%p3, %r4, 0;
	@%p3 bra 	$L__BB0_6;
	add.s32 	%r5, %r5, 3;
$L__BB0_6:
	ret;
}
"""


def test_a_generic_load_from_a_per_lane_local_array_is_never_uniform():
    [k] = parse_ptx(LOCAL_ARRAY, "local.ptx")
    assert k.symbols["__local_depot0"] == "local"
    w = build_warp_cfg(k)
    assert [info["uniform"] for _, info in sorted(w.branches.items())] == [False, True, False]


def test_the_simulator_gives_each_lane_its_own_local_memory_and_applies_atomics():
    [k] = parse_ptx(LOCAL_ARRAY, "local.ptx")
    run = run_warp(k, WarpInputs(params={"local_flag_param_0": 4096}, memory={4100: 0}), threads=8)
    by_text = {k.instructions[pc].text.split()[0]: (mask, holds) for pc, mask, holds in run.guards}
    assert by_text["@%p1"] == (0xFF, 0x01)  # only lane 0 stored (and reads back) tid 0
    assert by_text["@%p3"][1] == 0x01        # the atomic returned 0, 1, ..., 7: only lane 0 saw 0
    w = build_warp_cfg(k)
    for pc, mask, holds in run.guards:
        assert w.branches[pc]["uniform"] is False or holds in (0, mask)


def test_bitset_value_agreement_equals_the_frozenset_rules_on_every_instruction():
    """RegisterBits (used by the warp-level CFG) against transfer/guard_varies, on random facts."""
    import random

    from kernel_fixtures import ALL, kernel
    from warpcheck.models.kernels.value_agreement import RegisterBits, guard_varies, per_lane_loads, transfer

    rng = random.Random(5)
    for k in [kernel(p) for p in ALL] + [parse_ptx(LOCAL_ARRAY)[0], parse_ptx(CALLS)[0], parse_ptx(SCOPED)[0]]:
        per_lane = per_lane_loads(k)
        bits = RegisterBits(k, per_lane)
        regs = sorted(bits.index)
        for pc, ins in enumerate(k.instructions):
            facts = {g: frozenset(r for r in regs if rng.random() < 0.3) for g in (1, 2, 3, 4)}
            as_bits = {g: bits.bits(v) for g, v in facts.items()}
            expected = transfer(ins, facts, 1, pc in per_lane)
            assert {g: bits.names(v) for g, v in bits.transfer(pc, as_bits, 1).items()} == expected, ins.text
            assert bits.guard_varies(pc, as_bits[1]) == guard_varies(ins, facts[1]), ins.text


WARP_WIDE = HEAD + """
.visible .entry warp_wide()
{
	.reg .pred 	%p<5>;
	.reg .b32 	%r<8>;
	mov.u32 	%r1, %tid.x;
	shfl.sync.down.b32 	%r2|%p1, %r1, 1, 31, -1;
	shfl.sync.bfly.b32 	%r3, %r1, 2, 31, -1;
	shfl.sync.up.b32 	%r4, %r1, 1, 0, -1;
	shfl.sync.idx.b32 	%r5, %r1, 3, 31, -1;
	setp.lt.u32 	%p2, %r1, 2;
	vote.sync.ballot.b32 	%r6, %p2, -1;
	vote.sync.all.pred 	%p3, %p2, -1;
	setp.eq.s32 	%p4, %r2, 5;
	@%p4 bra 	$L__done;
	add.s32 	%r7, %r7, 1;
$L__done:
	ret;
}
"""


def test_shuffles_and_votes_read_the_other_lanes():
    [k] = parse_ptx(WARP_WIDE)
    run = run_warp(k, WarpInputs(), threads=8)
    [(_, mask, holds)] = run.guards
    assert (mask, holds) == (0xFF, 1 << 4)  # shfl.down by 1: only lane 4 reads 5 (from lane 5)
    assert build_warp_cfg(k).branches[max(build_warp_cfg(k).branches)]["uniform"] is False


def test_a_label_before_a_scoped_block_and_a_closing_brace_after_the_last_statement():
    text = HEAD + """
.visible .entry tight()
{
	.reg .b32 %r<4>; .reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
$L__again: { .reg .b32 %t; add.s32 %t, %r1, 1; mov.u32 %r2, %t; }
	setp.lt.s32 %p1, %r2, 4;
	@%p1 bra $L__again;
	ret; }
.visible .entry after() { ret; }
"""
    first, second = parse_ptx(text, "tight.ptx")
    assert dict(first.labels) == {"$L__again": 1} and first.instructions[1].dst == ("%t$3",)
    assert second.name == "after" and [i.base for i in second.instructions] == ["ret"]


def test_an_indirect_branch_is_refused_for_its_entry_only(capsys, tmp_path):
    path = tmp_path / "brx.ptx"
    path.write_text(HEAD + """
.visible .entry jump(
	.param .u32 jump_param_0
)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [jump_param_0];
$L_tbl: .branchtargets $L_a, $L_b;
	brx.idx %r1, $L_tbl;
$L_a:
	add.s32 %r2, %r2, 1;
$L_b:
	ret;
}
.visible .entry plain() { ret; }
""")
    line = line_of(path.read_text(), "brx.idx")
    assert main(["cfg", str(path), "--entry", "jump"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}:2: kernel 'jump': brx.idx (an indirect branch" in err and len(err.strip().splitlines()) == 1
    assert main(["wcet", str(path), "--entry", "plain"]) == 0


def test_widening_agreement_facts_only_loses_uniform_branches():
    """With widening after the first growth, every branch called uniform is uniform without widening."""
    from kernel_fixtures import ALL, kernel

    widened_any = False
    for k in [kernel(p) for p in ALL] + [parse_ptx(CALLS)[0], parse_ptx(LOCAL_ARRAY)[0]]:
        exact, wide = build_warp_cfg(k), build_warp_cfg(k, widen_after=1)
        widened_any = widened_any or bool(wide.widened)
        assert not exact.widened
        for pc, info in wide.branches.items():
            assert not info["uniform"] or exact.branches[pc]["uniform"], (k.name, pc)
        assert wcet(wide, {}, 3)[0].wcet >= wcet(exact, {}, 3)[0].wcet
    assert widened_any
