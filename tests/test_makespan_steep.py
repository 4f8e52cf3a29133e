"""The relational-form potential (verify/makespan/steep.py): its abstraction law, soundness, a kept mutant, the obstruction."""
from __future__ import annotations

import random

import pytest

from warpcheck.models.makespan.kernel import MkKernel, make_kernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM
from warpcheck.sim.makespan.enum import worst_case
from warpcheck.verify.makespan import steep
from warpcheck.verify.makespan.abstract import AbstractGraph, default_caps
from warpcheck.verify.makespan.steep import Form, candidate_forms, next_entries, obstruction, steep_bound, steep_search

SMALL = [("LLC", {"L": "1", "C": "1/2"}), ("LCL", {"L": "1", "C": "1"}), ("CLLC", {"L": "1", "C": "1"}),
         ("LLCL", {"L": "2", "C": "1/2"}), ("LCC", {"L": "1/2", "C": "1"}), ("CLC", {"L": "1", "C": "2"}),
         ("LCM", {"L": "1", "C": "1", "M": "1"}), ("LLLC", {"L": "2", "C": "1/2"})]


def _random_kernels(seed: int, count: int, max_phases: int = 6) -> list[MkKernel]:
    """Seeded random single-cycle kernels of at most ``max_phases`` phases (enumeration stays fast)."""
    rng = random.Random(seed)
    out: list[MkKernel] = []
    while len(out) < count:
        text = "".join(rng.choice(rng.choice(["LC", "LCM"])) for _ in range(rng.randint(2, 5)))
        k = make_kernel(text, {u: rng.choice(["1", "2", "1/2"]) for u in set(text)})
        if len(k.instrs) <= max_phases:
            out.append(k)
    return out


def _concrete_moves(kernel: MkKernel, warps: int) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Every (state, warps leaving each phase, next state) reachable with ``warps`` warps (done count dropped)."""
    moves = CountMoves(CountSM(kernel, warps))
    P = moves.sm.done
    root = tuple([warps] + [0] * P)
    seen, todo = {root}, [root]
    out: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []
    while todo:
        k = todo.pop()
        if k[-1] == warps:
            continue
        for inp, t in moves.successors(k):
            left = [0] * P
            for p, m in inp:
                left[p] = m
            out.append((k[:P], tuple(left), t[:P]))
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return out


@pytest.mark.parametrize("text,sigma", SMALL[:5])
def test_every_concrete_move_has_its_row(text: str, sigma: dict[str, str]) -> None:
    """Law: a concrete move n -> n' has the abstract move (alpha n, z) -> (alpha n', z'), same warps leaving,
    and the concrete l lies where the rows' ends cover it (between them, or beyond the one end of an open class)."""
    k = make_kernel(text, sigma)
    caps = default_caps(k)
    ag = AbstractGraph(k, caps)
    for form in candidate_forms(k, 2):
        for n, left, n2 in _concrete_moves(k, 5):
            a, b = ag.alpha(n), ag.alpha(n2)
            assert (left, b) in ag.moves(a)
            value = sum(w * v for w, v in zip(form.weights, n))
            z, z2 = form.clamp(value), form.clamp(value + form.delta(left))
            assert value + form.delta(left) == sum(w * v for w, v in zip(form.weights, n2))
            ends = dict(next_entries(form, caps, a, z, b, form.delta(left)))
            assert z2 in ends, (text, n, left, n2)
            lo, hi = min(ends[z2]), max(ends[z2])
            if (z, z2) == (form.hi, form.hi):
                assert value >= lo
            elif (z, z2) == (form.lo, form.lo):
                assert value <= hi
            else:
                assert lo <= value <= hi


def test_bound_never_below_the_worst_case() -> None:
    """Cross-check: on random small kernels the bound is at least the exhaustive worst case, and often equal."""
    tight = total = 0
    for k in _random_kernels(7, 10):
        for w in (2, 3, 4):
            wc = worst_case(k, w).makespan
            for form in candidate_forms(k, 2):
                found = steep_bound(k, w, default_caps(k), form)
                assert found is not None
                assert found[0] >= wc, (k.text(), w, form, found[0], wc)
                tight, total = tight + (found[0] == wc), total + 1
    assert total and tight * 2 >= total


def test_a_forgotten_interval_end_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant: rows only at the upper end of each interval of l (the drop is least at either end) is unsound.

    The cross-check above catches it: on ``LLLC`` (sigma_L = 2, sigma_C = 1/2)
    the mutant's bound falls below the exhaustive worst case.  (Negating Delta
    or treating capped counts as exact makes the LP infeasible instead: no bound.)
    """
    true_entries = steep.next_entries

    def last_end_only(*args):  # type: ignore[no-untyped-def]
        for z2, ends in true_entries(*args):
            yield z2, ends[-1:]
    monkeypatch.setattr(steep, "next_entries", last_end_only)
    k = make_kernel("LLLC", {"L": "2", "C": "1/2"})
    below = [w for w in (3, 4) for form in candidate_forms(k, 2)
             if (found := steep_bound(k, w, default_caps(k), form)) is not None and found[0] < worst_case(k, w).makespan]
    assert below


def test_obstruction_is_the_dual_run() -> None:
    """LP duality: the dual weights of the moves sum to the LP's bound (each move is one cycle of the mixed run)."""
    k = make_kernel("LLC", {"L": "1", "C": "1/2"})
    found = steep_bound(k, 8, default_caps(k), Form((0, 0, 0, 0), -1, 1))
    mix = obstruction(k, 8, default_caps(k))
    assert found is not None and mix is not None
    assert abs(sum(mix.values()) - found[0]) < 1e-6


def test_search_never_claims_exact() -> None:
    """No certificate covers this potential yet: the search reports a bound and a run, never exact."""
    r = steep_search(make_kernel("LLC", {"L": "1", "C": "1/2"}), 6, budget=10)
    assert r.upper is not None and r.makespan <= r.upper and not r.exact


@pytest.mark.slow
def test_lllclcl_obstruction() -> None:
    """The diagnosis of the open kernel: a mix of runs in which C idles while L issues the last phase of every warp."""
    k = make_kernel("LLLCLCL", {"C": "1/3", "L": "1"})
    mix = obstruction(k, 128, default_caps(k))
    assert mix is not None
    assert round(sum(mix.values())) == 9 * 128 + 2
    assert mix[((10, 1),)] == pytest.approx(128)  # L alone on phase 10 (C idle): W cycles no single run has
    assert steep.candidate_forms(k)
