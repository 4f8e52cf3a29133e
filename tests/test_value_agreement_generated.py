"""Value agreement where it can fail: generated kernels with guarded writes, partial writes, and
branches and loops whose uniformity depends on them, each bounded and checked against every thread
run alone (``spec/kernels/reference.py``).

The warp issues each instruction at least as often as the thread that executes it most
(:func:`warp_lower_bound`, charged by the instruction reference), so a branch that value
agreement wrongly calls uniform, one side of which the bound then leaves out, shows as a bound
below that least time.  Loop bounds come from the threads alone too: the most header executions
of one thread in one entry into the loop.  Nothing here runs the SIMT stack.
"""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from warpcheck._kernels.mutation import MUTANTS
from warpcheck.encodings.kernels.ipet import build_problem, solve_highs
from warpcheck.models.kernels.cfg import CostModel
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import build_warp_cfg
from warpcheck.spec.kernels.reference import thread_paths, warp_lower_bound
from warpcheck.spec.kernels.thread_ops import WarpInputs

# Each episode picks a target register, R5 or R6 (both agree at first: a load from a parameter's
# address, the parameter), writes it (plainly, under a guard, on one side of a branch), then a branch,
# loop or exit tests it.  R0 is the thread index.
AGREEING = ["MOV {t}, 3 ;", "MOV {t}, 1 ;", "LDG {t}, [n] ;"]
DIFFERING = ["IADD {t}, R0, 1 ;", "MOV {t}, R0 ;", "IADD {t}, {t}, R0 ;"]
VALUES = AGREEING + DIFFERING + ["IADD {t}, {t}, 1 ;"]  # the last agrees where {t} did
WORK = ["IADD R1, R1, 1 ;", "FMUL R2, R2, R2 ;", "LDG R3, [R1] ;", "MUFU.RCP R4, R2 ;"]
GUARDS = ["n", "n", "n", "n", "R0", "R5", "R6"]


def _cond(draw, sources):
    return draw(s.sampled_from(["LT", "GE", "EQ", "NE"])), draw(s.sampled_from(sources)), draw(s.integers(0, 5))


@s.composite
def statements(draw, depth: int = 0):
    """A body: one or two episodes (at depth 0), or one or two statements inside a branch or loop (nesting
    ends at depth 2, so that the warp-level CFG stays small)."""
    if depth == 0:
        return [st for _ in range(draw(s.integers(1, 2))) for st in draw(episode(depth))]
    kinds = ["work", "write", "guarded"] + (["if", "loop", "episode"] if depth < 2 else [])
    out: list[tuple] = []
    for _ in range(draw(s.integers(1, 2))):
        kind = draw(s.sampled_from(kinds))
        out += draw(episode(depth)) if kind == "episode" else [draw(statement(kind, depth, draw(_target())))]
    return out


def _target():
    return s.sampled_from(["R5", "R6"])


@s.composite
def episode(draw, depth: int, focused: bool = False):
    """Writes of one register (a plain one, then guarded, partial or plain ones), then a test of it.

    ``focused``: the test's branches and loop hold plain work only, so the bound has no slack
    elsewhere that could hide a side left out of it.
    """
    t = draw(_target())
    setup = [("line", draw(s.sampled_from(draw(s.sampled_from([AGREEING, DIFFERING])))).format(t=t))]
    setup += [draw(statement(draw(s.sampled_from(["guarded"] * 5 + ["partial"] * 4 + ["write", "work"])), depth, t))
              for _ in range(draw(s.integers(1, 2)))]
    use = draw(s.sampled_from(["if", "if", "if", "loop", "exit"]))
    if focused and use != "exit":
        work = [s.lists(s.sampled_from(WORK).map(lambda w: ("line", w)), min_size=1, max_size=2)]
        bodies = [draw(work[0]) for _ in range(2)]
        test = ("if", _cond(draw, [t]), *bodies) if use == "if" else ("loop", t, bodies[0])
        return setup + [test]
    return setup + [draw(statement(use, depth, t, tested=True))]


