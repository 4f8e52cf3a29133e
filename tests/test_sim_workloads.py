"""Workloads: kernel text, dynamic paths, dependences, the shared I-cache, workload files."""
from __future__ import annotations

from pathlib import Path

import pytest

from warpcheck.models.errors import ConfigError, InputFileError
from warpcheck.sim.frontend.suite import BUILTIN, builtin, load_workload, resolve
from warpcheck.sim.frontend.workloads import DEP_WINDOW, ICache, Workload, WorkloadSource, parse_lines

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "workloads"


def test_parse_lines_gives_classes_registers_guards_and_labels():
    k = parse_lines("k", ["ld f1 r2  # load", "L:", "fmadd f0 f1 f2 f0", "st f0 r2", "@!p0 bra L", "exit"])
    ld, fm, st, br, ex = k.instructions
    assert (ld.cls, ld.dst, ld.srcs) == ("mem", ("f1",), ("r2",))
    assert (fm.cls, fm.dst, fm.srcs) == ("fmadd", ("f0",), ("f1", "f2", "f0"))
    assert (st.dst, st.srcs) == ((), ("f0", "r2"))
    assert (br.cls, br.guard, br.target) == ("branch", "!p0", "L")
    assert ex.cls == "exit" and k.labels == {"L": 1}


@pytest.mark.parametrize("lines, words", [
    (["frob r1", "exit"], "unknown opcode 'frob'"),
    (["bra NOWHERE", "exit"], "unknown label 'NOWHERE'"),
    (["L:", "L:", "exit"], "defined twice"),
    (["bra"], "exactly one target"),
])
def test_bad_kernel_text_is_a_config_error(lines, words):
    with pytest.raises(ConfigError, match=words):
        Workload("k", parse_lines("k", lines))


def test_a_workload_needs_an_exit_and_a_behaviour_for_each_conditional_branch():
    with pytest.raises(ConfigError, match="no 'exit'"):
        Workload("k", parse_lines("k", ["add r1 r2"]))
    with pytest.raises(ConfigError, match="needs loops.L or branches.L"):
        Workload("k", parse_lines("k", ["L:", "add r1 r2", "@p0 bra L", "exit"]))
    with pytest.raises(ConfigError, match="integer >= 1"):
        Workload("k", parse_lines("k", ["L:", "add r1 r2", "@p0 bra L", "exit"]), {"L": 0})


def test_an_unconditional_back_edge_is_reported_not_run_forever():
    w = Workload("k", parse_lines("k", ["L:", "add r1 r2", "bra L", "exit"]))
    with pytest.raises(ConfigError, match="exceeds"):
        w.path(0)


def test_loop_trip_counts_fix_the_path():
    w = Workload("k", parse_lines("k", ["mov r1 rz", "L:", "add r1 r1", "@p0 bra L", "exit"]), {"L": 5})
    path = [ins for _, ins in w.path(0)]
    assert len(path) == 1 + 5 * 2 + 1
    assert [i.taken for i in path if i.cls == "branch"] == [True] * 4 + [False]
    assert path[-1].cls == "exit"


def test_nested_loops_multiply():
    w = builtin("hotspot3D")
    pcs = [pc for pc, _ in w.path(0)]
    body = w.kernel.labels["PLANE"]
    assert pcs.count(body) == w.loops["PLANE"] * w.loops["ITER"]


def test_psort_has_an_18_instruction_loop_taken_every_iteration_but_the_last():
    w = builtin("psort")
    start = w.kernel.labels["LOOP"]
    back = next(pc for pc, i in enumerate(w.kernel.instructions) if i.target == "LOOP")
    assert back - start + 1 == 18
    branches = [i for pc, i in w.path(3) if pc == back]
    assert [b.taken for b in branches] == [True] * (w.loops["LOOP"] - 1) + [False]


def test_dependence_window_is_the_last_four_instructions():
    lines = ["add r1 r0", "add r2 r0", "add r3 r0", "add r4 r0", "add r5 r1", "add r6 r1", "exit"]
    path = [i for _, i in Workload("k", parse_lines("k", lines)).path(0)]
    assert DEP_WINDOW == 4
    assert path[4].dep  # r1 written 4 instructions earlier
    assert not path[5].dep  # 5 instructions earlier: outside the window


