"""Proof engines over any transition system: BMC, k-induction with proved lemmas, cover.

Each engine is a short composition of an :class:`Unrolling` and a solver.
None of them knows what a warp is.
"""
from __future__ import annotations

import multiprocessing
import signal
import queue
import time
from typing import Any, Callable

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import check
from warpcheck.models.errors import ConfigError
from warpcheck.models.ts import TransitionSystem
from warpcheck.verify import abc, bmc_bitwuzla
from warpcheck.verify.lemmas import prove_lemmas
from warpcheck.verify.progress import every
from warpcheck.verify.random_runs import random_runs
from warpcheck.verify.result import Result, Status

Prop = Callable[[Any, dict], Any]
Progress = Callable[[str], None]
Established = Callable[[str, int], None]  # (what, how much): "clean" depth, "lemmas" proved; kept by a stopped run


TIMER_SLACK = 0.1  # seconds


class Deadline:
    """Wall-clock budget shared by the solver calls of one run."""

    def __init__(self, seconds: float | None) -> None:
        self.start = time.monotonic()
        self.end = None if seconds is None else self.start + seconds

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def left_ms(self) -> int | None:
        if self.end is None:
            return None
        return max(1, int((self.end - time.monotonic()) * 1000))

    def expired(self) -> bool:
        # Z3's own timer (whole milliseconds) may fire a little before the wall clock
        # reaches the end: a check stopped that close to it ran out of time, it did not give up.
        return self.end is not None and time.monotonic() >= self.end - TIMER_SLACK


def _solver(deadline: Deadline, u: Unrolling) -> z3.Solver:
    s = z3.SolverFor(u.logic)
    ms = deadline.left_ms()
    if ms is not None:
        s.set("timeout", ms)
    return s


def _check(s: z3.Solver, deadline: Deadline, assumption: z3.BoolRef, cap: float | None = None) -> z3.CheckSatResult:
    """Check under one assumption within the deadline (and within ``cap`` seconds if given)."""
    ms = deadline.left_ms()
    if cap is not None:
        ms = int(cap * 1000) if ms is None else min(ms, int(cap * 1000))
    s.set("timeout", ms if ms is not None else 4294967295)
    return check(s, assumption)


def _gave_up(name: str, depth: int, deadline: Deadline, bounded_pass: int, why: str) -> Result:
    status = Status.TIMEOUT if deadline.expired() else Status.UNKNOWN
    msg = f"{why}; no violation up to depth {bounded_pass}" if bounded_pass >= 0 else why
    return Result(status, name, depth, seconds=deadline.elapsed(), message=msg)


STEP_BUDGET = 2.0  # seconds: a depth that takes longer to clear switches BMC to one query over the rest


def bmc(ts: TransitionSystem, prop: Prop, depth: int, timeout: float | None = None,
        progress: Progress | None = None, established: Established | None = None) -> Result:
    """Search a violation of ``prop`` within ``depth`` cycles: the shortest while each depth is cheap.

    Depths are cleared one by one (incremental, activation literals) so a
    violation found that way is the shortest (``established("clean", k)`` is told
    each depth k cleared, so that a stop keeps it).  Clearing a depth gets
    exponentially harder; once one takes over STEP_BUDGET seconds the search
    asks once for a violation anywhere in the remaining depths, then tries to
    shorten what it found within the time left.
    """
    dl, u, tick = Deadline(timeout), Unrolling(ts, "b."), every(progress)  # one depth line per period
    s = _solver(dl, u)
    s.add(u.init())
    for k in range(depth + 1):
        if k:
            s.add(u.trans(k - 1))
        bad = z3.Bool(f"b.bad{k}")  # activation literal: ask about frame k only
        s.add(z3.Implies(bad, z3.Not(u.holds(prop, k))))
        t0 = time.monotonic()
        r = _check(s, dl, bad)
        tick(f"bmc depth {k}: {r} ({dl.elapsed():.0f} s)")
        if r == z3.sat:
            return Result(Status.FAIL, "bmc", k, seconds=dl.elapsed(), trace=u.trace(s.model(), k),
                          message=f"shortest violation: none at a smaller depth than {k}")
        if r != z3.unsat:
            return _gave_up("bmc", k, dl, k - 1, f"solver returned unknown at depth {k}")
        s.add(z3.Not(bad))
        if established:
            established("clean", k)
        if time.monotonic() - t0 > STEP_BUDGET and k < depth:
            return _bmc_rest(s, u, prop, k, depth, dl, progress)
    return Result(Status.PASS, "bmc", depth, bounded=True, seconds=dl.elapsed(),
                  message=f"no violation in the first {depth + 1} cycles")


