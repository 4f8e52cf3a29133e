"""Properties of the reordering unit, stated against the static order list (the reference).

The reference is a counter ``ref`` over the static order (``models.reorder_order``):
it moves on each time the unit's output record says a request went to L1.
It shares no code with the unit's step: the unit picks the channel by an
argmin over its reordering configuration; the reference reads a sorted list.

* ``order``: the k-th request sent to L1 is the k-th of the static order.
* ``misses``: once every request has gone to L1, the load-line misses equal
  ``expected_misses`` (the LRU replay of the static order, computed apart by
  the caller), so the L1 miss count is the same for every schedule.
* ``wait``: once the static order's next request has been delivered, it goes
  to L1 within channel - 1 cycles (none is lost); the ghost (delivered
  requests, the wait) is the reference's, computed from the unit's inputs.
* ``progress``: every request is sent within a bound and the run ends:
  ``wait``, and the static order's next request, while not yet delivered,
  is one the LD/ST side may deliver now (no barrier, no back-pressure and
  no lost slot holds it).  So an LD/ST side that delivers the due request
  when it may sends every request within requests x channel cycles; a unit
  that hangs (a slot never freed, a request in the wrong channel, a dropped
  delivery, a barrier deadlock) FAILs it.
* ``deadlock``: never does the next request of the static order need a
  barrier that a request still unsent (hence, under ``order``, sent after it)
  holds.  A violation is a deadlock: the unit waits for a request the warp can
  only deliver after a barrier that waits for a request queued behind it.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import Trace
from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.unit import SENT, WAITING, ReorderUnit
from warpcheck.spec.reorder.reference import static_order
from warpcheck.models.ts import State, TransitionSystem, Var
from warpcheck.verify.engines import bmc, kinduction
from warpcheck.verify.progress import Progress
from warpcheck.verify.reorder.checks import CHECKS
from warpcheck.verify.result import Result, Status

Prop = Callable[[Any, State], Any]


class Monitored(TransitionSystem):
    """The unit together with the reference counter ``ref`` over the static order."""

    lemma_batch = 64  # hundreds of cheap prefix lemmas: batches are 2-3x faster than one by one

    def __init__(self, inner: ReorderUnit, expected_misses: int | None = None, wait: bool = False) -> None:
        self.inner, self.expected_misses, self.wait = inner, expected_misses, wait
        self.bound = inner.channel - 1  # the wait bound, as in verify.reorder.streams
        self.order = static_order(inner.work.epochs, inner.order, inner.work.pcs or None)
        self.prefix_counts = _prefix_counts(self.order, inner.work.warps)
        self.name = f"{inner.name}+ref"

    def state_vars(self) -> list[Var]:
        ghost = [Var(f"r.d.{w}.{k}", "bool") for w, k in self.order] + [Var("r.wait", "int", 0, self.bound + 1)]
        return self.inner.state_vars() + [Var("ref", "int", 0, len(self.order))] + (ghost if self.wait else [])

    def input_vars(self) -> list[Var]:
        return self.inner.input_vars()

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        s = {**self.inner.init(A, p), "ref": A.const(0)}
        if self.wait:
            s.update({f"r.d.{w}.{k}": A.false for w, k in self.order})
            s["r.wait"] = A.const(0)
        return s

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        nxt = self.inner.step(A, s, i)
        full = A.const(len(self.order))
        nxt["ref"] = A.min(A.add(s["ref"], A.ite(nxt["o_valid"], A.const(1), A.const(0))), full)
        if self.wait:
            self._wait_step(A, s, i, nxt)
        return nxt

    def _wait_step(self, A: Any, s: State, i: Mapping[str, Any], nxt: State) -> None:
        """The reference's ghost: which requests the LD/ST side delivered, how long the due one has waited."""
        bits = [s[f"r.d.{w}.{k}"] for w, k in self.order]
        for w, k in self.order:
            got = A.and_(A.eq(i["a_warp"], A.const(w)), A.eq(i["a_idx"], A.const(k)))
            nxt[f"r.d.{w}.{k}"] = A.or_(s[f"r.d.{w}.{k}"], got)
        due = A.and_(A.lt(s["ref"], A.const(len(self.order))), A.select(bits + [A.false], s["ref"]))
        grown = A.min(A.add(s["r.wait"], A.const(1)), A.const(self.bound + 1))
        nxt["r.wait"] = A.ite(A.and_(due, A.not_(nxt["o_valid"])), grown, A.const(0))

    def wait_prop(self, A: Any, s: State) -> Any:
        """Once delivered, the static order's next request goes to L1 within channel - 1 cycles (none lost)."""
        if not self.wait:
            raise ConfigError("the wait check needs Monitored(..., wait=True)")
        return A.le(s["r.wait"], A.const(self.bound))

    def progress_prop(self, A: Any, s: State) -> Any:
        """``wait``, and the static order's next request, not yet delivered, may be delivered now (the run can end)."""
        if not self.order:
            return self.wait_prop(A, s)
        bits = [s[f"r.d.{w}.{k}"] for w, k in self.order] + [A.true]
        offered = [self.inner.deliverable(A, s, w, k) for w, k in self.order] + [A.true]  # the LD/ST side may
        return A.and_(self.wait_prop(A, s), A.or_(A.select(bits, s["ref"]), A.select(offered, s["ref"])))

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self.inner.assume(A, s, i)

    def reference(self, A: Any, r: Any) -> tuple[Any, Any]:
        """The static order's request at position ``r``: (warp, index)."""
        if not self.order:
            return A.const(-1), A.const(-1)
        return (A.select([A.const(w) for w, _ in self.order], r),
                A.select([A.const(k) for _, k in self.order], r))

    def order_prop(self, A: Any, s: State) -> Any:
        """What went to L1 this cycle is the static order's next request."""
        at = A.sub(s["ref"], A.const(1))
        w, k = self.reference(A, at)
        epochs = [A.const(self.inner.work.epochs[q][j]) for q, j in self.order] or [A.const(-1)]
        return A.implies(s["o_valid"], A.and_(A.lt(A.const(0), s["ref"]), A.eq(s["o_warp"], w), A.eq(s["o_idx"], k),
                                              A.eq(s["o_seq"], at), A.eq(s["o_epoch"], A.select(epochs, at))))

    def deadlock_free(self, A: Any, s: State) -> Any:
        """The static order's next request does not wait for a barrier held by an unsent request."""
        ok = [self._next_free(A, s, r) for r in range(len(self.order))]
        return A.all_([A.implies(A.eq(s["ref"], A.const(r)), c) for r, c in enumerate(ok)])

    def misses_prop(self, A: Any, s: State) -> Any:
        """Once every request went to L1, the load-line misses are the expected ones."""
        if self.inner.l1 is None or self.expected_misses is None:
            raise ConfigError("the misses check needs an L1 in the unit and the expected miss count")
        done = A.eq(s["ref"], A.const(len(self.order)))
        return A.implies(done, A.eq(s["misses"], A.const(self.expected_misses)))

    def _next_free(self, A: Any, s: State, r: int) -> Any:
        w, k = self.order[r]
        work = self.inner.work
        epoch = work.epochs[w][k]
        return A.all_([A.eq(s[f"st.{q}.{j}"], A.const(SENT)) for q in work.peers(w)
                       for j in range(work.count(q)) if work.epochs[q][j] < epoch])

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        out = dict(self.inner.lemmas(A, s))
        if not self.inner.unit:
            return out
        for w, prefix in enumerate(self.prefix_counts):
            out[f"config_is_prefix.{w}"] = A.eq(s[f"sent.{w}"], A.select([A.const(c) for c in prefix], s["ref"]))
        out["output_counted"] = A.implies(s["o_valid"], A.lt(A.const(0), s["ref"]))
        out["seq_is_ref"] = A.eq(s["seq"], s["ref"])
        if self.wait:
            out.update({f"delivered_is_status.{w}.{k}": A.eq(s[f"r.d.{w}.{k}"], A.ne(s[f"st.{w}.{k}"], A.const(WAITING)))
                        for w, k in self.order})
        if self.inner.l1 is not None:
            out.update(self._l1_lemmas(A, s))
        return out

    def _l1_lemmas(self, A: Any, s: State) -> dict[str, Any]:
        """The L1 sets and the miss count are those after the static order's first ``ref`` requests."""
        table = _l1_prefix_states(self)
        names = list(table[0])
        return {f"l1_is_prefix.{n}": A.eq(s[n], A.select([A.const(row[n]) for row in table], s["ref"]))
                for n in names}

    def prop(self, check: str) -> Prop:
        """The predicate of a named check."""
        if check not in CHECKS:
            raise ConfigError(f"unknown check {check!r}; known checks: {', '.join(CHECKS)}")
        return {"order": self.order_prop, "deadlock": self.deadlock_free, "misses": self.misses_prop,
                "wait": self.wait_prop, "progress": self.progress_prop}[check]