def test_guard_counts_as_a_source():
    lines = ["slt p0 r1 r2", "L:", "@p0 bra L", "exit"]
    path = [i for _, i in Workload("k", parse_lines("k", lines), {"L": 2}).path(0)]
    assert path[1].dep and path[1].cls == "branch"


def test_data_dependent_outcomes_are_seeded_per_warp():
    w = builtin("kmeans")
    paths = [[i.taken for _, i in w.path(v)] for v in range(8)]
    assert paths == [[i.taken for _, i in w.path(v)] for v in range(8)]  # deterministic
    assert len({tuple(p) for p in paths}) > 1  # warps differ


def test_icache_is_direct_mapped():
    c = ICache(lines=2, line_size=4)
    assert not c.access(0) and c.access(3)  # same line
    assert not c.access(8)  # maps to line 0, evicts block 0
    assert not c.access(0)
    assert not c.access(4) and c.access(7)


def test_source_serves_the_path_after_the_warm_ibuffer_and_misses_once_per_line():
    w = Workload("k", parse_lines("k", ["add r1 r0"] * 10 + ["exit"]))
    src = WorkloadSource(w, warps=2, ibuffer=4, icache=ICache(lines=8, line_size=4))
    assert [i.cls for i in src.ibuffers()[0]] == ["int"] * 4
    first = [src(0, k) for k in range(7)]
    assert [i.miss for i in first] == [True, False, False, False, True, False, False]  # pcs 4..10: lines 1, 2
    assert first[-1].cls == "exit"
    assert src(0, 4) is first[4]  # a refetch sees the same instruction
    assert not any(src(1, k).miss for k in range(7))  # warp 1 finds the lines warp 0 filled
    assert src.dynamic_count() == 22


def test_every_builtin_workload_builds_and_ends_in_exit():
    assert set(BUILTIN) == {"psort", "blackscholes", "sgemm", "hotspot", "hotspot3D", "kmeans"}
    for w in BUILTIN.values():
        path = w.path(0)
        assert path[-1][1].cls == "exit" and 50 < len(path) < 1000
    assert any(i.cls == "fdiv" for i in builtin("blackscholes").kernel.instructions)


def test_scaled_scales_trip_counts():
    assert builtin("psort").scaled(0.25).loops == {"LOOP": 6}


def test_example_workload_file_loads():
    w = load_workload(EXAMPLES / "saxpy.toml")
    assert w.name == "saxpy" and w.loops == {"LOOP": 8} and w.branches == {"STORE": 0.9}
    assert resolve(str(EXAMPLES / "saxpy.toml")).kernel == w.kernel


@pytest.mark.parametrize("text, words", [
    ("instructions = [", "malformed TOML"),
    ('instructions = ["exit"]\nbogus = 1', "unknown key 'bogus'"),
    ("instructions = 3", "instructions = 3 is not allowed; it must be a list"),
    ('instructions = ["exit", 3]', r"instructions\[1\] = 3 is not allowed; it must be a string"),
    ('instructions = ["frob r1", "exit"]', "unknown opcode"),
    ('instructions = ["L:", "@p0 bra L", "exit"]\n[loops]\nL = "x"', "loops.L = 'x' is not allowed; it must be an integer"),
    ('instructions = ["L:", "@p0 bra L", "exit"]\n[loops]\nL = 0', "integer >= 1"),
])
def test_bad_workload_files_are_input_errors(tmp_path, text, words):
    f = tmp_path / "w.toml"
    f.write_text(text)
    with pytest.raises(InputFileError, match=words):
        load_workload(f)


def test_missing_workload_file_and_unknown_name():
    with pytest.raises(InputFileError, match="cannot read"):
        resolve("nope/none.toml")
    with pytest.raises(ConfigError, match="unknown workload 'nope'"):
        resolve("nope")


def test_warm_ibuffer_stops_after_a_taken_branch():
    w = Workload("k", parse_lines("k", ["L:", "add r1 r0", "@p0 bra L", "exit"]), {"L": 3})
    src = WorkloadSource(w, warps=1, ibuffer=4)
    assert [i.short() for i in src.ibuffers()[0][:2]] == ["int", "branch>"]
    assert [src(0, k).cls for k in range(5)] == ["int", "branch", "int", "branch", "exit"]