def _bmc_rest(s: z3.Solver, u: Unrolling, prop: Prop, clean: int, depth: int, dl: Deadline,
              progress: Progress | None) -> Result:
    """Frames 0..clean hold: one query for a violation in clean+1..depth, then shorten it."""
    for k in range(clean, depth):
        s.add(u.trans(k))
    viol = {k: z3.Not(u.holds(prop, k)) for k in range(clean + 1, depth + 1)}
    hi, found, budget = depth, None, None
    while hi > clean:
        any_bad = z3.Bool(f"b.upto{hi}")
        s.add(z3.Implies(any_bad, z3.Or([viol[k] for k in range(clean + 1, hi + 1)])))
        t0 = time.monotonic()
        r = _check(s, dl, any_bad, budget)
        if budget is None:  # shortening gets a few times what finding took, not the whole deadline
            budget = max(5.0, 3 * (time.monotonic() - t0))
        if progress:
            progress(f"bmc: a violation between depth {clean + 1} and {hi}? {r}")
        if r != z3.sat:
            break
        m = s.model()
        first = next(k for k in range(clean + 1, hi + 1) if z3.is_true(m.eval(viol[k], model_completion=True)))
        found, hi = (first, u.trace(m, first)), first - 1
    if found is not None:
        exact = hi <= clean  # every shorter depth was cleared
        return Result(Status.FAIL, "bmc", found[0], seconds=dl.elapsed(), trace=found[1],
                      message="shortest violation" if exact else
                      f"violation at depth {found[0]}; none up to depth {clean}, shorter ones not excluded")
    if dl.expired() or r != z3.unsat:
        return _gave_up("bmc", depth, dl, clean, "the search beyond the cleared depths gave up")
    return Result(Status.PASS, "bmc", depth, bounded=True, seconds=dl.elapsed(),
                  message=f"no violation in the first {depth + 1} cycles")


class _StepCase:
    """Incremental step case: frames 0..k, prop on 0..k-1, simple path, lemmas everywhere."""

    def __init__(self, ts: TransitionSystem, prop: Prop, lemmas: list[Prop], dl: Deadline) -> None:
        self.u, self.prop, self.lemmas, self.dl = Unrolling(ts, "k."), prop, lemmas, dl
        self.s = _solver(dl, self.u)
        self._frame(0)
        self.k = 0

    def _frame(self, t: int) -> None:
        u = self.u
        self.s.add(*[u.holds(lem, t) for lem in self.lemmas])
        self.s.add(*[u.distinct(t0, t) for t0 in range(t)])

    def check(self, k: int) -> z3.CheckSatResult:
        """Is there a path of k+1 states, prop on the first k, violated on the last?"""
        while self.k < k:
            self.s.add(self.u.trans(self.k), self.u.holds(self.prop, self.k))
            self.k += 1
            self._frame(self.k)
        bad = z3.Bool(f"k.bad{k}")
        self.s.add(z3.Implies(bad, z3.Not(self.u.holds(self.prop, k))))
        return _check(self.s, self.dl, bad)

    def satisfiable(self) -> z3.CheckSatResult:
        """Do the step's hypotheses (lemmas, steps, the property before the last state) have a model at all?
        An unsat step case proves nothing when they do not (contradictory lemmas or transitions)."""
        return _check(self.s, self.dl, z3.BoolVal(True))


class _BaseCase:
    """Incremental base case: is prop violated exactly at depth k from an initial state?"""

    def __init__(self, ts: TransitionSystem, prop: Prop, dl: Deadline) -> None:
        self.u, self.prop, self.dl = Unrolling(ts, "b."), prop, dl
        self.s = _solver(dl, self.u)
        self.s.add(self.u.init())
        self.k = 0

    def check(self, k: int) -> z3.CheckSatResult:
        while self.k < k:
            self.s.add(self.u.trans(self.k))
            self.k += 1
        bad = z3.Bool(f"b.bad{k}")
        self.s.add(z3.Implies(bad, z3.Not(self.u.holds(self.prop, k))))
        r = _check(self.s, self.dl, bad)
        if r == z3.unsat:
            self.s.add(z3.Not(bad))
        return r