def _prefix_counts(order: list[tuple[int, int]], warps: int) -> list[list[int]]:
    """Per warp, how many of the first r requests of ``order`` are its own, for r = 0 .. len(order)."""
    out = [[0] for _ in range(warps)]
    for q, _ in order:
        for w in range(warps):
            out[w].append(out[w][-1] + (w == q))
    return out


def _l1_prefix_states(m: Monitored) -> list[dict[str, int]]:
    """The L1 ways and miss count after each prefix of the static order (a concrete run of the L1 port)."""
    port = m.inner.l1
    assert port is not None
    s = {n: -1 for n in port.names()}
    s["misses"] = 0
    rows = [dict(s)]
    numbers = _request_numbers(m.inner)
    for w, k in m.order:
        ways, _, misses = port.access(CONCRETE, s, True, numbers[(w, k)])
        s = {**ways, "misses": s["misses"] + misses}
        rows.append(dict(s))
    return rows


def _request_numbers(ts: ReorderUnit) -> dict[tuple[int, int], int]:
    out, first = {}, 0
    for w in range(ts.work.warps):
        out.update({(w, k): first + k for k in range(ts.work.count(w))})
        first += ts.work.count(w)
    return out


def prove(system: Monitored, check: str = "order", max_k: int = 4, timeout: float | None = None,
          depth: int | None = None, progress: Progress | None = None) -> Result:
    """k-induction with proved lemmas for the unit; BMC (to ``depth``) without it, or when induction is UNKNOWN.

    A violation of ``misses`` shows only once every request has gone to L1,
    deeper than k-induction's base case reaches: an UNKNOWN induction is
    followed by BMC through a complete run, which turns it into a FAIL or
    leaves it UNKNOWN with the depth it covered.
    """
    prop = system.prop(check)
    full = depth if depth is not None else len(system.order) + 2
    if not system.inner.unit:
        return bmc(system, prop, full, timeout, progress)
    r = kinduction(system, prop, max_k, timeout, progress=progress)
    if r.status is not Status.UNKNOWN:
        return r
    left = None if timeout is None else max(0.001, timeout - r.seconds)
    deep = bmc(system, prop, full, left, progress)
    if deep.status is Status.FAIL:
        deep.seconds += r.seconds
        return deep
    r.message += f"; BMC found no violation in the first {full + 1} cycles" if deep.status is Status.PASS else ""
    return r


def schedule_of(trace: Trace) -> list[tuple[int, int]]:
    """The LD/ST deliveries of a trace: (warp, index) or (-1, 0) for a stall, per cycle."""
    return [(int(i["a_warp"]), int(i["a_idx"])) for i in trace.inputs]


def fail_or_error(r: Result) -> bool:
    """Whether a result came with a trace to replay."""
    return r.status is Status.FAIL and r.trace is not None
