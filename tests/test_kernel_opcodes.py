"""No silent answer on PTX: every opcode is modelled by the instruction table or refused by name.

Tensor-core and asynchronous-copy instructions have latency classes of their own, `analyze`
lists the global accesses they make (or refuses them), the docs' table is the model's.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from warpcheck.cli.main import main
from warpcheck.encodings.kernels.ipet import wcet
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.latencies import CLASSES_WITH_LATENCY, DEFAULT_LATENCIES
from warpcheck.models.kernels.kernel import CLASSES
from warpcheck.models.kernels.opcodes import (ACCESS_KINDS, PTX_TABLE, SASS_TABLE, ptx_spec, with_table,
                                              wmma_tile)
from warpcheck.models.kernels.ptx import parse_ptx
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import build_warp_cfg
from warpcheck.sim.reorder.accesses import analyze

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "examples" / "kernels" / "wmma_gemm.ptx"
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def module(body: str, params: str = ".param .u64 k_param_0, .param .u64 k_param_1") -> str:
    return HEAD + f".visible .entry k({params})\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n" \
                  f".reg .f32 %f<9>;\n.shared .align 128 .b8 tile[1024];\n{body}\nret;\n}}\n"


@pytest.mark.parametrize("text, syntax, opcode, why", [
    (module("frobnicate.u32 %r1, %r2;"), "ptx", "frobnicate.u32", "an instruction the kit does not know"),
    (module("nanosleep.u32 %r1;"), "ptx", "nanosleep.u32", "a sleep of an unbounded number of cycles"),
    (module("wgmma.fence.sync.aligned;"), "ptx", "wgmma.fence.sync.aligned", "a warpgroup MMA"),
    (module("wmma.frob.sync %r1, %r2;"), "ptx", "wmma.frob.sync", "an instruction the kit does not know"),
    ("S2R R0, SR_TID.X ;\nFROB R1, R0 ;\nEXIT ;\n", "sass", "FROB", "an instruction the kit does not know"),
])
def test_an_unknown_or_unmodelled_opcode_is_refused_in_one_line_with_exit_2(text, syntax, opcode, why, tmp_path,
                                                                             capsys):
    path = tmp_path / f"k.{syntax}"
    path.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if opcode.split(".")[0] in t)
    assert main(["wcet", str(path), "--max-loop-bound", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"k.{syntax}:{line}:" in err
    assert f"instruction {opcode!r} is {why}" in err and "supported:" in err and "docs/kernels.md" in err


def test_the_table_is_consistent_with_the_cost_model_and_the_classes():
    for table in (PTX_TABLE, SASS_TABLE):
        for s in table.values():
            assert s.cls in CLASSES or s.cls == "by type", s
            assert s.access in ACCESS_KINDS, s
            assert (s.cls == "mem") == bool(s.access), s  # an access is costed by its space
            assert not s.unit or s.unit in DEFAULT_LATENCIES, s
    assert {"tensor", "matrix", "cp_async", "bulk_copy", "tma"} <= set(CLASSES_WITH_LATENCY)


@pytest.mark.parametrize("opcode, cls, unit, space", [
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "fmadd", "tensor", None),
    ("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16", "mem", "matrix", "shared"),
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32", "mem", "matrix", "global"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "mem", "matrix", "shared"),
    ("cp.async.cg.shared.global", "mem", "cp_async", "global"),
    ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "mem", "bulk_copy", "global"),
    ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "mem", "tma", "global"),
    ("ld.shared::cta.u32", "mem", "", "shared"),
])
def test_tensor_core_and_async_copy_instructions_get_their_own_latency_class(opcode, cls, unit, space):
    spec = ptx_spec(opcode)
    assert spec is not None and spec.cls == cls and spec.unit == unit
    [k] = parse_ptx(module(f"{opcode} %r1, [%rd1], 16, [%rd2];" if "cp.async" in opcode
                           else f"{opcode} {{%r1, %r2}}, [%rd1], 16;" if cls == "mem" and "store" not in opcode
                           else f"{opcode} [%rd1], {{%r1, %r2}}, 16;" if "store" in opcode
                           else f"{opcode} {{%f1}}, {{%r1}}, {{%r2}}, {{%f2}};"))
    ins = k.instructions[0]
    assert (ins.cls, ins.unit, ins.space) == (cls, unit, space)
    base = CostModel().latency(ins)
    assert CostModel({unit or "shared": 500}).latency(ins) > base  # the class's latency is charged


def _bound(*latency: str) -> int:
    w = build_warp_cfg(parse_ptx(GEMM.read_text(), str(GEMM))[0])
    given = dict(item.split("=") for item in latency)
    return wcet(w, {"$L__loop": 4}, None, CostModel({k: int(v) for k, v in given.items()}))[0].wcet


def test_the_gemm_bound_grows_with_the_latency_of_each_tensor_core_and_copy_class():
    base = _bound()
    # 4 iterations: two wmma.load.shared, one wmma.mma, two cp.async each; one wmma.store.global
    assert _bound("shared=50") == base + 4 * 2 * 30
    assert _bound("matrix=26") == base + (4 * 2 + 1) * 10
    assert _bound("tensor=64") == base + 4 * 32
    assert _bound("cp_async=40") == base + 4 * 2 * 20
    assert _bound("mem=200") == base + (4 * 2 + 1) * 100


def test_the_gemm_bound_grows_on_the_command_line(capsys):
    out = []
    for extra in ([], ["--latency", "shared=50"], ["--latency", "tensor=64"]):
        assert main(["wcet", str(GEMM), "--loop-bound", "$L__loop=4", "--json"] + extra) == 0
        import json
        out.append(json.loads(capsys.readouterr().out)["wcet"])
    assert out[0] < out[1] and out[0] < out[2]


def test_analyze_lists_the_gemm_copies_and_its_output_tile():
    k = parse_ptx(GEMM.read_text(), str(GEMM))[0]
    an = analyze(k, (1, 1, 1), (32, 1, 1), dict(zip(k.params, (0, 65536, 131072, 64))))
    static = [(kind, text.split()[0]) for _, kind, text in an.instructions()]
    assert static == [("L", "cp.async.ca.shared.global"), ("L", "cp.async.ca.shared.global"),
                      ("S", "wmma.store.d.sync.aligned.row.m16n16k16.global.f32")]
    accesses = an.warps[0].accesses
    assert len(accesses) == 4 * 2 + 1
    store = accesses[-1]
    assert store.kind == "S" and store.lines == tuple(131072 + 128 * i for i in range(8))  # 16 rows of 64 bytes
    # lane l copies 16 bytes of row l // 2 of A (K = 64 f16: 128 bytes a row): 16 lines
    assert accesses[0].lines == tuple(128 * r for r in range(16))


def test_analyze_lists_global_wmma_loads_with_their_stride_and_cp_async_src_size():
    body = """mov.u32 %r1, %tid.x;