def kinduction(ts: TransitionSystem, prop: Prop, max_k: int = 8, timeout: float | None = None,
               use_lemmas: bool = True, progress: Progress | None = None, established: Established | None = None,
               lemma_cache: str | None = None) -> Result:
    """Prove ``prop`` for every depth: base case by BMC, step case with simple paths.

    The model's candidate lemmas are first proved (``prove_lemmas``, kept in
    ``lemma_cache`` if given); only the proved ones strengthen the step case,
    so a wrong lemma is never assumed.
    """
    dl = Deadline(timeout)
    proved, rejected = prove_lemmas(ts, dl.left_ms, lemma_cache, progress) if use_lemmas else ([], [])
    if progress and use_lemmas:
        progress(f"lemmas: {len(proved)} proved, {len(rejected)} rejected ({dl.elapsed():.1f} s)" if proved or
                 not dl.expired() else f"lemmas: Houdini did not finish in time ({dl.elapsed():.1f} s)")
    if established and proved:
        established("lemmas", len(proved))
    base, step = _BaseCase(ts, prop, dl), _StepCase(ts, prop, [f for _, f in proved], dl)
    names = [n for n, _ in proved]
    for k in range(max_k + 1):
        r = base.check(k)
        if r == z3.sat:
            return Result(Status.FAIL, "kind", k, seconds=dl.elapsed(), trace=base.u.trace(base.s.model(), k))
        if r != z3.unsat:
            return _gave_up("kind", k, dl, k - 1, "base case gave up")
        if established:
            established("clean", k)
        r = step.check(k + 1)
        if progress:
            progress(f"k-induction k={k + 1}: base case holds to depth {k}, step case {r}")
        if r == z3.unsat:
            return _unless_vacuous(step, k, dl, names, rejected, progress)
        if r != z3.sat:
            return _gave_up("kind", k, dl, k, "step case gave up")
    return Result(Status.UNKNOWN, "kind", max_k, seconds=dl.elapsed(), lemmas=names, rejected_lemmas=rejected,
                  message=f"not {max_k + 1}-inductive; no violation up to depth {max_k}")


def _unless_vacuous(step: _StepCase, k: int, dl: Deadline, names: list[str], rejected: list[str],
                    progress: Progress | None) -> Result:
    """The PASS of an unsat step case, once its hypotheses are shown satisfiable (else no PASS)."""
    r = step.satisfiable()
    if progress:
        progress(f"k-induction k={k + 1}: the step's hypotheses are {'satisfiable' if r == z3.sat else r}")
    if r == z3.sat:
        return Result(Status.PASS, "kind", k + 1, seconds=dl.elapsed(), lemmas=names, rejected_lemmas=rejected,
                      message=f"{k + 1}-inductive with {len(names)} proved lemmas (the step's hypotheses satisfiable)")
    if r == z3.unsat:
        return Result(Status.ERROR, "kind", k, seconds=dl.elapsed(), lemmas=names, rejected_lemmas=rejected,
                      message="the step case is unsat only because its hypotheses are: the lemmas and the "
                              "transition contradict each other (a vacuous proof, not a PASS)")
    return _gave_up("kind", k, dl, k, "the step case holds but its non-vacuity was not shown")


def cover(ts: TransitionSystem, target: Prop, depth: int, timeout: float | None = None) -> Result:
    """Find a run reaching ``target`` within ``depth`` cycles (FAIL of its negation)."""
    r = bmc(ts, lambda A, s: A.not_(target(A, s)), depth, timeout)
    r.engine = "cover"
    return r


RANDOM_WORK = 700_000  # state variables x cycles of the random runs (about 4000 cycles at W = 4, exact)
RANDOM_CYCLES = 128  # longest random run


