"""Check an *interval* certificate: a run that reaches the lower bound, and a proof of the upper bound.

An interval certificate is a makespan certificate (``check.py``) with
``"interval": true``, ``makespan`` the lower bound L and ``upper`` the upper
bound U.  The schedule must replay (``replay.py``) to exactly L: a
work-conserving run of L cycles exists, so the worst case is at least L.  The
``bound`` proves the worst case is at most U, by one of:

- ``{"method": "pessimistic"}``: the paper's Eq. 5-7, computed here again on
  the reference transform (sum over units of ceil(W / sigma_u) times the
  cycles of the unit's instructions), taken only when every sigma is 1 there:
  then some warp moves on every cycle, and Eq. 5-7 is W times a warp's
  cycles; with a wider unit it can be below the worst case;
- ``{"method": "alternation"}``: the alternation bound of one-cycle kernels
  (``alternation.py``, proved in ``docs/makespan-interval.md``);
- ``{"method": "critical-warp"}``: the last warp's own cycles plus the cycles
  the others can fill its unit (``alternation.py``, same page);
- ``{"method": "pairs"}``: P + (W - 1) m on one-cycle kernels (``pairs.py``,
  same page);
- ``{"method": "backlog", "duals": [...]}``: a dual-feasible point of the
  backlog LP (``backlog.py``, rows in ``docs/makespan-interval.md``), its
  objective floored;
- any bound table that ``check.py`` knows (capped counts with a potential,
  blocks), checked by its rules; its bound must be U.

U >= L is required (a smaller U would contradict the run).  Nothing here
searches: the checker recomputes the closed forms and checks the tables.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from warpcheck.spec.makespan.alternation_check import AlternationRefused, checked_alternation, checked_critical_warp
from warpcheck.spec.makespan.backlog_check import BacklogRefused, checked_backlog
from warpcheck.spec.makespan.pair_bound_check import PairsRefused, checked_pairs
from warpcheck.spec.makespan.block_bound_check import BlocksRefused, blocks_upper, check_blocks, read_blocks
from warpcheck.spec.makespan.certificate_check import (CertificateRefused, _field, _instance, _refuse, _run, _upper, check_bound,
                                          read_bound)
from warpcheck.spec.makespan.reference import RefKernel


@dataclass(frozen=True)
class IntervalCheck:
    """A certificate that holds: the worst case lies in lower .. upper, the upper bound proved by ``method``."""

    kernel: str
    warps: int
    lower: int
    upper: int
    method: str


def eq5_7(kernel: RefKernel, warps: int) -> int:
    """The paper's pessimistic bound on the reference transform: sum_u ceil(W / sigma_u) * cycles of u's instructions."""
    total = 0
    for unit, sigma in kernel.sigma:
        total += math.ceil(warps / sigma) * sum(i.latency for i in kernel.instrs if i.unit == unit)
    return total


def _proved_upper(kernel: RefKernel, warps: int, bound: dict[str, Any]) -> int:
    method = bound.get("method")
    if method == "pessimistic":
        wide = [unit for unit, sigma in kernel.sigma if sigma != 1]
        if wide:
            raise _refuse(f"Eq. 5-7 is no upper bound with unit {wide[0]} serving {kernel.sigma_of(wide[0])} "
                          "warps a cycle (e.g. LL, sigma 2, W = 4: 4 against a run of 5); it holds only where "
                          "every sigma is 1 after the transform")
        return eq5_7(kernel, warps)
    if method == "critical-warp":
        return checked_critical_warp(kernel, warps)
    if method == "alternation":
        try:
            return checked_alternation(kernel, warps)
        except AlternationRefused as e:
            raise _refuse(str(e)) from None
    if method == "pairs":
        try:
            return checked_pairs(kernel, warps)
        except PairsRefused as e:
            raise _refuse(str(e)) from None
    if method == "backlog":
        try:
            return checked_backlog(kernel, warps, bound)
        except BacklogRefused as e:
            raise _refuse(str(e)) from None
    if method == "blocks":
        try:
            bb = read_blocks(kernel, bound)
            check_blocks(kernel, bb)
            return blocks_upper(kernel, bb, warps)
        except BlocksRefused as e:
            raise _refuse(str(e)) from None
    b = read_bound(kernel, bound)
    check_bound(kernel, b)
    return _upper(kernel, b, warps)


def check_interval(cert: Any) -> IntervalCheck:
    """Verify an interval certificate (parsed JSON); raise CertificateRefused with the first fault found."""
    if not isinstance(cert, dict) or cert.get("interval") is not True:
        raise _refuse("not an interval certificate (\"interval\": true)")
    kernel, warps = _instance(cert)
    lower, upper = _field(cert, "makespan", int), _field(cert, "upper", int)
    _run(cert, kernel, warps, lower)
    bound = _field(cert, "bound", dict)
    proved = _proved_upper(kernel, warps, bound)
    if proved != upper:
        raise _refuse(f"the {bound.get('method')} bound proves makespan <= {proved}, not {upper}")
    if upper < lower:
        raise _refuse(f"the upper bound {upper} is below the run's makespan {lower}")
    return IntervalCheck(cert["kernel"], warps, lower, upper, str(bound.get("method")))


__all__ = ["CertificateRefused", "IntervalCheck", "check_interval", "eq5_7"]
