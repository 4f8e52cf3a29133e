"""Worst-case response time of one kernel over every stall pattern, by bound search on the transition system.

The system is a :class:`StallSpace`: two kernels' fixed programs on a SWaS
front end, with misses, dependences and taken branches left to the solver.
Bound search: from a stall-free run (the kernel finishes at cycle F), ask
"is there a run in which the kernel has not finished at frame F?".  SAT gives
a run (replayed and completed concretely) that finishes later; UNSAT proves
that no run finishes after F: the maximum is then exact over every stall
pattern, not only within a horizon.  A search stopped by ``horizon`` only
gives a lower bound (UNKNOWN), one stopped by the clock is a TIMEOUT.

Priority inversion (``inversion``): a cover search for a state in which K1
has finished and K2, the kernel of higher QoS, has not.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import z3

from warpcheck.encodings.concrete import CONCRETE as A
from warpcheck.encodings.unroll import Trace, Unrolling
from warpcheck.encodings.z3_algebra import check
from warpcheck.models.errors import ConfigError
from warpcheck.models.qaws.response import StallSpace
from warpcheck.models.ts import TransitionSystem
from warpcheck.verify.engines import cover
from warpcheck.verify.result import Result, Status

Progress = Callable[[str], None]


@dataclass
class WorstResponse:
    """The largest finish cycle found for one kernel, and whether it is proved the largest."""

    status: Status  # PASS: proved maximal; UNKNOWN: horizon reached; TIMEOUT; ERROR: a replay disagreed
    kernel: int
    finish: int  # the largest finish cycle found (cycle after the last warp's exit, from cycle 0)
    response: int  # finish - launch
    params: dict[str, Any]
    inputs: list[dict[str, Any]]
    seconds: float
    queries: list[tuple[int, str, float]] = field(default_factory=list)
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "kernel": self.kernel, "finish": self.finish, "response": self.response,
                "exact": self.status is Status.PASS, "seconds": round(self.seconds, 3), "message": self.message,
                "queries": [{"finish_after": c, "answer": a, "seconds": round(s, 3)} for c, a, s in self.queries]}


def finish_of(ts: StallSpace, params: dict[str, Any], inputs: list[dict[str, Any]], kernel: int,
              limit: int = 100_000) -> tuple[int, list[dict[str, Any]]]:
    """Run ``inputs`` concretely, then stall-free; the kernel's finish cycle and every input fed."""
    s, fed = ts.init(A, params), list[dict[str, Any]]()
    for t in range(limit):
        if ts.kernel_done(A, s, kernel) is True:
            return t, fed
        i = inputs[t] if t < len(inputs) else ts.choices(A, s)[0]
        fed.append(i)
        s = ts.step(A, s, i)
    raise ConfigError(f"kernel K{kernel + 1} did not finish within {limit} cycles")


def trace_replays(ts: TransitionSystem, trace: Trace) -> bool:
    """The solver's run is the simulator's: every state of the trace is what the concrete step gives."""
    s = ts.init(A, trace.params)
    for t, i in enumerate(trace.inputs):
        if s != trace.states[t] or ts.assume(A, s, i) is not True:
            return False
        s = ts.step(A, s, i)
    return s == trace.states[-1]


def worst_response(ts: StallSpace, kernel: int, horizon: int = 400, timeout: float | None = None,
                   progress: Progress | None = None) -> WorstResponse:
    """The largest finish cycle of ``kernel`` over every stall pattern, proved by an UNSAT answer."""
    start = time.monotonic()
    params = {v.name: False for v in ts.param_vars()}
    best, inputs = finish_of(ts, params, [], kernel)
    u = Unrolling(ts, "r.")
    solver = z3.SolverFor(u.logic)
    solver.add(u.init())
    frames, queries = 0, list[tuple[int, str, float]]()

    def done(status: Status, message: str) -> WorstResponse:
        return WorstResponse(status, kernel, best, best - ts.launches[kernel], params, inputs,
                             time.monotonic() - start, queries, message)

    while best <= horizon:
        while frames < best:
            solver.add(u.trans(frames))
            frames += 1
        if timeout is not None:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                return done(Status.TIMEOUT, f"timed out; K{kernel + 1} finishes at cycle {best} or later")
            solver.set("timeout", max(1, int(left * 1000)))
        t0 = time.monotonic()
        answer = check(solver, z3.Not(u.holds(lambda B, s: ts.kernel_done(B, s, kernel), best)))
        queries.append((best, str(answer), time.monotonic() - t0))
        if progress:
            progress(f"unfinished at cycle {best}? {answer} ({queries[-1][2]:.2f} s)")
        if answer == z3.unsat:
            return done(Status.PASS, f"proved: no stall pattern makes K{kernel + 1} finish after cycle {best}")
        if answer != z3.sat:
            status = Status.TIMEOUT if timeout is not None and time.monotonic() - start >= timeout else Status.UNKNOWN
            return done(status, f"solver gave up; K{kernel + 1} finishes at cycle {best} or later")
        trace = u.trace(solver.model(), best)
        if not trace_replays(ts, trace):
            return done(Status.ERROR, f"the solver's run to cycle {best} does not replay on the simulator")
        longer, fed = finish_of(ts, trace.params, trace.inputs, kernel)
        if longer <= best:
            return done(Status.ERROR, f"the solver's run unfinished at cycle {best} finishes at {longer}")
        best, params, inputs = longer, dict(trace.params), fed
    return done(Status.UNKNOWN, f"horizon {horizon} reached: K{kernel + 1} finishes at cycle {best} or later "
                                "(a lower bound, not proved maximal)")


def inversion(ts: StallSpace, depth: int, timeout: float | None = None) -> Result:
    """A run in which K1 has finished and K2 (higher QoS) has not: FAIL of "K2 never finishes after K1"."""
    return cover(ts, lambda B, s: B.and_(ts.kernel_done(B, s, 0), B.not_(ts.kernel_done(B, s, 1))), depth, timeout)
