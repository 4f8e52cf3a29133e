"""The kernel analyzer of the reordering framework: the paper's example, coalescing by hand, bad input."""
from __future__ import annotations

import json

import pytest

from warpcheck.cli.main import main
from warpcheck.models.kernels.ptx import parse_ptx
from warpcheck.models.reorder.order import is_linear_extension, static_order
from warpcheck.sim.reorder.accesses import analyze, coalesce

from kernel_fixtures import ROOT

REORDER = ROOT / "examples" / "reorder"
PAPER = [REORDER / "paper_example.ptx", "--grid", "1,2,1", "--block", "16,4,1", "--param", "in=0"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def kernel(body: str, params: str = ".param .u64 p"):
    """A one-entry PTX module around ``body`` (registers declared generously)."""
    text = (".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(" + params + ")\n{\n"
            ".reg .pred %p<4>;\n.reg .b32 %r<9>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<9>;\n" + body + "\nret;\n}\n")
    return parse_ptx(text, "k.ptx")[0]


PROLOGUE = "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n"


def lines_of(body: str, p: int = 0, block=(32, 1, 1)):
    an = analyze(kernel(PROLOGUE + body), (1, 1, 1), block, {"p": p})
    return [[(a.kind, list(a.lines), a.lanes) for a in w.accesses] for w in an.warps]


def test_the_paper_example_gives_the_paper_table(capsys):
    code, out, _ = run(capsys, "analyze", *PAPER, "--json")
    assert code == 0
    data = json.loads(out)
    assert {"grid", "block", "line_bytes", "instructions", "warps", "order", "undecided"} <= set(data)
    assert data["grid"] == [1, 2, 1] and data["block"] == [16, 4, 1] and data["line_bytes"] == 128
    assert [i["kind"] for i in data["instructions"]] == ["L", "S"]
    load, store = [0, 128, 256, 384], [2048, 2176, 2304, 2432]
    expect = [([0, 0, 0], 0, "L", load), ([0, 0, 0], 1, "L", load), ([0, 1, 0], 0, "S", store),
              ([0, 1, 0], 1, "S", store)]
    got = [(w["block"], w["warp"], w["accesses"][0]["kind"], w["accesses"][0]["lines"]) for w in data["warps"]]
    assert got == expect
    assert all(len(w["accesses"]) == 1 and w["accesses"][0]["lanes"] == 32 for w in data["warps"])
    assert [(o["block"], o["warp"], o["access"]) for o in data["order"]] == [(b, w, 0) for b, w, _, _ in expect]
    assert data["undecided"] == [] and "l1" not in data


def test_cache_option_adds_the_l1_replay(capsys):
    data = json.loads(run(capsys, "analyze", *PAPER, "--cache", "16K:4", "--json")[1])
    assert data["l1"] == {"size": 16384, "ways": 4, "line_bytes": 128, "stores_policy": "evict", "loads": 8,
                          "load_misses": 4, "stores": 8, "miss_rate": 0.5}


def test_stride_one_is_one_line():
    assert lines_of("mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.f32 %f1, [%rd3];") == \
        [[("L", [0], 32)]]


def test_stride_thirty_two_floats_is_a_line_per_lane():
    got = lines_of("mul.wide.u32 %rd2, %r1, 128;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.f32 %f1, [%rd3];")
    assert got == [[("L", [128 * i for i in range(32)], 32)]]


def test_broadcast_is_one_line():
    assert lines_of("ld.global.f32 %f1, [%rd1+200];", p=4096) == [[("L", [4224], 32)]]


def test_guarded_store_counts_only_active_lanes():
    body = ("mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nsetp.lt.u32 %p1, %r1, 8;\n"
            "@%p1 st.global.f32 [%rd3+256], %f1;")
    assert lines_of(body) == [[("S", [256], 8)]]


def test_store_with_no_active_lane_is_no_access():
    body = "setp.gt.u32 %p1, %r1, 100;\n@%p1 st.global.f32 [%rd1], %f1;"
    assert lines_of(body) == [[]]


def test_misaligned_store_straddles_two_lines():
    body = "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.f32 [%rd3], %f1;"
    assert lines_of(body, p=4) == [[("S", [0, 128], 32)]]


def test_coalesce_counts_a_lane_that_crosses_a_line():
    assert coalesce([124], 8, 128) == (0, 128)
    assert coalesce([256, 0, 4, 256], 4, 128) == (0, 256)


def test_a_load_in_a_loop_is_listed_per_iteration(capsys):
    args = ["analyze", REORDER / "loop_rows.ptx", "--grid", 1, "--block", 64, "--param", "base=4", "--param",
            "rows=3", "--json"]
    data = json.loads(run(capsys, *args)[1])
    w0, w1 = data["warps"]
    assert [(a["pc"], a["lines"]) for a in w0["accesses"]][:3] == [(9, [0, 128]), (9, [128, 256]), (9, [256, 384])]
    assert w0["accesses"][3]["kind"] == "S" and w0["accesses"][3]["lanes"] == 8
    assert [a["lines"] for a in w1["accesses"]] == [[128, 256], [256, 384], [384, 512]]
    assert [(o["warp"], o["access"]) for o in data["order"]] == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2),
                                                                  (0, 3)]


