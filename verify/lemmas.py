"""Proving a model's candidate lemmas (Houdini): keep the largest inductive subset.

A candidate survives only if it holds in every initial state and is preserved
by one step assuming all surviving candidates hold before it.  Whatever fails
is dropped and reported; nothing is assumed.  The declared range of every
integer state variable is a candidate too (``range:NAME``): ranges are proved
like any other lemma, never assumed on the pre-state.
"""
from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import z3

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import Unrolling
from warpcheck.encodings.z3_algebra import check
from warpcheck.models.ts import TransitionSystem, Var
from warpcheck.verify.lemma_cache import LemmaCache
from warpcheck.verify.progress import Progress, always, every

Lemma = tuple[str, Callable[[Any, dict], Any]]


def _candidates(ts: TransitionSystem) -> list[Lemma]:
    """Each named lemma of the model as a predicate on a state (built once per state)."""
    probe = Unrolling(ts, "probe.")
    names = list(ts.lemmas(probe.A, probe.state(0)).keys())
    built: dict[int, tuple[Any, dict[str, Any]]] = {}

    def one(A: Any, s: dict, n: str) -> Any:
        if id(s) not in built:  # keep s alive with its lemmas so its id stays unique
            built[id(s)] = (s, ts.lemmas(A, s))
        return built[id(s)][1][n]

    def named(n: str) -> Callable[[Any, dict], Any]:
        return lambda A, s: one(A, s, n)

    return [(n, named(n)) for n in names] + _ranges(ts)


def _ranges(ts: TransitionSystem) -> list[Lemma]:
    """The declared range of each integer state variable, as a candidate lemma."""
    def in_range(v: Var) -> Callable[[Any, dict], Any]:
        return lambda A, s: v.domain(A, s[v.name])
    return [(f"range:{v.name}", in_range(v)) for v in ts.state_vars() if v.kind == "int"]


def prove_lemmas(ts: TransitionSystem, left_ms: Callable[[], int | None] = lambda: None,
                 cache: str | Path | None = None, progress: Callable[[str], None] | None = None,
                 ) -> tuple[list[Lemma], list[str]]:
    """Split the model's lemmas into proved ones and rejected names.

    ``cache``: a folder where the work is kept (:mod:`warpcheck.verify.lemma_cache`): a run with the
    same formulas reads the proved lemmas back, or resumes where an earlier one stopped.
    """
    live, u = _candidates(ts), Unrolling(ts, "h.")
    work = Work(LemmaCache(cache, u, live) if cache is not None else None)
    if work.proved is not None:
        if progress:
            progress(f"lemmas: read back from {work.folder} (an earlier run of this exact model)")
        return [x for x in live if x[0] in work.proved], [n for n, _ in live if n not in work.proved]
    if progress and work.resumed:
        progress(f"lemmas: resuming where an earlier run stopped ({len(work.rejected)} candidates rejected, "
                 f"{len(work.preserved)} shown preserved; {work.folder})")
    say = always(progress)
    say(f"lemmas: {len(live)} candidates")
    init_ok = _initially(ts, u, live, work, left_ms)
    if init_ok is None:
        return [], [n for n, _ in live]
    say(f"lemmas: {len(init_ok)} hold in every initial state; checking that one step preserves them")
    found = _preserved(u, init_ok, left_ms, ts.lemma_batch, work, every(progress))
    if found is None:
        return [], [n for n, _ in live]
    done = {n for n, _ in found}
    work.finish(done)
    return found, [n for n, _ in live if n not in done]


def _initially(ts: TransitionSystem, u: Unrolling, live: list[Lemma], work: "Work",
               left_ms: Callable[[], int | None]) -> list[Lemma] | None:
    """The candidates no random run refutes and every initial state satisfies (None: undecided).

    An earlier run of the same model that got past this point has rejected the others already.
    """
    if work.stage != "step":
        work.drop(refuted_by_runs(ts, [x for x in live if x[0] not in work.rejected]))
        init_ok = _filter_init(u, [x for x in live if x[0] not in work.rejected], left_ms)
        if init_ok is None:
            return None
        work.drop({n for n, _ in live} - {n for n, _ in init_ok})
        work.stage = "step"
        work.held([])
    return [x for x in live if x[0] not in work.rejected]


class Work:
    """What Houdini has established so far: rejected candidates, candidates shown preserved, kept in a cache.

    ``preserved`` holds the candidates one step was shown to preserve assuming every candidate not
    rejected: valid while ``rejected`` stays as it is, so a rejection empties it.
    """

    SAVE_EVERY = 0.0  # seconds between two writes of the cache (a write costs about 1 ms, a query more)

    def __init__(self, store: LemmaCache | None) -> None:
        kept = store.load() if store else None
        self.store, self.resumed, self.saved = store, kept is not None, time.monotonic()
        self.rejected: set[str] = set(kept["rejected"]) if kept else set()
        self.preserved: set[str] = set(kept.get("preserved") or []) if kept else set()
        self.proved: set[str] | None = set(kept["proved"]) if kept and kept["proved"] is not None else None
        self.where = store.path if store else None
        self.folder = store.path.parent if store else None
        self.stage = kept.get("stage", "") if kept else ""  # "step": past the random runs and the initial states

    def drop(self, names: Iterable[str]) -> None:
        """Candidates rejected: kept at once, so that a stop loses none of them."""
        new = set(names) - self.rejected
        if new or not self.resumed:
            self.rejected |= new
            self.preserved.clear()
            self._save()

    def held(self, names: Iterable[str]) -> None:
        """Candidates one step preserves under every candidate not rejected."""
        self.preserved.update(names)
        if time.monotonic() - self.saved >= self.SAVE_EVERY:
            self._save()

    def finish(self, proved: set[str]) -> None:
        """Houdini ended: the lemmas proved."""
        self.proved = proved
        self._save()

    def _save(self) -> None:
        if self.store:
            self.store.save(self.rejected, self.proved, self.preserved, self.stage)
        self.saved = time.monotonic()