def random_phase(ts: TransitionSystem, prop: Prop, max_k: int = 8, timeout: float | None = None,
                 progress: Progress | None = None) -> Result:
    """Random concrete runs with a work bound scaled to the system's size (FAIL or UNKNOWN, never PASS)."""
    steps = max(RANDOM_CYCLES, RANDOM_WORK // max(1, len(ts.state_vars())))
    r = random_runs(ts, prop, steps, max(RANDOM_CYCLES, 4 * max_k), timeout=timeout)
    if progress:
        progress(f"random runs: {r.status.value} ({r.message})")
    return r


def auto(ts: TransitionSystem, prop: Prop, max_k: int = 8, timeout: float | None = None,
         progress: Progress | None = None, lemma_cache: str | None = None) -> Result:
    """A portfolio: k-induction, BMC to depth ``max_k`` and random runs in three processes; the first conclusive answer wins.

    A FAIL from any, or a PASS from k-induction, ends the run.  When
    k-induction does not close, the BMC search goes on (within the timeout) and
    the answer is UNKNOWN with the depth it reached, never a PASS.  The random
    runs reach violations deeper than BMC's depth (a run of many stalls); they
    can only end FAIL.  What the members establish on the way (depths cleared,
    lemmas proved) is reported by a TIMEOUT; the lemmas are kept in
    ``lemma_cache`` for the next run.
    """
    if multiprocessing.current_process().daemon:  # no children allowed: run the two one after the other
        return _auto_in_process(ts, prop, max_k, timeout, progress, lemma_cache)
    dl = Deadline(timeout)
    ctx = multiprocessing.get_context("fork")
    answers: Any = ctx.Queue()
    runs = {name: ctx.Process(target=_portfolio_child, args=(answers, name, ts, prop, max_k, timeout, progress,
                                                             lemma_cache), daemon=True)
            for name in ("kind", "bmc", "random")}
    for p in runs.values():
        p.start()
    try:
        return _first_conclusive(answers, dl, runs)
    finally:
        for p in runs.values():
            if p.is_alive():
                p.terminate()
            p.join()


def _portfolio_child(answers: Any, name: str, ts: TransitionSystem, prop: Prop, max_k: int,
                     timeout: float | None, progress: Progress | None, lemma_cache: str | None = None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the loser is terminate()d: end at once, whatever the parent set
    told: dict[str, Any] = {"lemma_cache": lemma_cache} if name == "kind" else {}  # only k-induction keeps lemmas
    if name != "random":
        told["established"] = lambda what, n: answers.put((NOTE, (name, what, n)))
    try:
        answers.put((name, ENGINES[name](ts, prop, max_k, timeout, progress=progress, **told)))
    except KeyboardInterrupt:
        pass
    except Exception as e:  # a kit bug: report it as ERROR, never as a verdict
        answers.put((name, Result(Status.ERROR, name, 0, message=f"{type(e).__name__}: {e}")))


NOTE = "note"  # a member's word on what it established so far, not an answer
ANSWER_GRACE = 0.2  # seconds past the deadline the members get to answer: less than the run guard's backstop


def _first_conclusive(answers: Any, dl: Deadline, runs: dict[str, Any]) -> Result:
    """The portfolio's answer.  A random run's FAIL is held until BMC answers (or the deadline): the answer
    is BMC's shortest violation when it finds one, the random run only when BMC cannot answer, saying so.
    While BMC searches, k-induction (which cannot PASS any more) is stopped to leave it the cores."""
    got: dict[str, Result] = {}
    notes: dict[tuple[str, str], int] = {}  # (member, "clean" or "lemmas") -> the most it established
    held: Result | None = None  # a random run's FAIL, returned unless BMC finds one before the deadline
    waiting = set(runs)
    while waiting:
        try:
            name, r = answers.get(timeout=None if dl.end is None else max(0.05, dl.end - time.monotonic()
                                                                          + ANSWER_GRACE))
        except queue.Empty:
            break
        if name == NOTE:
            notes[r[:2]] = r[2]
            continue
        got[name] = r
        waiting.discard(name)
        r.engine = f"auto:{name}"
        if name == "random" and r.status is Status.FAIL:
            held = r
            _stop(runs, "kind", waiting)
            if "bmc" not in waiting:
                break
            continue
        if held is not None and r.status is Status.PASS and name == "kind":  # a concrete run refutes the proof
            return Result(Status.ERROR, "auto", r.depth, seconds=dl.elapsed(),
                          message=f"k-induction proved what a random run refutes ({held.message})")
        if r.status is Status.FAIL or (name == "kind" and r.status is Status.PASS) or r.status is Status.ERROR:
            r.seconds = dl.elapsed()
            if held is not None and name == "bmc":
                r.message += f"; random runs found one at depth {held.depth} too"
            return r
        if held is not None and name == "bmc":
            break  # BMC answered without a violation within its depth: the random run's is deeper
    if held is not None:
        clean = max(notes.get(("bmc", "clean"), -1), notes.get(("kind", "clean"), -1))
        bmc_said = got.get("bmc")
        if bmc_said is not None and bmc_said.status is Status.PASS:
            clean = max(clean, bmc_said.depth)
        return _random_fail(held, clean, dl, bmc_said is None)
    return _merge_inconclusive(got, dl, notes)


def _stop(runs: dict[str, Any], name: str, waiting: set[str]) -> None:
    """Stop one member (a process) of the portfolio; its answer is no longer awaited."""
    p: Any = runs.get(name)
    if hasattr(p, "terminate") and p.is_alive():
        p.terminate()
    waiting.discard(name)


def _random_fail(held: Result, clean: int, dl: Deadline, unanswered: bool = False) -> Result:
    """A random run's FAIL, with what BMC excluded meanwhile (depths 0 .. ``clean`` hold); ``unanswered``: BMC
    did not answer before the deadline."""
    held.seconds = dl.elapsed()
    late = "; BMC did not finish within the timeout" if unanswered else ""
    if clean >= held.depth - 1:
        held.message = f"shortest violation: at depth {held.depth}, found by random runs; none at a smaller depth (BMC)"
    elif clean >= 0:
        held.message = (f"violation at depth {held.depth}, found by random runs; none up to depth {clean} (BMC), "
                        f"depths {clean + 1} .. {held.depth - 1} not excluded{late}")
    elif late:
        held.message += late
    return held


def _established(clean: int, notes: dict[tuple[str, str], int]) -> str:
    """What the members established before the stop (depths 0 .. ``clean`` hold), said in words."""
    said = [f"no violation up to depth {clean}"] if clean >= 0 else []
    if ("kind", "lemmas") in notes:
        said.append(f"{notes['kind', 'lemmas']} lemmas proved")
    return f"; established: {', '.join(said)}" if said else ""


def _merge_inconclusive(got: dict[str, Result], dl: Deadline, notes: dict[tuple[str, str], int] | None = None,
                        ) -> Result:
    kind, deep, notes = got.get("kind"), got.get("bmc"), notes or {}
    searched = f"; BMC found no violation up to depth {deep.depth}" if deep and deep.status is Status.PASS else ""
    if kind is None or kind.status is Status.TIMEOUT or dl.expired():
        clean = deep.depth if deep and deep.status is Status.PASS else \
            max(notes.get(("bmc", "clean"), -1), notes.get(("kind", "clean"), -1))
        return Result(Status.TIMEOUT, "auto", max(clean, 0), seconds=dl.elapsed(),
                      message=f"k-induction did not finish in time{_established(clean, notes)}")
    return Result(Status.UNKNOWN, "auto", kind.depth, seconds=dl.elapsed(), lemmas=kind.lemmas,
                  rejected_lemmas=kind.rejected_lemmas, message=f"{kind.message}{searched}")


def _auto_in_process(ts: TransitionSystem, prop: Prop, max_k: int, timeout: float | None,
                     progress: Progress | None, lemma_cache: str | None = None) -> Result:
    dl = Deadline(timeout)
    shot = random_phase(ts, prop, max_k, timeout, progress)
    if shot.status in (Status.FAIL, Status.ERROR):
        shot.engine = "auto:random"
        return shot
    first = kinduction(ts, prop, max_k, dl.left_ms() and dl.left_ms() / 1000, progress=progress,  # type: ignore[operator]
                       lemma_cache=lemma_cache)
    first.engine = "auto:kind"
    if first.status in (Status.PASS, Status.FAIL, Status.ERROR):
        return first
    deep = bmc_fastest(ts, prop, max_k, dl.left_ms() and dl.left_ms() / 1000, progress=progress)  # type: ignore[operator]
    deep.engine = "auto:bmc"
    return deep if deep.status is Status.FAIL else _merge_inconclusive({"kind": first, "bmc": deep}, dl)


def bmc_fastest(ts: TransitionSystem, prop: Prop, depth: int = 8, timeout: float | None = None,
                progress: Progress | None = None, established: Established | None = None, **_: Any) -> Result:
    """The shortest violation within ``depth``, by bitwuzla where it is installed, else by Z3 (:func:`bmc`).

    bitwuzla wins on every front-end unrolling measured (docs/frontend.md): the baseline's depth-5
    violation at W = 8, 16, 32 in 0.3, 1.0, 8 CPU-seconds (Z3: 1.7 s at W = 8; at W = 16 it did not
    finish in 600 s); SWaS at W = 4, in 48 CPU-seconds it clears depths 0 .. 13, Z3 0 .. 6.
    """
    if not bmc_bitwuzla.available():
        r = bmc(ts, prop, depth, timeout, progress=progress, established=established)
        r.message = "; ".join(filter(None, [r.message, "Z3's BMC (bitwuzla, faster here, is not installed)"]))
        return r
    return bmc_bitwuzla.bmc_bitwuzla(ts, prop, depth, timeout, progress=progress, established=established)


ENGINES: dict[str, Callable[..., Result]] = {"auto": auto, "bmc": bmc_fastest, "kind": kinduction,
                                             "random": random_phase, "abc-pdr": abc.abc_pdr, "abc-bmc": abc.abc_bmc}


def engine(name: str) -> Callable[..., Result]:
    """The engine registered under ``name``."""
    if name not in ENGINES:
        raise ConfigError(f"unknown engine {name!r}; known engines: {', '.join(sorted(ENGINES))}")
    return ENGINES[name]
