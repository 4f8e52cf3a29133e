"""A counterexample found with few warps, lifted to many and confirmed by a concrete run.

BMC over 32 warps spends minutes proving the early cycles clean.  A violation
usually needs only a few warps, the rest staying out of the way; so search at
``SMALL`` warps, give every extra warp the initial instructions of one of the
small run's warps (each source warp in turn), and replay the small run's
inputs on the full product.  Only a concrete run of the full-size design beside
its reference decides: the lifted trace is the witness, or nothing is claimed.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Callable

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import Trace
from warpcheck.models.frontend.checked import Checked
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify.engines import bmc

SMALL = 4  # warps searched before lifting
_WARP_PARAM = re.compile(r"w(\d+)\.(.+)")


def lift_violation(config: SMConfig, checked: Callable[[FrontEnd], Checked], depth: int,
                   timeout: float | None) -> tuple[Trace, int] | None:
    """A violating trace at ``config.warps`` warps and its violating frame, or None if none was lifted."""
    if config.warps <= SMALL or config.kernel_of_warp:  # kernels make warps unalike: copies would differ
        return None
    ts = checked(FrontEnd(replace(config, warps=SMALL)))
    small = bmc(ts, ts.agree, depth, timeout)
    if small.trace is None:
        return None
    full = checked(FrontEnd(config))
    for src in reversed(range(SMALL)):
        got = replay_to_disagreement(full, _copy_params(small.trace.params, config.warps, src), small.trace.inputs)
        if got is not None:
            return got
    return None


def _copy_params(params: dict[str, Any], warps: int, src: int) -> dict[str, Any]:
    """The small run's parameters, with warps SMALL .. warps-1 starting like warp ``src``."""
    out = dict(params)
    for name, v in params.items():
        m = _WARP_PARAM.fullmatch(name)
        if m and int(m.group(1)) == src:
            out.update({f"w{w}.{m.group(2)}": v for w in range(SMALL, warps)})
    return out


def replay_to_disagreement(ts: Checked, params: dict[str, Any], inputs: list[dict[str, Any]]) -> tuple[Trace, int] | None:
    """Run the full product on these inputs; the trace up to its first disagreement, if any."""
    names = [v.name for v in ts.state_vars()]
    s = ts.init(CONCRETE, params)
    states = [{n: s[n] for n in names}]
    for k, i in enumerate(inputs):
        if not ts.assume(CONCRETE, s, i):
            return None
        s = ts.step(CONCRETE, s, i)
        states.append({n: s[n] for n in names})
        if not ts.agree(CONCRETE, s):
            return Trace(params=params, states=states, inputs=inputs[:k + 1]), k + 1
    return None