def refuted_by_runs(ts: TransitionSystem, live: list[Lemma], runs: int = 4, cycles: int = 40,
                    seed: int = 1) -> set[str]:
    """Candidates false in some state of a few random concrete runs: not invariants, no solver needed."""
    rng, out = random.Random(seed), set()
    for _ in range(runs):
        p = {v.name: _pick(rng, v) for v in ts.param_vars()}
        s = ts.init(CONCRETE, p)
        for _ in range(cycles):
            out |= {n for n, f in live if n not in out and not f(CONCRETE, s)}
            i = next((i for i in (_inputs(rng, ts) for _ in range(20)) if ts.assume(CONCRETE, s, i)), None)
            if i is None:
                break
            s = ts.step(CONCRETE, s, i)
    return out


def _pick(rng: random.Random, v: Var) -> Any:
    return rng.random() < 0.3 if v.kind == "bool" else rng.randint(v.lo, v.hi)


def _inputs(rng: random.Random, ts: TransitionSystem) -> dict[str, Any]:
    return {v.name: _pick(rng, v) for v in ts.input_vars()}


def _preserved(u: Unrolling, live: list[Lemma], left_ms: Callable[[], int | None], batch: int = 1,
               work: Work | None = None, tick: Progress = lambda msg: None) -> list[Lemma] | None:
    """The largest subset whose conjunction one step preserves (None: a query could not be decided).

    The candidates are asserted before the step and each is asked about after
    it on its own (many small incremental queries are far faster here than one
    large disjunction, and plain assertions faster than activation literals).
    When one fails, the solver is rebuilt without it.  ``work`` is told what
    is established, and what it already holds is not asked again; ``tick`` hears how far a round got.
    """
    alive, work, rounds, dropped = dict(live), work or Work(None), 0, 0
    while True:
        rounds += 1
        s = z3.SolverFor(u.logic)
        s.add(u.trans(0), *[u.holds(f, 0) for f in alive.values()])
        after = {n: u.holds(f, 1) for n, f in alive.items() if n not in work.preserved}
        done = [0]

        def held(names: list[str], r: int = rounds, n: int = len(after), d: int = dropped) -> None:
            work.held(names)
            done[0] += len(names)
            tick(f"lemmas: round {r}, {done[0]} of {n} checked, {d} dropped")
        broken = _first_broken(s, after, left_ms, batch, held)
        if broken is None:  # could not decide: keep nothing rather than assume
            return None
        if not broken:
            return list(alive.items())
        for n in broken:
            del alive[n]
        dropped += len(broken)
        work.drop(broken)


# Candidates per query (a model's ``lemma_batch``).  The front end at W = 16: 1, 8, 32, 128 took
# 9.0, 9.4, 11.8, 16.0 s; the reordering unit at 32 warps / 192 requests (549 lemmas): 1 took
# 42 s, 32 and 128 took 12 to 18 s (loaded machine).


def _first_broken(s: z3.Solver, after: dict[str, Any], left_ms: Callable[[], int | None],
                  batch: int = 1, held: Callable[[list[str]], None] = lambda names: None) -> list[str] | None:
    """The candidates falsified after the step in the first counter-model found ([] if none; None if unknown).

    Candidates are asked in batches of ``batch`` (one query: is any of them false?); ``held`` is told
    each batch that holds.
    """
    items = list(after.items())
    for k in range(0, len(items), batch):
        if left_ms() is not None:
            s.set("timeout", left_ms())
        r = check(s, z3.Not(z3.And([h for _, h in items[k:k + batch]])))
        if r == z3.unsat:
            held([n for n, _ in items[k:k + batch]])
            continue
        if r != z3.sat:
            return None
        m = s.model()
        return [n for n, g in items if z3.is_false(m.eval(g, model_completion=True))]
    return []


def _filter_init(u: Unrolling, live: list[Lemma], left_ms: Callable[[], int | None]) -> list[Lemma] | None:
    """The candidates that hold in every initial state, one query while all of them hold (None: undecided)."""
    s = z3.SolverFor(u.logic)
    s.add(u.init())
    held = [(n, f, u.holds(f, 0)) for n, f in live]
    while held:
        if left_ms() is not None:
            s.set("timeout", left_ms())
        r = check(s, z3.Not(z3.And([h for _, _, h in held])))
        if r == z3.unsat:
            break
        if r != z3.sat:  # could not decide: keep nothing rather than assume
            return None
        m = s.model()
        held = [(n, f, h) for n, f, h in held if not z3.is_false(m.eval(h, model_completion=True))]
    return [(n, f) for n, f, _ in held]
