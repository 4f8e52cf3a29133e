"""Many independent simulations in lockstep: the same step function over the numpy algebra.

A batch shares one front-end configuration (the step function's structure);
each lane has its own workload source (kernel, seed, trip counts) and its own
I-cache.  The feeder is :class:`~warpcheck.sim.frontend.driver.Feeder` written over
arrays: the same fetch choice, the same forced hits, the same positions, and
an I-cache lookup exactly when the concrete source would make one (the first
request of an instruction).  ``tests/test_sim_batch.py`` checks every lane
against the concrete simulator, state by state.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from warpcheck.encodings.numpy_algebra import NumpyAlgebra, lane
from warpcheck.models.frontend.design import NOP_CLS, FrontEnd
from warpcheck.models.kernels.kernel import CLASS_INDEX
from warpcheck.models.frontend.oracles import osched1_choice, osched2_choice
from warpcheck.sim.frontend.compiled import CompiledFrontEnd
from warpcheck.sim.frontend.workloads import ICache, WorkloadSource

FILLER_CLS = CLASS_INDEX["int"]


class BatchFeeder:
    """The driver's feeder for a batch of workload sources, one per lane."""

    def __init__(self, fe: FrontEnd, A: NumpyAlgebra, sources: Sequence[WorkloadSource],
                 fetch_choice: Callable[[dict], Any] | None = None) -> None:
        self.fe, self.A = fe, A
        self.fetch_choice = fetch_choice or (lambda s: fe.fetch_choice(A, s))
        n, W = len(sources), fe.W
        L = max(len(p) for s in sources for p in s.paths)
        self.cls = np.full((n, W, L + 1), FILLER_CLS, dtype=np.int32)
        self.dep = np.zeros((n, W, L + 1), dtype=bool)
        self.tk = np.zeros((n, W, L + 1), dtype=bool)
        self.pc = np.full((n, W, L + 1), -1, dtype=np.int64)  # -1: past the end, no I-cache lookup
        arrays: dict[int, tuple[np.ndarray, ...]] = {}
        for e, src in enumerate(sources):
            for w, path in enumerate(src.paths):
                if id(path) not in arrays:  # paths are shared between warps and lanes when they can be
                    arrays[id(path)] = _path_arrays(path)
                c, d, t, p = arrays[id(path)]
                k = len(path)
                self.cls[e, w, :k], self.dep[e, w, :k], self.tk[e, w, :k], self.pc[e, w, :k] = c, d, t, p
        self.L = L
        self.warm = np.array([s.warm for s in sources], dtype=np.int64)
        self.pos = np.zeros((n, W), dtype=np.int64)
        self.missed = np.zeros((n, W), dtype=bool)
        shapes = {(s.icache.lines, s.icache.line_size) for s in sources}
        if len(shapes) != 1:
            raise ValueError("every lane of a batch needs the same I-cache shape")
        self.lines, self.line_size = shapes.pop()
        self.tags = np.array([[-1 if t is None else t for t in s.icache.tags] for s in sources], dtype=np.int64)
        self.lanes = np.arange(n)

    def _gather(self, s: dict[str, Any], field: str, w: np.ndarray) -> np.ndarray:
        cols = [np.broadcast_to(s[f"w{v}.{field}"], (len(self.lanes),)) for v in range(self.fe.W)]
        return np.stack(cols)[w, self.lanes]

    def inputs(self, s: dict[str, Any]) -> dict[str, Any]:
        """The inputs of the cycle starting in ``s`` (advances positions and I-caches)."""
        fw = np.broadcast_to(self.fetch_choice(s), (len(self.lanes),))
        w = np.where(fw >= 0, fw, 0)
        active = (fw >= 0) & ~self._gather(s, "pend", w)
        at = np.minimum(self.warm[self.lanes, w] + self.pos[self.lanes, w], self.L)
        missed = self.missed[self.lanes, w]
        pc = self.pc[self.lanes, w, at]
        first = active & ~missed & (pc >= 0)
        block = pc // self.line_size
        slot = block % self.lines
        cache_hit = self.tags[self.lanes, slot] == block
        self.tags[self.lanes[first], slot[first]] = block[first]
        hit = self._gather(s, "refetch", w) | missed | ~(first & ~cache_hit)
        adv = active & hit
        self.pos[self.lanes[adv], w[adv]] += 1
        self.missed[self.lanes[active], w[active]] = ~hit[active]
        return {"f.cls": np.where(active, self.cls[self.lanes, w, at], FILLER_CLS),
                "f.dep": active & self.dep[self.lanes, w, at], "f.tk": active & self.tk[self.lanes, w, at],
                "f.hit": ~active | hit}


def _path_arrays(path: Sequence[tuple[int, Any]]) -> tuple[np.ndarray, ...]:
    return (np.array([CLASS_INDEX[i.cls] for _, i in path], dtype=np.int32),
            np.array([i.dep for _, i in path], dtype=bool), np.array([i.taken for _, i in path], dtype=bool),
            np.array([pc for pc, _ in path], dtype=np.int64))


