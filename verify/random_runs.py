"""Falsification by concrete random runs of any transition system: deep violations that BMC reaches slowly.

A bug that needs many cycles of a particular kind (a QAWS group spending its
budget of context switches takes a dozen stalls) lies past the depths BMC
clears in a minute, but a concrete run reaches it in milliseconds per cycle.
Each run draws the parameters and the inputs at random, biased per run so
that runs differ in kind: each field name (``cls``, ``hit``, ...) gets its own
probability of true, or its own few values, shared by the parameters and the
inputs of that run.  The run is the step function with plain values, so a
violation found is a real trace from the initial state; it can only ever end
FAIL, never PASS.  The work is bounded by steps, and the seed makes it
repeatable.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable

from warpcheck.encodings.concrete import CONCRETE as C
from warpcheck.encodings.unroll import Trace
from warpcheck.models.ts import TransitionSystem, Var
from warpcheck.verify.result import Result, Status

Prop = Callable[[Any, dict], Any]
TRIES = 50  # draws of an input before the run's bias is dropped for uniform values


def _field(v: Var) -> str:
    return v.name.rsplit(".", 1)[-1]


def _biases(rng: random.Random, vs: list[Var], uniform: bool) -> dict[str, Any]:
    """Per field name: a probability of true (bool) or the few values drawn (int); none for a uniform run."""
    out: dict[str, Any] = {}
    for v in vs:
        if uniform or _field(v) in out:
            continue
        values = list(range(v.lo, v.hi + 1)) if v.kind == "int" else []
        out[_field(v)] = rng.choice((0.05, 0.5, 0.95)) if v.kind == "bool" else \
            rng.sample(values, min(len(values), rng.randint(1, 3)))
    return out


def _draw(rng: random.Random, v: Var, bias: dict[str, Any]) -> Any:
    b = bias.get(_field(v))
    if v.kind == "bool":
        return rng.random() < (0.5 if b is None else b)
    return rng.choice(b) if b and all(v.lo <= x <= v.hi for x in b) else rng.randint(v.lo, v.hi)


def _input(rng: random.Random, ts: TransitionSystem, s: dict[str, Any], bias: dict[str, Any]) -> dict[str, Any] | None:
    """Inputs the system assumes possible in ``s``: the run's bias first, then uniform; None if none found."""
    for b in (bias, {}):
        for _ in range(TRIES):
            i = {v.name: _draw(rng, v, b) for v in ts.input_vars()}
            if ts.assume(C, s, i):
                return i
    return None


def random_runs(ts: TransitionSystem, prop: Prop, steps: int, cycles: int, seed: int = 0,
                timeout: float | None = None) -> Result:
    """Runs of at most ``cycles`` cycles, ``steps`` cycles in all: FAIL with the earliest violation found, else UNKNOWN.

    Once a violation is found, the search goes on only for as many cycles as it
    took, for a shorter one.
    """
    rng, t0 = random.Random(seed), time.monotonic()
    names = [v.name for v in ts.state_vars()]
    best: Trace | None = None
    done, run = 0, 0
    while done < steps and (timeout is None or time.monotonic() - t0 < timeout):
        bias = _biases(rng, ts.param_vars() + ts.input_vars(), uniform=run == 0)
        run += 1
        params = {v.name: _draw(rng, v, bias) for v in ts.param_vars()}
        s = ts.init(C, params)
        states, inputs = [{n: s[n] for n in names}], []
        limit = cycles if best is None else len(best.inputs) - 1  # only a shorter violation is worth more
        for _ in range(limit):
            i = _input(rng, ts, s, bias)
            if i is None:
                break
            s, done = ts.step(C, s, i), done + 1
            states.append({n: s[n] for n in names})
            inputs.append(i)
            if not prop(C, s):
                if best is None:  # look for a shorter one with at most the work spent so far
                    steps = min(steps, 2 * done)
                best = Trace(params, states, inputs)
                break
    seconds = time.monotonic() - t0
    if best is None:
        return Result(Status.UNKNOWN, "random", cycles, seconds=seconds,
                      message=f"no violation in {run} random runs ({done} cycles); not a proof")
    return Result(Status.FAIL, "random", len(best.inputs), seconds=seconds, trace=best,
                  message=f"violation at depth {len(best.inputs)} found by {run} random runs (seed {seed}); "
                          "shorter ones not excluded")