ld.param.u64 %rd1, [k_param_0];
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3}, [%rd1], 256;
setp.lt.u32 %p1, %r1, 4;
selp.u32 %r4, 16, 0, %p1;
mul.wide.u32 %rd2, %r1, 16;
add.s64 %rd3, %rd1, %rd2;
cp.async.cg.shared.global [tile], [%rd3], 16, %r4;
cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 512;"""
    [k] = parse_ptx(module(body))
    an = analyze(k, (1, 1, 1), (32, 1, 1), {"k_param_0": 4096, "k_param_1": 0})
    wmma, copy, bulk = an.warps[0].accesses
    assert [i for _, i in an.warps[0].trace if i >= 0] == [0, 1, 2]  # the trace points at the listed accesses
    assert wmma.kind == "L" and wmma.lines == tuple(4096 + 512 * r for r in range(16))  # stride 256 f16
    assert copy.kind == "L" and copy.lines == (4096,)  # lanes 4.. read 0 bytes (zero-fill)
    assert bulk.kind == "S" and bulk.lines == tuple(4096 + 128 * i for i in range(4))


@pytest.mark.parametrize("line, what", [
    ("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1}], [%rd2];",
     "a TMA copy"),
    ("prefetch.global.L2 [%rd1];", "a global prefetch"),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [tile], 16;", "a global atomic"),
])
def test_analyze_refuses_global_accesses_it_cannot_list_by_name(line, what):
    [k] = parse_ptx(module("ld.param.u64 %rd1, [k_param_0];\n" + line))
    with pytest.raises(ConfigError, match=re.escape(what)):
        analyze(k, (1, 1, 1), (32, 1, 1), {"k_param_0": 0, "k_param_1": 0})


TRITON = ".param .u64 .ptr .global .align 1 k_param_0, .param .u64 .ptr .global .align 1 k_param_1, .param .u32 k_param_2"


def test_a_triton_pointer_parameter_is_a_parameter():
    [k] = parse_ptx(module("ld.param.u64 %rd1, [k_param_1];", TRITON))
    assert k.params == ("k_param_0", "k_param_1", "k_param_2")


def test_a_parameter_the_parser_cannot_read_is_refused_not_dropped():
    with pytest.raises(InputFileError, match=r"cannot parse '\.param \.u64 \.ptr \.weird k_param_1'"):
        parse_ptx(module("ret;", TRITON.replace(".ptr .global .align 1 k_param_1", ".ptr .weird k_param_1")))


def test_a_wmma_fragment_never_agrees_even_loaded_from_one_address():
    body = """ld.param.u64 %rd1, [k_param_0];
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3}, [%rd1], 16;
setp.eq.s32 %p1, %r2, 0;
@%p1 bra $L__skip;
add.s32 %r5, %r5, 1;
$L__skip:"""
    w = build_warp_cfg(parse_ptx(module(body))[0])
    assert [b["uniform"] for b in w.branches.values()] == [False]


def test_wmma_tiles_follow_the_shape_matrix_and_layout():
    assert wmma_tile("wmma.load.a.sync.aligned.row.m16n16k16.global.f16") == (16, 16, 16)
    assert wmma_tile("wmma.load.b.sync.aligned.col.m8n32k16.f16") == (32, 16, 16)  # b is 16 x 32, by column
    assert wmma_tile("wmma.store.d.sync.aligned.col.m32n8k16.global.f32") == (8, 32, 32)


def test_sass_tensor_core_ops_are_modelled_too():
    [k] = parse_sass("LDSM R0, [R1] ;\nHMMA R2, R0, R0, R2 ;\nLDGSTS [R3], [R4] ;\nEXIT ;\n")
    assert [(i.cls, i.unit, i.space) for i in k.instructions[:3]] == [("mem", "matrix", "shared"),
                                                                      ("fmadd", "tensor", None),
                                                                      ("mem", "cp_async", "global")]


def test_the_docs_table_is_the_models_table():
    doc = (ROOT / "docs" / "kernels.md").read_text()
    assert with_table(doc) == doc, "regenerate: python -m warpcheck.models.kernels.opcodes docs/kernels.md"
    assert "| `wmma.load` |" in doc and "| `nanosleep` |" in doc


def test_a_sass_copy_whose_size_is_in_its_opcode_is_refused_by_analyze(tmp_path, capsys):
    path = tmp_path / "ldg.sass"
    path.write_text(".kernel ldg\nS2R R0, SR_TID.X ;\nLDGSTS [R1], [R0] ;\nEXIT ;\n")
    assert main(["analyze", str(path), "--grid", "1", "--block", "32"]) == 2
    assert "a copy without a size operand (LDGSTS" in capsys.readouterr().err


@pytest.mark.parametrize("line, what", [
    ("wmma.load.x.sync.aligned.row.m16n16k16.global.f16 {%r1}, [%rd1];", "it needs a matrix (a, b, c, d)"),
    ("wmma.load.a.sync.aligned.m16n16k16.global.f16 {%r1}, [%rd1];", "a layout (row, col)"),
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 %r1, {%f1};", "no operand is an [address]"),
    ("cp.async.ca.shared.global [%rd1], [%rd2];", "it needs a [shared] address, a [global] address and a size"),
])
def test_malformed_tensor_core_and_copy_instructions_are_one_line_errors(line, what):
    with pytest.raises(InputFileError, match=re.escape(what)):
        parse_ptx(module(line), "k.ptx")


def test_a_copy_that_reads_nothing_is_no_access_and_a_huge_one_is_refused():
    body = """ld.param.u64 %rd1, [k_param_0];
cp.async.cg.shared.global [tile], [%rd1], 16, 0;
cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], %r1;"""
    [k] = parse_ptx(module("mov.u32 %r1, 4096;\n" + body))
    an = analyze(k, (1, 1, 1), (32, 1, 1), {"k_param_0": 0, "k_param_1": 0})
    assert [a.kind for a in an.warps[0].accesses] == ["S"] and [i for _, i in an.warps[0].trace] == [-1, -1, -1, 0, -1]
    [k] = parse_ptx(module("mov.u32 %r1, 2000000000;\n" + body))
    with pytest.raises(ConfigError, match="copies 2000000000 bytes"):
        analyze(k, (1, 1, 1), (32, 1, 1), {"k_param_0": 0, "k_param_1": 0})