@s.composite
def statement(draw, kind: str, depth: int, t: str, tested: bool = False):
    sources = [t] if tested else GUARDS
    if kind == "work":
        return ("line", draw(s.sampled_from(WORK)))
    if kind == "write":
        return ("line", draw(s.sampled_from(VALUES)).format(t=t))
    if kind == "guarded":  # a write under a guard that agrees or not: where it fails, the old value stays
        value = draw(s.sampled_from(draw(s.sampled_from([AGREEING, AGREEING, VALUES]))))
        return ("guarded", _cond(draw, GUARDS), draw(s.booleans()), value.format(t=t))
    if kind == "partial":  # a branch on the thread index (or a parameter), writing the target on either side
        sides = [[draw(statement(draw(s.sampled_from(["write", "guarded"])), depth + 1, t))
                  for _ in range(draw(s.integers(0, 2)))] for _ in range(2)]
        return ("if", _cond(draw, ["R0", "R0", "n"]), sides[0] or [("line", "NOP ;")], sides[1] or [("line", "NOP ;")])
    if kind == "exit":
        return ("exit", _cond(draw, sources))
    if kind == "if":
        return ("if", _cond(draw, sources), draw(statements(depth + 1)), draw(statements(depth + 1)))
    return ("loop", draw(s.sampled_from(sources)), draw(statements(depth + 1)))


class Emitter:
    """SASS-style lines of a statement list, with fresh labels."""

    def __init__(self) -> None:
        self.lines = ["S2R R0, SR_TID.X ;", "LDG R5, [n] ;", "MOV R6, n ;"]
        self.fresh = 0
        self.loops: list[str] = []  # header labels

    def label(self, stem: str) -> str:
        self.fresh += 1
        return f"{stem}{self.fresh}"

    def emit(self, stmts, depth: int = 0) -> None:
        for st in stmts:
            getattr(self, "_" + st[0])(st, f"P{depth}", depth)

    def _line(self, st, pred: str, depth: int) -> None:
        self.lines.append(st[1])

    def _guarded(self, st, pred: str, depth: int) -> None:
        (cmp, src, imm), negated, write = st[1], st[2], st[3]
        self.lines += [f"ISETP.{cmp} P6, {src}, {imm} ;", f"@{'!' if negated else ''}P6 {write}"]

    def _exit(self, st, pred: str, depth: int) -> None:
        cmp, src, imm = st[1]
        self.lines += [f"ISETP.{cmp} {pred}, {src}, {imm} ;", f"@{pred} EXIT ;"]

    def _if(self, st, pred: str, depth: int) -> None:
        (cmp, src, imm), then, other = st[1], st[2], st[3]
        then_label, join = self.label("T"), self.label("J")
        self.lines += [f"ISETP.{cmp} {pred}, {src}, {imm} ;", f"SSY {join} ;", f"@{pred} BRA {then_label} ;"]
        self.emit(other, depth + 1)
        self.lines += ["SYNC ;", f"{then_label}:"]
        self.emit(then, depth + 1)
        self.lines += ["SYNC ;", f"{join}:"]

    def _loop(self, st, pred: str, depth: int) -> None:
        src, body = st[1], st[2]
        head, done, counter, limit = self.label("H"), self.label("D"), f"R{10 + depth}", f"R{20 + depth}"
        self.loops.append(head)
        self.lines += [f"LOP.AND {limit}, {src}, 3 ;", f"MOV {counter}, 0 ;", f"SSY {done} ;",
                       f"{head}: ISETP.GE {pred}, {counter}, {limit} ;", f"@{pred} SYNC ;"]
        self.emit(body, depth + 1)
        self.lines += [f"IADD {counter}, {counter}, 1 ;", f"BRA {head} ;", f"{done}:"]


def program(stmts) -> tuple[str, list[str]]:
    """The listing of a statement list, and its loops' header labels."""
    out = Emitter()
    out.emit(stmts)
    text = ".kernel generated\n.param n\n" + "\n".join(out.lines + ["STG [R0], R5 ;", "EXIT ;"]) + "\n"
    return text, out.loops


