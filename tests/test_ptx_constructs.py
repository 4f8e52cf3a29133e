"""PTX as compilers write it (issue 22): each construct of the issue's table reads; errors name
FILE:LINE:COL and quote the source as written; undeclared registers and undefined callees are
refused; several entries parse their module once; the state limit is counted as the walk goes."""
from __future__ import annotations

import json
import re

import pytest

from warpcheck.cli.main import build_parser, main
from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.models.kernels.ptx import parse_ptx, parse_ptx_module
from warpcheck.models.kernels.ptx_calls import call_site
from warpcheck.models.kernels.warp_cfg import StateLimit, build_warp_cfg

from kernel_fixtures import ROOT

CORPUS = ROOT / "examples" / "corpus"
HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def entry(body: str, decls: str = ".reg .pred %p<4>; .reg .b32 %r<40>; .reg .b64 %rd<10>; .reg .f32 %f<20>;") -> str:
    return HEAD + f".visible .entry k(.param .u64 k_param_0)\n{{\n\t{decls}\n{body}\n\tret;\n}}\n"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- the table of the issue: each construct reads ---------------------------------------------------
def test_a_call_without_a_space_after_call_reads_with_its_operands():
    text = HEAD + (".extern .func (.param .b32 r0, .param .b32 r1) ext (.param .b32 a0, .param .b64 a1);\n"
                   + entry("\tcall(%r38,%r39),ext,(%r10,%rd4);")[len(HEAD):])
    [k] = parse_ptx(text, "c.ptx")
    call = k.instructions[0]
    assert call.base == "call" and call.dst == ("%r38", "%r39") and call.text == "call(%r38,%r39),ext,(%r10,%rd4);"


def test_optix_intrinsics_need_no_declaration_and_are_opaque():
    module = parse_ptx_module((CORPUS / "optix_style.ptx").read_bytes().decode("utf-8", "backslashreplace"), "o.ptx")
    raygen = module.inlined(module.entries[0])
    assert [i.text for i in raygen.instructions if i.base == "call"][2].startswith("call(%r6,%r7),_optix_trace_typed_32,(")
    assert build_warp_cfg(raygen).graph.number_of_nodes() > 1


def test_a_g_build_call_uni_spread_over_lines_without_a_return_value_is_inlined():
    module = parse_ptx_module((CORPUS / "debug_calls_G.ptx").read_text(), "g.ptx")
    [tally] = module.entries
    calls = [i for i in tally.instructions if i.base == "call"]
    assert [call_site(c).callee for c in calls] == ["_Z6squarei", "_Z5countPii", "_Z5countPii"]
    assert calls[1].text == "call.uni _Z5countPii, (param0, param1);" and calls[1].line == 99
    assert not any(i.base == "call" for i in module.inlined(tally).instructions)


def test_dwarf_labels_in_section_blocks_are_skipped():
    text = entry("\tmov.u32 %r1, 1;") + ("\t.section\t.debug_pubnames\n\t{\n$L__pubNames_start0:\n.b32 0\n"
                                          "$L__pubNames_end0:\n\t}\n\t.section .debug_loc { }\n")
    assert [i.base for i in parse_ptx(text)[0].instructions] == ["mov", "ret"]
    with pytest.raises(InputFileError, match=r"^s\.ptx:\d+:2: cannot parse '\.section .debug_str': the \.section block "
                                             r"is never closed"):
        parse_ptx(entry("") + "\t.section .debug_str\n\t{\n.b8 1\n", "s.ptx")


@pytest.mark.parametrize("line, space", [
    ("ld.global.L2::128B.u16 %rs1, [%rd1];", "global"),
    ("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%rd2], %r1;", "shared"),
    ("fence.proxy.async.shared::cta;", None),
    ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd3, {%r3, %r4}], [%r5];",
     "global"),
    ("st.shared::cta.b32 [%r4], %r2;", "shared"),
])
def test_double_colon_qualifiers_read(line, space):
    [k] = parse_ptx(entry(f"\t{line}", ".reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;"))
    assert k.instructions[0].opcode == line.split()[0].rstrip(";") and k.instructions[0].space == space


def test_a_multi_line_mma_with_brace_operand_lines_reads_and_a_missing_semicolon_is_named_at_it():
    mma = ("\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32\n\t\t{%f1, %f2, %f3, %f4},\n\t\t{%r1, %r2, %r3, %r4},\n"
           "\t\t{%r5, %r6},\n\t\t{%f5, %f6, %f7, %f8};")
    [k] = parse_ptx(entry(mma), "m.ptx")
    assert k.instructions[0].dst == ("%f1", "%f2", "%f3", "%f4") and k.instructions[0].line == 7
    with pytest.raises(InputFileError, match=r"^m\.ptx:11:19: cannot parse '%f8}': an instruction must end with ';' "
                                             r"\(the 'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32' that "
                                             r"starts at line 7\)$"):
        parse_ptx(entry(mma.rstrip(";")), "m.ptx")


