"""Warp-scheduling policies: small pure functions usable for fetch and for issue.

A policy keeps one integer of state, ``ptr`` (the round-robin pointer or the
greedy warp), and maps (ptr, eligible warps, keys) to the chosen warp (-1 when
none is eligible).  Its next state depends only on ``ptr`` and the choice, so
two schedulers that choose alike stay alike.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from warpcheck.models.errors import ConfigError


def _wrap_next(A: Any, w: Any, n: int) -> Any:
    return A.ite(A.eq(w, A.const(n - 1)), A.const(0), A.add(w, A.const(1)))


def _keep_if_idle(A: Any, ptr: Any, chosen: Any, new: Any) -> Any:
    return A.ite(A.lt(chosen, A.const(0)), ptr, new)


@dataclass(frozen=True)
class Policy:
    """A named policy: ``choose(A, ptr, elig, keys)`` and ``update(A, ptr, chosen, n)``."""

    name: str
    summary: str
    choose: Callable[[Any, Any, Sequence[Any], Sequence[Any]], Any]
    update: Callable[[Any, Any, Any, int], Any]


def _srr_choose(A, ptr, elig, keys):
    return A.ite(A.select(elig, ptr), ptr, A.const(-1))


def _lrr_choose(A, ptr, elig, keys):
    return A.first_from(elig, ptr)


def _greedy_rr_choose(A, ptr, elig, keys):
    return A.first_from(elig, ptr)  # starting at the current warp keeps it while eligible


def _gtlo_choose(A, ptr, elig, keys):
    return A.ite(A.select(elig, ptr), ptr, A.first_true(elig))


def _lo_choose(A, ptr, elig, keys):
    return A.first_true(elig)


def _icount_choose(A, ptr, elig, keys):
    return A.argmin_true(elig, keys)


POLICIES: dict[str, Policy] = {p.name: p for p in [
    Policy("srr", "strict round robin: the next warp in order, idle if it is not ready",
           _srr_choose, lambda A, ptr, c, n: _wrap_next(A, ptr, n)),
    Policy("lrr", "loose round robin: the next ready warp in round-robin order",
           _lrr_choose, lambda A, ptr, c, n: _keep_if_idle(A, ptr, c, _wrap_next(A, c, n))),
    Policy("gtlrr", "greedy then loose round robin: keep the warp while ready, then the next ready one",
           _greedy_rr_choose, lambda A, ptr, c, n: _keep_if_idle(A, ptr, c, c)),
    Policy("gtlo", "greedy then loose oldest: keep the warp while ready, then the oldest ready one",
           _gtlo_choose, lambda A, ptr, c, n: _keep_if_idle(A, ptr, c, c)),
    Policy("lo", "loose oldest first: the oldest (lowest-numbered) ready warp",
           _lo_choose, lambda A, ptr, c, n: ptr),
    Policy("icount", "Icount: the ready warp with the fewest fetched but not issued instructions",
           _icount_choose, lambda A, ptr, c, n: ptr),
]}


def check_policy(field_name: str, name: str) -> Policy:
    """The policy called ``name``, or a ConfigError listing the known ones."""
    if name not in POLICIES:
        raise ConfigError(f"{field_name} = {name!r} is not a known policy; choose one of: {', '.join(POLICIES)}")
    return POLICIES[name]
