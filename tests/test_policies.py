"""Hand-worked selection sequences for every policy."""
from __future__ import annotations

import pytest

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.policies import POLICIES, PolicyContext, check_policy

T, F = True, False


def sequence(name, eligs, keys=None, ptr=0):
    """The choices of a policy over a list of eligibility vectors."""
    p, out, st = POLICIES[name], [], {"ptr": ptr}
    ctx = PolicyContext(len(eligs[0]))
    for k, elig in enumerate(eligs):
        c = p.choose(A, st, elig, (keys or [[0] * len(elig)] * len(eligs))[k], ctx)
        st = p.update(A, st, c, elig, ctx)
        out.append(c)
    return out


ALL = [T, T, T, T]


def test_lrr_rotates_and_skips_warps_that_are_not_ready():
    assert sequence("lrr", [ALL] * 5) == [0, 1, 2, 3, 0]
    assert sequence("lrr", [ALL, [T, F, T, T], ALL, [F, F, F, F], ALL]) == [0, 2, 3, -1, 0]


def test_strict_rr_idles_when_the_warp_in_turn_is_not_ready():
    assert sequence("srr", [ALL, [T, F, T, T], ALL]) == [0, -1, 2]


def test_gtlrr_keeps_the_warp_until_it_stalls_then_goes_round_robin():
    assert sequence("gtlrr", [ALL, ALL, [F, T, T, T], ALL, [T, F, F, T]]) == [0, 0, 1, 1, 3]


def test_gtlo_keeps_the_warp_until_it_stalls_then_takes_the_oldest():
    assert sequence("gtlo", [ALL, [F, F, T, T], ALL, [T, T, F, F]]) == [0, 2, 2, 0]


def test_loose_oldest_always_takes_the_lowest_ready_warp():
    assert sequence("lo", [ALL, [F, T, T, T], [F, F, F, T]]) == [0, 1, 3]


def test_icount_takes_the_ready_warp_with_fewest_instructions_lowest_on_ties():
    assert sequence("icount", [ALL, [T, F, T, T]], keys=[[3, 1, 1, 2], [3, 0, 2, 2]]) == [1, 2]


def test_idle_cycle_keeps_the_greedy_warp():
    assert sequence("gtlrr", [[F, F, T, F], [F, F, F, F], ALL]) == [2, -1, 2]


def test_unknown_policy_lists_the_known_ones():
    with pytest.raises(ConfigError, match=r"fetch_policy = 'rr' is not a known policy; choose one of: srr, lrr"):
        check_policy("fetch_policy", "rr")
