"""Random structured SASS-style kernels (nested if/else with SSY/SYNC, loops left with a
guarded SYNC, guarded EXIT): every concrete run is a path of the warp-level CFG and stays
within the IPET bound, with and without value agreement."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from warpcheck.encodings.kernels.ipet import build_problem, solve_highs
from warpcheck.models.kernels.abstract_stack import from_concrete
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import END, build_warp_cfg
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.spec.kernels.thread_ops import WarpInputs

# thread index, a parameter, and R5: uniform at first, rewritten uniformly or not inside
# (possibly divergent) regions, so value agreement must notice reconvergence
SOURCES = ["R0", "n", "R5", "R5"]


class Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = ["S2R R0, SR_TID.X ;", "LDG R5, [n] ;"]  # R5 starts uniform
        self.fresh = 0

    def label(self, stem: str) -> str:
        self.fresh += 1
        return f"{stem}{self.fresh}"


@s.composite
def statements(draw, depth: int = 0):
    kinds = ["alu", "alu", "exit"] + (["if", "loop"] if depth < 3 else [])
    return [draw(statement(draw(s.sampled_from(kinds)), depth)) for _ in range(draw(s.integers(1, 3)))]


@s.composite
def statement(draw, kind: str, depth: int):
    if kind == "alu":
        return ("alu", draw(s.sampled_from(["IADD R1, R1, 1 ;", "FMUL R2, R2, R2 ;", "LDG R3, [R1] ;",
                                            "MOV R5, 3 ;", "MOV R5, 3 ;", "IADD R5, R5, 1 ;", "LDG R5, [R0] ;",
                                            "IADD R5, R5, R0 ;"])))
    cond = (draw(s.sampled_from(["LT", "GE", "EQ"])), draw(s.sampled_from(SOURCES)), draw(s.integers(0, 5)))
    if kind == "exit":
        return ("exit", cond)
    if kind == "if":
        return ("if", cond, draw(statements(depth + 1)), draw(statements(depth + 1)))
    return ("loop", draw(s.sampled_from(SOURCES)), draw(statements(depth + 1)))


def emit(stmts, out: Emitter, depth: int = 0) -> None:
    for st in stmts:
        pred = f"P{depth}"
        if st[0] == "alu":
            out.lines.append(st[1])
        elif st[0] == "exit":
            cmp, src, imm = st[1]
            out.lines += [f"ISETP.{cmp} {pred}, {src}, {imm} ;", f"@{pred} EXIT ;"]
        elif st[0] == "if":
            (cmp, src, imm), then, other = st[1], st[2], st[3]
            then_label, join = out.label("T"), out.label("J")
            out.lines += [f"ISETP.{cmp} {pred}, {src}, {imm} ;", f"SSY {join} ;", f"@{pred} BRA {then_label} ;"]
            emit(other, out, depth + 1)
            out.lines += ["SYNC ;", f"{then_label}:"]
            emit(then, out, depth + 1)
            out.lines += ["SYNC ;", f"{join}:"]
        else:
            src, body = st[1], st[2]
            head, done, counter, limit = out.label("H"), out.label("D"), f"R{10 + depth}", f"R{20 + depth}"
            out.lines += [f"LOP.AND {limit}, {src}, 3 ;", f"MOV {counter}, 0 ;", f"SSY {done} ;",
                          f"{head}: ISETP.GE {pred}, {counter}, {limit} ;", f"@{pred} SYNC ;"]
            emit(body, out, depth + 1)
            out.lines += [f"IADD {counter}, {counter}, 1 ;", f"BRA {head} ;", f"{done}:"]


def program(stmts) -> str:
    out = Emitter()
    emit(stmts, out)
    return ".kernel random\n.param n\n" + "\n".join(out.lines + ["STG [R0], R1 ;", "EXIT ;"]) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(statements(), s.integers(0, 8), s.integers(0, 10 ** 6), s.integers(1, 32), s.integers(0, 8))
def test_random_structured_kernels_are_sound(stmts, n, seed, threads, int_max):
    kernel = parse_sass(program(stmts), "random.sass")[0]
    run = run_warp(kernel, WarpInputs(params={"n": n}, seed=seed, int_max=int_max), threads=threads)
    for va in (True, False):
        w = build_warp_cfg(kernel, va)
        nodes = [w.node_of(from_concrete(stack)) for stack in run.stacks[:-1]]
        assert None not in nodes
        assert nodes[0] == w.entry and w.graph.has_edge(nodes[-1], END)
        assert all(w.graph.has_edge(a, b) for a, b in zip(nodes, nodes[1:]))
        bounds: dict[str, int] = {}
        for (_, header), count in run.header_counts.items():
            label = w.cfg.blocks[header].label
            bounds[label] = max(bounds.get(label, 0), count)
        assert run.cycles <= solve_highs(build_problem(w, bounds, 0, CostModel())).wcet
        if va:
            for pc, active, holds in run.guards:
                if w.branches[pc]["uniform"]:
                    assert holds in (0, active)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(statements(), s.integers(0, 8), s.integers(0, 10 ** 6), s.integers(1, 32), s.integers(0, 8))
def test_random_structured_kernels_are_sound_long(stmts, n, seed, threads, int_max):
    test_random_structured_kernels_are_sound.hypothesis.inner_test(stmts, n, seed, threads, int_max)
