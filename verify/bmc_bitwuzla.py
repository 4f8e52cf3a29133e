"""BMC with bitwuzla as the solver: the shortest violation, depth by depth, on the SMT-LIB2 unrolling.

The frames are the SMT-LIB2 export's (``encodings.smt2.Script``: one step
printed per frame, shared nodes as ``define-fun``), fed to one incremental
bitwuzla instance as they grow.  Depth k asks for a violation at exactly k
with frames 0 .. k-1 cleared, so the first sat is the shortest violation.
On the baseline at W = 32 this finds the depth-5 violation in seconds where
Z3's BMC does not finish in minutes (docs/frontend.md has the numbers).
"""
from __future__ import annotations

import contextlib
import io
import time
from typing import Any, Callable

from warpcheck.encodings.smt2 import Script
from warpcheck.encodings.solver_signals import INTERRUPTS, stop_requested
from warpcheck.encodings.unroll import Trace, _width
from warpcheck.models.ts import TransitionSystem, Var
from warpcheck.verify.result import Result, Status

Prop = Callable[[Any, dict], Any]


def available() -> bool:
    """Whether bitwuzla is installed (it is in the test extra, not a dependency)."""
    try:
        import bitwuzla  # noqa: F401
    except ImportError:
        return False
    return True


class _Session:
    """One bitwuzla instance fed the lines of a growing script."""

    def __init__(self, ts: TransitionSystem, end: float | None) -> None:
        import bitwuzla as bz
        options = bz.Options()
        options.set(bz.Option.PRODUCE_MODELS, True)
        self.bz, self.script, self.fed = bz, Script(ts, _width(ts), "warpcheck bmc (bitwuzla)"), 0
        self.parser = bz.Parser(bz.TermManager(), options, "smt2")
        # bitwuzla asks its terminator often.  Ctrl-C's handler may run (and raise) as that Python call
        # starts, where bitwuzla's callback loses the exception: so the run guard's watchdog also sets a flag
        # (INTERRUPTS), which the terminator reads, and the guard delivers the lost signal again.
        self.flags: list[str] = []  # "signal": stopped by the run guard
        self.end = end
        self.parser.configure_terminator(self._done)

    def _done(self) -> bool:
        return self.stopped() or (self.end is not None and time.monotonic() >= self.end)

    def stopped(self) -> bool:
        """Stopped by the run guard: during this check, or by a signal that came between checks."""
        return bool(self.flags) or stop_requested()

    def feed(self, *extra: str) -> None:
        lines = self.script.lines[self.fed:] + list(extra)
        self.fed = len(self.script.lines)
        self.parser.parse("\n".join(lines), parse_only=True, parse_file=False)

    def check(self) -> str:
        """The answer of the check-sat of what was fed; the run guard's watchdog can stop it."""
        stop = self._signalled
        INTERRUPTS.append(stop)
        try:
            with contextlib.redirect_stderr(io.StringIO()):  # the callback prints the exception it loses
                return str(self.parser.bitwuzla().check_sat())
        finally:
            INTERRUPTS.remove(stop)

    def _signalled(self) -> None:
        self.flags.append("signal")

    def value(self, name: str, v: Var) -> Any:
        got = self.parser.bitwuzla().get_value(self.parser.parse_term(name))
        if v.kind == "bool":
            return str(got.value()) in ("True", "true", "1")
        bits = str(got.value())
        n = int(bits, 2)
        return n - (1 << len(bits)) if bits[0] == "1" else n


def bmc_bitwuzla(ts: TransitionSystem, prop: Prop, depth: int, timeout: float | None = None,
                 progress: Callable[[str], None] | None = None,
                 established: Callable[[str, int], None] | None = None) -> Result:
    """The shortest violation of ``prop`` within ``depth`` cycles (FAIL), or none (a bounded PASS)."""
    t0 = time.monotonic()
    run = _Session(ts, None if timeout is None else t0 + timeout)
    return _search(run, ts, prop, depth, t0, timeout, progress, established)


def _search(run: _Session, ts: TransitionSystem, prop: Prop, depth: int, t0: float, timeout: float | None,
            progress: Callable[[str], None] | None, established: Callable[[str, int], None] | None) -> Result:
    """Depth by depth: a violation at exactly k with 0 .. k-1 cleared."""
    run.script.init()
    for k in range(depth + 1):
        if k:
            run.script.trans(k - 1)
        good = run.script.holds(prop, k)
        run.feed("(push 1)", f"(assert (not {good}))")
        said = run.check()
        if progress:
            progress(f"bmc (bitwuzla) depth {k}: {said} ({time.monotonic() - t0:.0f} s)")
        if said == "sat":
            return Result(Status.FAIL, "bmc:bitwuzla", k, seconds=time.monotonic() - t0, trace=_trace(run, ts, k),
                          message=f"shortest violation: none at a smaller depth than {k} (bitwuzla)")
        if said != "unsat":  # a signal (the alarm, Ctrl-C: the run guard raises it again) or the deadline
            stopped = run.stopped() or (timeout is not None and time.monotonic() >= t0 + timeout)
            return Result(Status.TIMEOUT if stopped else Status.UNKNOWN, "bmc:bitwuzla", k,
                          seconds=time.monotonic() - t0,
                          message=("stopped" if stopped else "bitwuzla gave up") + f" at depth {k}"
                          + (f"; no violation up to depth {k - 1}" if k else ""))
        run.feed("(pop 1)", f"(assert {good})")
        if established:
            established("clean", k)
    return Result(Status.PASS, "bmc:bitwuzla", depth, bounded=True, seconds=time.monotonic() - t0,
                  message=f"no violation in the first {depth + 1} cycles (bitwuzla)")


def _trace(run: _Session, ts: TransitionSystem, k: int) -> Trace:
    """Parameters, frames 0 .. k and inputs 0 .. k-1 read off bitwuzla's model."""
    return Trace(params={v.name: run.value(f"|p.{v.name}|", v) for v in ts.param_vars()},
                 states=[{v.name: run.value(f"|s.{v.name}@{t}|", v) for v in ts.state_vars()} for t in range(k + 1)],
                 inputs=[{v.name: run.value(f"|i.{v.name}@{t}|", v) for v in ts.input_vars()} for t in range(k)])
