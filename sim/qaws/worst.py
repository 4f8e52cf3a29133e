"""Response times of two kernels over stall patterns, explicitly: replaying one pattern, enumerating all of them.

``replay`` runs the front end of a :class:`StallSpace` on given parameters
and inputs (then without further stalls until every warp exits) and reports
each kernel's finish cycle: the oracle a search result is checked against.
``exhaustive_worst`` enumerates every parameter and every allowed input of
every cycle (with memoisation on states) and returns the largest finish cycle
of one kernel and a run that reaches it: the independent computation the SMT
search is cross-checked against on small instances.
"""
from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from typing import Any, Sequence

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.models.errors import ConfigError
from warpcheck.models.qaws.response import StallSpace


@dataclass(frozen=True)
class StallRun:
    """One concrete run: the inputs fed, the warp issued at each cycle (-1: none), each kernel's finish cycle."""

    params: dict[str, Any]
    inputs: tuple[dict[str, Any], ...]
    order: tuple[int, ...]
    finish: tuple[int, ...]  # per kernel: the cycle after its last warp's exit, from cycle 0

    def response(self, ts: StallSpace, k: int) -> int:
        """Launch to finish of kernel ``k``."""
        return self.finish[k] - ts.launches[k]

    def to_json(self, ts: StallSpace) -> dict[str, Any]:
        return {"finish": list(self.finish), "response": [self.response(ts, k) for k in range(len(self.finish))],
                "order": list(self.order), "params": self.params,
                "stalls": stall_events(ts, self)}


def replay(ts: StallSpace, params: dict[str, Any], inputs: Sequence[dict[str, Any]],
           limit: int = 10_000) -> StallRun:
    """Run ``inputs`` (each checked against the model's assumption), then stall-free until every warp exits."""
    s = ts.init(A, params)
    kernels = max(ts.kow) + 1
    fed: list[dict[str, Any]] = []
    order: list[int] = []
    finish = [0 if ts.kernel_done(A, s, k) else None for k in range(kernels)]
    for t in range(limit):
        if all(f is not None for f in finish):
            return StallRun(dict(params), tuple(fed), tuple(order), tuple(f for f in finish if f is not None))
        i = inputs[t] if t < len(inputs) else ts.choices(A, s)[0]
        if ts.assume(A, s, i) is not True:
            raise ConfigError(f"input {i} at cycle {t} is not one the model allows")
        s = ts.step(A, s, i)
        fed.append(i)
        order.append(s["o.w"])
        finish = [t + 1 if f is None and ts.kernel_done(A, s, k) else f for k, f in enumerate(finish)]
    raise ConfigError(f"the run did not finish within {limit} cycles")


def stall_events(ts: StallSpace, run: StallRun) -> list[str]:
    """The stall pattern of a run, readably: dependences of the warm ibuffers, then misses, dependences, taken branches."""
    out = [f"w{k.split('.')[0][1:]} ibuffer[{k.split('.')[1][1:]}] {k.split('.')[2]}"
           for k, v in sorted(run.params.items()) if v]
    s = ts.init(A, run.params)
    for t, i in enumerate(run.inputs):
        fw, on, _ = ts.fetch_facts(A, s)
        if on is True:
            what = [x for x, on in (("miss", not i["f.hit"] and not s[f"w{fw}.refetch"]), ("dep", i["f.dep"]),
                                    ("taken", i["f.tk"])) if on]
            out += [f"cycle {t}: w{fw} fetch {' '.join(what)}"] if what else []
        s = ts.step(A, s, i)
    return out


def exhaustive_worst(ts: StallSpace, kernel: int, max_states: int = 2_000_000) -> StallRun:
    """A run in which ``kernel`` finishes last, over every parameter and input the model allows."""
    memo: dict[tuple, tuple[int, dict[str, Any] | None]] = {}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))

    def togo(s: dict[str, Any]) -> int:
        key = tuple(sorted(s.items()))
        if key in memo:
            return memo[key][0]
        if len(memo) >= max_states:
            raise ConfigError(f"exhaustive enumeration exceeds {max_states} states; take a smaller instance")
        memo[key] = (-1, None)  # in progress: a state met again on its own path would be a livelock
        best = (0, None)
        if ts.kernel_done(A, s, kernel) is not True:
            best = max(((1 + togo(ts.step(A, s, i)), i) for i in ts.choices(A, s)), key=lambda x: x[0])
            if best[0] <= 0:
                raise ConfigError("a state repeats on a run before the kernel finishes (livelock)")
        memo[key] = best
        return best[0]

    names = [v.name for v in ts.param_vars()]
    worst: tuple[int, dict[str, Any]] | None = None
    for bits in itertools.product((False, True), repeat=len(names)):
        params = dict(zip(names, bits))
        n = togo(ts.init(A, params))
        if worst is None or n > worst[0]:
            worst = (n, params)
    assert worst is not None
    return replay(ts, worst[1], _path(ts, worst[1], memo, kernel))


def _path(ts: StallSpace, params: dict[str, Any], memo: dict, kernel: int) -> list[dict[str, Any]]:
    """The inputs of the worst run from ``params``, read off the memo."""
    s, out = ts.init(A, params), []
    while ts.kernel_done(A, s, kernel) is not True:
        i = memo[tuple(sorted(s.items()))][1]
        out.append(i)
        s = ts.step(A, s, i)
    return out