def alone_loop_bounds(kernel, paths, heads: list[str]) -> dict[str, int]:
    """Per loop header: the most executions of it by one thread in one entry (its SSY, just before, enters it)."""
    bounds = {}
    for head in heads:
        pc = kernel.labels[head]
        most = 0
        for path in paths:
            count = 0
            for p in path.pcs:
                count = 0 if p == pc - 1 else count + (p == pc)
                most = max(most, count)
        bounds[head] = max(most, 1)
    return bounds


def disagreement(stmts, seed: int, int_max: int, threads: int = 8) -> str | None:
    """Where the bound with value agreement falls below the least time of the threads run alone, for some
    ``n`` in 0..8 (None: it never does).  The bound is the same for every ``n``; only its loop bounds move."""
    text, heads = program(stmts)
    kernel = parse_sass(text, "generated.sass")[0]
    w = build_warp_cfg(kernel)
    bounds: dict[tuple, int] = {}
    for n in range(9):
        paths = thread_paths(kernel, WarpInputs(params={"n": n}, seed=seed, int_max=int_max), threads)
        loops = alone_loop_bounds(kernel, paths, heads)
        key = tuple(sorted(loops.items()))
        if key not in bounds:
            bounds[key] = solve_highs(build_problem(w, loops, 0, CostModel())).wcet
        least = warp_lower_bound(kernel, paths)
        if least > bounds[key]:
            return f"n = {n}: bound {bounds[key]} < {least} cycles the threads alone need at least\n{text}"
    return None


cases = (statements(), s.integers(0, 10 ** 6), s.integers(0, 8))
focused = (episode(0, focused=True), s.integers(0, 10 ** 6), s.integers(0, 8))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(*focused)
def test_value_agreement_never_hides_a_divergence_the_threads_alone_show(stmts, seed, int_max):
    found = disagreement(stmts, seed, int_max)
    assert found is None, found


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(*cases)
def test_value_agreement_never_hides_a_divergence_the_threads_alone_show_in_nested_kernels(stmts, seed, int_max):
    found = disagreement(stmts, seed, int_max)
    assert found is None, found


# Kernels of the generator's words that each value-agreement mutant gets wrong (found by the generator).
GUARDED = [("line", "IADD R5, R0, 1 ;"), ("guarded", ("LT", "n", 3), False, "MOV R5, 3 ;"),
           ("if", ("GE", "R5", 2), [("line", "LDG R3, [R1] ;")], [("line", "MUFU.RCP R4, R2 ;")])]
PARTIAL = [("line", "MOV R5, 3 ;"), ("if", ("LT", "R0", 1), [("line", "MOV R5, 3 ;"), ("line", "IADD R5, R5, 1 ;")],
                                     [("line", "NOP ;")]),
           ("if", ("LT", "R5", 4), [("line", "LDG R3, [R1] ;")], [("line", "IADD R1, R1, 1 ;")])]


@pytest.mark.parametrize("mutant, stmts, expect", [
    ("guarded-write-forgets-old-value", GUARDED, "n = 3: bound 310 < 327"),
    ("partial-write-agrees", PARTIAL, "n = 0: bound 316 < 318"),
])
def test_the_check_sees_each_value_agreement_mutant(mutant, stmts, expect):
    assert disagreement(stmts, 0, 4) is None
    with MUTANTS[mutant].applied():
        found = disagreement(stmts, 0, 4)
    assert found is not None and found.startswith(expect), found


@pytest.mark.slow
@pytest.mark.parametrize("mutant", ["guarded-write-forgets-old-value", "partial-write-agrees", "tid-agrees"])
def test_the_generator_finds_each_value_agreement_mutant(mutant):
    @settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(*focused)
    def probe(stmts, seed, int_max):
        assert disagreement(stmts, seed, int_max) is None

    with MUTANTS[mutant].applied(), pytest.raises(AssertionError):
        probe()
