"""The abstract stack against exhaustive exploration of small warps: on loop-free kernels the
warp-level CFG without value agreement has every transition concrete warps can take, and
only those when no thread exits early (the abstract stack forgets how many threads exited,
so in a tiny warp it may split a group that has a single thread left)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import END, build_warp_cfg
from warpcheck.sim.kernels.exhaustive import abstract_transitions

from kernel_fixtures import SASS, kernel
from test_kernel_random_sass import program, statement


def check(k, width: int) -> None:
    abstract = warp_edges(build_warp_cfg(k, False, width))
    concrete = abstract_transitions(k, width)
    assert concrete <= abstract
    if not any(i.base == "exit" and i.guard for i in k.instructions):
        assert abstract == concrete


def warp_edges(w) -> set[tuple]:
    stack = lambda n: END if n == END else w.graph.nodes[n]["stack"]  # noqa: E731
    return {(stack(u), stack(v)) for u, v in w.graph.edges}


@pytest.mark.parametrize("width", [1, 2, 3, 4])
@pytest.mark.parametrize("path", [p for p in SASS if p.stem in ("slides", "nested", "early_exit")],
                         ids=lambda p: p.name)
def test_fixtures_match_exhaustive_exploration(path, width):
    check(kernel(path), width)


@s.composite
def loop_free(draw, depth: int = 0):
    kinds = ["alu", "exit"] + (["if", "if"] if depth < 2 else [])
    out = []
    for _ in range(draw(s.integers(1, 3))):
        kind = draw(s.sampled_from(kinds))
        if kind == "if":
            cond = ("LT", "R0", 1)
            out.append(("if", cond, draw(loop_free(depth + 1)), draw(loop_free(depth + 1))))
        else:
            out.append(draw(statement(kind, depth)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loop_free(), s.integers(1, 4))
def test_random_loop_free_kernels_match_exhaustive_exploration(stmts, width):
    check(parse_sass(program(stmts), "random.sass")[0], width)


def ptx_style(stmts, lines: list[str], fresh: list[int]) -> None:
    """Emit if/else without SSY/SYNC: both sides jump to the join (reconvergence at the ipdom)."""
    for st in stmts:
        if st[0] == "alu":
            lines.append(st[1])
        elif st[0] == "exit":
            lines += [f"ISETP.{st[1][0]} P0, {st[1][1]}, {st[1][2]} ;", "@P0 EXIT ;"]
        else:
            fresh[0] += 1
            then, join = f"T{fresh[0]}", f"J{fresh[0]}"
            lines += ["ISETP.LT P0, R0, 1 ;", f"@P0 BRA {then} ;"]
            ptx_style(st[3], lines, fresh)
            lines += [f"BRA {join} ;", f"{then}:"]
            ptx_style(st[2], lines, fresh)
            lines.append(f"{join}:")


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loop_free(), s.integers(1, 4))
def test_ptx_reconvergence_matches_exhaustive_exploration(stmts, width):
    from dataclasses import replace

    lines = ["S2R R0, SR_TID.X ;"]
    ptx_style(stmts, lines, [0])
    check(replace(parse_sass("\n".join(lines + ["EXIT ;"]) + "\n", "random.sass")[0], syntax="ptx"), width)
