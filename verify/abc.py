"""ABC as an engine: ``pdr`` (IC3) and ``bmc3`` on the kit's model as AIGER, their answers mapped to the kit's.

The model is :func:`warpcheck.encodings.aiger.to_model` with narrowed states (a
state whose range is >= 0 keeps the bits its upper end needs; the bad state
also fires when a next state needs more), folded for ABC (constraints in the
bad state, every latch reset 0).  ABC is Debian's ``berkeley-abc``, or the
binary the environment variable ``ABC`` names; it runs in a process of its own
that is killed at the timeout.

- A counterexample (``write_cex -a``: the latches' first values and the inputs
  per frame) is simulated on the AIG and read back into the kit's variables;
  ABC's frame k is the kit's depth k (the state checked in cycle k).  The
  caller replays it as every FAIL is replayed.
- ``pdr`` gets the lemmas the kit proves first (Houdini, as k-induction does)
  as constraints: alone it does not prove SWaS even at W = 2 in 120
  CPU-seconds; with them, W = 2, 4, 8 in 4, 9, 32 CPU-seconds.  Its proof is
  not taken on ABC's word: Z3 checks on the same AIG that the lemmas hold
  initially and are preserved by one step of the system without them, and
  that ABC's inductive invariant (``pdr -d``: cubes over latch bits, the
  invariant is the conjunction of their negations) holds initially, is
  preserved and excludes the bad state, before the answer is PASS.
- ``bmc3`` never proves: its answer without a counterexample is a bounded
  PASS up to the depth it cleared.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import z3

from warpcheck.encodings import aiger
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import Trace, _width
from warpcheck.models.ts import TransitionSystem
from warpcheck.verify.lemmas import prove_lemmas
from warpcheck.verify.result import Result, Status

Prop = Callable[[Any, dict], Any]
Progress = Callable[[str], None]
INSTALL = "apt-get install berkeley-abc, or set ABC=/path/to/abc"


def binary() -> str | None:
    """ABC's program: ``$ABC`` when set, else ``berkeley-abc`` on the PATH (None: not installed)."""
    named = os.environ.get("ABC")
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("berkeley-abc")


def missing() -> str | None:
    """Why ABC cannot run here (None: it can)."""
    if binary() is not None:
        return None
    named = os.environ.get("ABC")
    return (f"ABC={named!r} is not an executable file" if named else "ABC (berkeley-abc) is not installed") \
        + f": {INSTALL}"


def abc_model(ts: TransitionSystem, prop: Prop, lemmas: list[Prop] | None = None) -> aiger.Model:
    """The AIG ABC runs on: narrowed states, constraints (and ``lemmas``, proved invariants) folded, every reset 0."""
    return aiger.folded(aiger.to_model(ts, prop, _width(ts), narrow=True, lemmas=lemmas or []))


def _run(m: aiger.Model, commands: str, timeout: float | None, folder: str) -> tuple[str, bool]:
    """ABC's output for ``commands`` after reading the model (``{cex}`` and ``{inv}`` name files in
    ``folder``), and whether the timeout stopped it (its process group killed; the output so far is kept:
    ABC writes it line by line through ``stdbuf`` where that is installed)."""
    model = Path(folder) / "model.aig"
    model.write_bytes(aiger.to_aiger(m.aig, "warpcheck model for ABC"))
    script = f"read_aiger {model}; " + commands.format(cex=Path(folder) / "cex.txt", inv=Path(folder) / "inv.pla")
    lines = ["stdbuf", "-oL"] if shutil.which("stdbuf") else []
    with subprocess.Popen([*lines, binary() or "berkeley-abc", "-c", script], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True) as p:
        try:
            return p.communicate(timeout=timeout)[0], False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            return p.communicate()[0], True
        finally:  # also when the run guard's alarm or Ctrl-C ends the wait: ABC never outlives its run
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)


def _limit(timeout: float | None) -> str:
    """ABC's own time limit: 80 % of the engine's, so that ABC usually stops itself and says how far it got
    (it checks its limit between frames; the process is killed at the engine's)."""
    return f" -T {max(1, int(0.8 * timeout))}" if timeout else ""


def _frame(out: str) -> int | None:
    """The frame of ABC's counterexample, if it found one."""
    got = re.search(r"asserted in frame (\d+)", out)
    return int(got.group(1)) if got else None


def read_cex(text: str, m: aiger.Model) -> list[dict[int, bool]]:
    """The AIG's values per frame from ABC's ``write_cex -a`` file (first values of the latches, inputs per frame)."""
    rows = [line.split("#")[0].strip() for line in text.splitlines()]
    rows = [r for r in rows if r and set(r) <= {"0", "1", "x"}]
    latches, frames = rows[0], rows[1:]
    return aiger.simulate(m.aig, [c == "1" for c in latches], [[c == "1" for c in f] for f in frames])