def test_a_non_utf8_byte_in_a_file_path_reads_and_elsewhere_is_refused_at_its_line(capsys, tmp_path):
    path = tmp_path / "latin.ptx"
    path.write_bytes(entry("\tmov.u32 %r1, 1;").encode() + b'\t.file\t1 "/home/j\xe9r\xf4me/k.cu"\n')
    code, out, err = run(capsys, "cfg", path, "--json")
    assert code == 0 and json.loads(out)["kernel"] == "k"
    path.write_bytes(entry("\tmov.u32 %r1, 1; // rBADsultat").encode().replace(b"BAD", b"\xe9"))
    assert run(capsys, "cfg", path)[0] == 0  # in a comment
    path.write_bytes(entry("\tmov.u32 %rBAD, 1;").encode().replace(b"BAD", b"\xe9"))
    code, _, err = run(capsys, "cfg", path)
    assert code == 2 and f"{path}:7:" in err and "\\xe9" in err and len(err.strip().splitlines()) == 1


def test_crlf_files_read():
    module = parse_ptx_module(entry("\tmov.u32 %r1, 1;\n\tcall.uni\n\tf,\n\t(\n\tparam0\n\t);").replace("\n", "\r\n").replace(
        ".visible", ".func f(.param .b32 f_param_0) { ret; }\r\n.visible"), "crlf.ptx")
    assert [i.base for i in module.entries[0].instructions] == ["mov", "call", "ret"]


# -- errors: FILE:LINE:COL, the source as written, what is supported -------------------------------
def test_an_undeclared_register_is_refused_at_its_column():
    with pytest.raises(InputFileError, match=r"^u\.ptx:7:15: register '%q3' is not declared in 'k'; declare it with "
                                             r"\.reg"):
        parse_ptx(entry("\tmov.u32 %r1, %q3;"), "u.ptx")
    with pytest.raises(InputFileError, match=r"^u\.ptx:7:\d+: register '%r40' is not declared"):
        parse_ptx(entry("\tmov.u32 %r1, %r40;"), "u.ptx")  # %r<40> is %r0 .. %r39
    with pytest.raises(InputFileError, match=r"register '%t' is not declared"):  # out of its scope
        parse_ptx(entry("\t{ .reg .b32 %t; mov.u32 %t, 1; }\n\tmov.u32 %r1, %t;"), "u.ptx")
    [k] = parse_ptx(entry("\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %laneid;\n\tmov.u64 %rd1, %clock64;"))
    assert len(k.instructions) == 4


def test_a_call_of_an_undefined_function_is_refused_at_the_callee():
    with pytest.raises(InputFileError, match=r"^u\.ptx:7:22: 'k' calls 'nothere', which the module neither defines "
                                             r"\(\.func with a body\) nor declares"):
        parse_ptx(entry("\tcall.uni (retval0), nothere, (param0);"), "u.ptx")


def test_errors_quote_the_source_not_the_kits_renamings(capsys, tmp_path):
    path = tmp_path / "asm.ptx"
    path.write_text(entry("\tld.param.u64 %rd1, [k_param_0];\n\t{ .reg .pred P1; setp.eq.u32 P1, %r1, 0;\n"
                          "\t@P1 atom.global.add.u32 %r2, [%rd1], 1; }"))
    code, _, err = run(capsys, "analyze", path, "--grid", 1, "--block", 32, "--param", "0=0")
    assert code == 2 and f"{path}:9:2: '@P1 atom.global.add.u32 %r2, [%rd1], 1;' is an atomic" in err and "$" not in err
    code, _, err = run(capsys, "analyze", CORPUS / "calls.ptx", "--entry", "report", "--grid", 1, "--block", 32,
                       "--param", "0=0", "--param", "1=4")
    assert code == 2 and "calls.ptx:181:2: 'call.uni (retval0), vprintf, (param0, param1);' is a call" in err


def test_a_statement_that_is_not_an_operand_list_is_refused_at_the_operand():
    with pytest.raises(InputFileError, match=r"^o\.ptx:7:15: cannot parse '3 \{ \.reg \.b32 %t': an operand is a register"):
        parse_ptx(entry("\tmov.u32 %r1, 3 {\n\t.reg .b32 %t;"), "o.ptx")