def test_a_partial_last_warp_and_a_three_dimensional_block():
    body = "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.f32 %f1, [%rd3];"
    assert lines_of(body, block=(48, 1, 1)) == [[("L", [0], 32)], [("L", [128], 16)]]
    assert lines_of(body, block=(8, 2, 3)) == [[("L", [0], 32)], [("L", [0], 16)]]


def test_barrier_epochs_are_counted():
    an = analyze(kernel(PROLOGUE + "ld.global.f32 %f1, [%rd1];\nbar.sync 0;\nld.global.f32 %f2, [%rd1+128];"),
                 (1, 1, 1), (64, 1, 1), {"p": 0})
    assert [[a.epoch for a in w.accesses] for w in an.warps] == [[0, 1], [0, 1]]


@pytest.mark.parametrize("rule", ["round", "barrier"])
def test_static_orders_are_linear_extensions(rule):
    epochs = [[0, 0, 1], [1], [], [0, 1, 1, 2]]
    order = static_order(epochs, rule)
    assert is_linear_extension(order, [len(e) for e in epochs])


def test_a_branch_on_loaded_data_is_named_and_stops(capsys, tmp_path):
    f = tmp_path / "dep.ptx"
    f.write_text((REORDER / "loop_rows.ptx").read_text().replace(
        "setp.ge.u32 \t%p1, %r3, %r1;", "ld.global.u32 \t%r4, [%rd1];\n\tsetp.ge.u32 \t%p1, %r3, %r4;"))
    code, out, err = run(capsys, "analyze", f, "--grid", 1, "--block", 32, "--param", "base=0", "--param",
                         "rows=2", "--json")
    assert code == 2
    data = json.loads(out)
    assert data["order"] == [] and data["undecided"][0]["what"] == "the branch condition"
    assert data["status"] == "BAD_INPUT" and "depends on loaded data" in data["error"]  # as every verb's bad input
    assert err.count("\n") == 1 and "depends on loaded data" in err and f"{f}:" in err


def test_an_address_from_loaded_data_is_named():
    body = "ld.global.u64 %rd2, [%rd1];\nld.global.f32 %f1, [%rd2];"
    an = analyze(kernel(PROLOGUE + body), (1, 1, 1), (32, 1, 1), {"p": 0})
    assert [u.what for u in an.undecided] == ["the address"]
    assert len(an.warps[0].accesses) == 1


@pytest.mark.parametrize("extra, words", [
    (["--entry", "nope"], "--entry nope: matches no kernel"),
    (["--param", "x=1"], "--param in=0 x=1: name 'x' is not a parameter"),
    (["--param", "in=1"], "--param in=0 in=1: gives 'in' a second time"),
    (["--grid", "0"], "--grid 0: not allowed; it must be >= 1"),
    (["--block", "2048"], "--block 2048: above the ceiling of 1024"),
    (["--grid", "1,x"], "--grid 1,x: not X[,Y[,Z]]"),
    (["--cache", "16K"], "--cache 16K: not SIZE:WAYS"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, extra, words):
    args = list(PAPER)
    for opt, val in zip(extra[::2], extra[1::2]):
        if opt in args and opt != "--param":
            args[args.index(opt) + 1] = val
        else:
            args += [opt, val]
    code, out, err = run(capsys, "analyze", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err, err


def test_missing_param_and_atomics_are_refused(capsys, tmp_path):
    code, _, err = run(capsys, "analyze", REORDER / "paper_example.ptx", "--grid", 1, "--block", 32)
    assert code == 2 and "kernel 'split_by_row' needs a value for in" in err
    f = tmp_path / "atom.ptx"
    f.write_text((REORDER / "paper_example.ptx").read_text().replace(
        "ld.global.f32 \t%f1, [%rd3+4];", "atom.global.add.u32 \t%r2, [%rd3], 1;"))
    code, _, err = run(capsys, "analyze", f, "--grid", 1, "--block", 32, "--param", "in=0")
    assert code == 2 and err.count("\n") == 1 and "is an atomic" in err and f"{f}:25:2: " in err


def test_nvcc_ptx_is_analysed_and_a_data_dependent_kernel_is_named(capsys):
    kernels = ROOT / "examples" / "kernels"
    args = ["analyze", kernels / "kmeans.ptx", "--grid", 2, "--block", 64, "--json"]
    params = ["0=0x100000", "1=0x200000", "2=0x300000", "3=64", "4=4", "5=4"]
    code, out, _ = run(capsys, *args, *[x for p in params for x in ("--param", p)])
    data = json.loads(out)
    assert code == 0 and len(data["warps"]) == 4 and len(data["order"]) == 66
    params = [f"{i}={(i + 1) << 20}" for i in range(6)] + ["6=32"]
    code, out, err = run(capsys, "analyze", kernels / "bfs.ptx", "--grid", 1, "--block", 64,
                         *[x for p in params for x in ("--param", p)])
    assert code == 2 and out == "" and "bfs.ptx:51:2: the branch condition" in err