def to_trace(m: aiger.Model, ts: TransitionSystem, values: list[dict[int, bool]]) -> Trace:
    """The kit's trace of a counterexample: parameters and inputs read off the AIG, states by the kit's step."""
    def var(frame: dict[int, bool], name: str) -> Any:
        return aiger.read_value(frame, m.map[name], m.kinds[name])
    params = {v.name: var(values[0], f"p.{v.name}") for v in ts.param_vars()}
    inputs = [{v.name: var(f, f"i.{v.name}") for v in ts.input_vars()} for f in values[:-1]]
    states = [ts.init(CONCRETE, params)]
    for i in inputs:
        states.append(ts.step(CONCRETE, states[-1], i))
    return Trace(params=params, states=states, inputs=inputs)


def _fail(name: str, m: aiger.Model, ts: TransitionSystem, prop: Prop, k: int, cex: Path, t0: float) -> Result:
    trace = to_trace(m, ts, read_cex(cex.read_text(), m))
    if len(trace.states) <= k or prop(CONCRETE, trace.states[k]):  # ABC's bad state, the property holds there
        return Result(Status.ERROR, name, k, seconds=time.monotonic() - t0,
                      message=f"ABC's counterexample at frame {k} does not violate the property in the kit's step "
                              "(a state left its declared range?): a kit bug")
    return Result(Status.FAIL, name, k, seconds=time.monotonic() - t0, trace=trace,
                  message=f"counterexample of ABC's {name.split('-')[1]} at frame {k}")


def abc_bmc(ts: TransitionSystem, prop: Prop, depth: int = 8, timeout: float | None = None,
            progress: Progress | None = None, **_: Any) -> Result:
    """ABC's ``bmc3`` to ``depth``: a FAIL with its trace, or a bounded PASS (never an unbounded one)."""
    t0, m = time.monotonic(), abc_model(ts, prop)
    if progress:
        progress(f"abc-bmc: bmc3 to depth {depth} on {len(m.aig.latches)} latches, {len(m.aig.ands)} ANDs")
    with tempfile.TemporaryDirectory(prefix="warpcheck-abc-") as folder:
        out, killed = _run(m, f"bmc3 -v -F {depth + 1}{_limit(timeout)}; write_cex -a {{cex}}", timeout, folder)
        k = None if killed else _frame(out)
        if k is not None:
            return _fail("abc-bmc", m, ts, prop, k, Path(folder) / "cex.txt", t0)
    done = re.search(r"No output asserted in (\d+) frames", out)
    if done and int(done.group(1)) > depth:
        return Result(Status.PASS, "abc-bmc", depth, bounded=True, seconds=time.monotonic() - t0,
                      message=f"no violation in the first {depth + 1} cycles (ABC's bmc3)")
    # bmc3 -v prints "k + :" once frame k is solved, with or without a violation: frames below k are clean
    cleared = [int(n) - 1 for n in re.findall(r"^\s*(\d+) \+ :", out, re.M)]
    clean = int(done.group(1)) - 1 if done else max(cleared, default=-1)
    stopped = killed or "timeout" in out.lower()
    said = f"; no violation up to depth {clean}" if clean >= 0 else ""
    return Result(Status.TIMEOUT if stopped else Status.UNKNOWN, "abc-bmc", max(clean, 0),
                  seconds=time.monotonic() - t0,
                  message=("stopped at the timeout" if stopped else "ABC's bmc3 gave up: " + _last(out)) + said)


def abc_pdr(ts: TransitionSystem, prop: Prop, depth: int = 8, timeout: float | None = None,
            progress: Progress | None = None, **_: Any) -> Result:
    """ABC's ``pdr`` given the kit's proved lemmas as constraints: a FAIL with its trace, or a PASS once Z3 has
    re-checked on the AIG both the lemmas (initial, preserved) and ABC's invariant."""
    t0 = time.monotonic()
    proved, rejected = prove_lemmas(ts, lambda: None if timeout is None else
                                     max(1, int(1000 * (t0 + timeout - time.monotonic()))), progress=progress)
    m = abc_model(ts, prop, [pred for _, pred in proved])
    if progress:
        progress(f"abc-pdr: pdr on {len(m.aig.latches)} latches, {len(m.aig.ands)} ANDs, with {len(proved)} lemmas")
    rest = None if timeout is None else max(0.5, t0 + timeout - time.monotonic())
    with tempfile.TemporaryDirectory(prefix="warpcheck-abc-") as folder:
        out, killed = _run(m, f"pdr -d -I {{inv}}{_limit(rest)}; write_cex -a {{cex}}", rest, folder)
        k = None if killed else _frame(out)
        if k is not None:
            return _fail("abc-pdr", m, ts, prop, k, Path(folder) / "cex.txt", t0)
        if not killed and "Property proved" in out:
            r = _proved(m, _invariant(Path(folder) / "inv.pla", m), t0, len(proved))
            r.lemmas, r.rejected_lemmas = [n for n, _ in proved], rejected
            return r
    stopped = killed or "timeout" in out.lower()
    return Result(Status.TIMEOUT if stopped else Status.UNKNOWN, "abc-pdr", 0, seconds=time.monotonic() - t0,
                  message="ABC's pdr did not finish" if stopped else "ABC's pdr gave up: " + _last(out))


