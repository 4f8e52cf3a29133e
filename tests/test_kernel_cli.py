"""The kernel verbs: cfg, wcet, simt; JSON output; bad input exits 2 with one line."""
from __future__ import annotations

import json

import pytest

from warpcheck.cli.main import main

from kernel_fixtures import ROOT

KERNELS = ROOT / "examples" / "kernels"
SLIDES = str(ROOT / "examples" / "sass" / "slides.sass")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_wcet_json_has_the_promised_keys(capsys):
    code, out, _ = run(capsys, "wcet", KERNELS / "reduction.ptx", "--max-loop-bound", 6, "--json")
    assert code == 0
    data = json.loads(out)
    assert {"kernel", "wcet", "value_agreement", "blocks", "seconds", "branches"} <= set(data)
    assert data["value_agreement"] is True and data["wcet"] > 0
    assert all({"block", "uniform"} <= set(b) for b in data["branches"])
    assert data["solvers"] == ["z3", "highs"]


def test_no_value_agreement_is_never_tighter(capsys):
    base = ["wcet", KERNELS / "kmeans.ptx", "--max-loop-bound", 5, "--json"]
    with_va = json.loads(run(capsys, *base)[1])
    without = json.loads(run(capsys, *base, "--no-value-agreement")[1])
    assert without["value_agreement"] is False
    assert without["wcet"] > with_va["wcet"]
    assert not any(b["uniform"] for b in without["branches"])


def test_loop_bounds_from_options_and_toml(capsys, tmp_path):
    probe = json.loads(run(capsys, "wcet", KERNELS / "backprop.ptx", "--max-loop-bound", 1, "--json")[1])
    header = probe["loops"][0]["header"]
    toml = tmp_path / "b.toml"
    toml.write_text(f'[loops]\n"{header}" = 7\n')
    from_file = json.loads(run(capsys, "wcet", KERNELS / "backprop.ptx", "--bounds", toml, "--json")[1])
    from_flag = json.loads(run(capsys, "wcet", KERNELS / "backprop.ptx", "--loop-bound", f"{header}=7", "--json")[1])
    assert from_file["wcet"] == from_flag["wcet"] > probe["wcet"]


def test_cfg_text_and_dot(capsys, tmp_path):
    dot = tmp_path / "g.dot"
    code, out, _ = run(capsys, "cfg", SLIDES, "--dot", dot)
    assert code == 0 and "warp-level CFG 6 nodes" in out and "may diverge" in out
    assert dot.read_text().startswith('digraph "slides"')


def test_simt_prints_the_block_and_mask_sequence(capsys, tmp_path):
    inputs = tmp_path / "in.toml"
    inputs.write_text("params = {n = 3}\n")
    code, out, _ = run(capsys, "simt", SLIDES, "--threads", 8, "--inputs", inputs, "--json")
    data = json.loads(out)
    assert code == 0
    assert [(s["block"], s["mask"]) for s in data["steps"]] == [
        ("pc0", "11111111"), ("TARGET1", "11100000"), ("pc4", "00011111"), ("TARGET2", "11111111")]
    assert data["cycles"] == 4 + 6 + 6 + 101


def test_entry_selects_a_kernel_by_substring(capsys, tmp_path):
    two = tmp_path / "two.ptx"
    two.write_text((KERNELS / "backprop.ptx").read_text() + (KERNELS / "bfs.ptx").read_text().split(".address_size 64")[1])
    code, _, err = run(capsys, "cfg", two)
    assert code == 2 and "choose one as the entry" in err
    code, out, _ = run(capsys, "cfg", two, "--entry", "bfs", "--json")
    assert code == 0 and "bfs" in json.loads(out)["kernel"]


@pytest.mark.parametrize("argv, message", [
    (["wcet", KERNELS / "kmeans.ptx"], r"the loop with header '\$L__BB0_\d+' .* has no bound"),
    (["cfg", "no/such/file.ptx"], r"cannot read kernel file 'no/such/file.ptx'"),
    (["wcet", SLIDES, "--loop-bound", "oops"], r"--loop-bound oops: 'oops' is not NAME=VALUE"),
    (["wcet", SLIDES, "--latency", "mem=x"], r"--latency mem=x: the value of 'mem' is not allowed \(give a non-negative"),
    (["simt", SLIDES, "--threads", 0], r"--threads 0: not allowed; it must be >= 1$"),
    (["cfg", SLIDES, "--threads", 100], r"--threads 100: above the ceiling of 64 \(a warp has at most 64 threads\)$"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    import re

    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.search(message, err), err


def test_unparsable_and_unknown_label_files(capsys, tmp_path):
    bad = tmp_path / "bad.sass"
    bad.write_text(".kernel bad\nS2R R0, SR_TID.X ;\n@P0 BRA NOWHERE ;\nEXIT ;\n")
    code, _, err = run(capsys, "cfg", bad)
    assert code == 2 and f"{bad}:3:" in err and "unknown label 'NOWHERE'" in err
    bad.write_text("S2R R0, SR_TID.X ;\n  mov r0 ;\n")
    code, _, err = run(capsys, "wcet", bad)
    assert code == 2 and f"{bad}:2:3: cannot parse 'mov'" in err


EMPTY_ENTRY = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u32 n)\n{\n .reg .b32 %r<3>;\n$L:\n}\n"


@pytest.mark.parametrize("name, text, says", [
    ("e.ptx", EMPTY_ENTRY, "e.ptx:4:1: kernel 'k' has no instruction in its body; an .entry runs at least 'ret;'"),
    ("nok.sass", "S2R R0, SR_TID.X ;\nEXIT ;\n", "nok.sass: no .kernel directive in this SASS listing; name its kernel"),
    ("two.sass", ".kernel a\nEXIT ;\n.kernel b\nEXIT ;\n", "two.sass:3:1: a second .kernel (the first is on line 1)"),
    ("late.sass", "EXIT ;\n.kernel b\n", "late.sass:2:1: .kernel after the first instruction"),
])
@pytest.mark.parametrize("verb", ["cfg", "wcet", "simt"])
def test_a_kernel_with_no_code_or_no_name_is_refused_by_name(verb, name, text, says, capsys, tmp_path):
    """The kit makes up neither an empty kernel's instruction nor a listing's kernel name."""
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run(capsys, verb, path, "--json")
    assert code == 2 and says in err and err.count("\n") == 1, err
    assert json.loads(out.splitlines()[-1])["status"] == "BAD_INPUT"


def test_irreducible_kernel_is_reported(capsys, tmp_path):
    irr = tmp_path / "irr.sass"
    irr.write_text(".kernel irr\nS2R R0, SR_TID.X ;\nISETP.LT P0, R0, 4 ;\n@P0 BRA B ;\nA: IADD R1, R1, 1 ;\nBRA B ;\n"
                   "B: IADD R2, R2, 1 ;\n@P0 BRA A ;\nEXIT ;\n")
    code, _, err = run(capsys, "wcet", irr, "--max-loop-bound", 3)
    assert code == 2 and "irreducible control-flow graph" in err


def test_a_file_that_is_not_text_is_refused_in_one_line(capsys, tmp_path):
    binary = tmp_path / "kernel.cubin"
    binary.write_bytes(b"\x7fELF\xff\xfe\x00\x81")
    code, out, err = run(capsys, "cfg", binary)
    assert code == 2 and out == "" and "is not UTF-8 text" in err and len(err.strip().splitlines()) == 1