# -- several entries, one parse ----------------------------------------------------------------------
def test_all_entries_and_repeated_entry_parse_the_module_once(capsys, monkeypatch):
    import warpcheck._kernels.loaders as verbs

    parses = []
    real = verbs.parse_ptx_module
    monkeypatch.setattr(verbs, "parse_ptx_module", lambda text, path: parses.append(path) or real(text, path))
    code, out, _ = run(capsys, "cfg", CORPUS / "dmath.ptx", "--all-entries", "--json")
    data = json.loads(out)
    assert code == 0 and len(parses) == 1 and [e["kernel"] for e in data["entries"]] == [
        "_Z11damped_wavePdPKddi", "_Z6growthPdPKdii", "_Z7saxpy_fPfPKffi"]
    code, out, _ = run(capsys, "wcet", CORPUS / "dmath.ptx", "--entry", "saxpy", "--entry", "growth",
                       "--max-loop-bound", 4, "--json")
    assert code == 0 and len(parses) == 2 and [e["kernel"] for e in json.loads(out)["entries"]] == [
        "_Z7saxpy_fPfPKffi", "_Z6growthPdPKdii"]


def test_a_refused_entry_among_several_gives_its_reason_and_exit_2(capsys):
    code, out, err = run(capsys, "wcet", CORPUS / "optix_style.ptx", "--all-entries", "--json")
    entries = json.loads(out)["entries"]
    assert code == 2 and [e.get("status") for e in entries] == ["BAD_INPUT", "BAD_INPUT", None]
    assert entries[2]["wcet"] > 0 and re.search(r"optix_style\.ptx:\d+:\d+: kernel '__raygen__pinhole' calls", err)
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "cfg", CORPUS / "dmath.ptx", "--all-entries", "--entry", "growth")
    assert code == 2 and "--entry growth: not allowed with all_entries, which takes every kernel" in err
    code, _, err = run(capsys, "cfg", CORPUS / "dmath.ptx", "--all-entries", "--dot", "x.dot")
    assert code == 2 and "--dot x.dot: a DOT file holds the CFG of one kernel; choose a single entry" in err


def test_all_entries_of_a_module_without_an_entry_is_bad_input(capsys, tmp_path):
    path = tmp_path / "empty.ptx"
    path.write_text(HEAD)
    code, out, err = run(capsys, "wcet", path, "--all-entries", "--json")
    assert code == 2 and json.loads(out)["status"] == "BAD_INPUT" and "holds no kernel" in err


@pytest.mark.parametrize("verb", ["cfg", "wcet", "simt", "analyze"])
def test_kernel_verbs_default_to_a_60_second_timeout(verb):
    extra = ["--grid", "1", "--block", "32"] if verb == "analyze" else []
    assert build_parser().parse_args([verb, "k.ptx", *extra]).timeout == 60.0


# -- the state limit: counted as the walk goes, new states first ----------------------------------------
def nested_divergent_loops(levels: int) -> str:
    """``levels`` nested loops, each left by a thread-dependent exit: the states double per level."""
    head = [f"$L_h{i}:\n\tadd.s32 %r{i + 10}, %r{i + 10}, %r1;\n\tsetp.lt.s32 %p{i + 1}, %r{i + 10}, %r2;\n"
            f"\t@%p{i + 1} bra $L_x{i};" for i in range(levels)]
    tail = [f"\tsetp.gt.s32 %p{i + 40}, %r{i + 10}, 7;\n\t@%p{i + 40} bra $L_h{i};\n$L_x{i}:\n\tadd.s32 %r3, %r3, 1;"
            for i in reversed(range(levels))]
    return entry("\tmov.u32 %r1, %tid.x;\n\tld.param.u32 %r2, [k_param_0];\n" + "\n".join(head + tail),
                 ".reg .pred %p<100>; .reg .b32 %r<100>;")


def test_the_state_limit_is_refused_after_as_many_states_as_the_limit():
    [k] = parse_ptx(nested_divergent_loops(6))
    nodes = build_warp_cfg(k).graph.number_of_nodes() - 1
    assert nodes == 2 ** 8 - 2  # 254: the walk with value agreement, no limit reached
    processed = []
    import warpcheck.models.kernels.warp_cfg as wc

    real = wc._Builder._process
    wc._Builder._process = lambda self, node: processed.append(node) or real(self, node)
    try:
        with pytest.raises(StateLimit, match=r"exceeds 60 states"):
            build_warp_cfg(k, max_states=60)
    finally:
        wc._Builder._process = real
    assert len(processed) <= 60  # refused while every state seen was processed at most once
    assert isinstance(StateLimit("x"), ConfigError)


@pytest.mark.parametrize("line,says", [
    ("ISETP.GE.AND P0, R0 ;", "k.sass:3:9: instruction 'ISETP.GE.AND' needs a destination predicate and two sources"),
    ("IADD R1, R0 ;", "k.sass:3:9: instruction 'IADD' has 1 source operand(s), too few for 'add'"),
])
def test_a_run_time_refusal_names_file_line_and_column(line, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.sass").write_text(f".kernel k\n        S2R R0, SR_TID.X ;\n        {line}\n        EXIT ;\n")
    assert main(["simt", "k.sass"]) == 2
    assert f"error: {says}" in capsys.readouterr().err
