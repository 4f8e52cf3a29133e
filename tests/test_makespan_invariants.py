"""The certificate checker's invariants: proved initially and inductive by its own step encoding, or refused."""
from fractions import Fraction as F

import pytest

from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.moves import CountMoves
from warpcheck.models.makespan.sm import CountSM
from warpcheck.sim.makespan.invariants import InvariantRefused, check_invariants, excluded

LC3 = make_kernel("LC3", {"L": 1, "C": 1})  # phases: L wait, C wait, C busy 1, C busy 2 (the busy ones hold C's slot)


def test_a_true_invariant_is_accepted_and_holds_on_every_reached_state():
    inv = ((F(0), F(0), F(1), F(1)), F(1))  # at most one warp holds C's only slot
    check_invariants(LC3, [inv])
    moves, todo, seen = CountMoves(CountSM(LC3, 6)), [(6, 0, 0, 0, 0)], set()
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            assert s[2] + s[3] <= 1
            todo += [t for _, t in moves.successors(s)]


@pytest.mark.parametrize("inv,why", [(((F(0), F(0), F(1), F(1)), F(0)), "breaks"),      # not kept by a move
                                     (((F(1), F(0), F(0), F(0)), F(5)), "initial"),     # false for W = 6
                                     (((F(0), F(1), F(0), F(0)), F(2)), "breaks")])     # the C queue grows past 2
def test_a_false_invariant_is_refused(inv, why):
    with pytest.raises(InvariantRefused, match=why):
        check_invariants(LC3, [inv])


def test_an_entry_is_excluded_only_when_all_its_states_break_an_invariant():
    inv = [((F(0), F(0), F(1), F(1)), F(1))]
    caps = (1, 1, 2, 2)
    assert excluded((0, 0, 1, 1), caps, inv) is True   # exact counts (below their caps) summing to 2
    assert excluded((0, 0, 1, 0), caps, inv) is False
    assert excluded((0, 0, 2, 0), caps, inv) is True   # "2 or more" holders: every state breaks it
    assert excluded((1, 1, 0, 0), caps, inv) is False
    assert excluded((0, 0, 0, 2), caps, [((F(0), F(0), F(1), F(-1)), F(0))]) is False  # unbounded below