def initial_params(fe: FrontEnd, sources: Sequence[WorkloadSource]) -> dict[str, Any]:
    """Per-lane warm ibuffer contents as model parameters."""
    p: dict[str, Any] = {}
    bufs = [src.ibuffers() for src in sources]
    for w in range(fe.W):
        for j in range(fe.B):
            ins = [b[w][j] for b in bufs]
            p[f"w{w}.b{j}.cls"] = np.array([CLASS_INDEX[i.cls] for i in ins], dtype=np.int32)
            p[f"w{w}.b{j}.dep"] = np.array([i.dep for i in ins], dtype=bool)
            p[f"w{w}.b{j}.tk"] = np.array([i.taken for i in ins], dtype=bool)
    return p


class _Model:
    """The functions a batch run calls: the model's own, or their compiled numpy form."""

    def __init__(self, fe: FrontEnd, A: NumpyAlgebra, compiled: bool) -> None:
        if compiled:
            c = CompiledFrontEnd(fe, "numpy", A)
            self.step, self.fetch = c.step, lambda s: c.fetch_choice(s, None)
            self.issue, self.osched1, self.osched2 = (lambda s: c.issue_choice(s, None),
                                                      lambda s: c.osched1(s, None), lambda s: c.osched2(s, None))
        else:
            self.step, self.fetch = (lambda s, i: fe.step(A, s, i)), (lambda s: fe.fetch_choice(A, s))
            self.issue, self.osched1, self.osched2 = (lambda s: fe.issue_choice(A, s),
                                                      lambda s: osched1_choice(fe, A, s),
                                                      lambda s: osched2_choice(fe, A, s))


def batch_iter(fe: FrontEnd, sources: Sequence[WorkloadSource], compiled: bool = True,
               model: _Model | None = None) -> Iterator[tuple[dict, dict]]:
    """Yield (states, inputs) of the whole batch, cycle by cycle, forever.

    ``compiled``: run the traced step (:mod:`warpcheck.sim.frontend.compiled`, numpy
    dialect) instead of the model's functions over the numpy algebra.
    """
    A = NumpyAlgebra(len(sources))
    m = model or _Model(fe, A, compiled)
    s = fe.init(A, initial_params(fe, sources))
    feeder = BatchFeeder(fe, A, sources, m.fetch)
    while True:
        i = feeder.inputs(s)
        yield s, i
        s = m.step(s, i)


def lane_state(s: dict[str, Any], e: int) -> dict[str, Any]:
    """Lane ``e`` of a batch state, as the concrete simulator would hold it."""
    return {k: lane(v, e) for k, v in s.items()}


@dataclass
class BatchMetrics:
    """Per-lane counts of a batch run (the fields of :class:`~warpcheck.sim.frontend.metrics.Metrics`)."""

    cycles: np.ndarray
    warp_instructions: np.ndarray
    nops: np.ndarray
    discrepancies: np.ndarray
    errors: np.ndarray
    finished: np.ndarray
    simulated: int  # lockstep cycles stepped (per lane)


def simulate_batch(fe: FrontEnd, sources: Sequence[WorkloadSource], max_cycles: int,
                   oracles: bool = True, compiled: bool = True) -> BatchMetrics:
    """Run every lane until all its warps are done or ``max_cycles`` pass, counting the metrics."""
    n = len(sources)
    A = NumpyAlgebra(n)
    m = _Model(fe, A, compiled)
    z = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
    cycles, issued, nops, disc, err = z(), z(), z(), z(), z()
    running = np.ones(n, dtype=bool)
    t = 0
    for t, (s, _) in enumerate(batch_iter(fe, sources, model=m)):
        done = A.and_(*[s[f"w{w}.done"] for w in range(fe.W)])
        running &= ~np.broadcast_to(done, (n,))
        if t == max_cycles or not running.any():
            break
        iw = np.broadcast_to(m.issue(s), (n,))
        head = np.stack([np.broadcast_to(s[f"w{w}.b0.cls"], (n,)) for w in range(fe.W)])[np.maximum(iw, 0), A.lanes]
        some = running & (iw >= 0)
        nops += some & (head == NOP_CLS)
        issued += some & (head != NOP_CLS)
        if oracles:
            disc += running & (iw != m.osched1(s))
            err += running & (iw != m.osched2(s))
        cycles += running
    return BatchMetrics(cycles, issued, nops, disc, err, ~running, t)


def sources_for(workloads: Sequence[Any], warps: int, ibuffer: int,
                icache_shape: tuple[int, int] = (16, 4)) -> list[WorkloadSource]:
    """One fresh source (and I-cache) per workload."""
    return [WorkloadSource(w, warps, ibuffer, ICache(*icache_shape)) for w in workloads]