def prove_invariant(m: aiger.Model, timeout: float | None = None) -> list[list[int]] | None:
    """ABC's ``pdr`` invariant of ``m`` as clauses (None: no proof within the timeout), not re-checked."""
    with tempfile.TemporaryDirectory(prefix="warpcheck-abc-") as folder:
        out, killed = _run(m, "pdr -d -I {inv}", timeout, folder)
        if killed or "Property proved" not in out:
            return None
        return read_invariant((Path(folder) / "inv.pla").read_text(), m)


def _last(out: str | None) -> str:
    lines = [line.strip() for line in (out or "").splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _invariant(path: Path, m: aiger.Model) -> list[list[int]] | str:
    """The clauses of ABC's invariant file, or why there are none."""
    try:
        return read_invariant(path.read_text(), m)
    except OSError:
        return "ABC wrote no invariant file"
    except KeyError as e:
        return f"its invariant names {e}, not a latch of the model"


def _proved(m: aiger.Model, clauses: list[list[int]] | str, t0: float, lemmas: int = 0) -> Result:
    why = clauses if isinstance(clauses, str) else recheck(m, clauses)
    if isinstance(clauses, str) or why:
        return Result(Status.UNKNOWN, "abc-pdr", 0, seconds=time.monotonic() - t0,
                      message=f"ABC's pdr says proved, but its invariant fails the kit's re-check ({why}): not a PASS")
    given = f" with the kit's {lemmas} proved lemmas as constraints" if lemmas else ""
    checked = "the lemmas (initial, preserved) and " if lemmas else ""
    return Result(Status.PASS, "abc-pdr", 0, seconds=time.monotonic() - t0,
                  message=f"ABC's pdr{given}; {checked}its inductive invariant ({len(clauses)} clauses over latch "
                          "bits) re-checked by Z3 on the bit-level model")


# -- the invariant ----------------------------------------------------------------------------------------------
def read_invariant(text: str, m: aiger.Model) -> list[list[int]]:
    """``pdr -d``'s PLA as clauses: each a list of latch literals of ``m``'s AIG (a cube's negation)."""
    by_name = {m.aig.names[v]: v for v in m.aig.latches}
    names: list[str] = []
    clauses = []
    for line in text.splitlines():
        if line.startswith(".ilb"):
            names = line.split()[1:]
        elif line and line[0] in "01-" and names:
            cube = line.split()[0]
            clauses.append([2 * by_name[n] + (c == "1") for n, c in zip(names, cube) if c != "-"])
    return clauses


def _z3(g: aiger.Aig, latch: dict[int, Any], tag: str) -> Callable[[int], Any]:
    """Z3 terms of the AIG's literals over the given latch terms and fresh inputs tagged ``tag``."""
    val: dict[int, Any] = {0: z3.BoolVal(False), **latch}
    val.update({v: z3.Bool(f"{tag}.i{v}") for v in g.inputs})
    for v in sorted(g.ands):
        a, b = g.ands[v]
        val[v] = z3.And(_lit(val, a), _lit(val, b))
    return lambda x: _lit(val, x)


def _lit(val: dict[int, Any], x: int) -> Any:
    return z3.Not(val[x // 2]) if x & 1 else val[x // 2]


def recheck(m: aiger.Model, clauses: list[list[int]]) -> str | None:
    """Why ``clauses`` is not an inductive invariant of ``m`` that excludes its bad state, or why ``m``'s lemma
    (a constraint of ``m``) is not an invariant of the system without it (None: both are)."""
    g = m.aig
    now = {v: z3.Bool(f"l{v}") for v in g.latches}
    at = _z3(g, now, "now")
    after = {v: at(g.next[v]) for v in g.latches}
    then = _z3(g, after, "next")
    first = _z3(g, {v: z3.BoolVal(False) for v in g.latches}, "init")  # folded: every latch resets to 0

    def inv(lit: Callable[[int], Any]) -> Any:
        return z3.And([z3.Or([lit(x) for x in c]) for c in clauses])
    checks = {"a lemma fails in an initial state": z3.And(first(m.holds), z3.Not(first(m.lemma))),
              "one step does not preserve the lemmas": z3.And(at(m.lemma), at(m.holds), z3.Not(then(m.lemma))),
              "the initial state does not satisfy it": z3.Not(inv(lambda x: z3.BoolVal(bool(x & 1)))),
              "one step does not preserve it": z3.And(inv(at), z3.Not(at(g.bad[0])),
                                                     z3.Not(inv(lambda x: _lit(after, x)))),
              "it does not exclude the bad state": z3.And(inv(at), at(g.bad[0]))}
    for why, query in checks.items():
        s = z3.Solver()
        s.add(query)
        if s.check() != z3.unsat:
            return why
    return None
