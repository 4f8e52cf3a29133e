"""The kernels' mutation suite: each single-point bug disagrees with a computation that does not use it.

And the checks themselves: on every fixture kernel the unmutated design agrees with
the reference (each thread run alone, post-dominators of the instruction list).
"""
from __future__ import annotations

import pytest

from warpcheck._kernels.mutation import MUTANTS, THREADS, check, kill
from warpcheck._kernels.loaders import load_kernel
from warpcheck.models.kernels.cfg import EXIT_PC, KernelCFG
from warpcheck.models.kernels.mutants import Mutant
from warpcheck.spec.kernels.reference import immediate_post_dominators

from kernel_fixtures import ALL, PTX, ROOT


@pytest.mark.parametrize("name", list(MUTANTS))
def test_every_mutant_is_killed_with_evidence_that_replays(name, tmp_path):
    k = kill(name, tmp_path)
    assert k.verdict == "killed", f"{name} ({k.breaks}): {k.status} {k.evidence}"


def test_the_suite_covers_parser_classes_the_simt_stack_value_agreement_and_ipet():
    kinds = {m.breaks.split(":")[0] for m in MUTANTS.values()}
    assert {"instruction classes", "SIMT stack", "value agreement", "IPET", "thread-level CFG"} <= kinds
    assert len(MUTANTS) >= 5


def _unmutated(check_name: str, path, seed: int) -> str | None:
    rel = str(path.relative_to(ROOT))
    return check(Mutant("none", "", "models.kernels.cfg:EXIT", lambda x: x, check_name, rel), seed)


SLOW = ("lud.ptx",)  # about 16 s: its loops run long


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in ALL],
                         ids=lambda p: p.name)
def test_the_unmutated_design_agrees_with_the_reference_on_every_fixture(path):
    checks = ["paths", "uniform", "bound"] + (["reconverge"] if path.suffix == ".ptx" else [])
    for name in checks:
        for seed in (0, 1):
            assert _unmutated(name, path, seed) is None, (name, seed)


@pytest.mark.parametrize("path", PTX, ids=lambda p: p.name)
def test_the_references_post_dominators_are_the_cfgs(path):
    kernel = load_kernel(str(path))
    cfg, ipdom = KernelCFG(kernel), immediate_post_dominators(kernel)
    for b in cfg.blocks:
        mine = cfg.ipdom_pc[b.index]
        assert ipdom[b.end - 1] == (None if mine == EXIT_PC else mine), b.label


def test_a_mutant_is_undone_after_its_check():
    from warpcheck.models.kernels import simt_stack

    before = simt_stack.branch
    with MUTANTS["not-taken-path-lost"].applied():
        assert simt_stack.branch is not before
    assert simt_stack.branch is before and THREADS == 32


# Found by the reference while building the suite: the lower half runs the loop to its end and exits,
# then the upper half resumes inside the loop.  Its abstract stack is that of the whole warp (the
# abstract stack forgets exited threads), so both halves' iterations fell in one warp-level cycle
# whose region constraint allowed N header executions in all, while 2N - 1 run (bound 34 < 43
# cycles at N = 4).  Such a loop is now refused by name.
SPLIT_LOOP = """.kernel split_loop
.param n
        S2R R0, SR_TID.X ;
        MOV R1, 0 ;
        ISETP.LT P0, R0, 16 ;
HEAD:   IADD R1, R1, 1 ;
        @P0 BRA SKIP ;
        IADD R2, R2, 1 ;
SKIP:   ISETP.GE P1, R1, n ;
        @P1 EXIT ;
        BRA HEAD ;
"""


def test_a_loop_resumed_by_a_sibling_group_after_an_exit_is_refused_not_bounded_unsoundly(tmp_path, capsys):
    from warpcheck.cli.main import main
    from warpcheck.models.kernels.sass import parse_sass
    from warpcheck.sim.kernels.simt import run_warp
    from warpcheck.spec.kernels.thread_ops import WarpInputs

    [k] = parse_sass(SPLIT_LOOP)
    run = run_warp(k, WarpInputs(params={"n": 4}), 32)
    assert max(run.header_counts.values()) == 4 and run.cycles == 43  # each thread: 4 header executions
    path = tmp_path / "split_loop.sass"
    path.write_text(SPLIT_LOOP)
    assert main(["wcet", str(path), "--loop-bound", "HEAD=4"]) == 2
    err = capsys.readouterr().err
    assert "in the loop headed by 'HEAD'" in err and "IPET cannot bound such a loop soundly" in err
