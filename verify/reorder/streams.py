"""The reordering unit proved as a design: for every stream within a bound, against the reference.

:class:`StreamMonitor` runs the unit over symbolic :class:`Streams` next to the
reference (``spec.reorder.reference``, ``spec.reorder.reference_l1``),
which sees only the unit's inputs (the LD/ST deliveries) and its output record
(``o_valid``, ``o_warp``, ``o_idx``, ``misses``).  Three properties:

* ``order``: whatever goes to L1 is the static order's next request (so the
  k-th request sent is the k-th of the static order, none sent twice);
* ``wait``: once the static order's next request has been delivered to the
  unit, it is sent within ``wait_bound`` cycles (so none is lost: a request
  dropped or stuck makes the reference wait for ever);
* ``progress``: the static order's next request, while the LD/ST side has
  not delivered it, is one the unit accepts now (its back-pressure and the
  barrier rule let it in), unless the order itself deadlocks there (a request
  of an earlier barrier epoch of its block sorts after it: the round order's
  barrier deadlock, a property of the order, which ``--order barrier``
  avoids).  With ``wait``: an LD/ST side that delivers the due request when
  the unit accepts it gets every request sent within requests x channel
  cycles, so a unit that accepts nothing, or hangs, FAILs;
* ``misses``: the unit's L1 load misses equal those of the reference LRU replay
  of the static order, every cycle.

``order`` also checks that a request sent to L1 was delivered by its warp
(no phantom request).  ``stream`` is all of them together.  The proof is k-induction with lemmas the
solver proves first (nothing assumed); a FAIL's trace is a concrete stream and
LD/ST schedule that ``warpcheck reorder replay`` reruns on the simulator.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from warpcheck.models.errors import ConfigError
from warpcheck.spec.reorder.reference import ReferenceOrder, sorts_before
from warpcheck.spec.reorder.reference_l1 import Geometry, ReferenceL1
from warpcheck.models.reorder.unit import SENT, WAITING, ReorderUnit
from warpcheck.models.ts import State, TransitionSystem, Var
from warpcheck.verify.engines import bmc, kinduction
from warpcheck.verify.reorder.checks import STREAM_CHECKS
from warpcheck.verify.result import Result, Status



def wait_bound(channel: int) -> int:
    """Cycles the static order's next request may wait in its channel without being sent.

    The search pointer visits one slot a cycle and wraps at the last used one,
    so it reaches any slot within ``channel - 1`` moves; the bound is tight
    (a proof with ``channel - 2`` FAILs for channels 2 and 3)."""
    return channel - 1


class StreamMonitor(TransitionSystem):
    """The unit over symbolic streams, with the reference's ghost state (``r.*``, ``r1.*``)."""

    lemma_batch = 64

    def __init__(self, inner: ReorderUnit) -> None:
        if not inner.work.symbolic or not inner.unit:
            raise ConfigError("the stream proof needs the unit (a ReorderUnit with unit=True) over symbolic streams")
        self.inner, work = inner, inner.work
        self.ref = ReferenceOrder(work.warps, work.length, inner.order, work.barriers)
        self.bound = wait_bound(inner.channel)
        self.rl1 = None
        if inner.l1 is not None:
            spec = inner.l1.spec
            self.rl1 = ReferenceL1(Geometry(spec.size, spec.ways, spec.line_bytes, spec.stores), work.lines)
        self.name = f"{inner.name}+reference"

    def state_vars(self) -> list[Var]:
        W, n = self.inner.work.warps, self.inner.work.length
        vs = [Var("r.lw", "int", -1, W - 1), Var("r.lk", "int", -1, n - 1), Var("r.le", "int", -1, n),
              Var("r.ew", "int", -1, W - 1), Var("r.ek", "int", -1, n - 1), Var("r.wait", "int", 0, self.bound + 1),
              Var("r.ee", "int", -1, n), Var("r.el", "int", -1, self.inner.work.lines - 1),
              Var("r.n", "int", 0, W * n), Var("r.seq", "int", 0, W * n)]
        vs += [Var(f"r.d.{w}.{k}", "bool") for w in range(W) for k in range(n)] + [Var("r.acc", "bool"), Var("r.hang", "bool")]
        if self.rl1 is not None:
            vs += [Var(x, "int", -1, self.inner.work.lines - 1) for x in self.rl1.names()]
            vs += [Var("r.misses", "int", 0, W * n)]
        return self.inner.state_vars() + vs

    def input_vars(self) -> list[Var]:
        return self.inner.input_vars()

    def param_vars(self) -> list[Var]:
        return self.inner.param_vars()

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        s = self.inner.init(A, p)
        for v in self.state_vars()[len(self.inner.state_vars()):]:
            s[v.name] = A.false if v.kind == "bool" else A.const(0 if v.name in ("r.wait", "r.n", "r.seq",
                                                                                   "r.misses") else -1)
        s["r.acc"] = A.true
        return s

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self.inner.assume(A, s, i)

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        nxt = self.inner.step(A, s, i)
        W, n = self.inner.work.warps, self.inner.work.length
        ew, ek, ee = self.ref.next_after(A, s)
        sent = nxt["o_valid"]
        nxt["r.ew"], nxt["r.ek"], nxt["r.ee"] = ew, ek, ee
        nxt["r.el"] = A.ite(A.eq(ew, A.const(-1)), A.const(-1), self.ref.pick(A, s, ew, ek, "ln"))
        nxt["r.seq"] = s["r.n"]  # the due request's rank in the static order: how many went before it
        nxt["r.n"] = A.min(A.add(s["r.n"], A.ite(sent, A.const(1), A.const(0))), A.const(W * n))
        nxt["r.lw"], nxt["r.lk"], nxt["r.le"] = (A.ite(sent, new, s[f"r.{x}"]) for new, x in
                                                 ((ew, "lw"), (ek, "lk"), (ee, "le")))
        delivered = [[s[f"r.d.{w}.{k}"] for k in range(n)] for w in range(W)]
        for w in range(W):
            for k in range(n):
                got = A.and_(A.eq(i["a_warp"], A.const(w)), A.eq(i["a_idx"], A.const(k)))
                nxt[f"r.d.{w}.{k}"] = A.or_(delivered[w][k], got)
        due = A.and_(A.ne(ew, A.const(-1)), A.select([A.select(row, ek) for row in delivered], ew))
        grown = A.min(A.add(s["r.wait"], A.const(1)), A.const(self.bound + 1))
        nxt["r.wait"] = A.ite(A.and_(due, A.not_(sent)), grown, A.const(0))
        if self.rl1 is not None:
            line, load = self.ref.pick(A, s, ew, ek, "ln"), self.ref.pick(A, s, ew, ek, "ld")
            ways, miss = self.rl1.access(A, s, A.and_(sent, A.ne(ew, A.const(-1))), load, line)
            nxt.update(ways)
            nxt["r.misses"] = A.min(A.add(s["r.misses"], A.ite(miss, A.const(1), A.const(0))),
                                    A.const(W * n))
        # the unit's ready signal for the due request in this cycle's state, recorded (so a witness carries it as
        # the trace has it) and judged one cycle later: a hang is a due request neither delivered nor accepted
        acc = self.inner.assume(A, s, {"a_warp": ew, "a_idx": ek})
        nxt["r.acc"] = acc
        nxt["r.hang"] = A.not_(A.or_(self._delivered(A, s, ew, ek), acc, self._order_deadlock(A, s, ew, ee)))
        return nxt

    # -- properties --------------------------------------------------------------------
    def order_prop(self, A: Any, s: State) -> Any:
        """The record of a send is the static order's next request: warp, index, line, epoch, sequence number."""
        return A.implies(s["o_valid"], A.and_(A.ne(s["r.ew"], A.const(-1)), A.eq(s["o_warp"], s["r.ew"]),
                                              A.eq(s["o_idx"], s["r.ek"]), A.eq(s["o_line"], s["r.el"]),
                                              A.eq(s["o_epoch"], s["r.ee"]), A.eq(s["o_seq"], s["r.seq"]),
                                              self._delivered(A, s, s["r.ew"], s["r.ek"])))

    def wait_prop(self, A: Any, s: State) -> Any:
        return A.le(s["r.wait"], A.const(self.bound))

    def progress_prop(self, A: Any, s: State) -> Any:
        """In the previous cycle's state the due request, not yet delivered, was accepted (unless the order
        deadlocks at its barrier)."""
        return A.not_(s["r.hang"])

    def _delivered(self, A: Any, s: State, w: Any, k: Any) -> Any:
        """The reference's ghost: the LD/ST side delivered request (w, k) (false for w = -1)."""
        W, n = self.inner.work.warps, self.inner.work.length
        rows = [A.select([s[f"r.d.{q}.{j}"] for j in range(n)], A.max(k, A.const(0))) for q in range(W)]
        return A.and_(A.ne(w, A.const(-1)), A.select(rows, A.max(w, A.const(0))))

    def _order_deadlock(self, A: Any, s: State, w: Any, e: Any) -> Any:
        """A present request of ``w``'s block, of an epoch below ``e``, sorts after the last one sent: the
        order puts a barrier's holder behind the request that waits for it (never so under ``barrier``)."""
        if self.ref.rule == "barrier":
            return A.false
        W, n = self.inner.work.warps, self.inner.work.length
        started = A.ne(s["r.lw"], A.const(-1))
        last = self.ref.last_key(A, s)
        held = []
        for q in range(W):
            for p in range(W):
                if self.inner.work.blocks[p] != self.inner.work.blocks[q]:
                    continue
                for j in range(n):
                    unsent = A.or_(A.not_(started), sorts_before(A, last, self.ref.key(A, s, p, j)))
                    held.append(A.and_(A.eq(w, A.const(q)), self.ref.present(A, s, p, j),
                                       A.lt(self.ref.epoch(A, s, p, j), e), unsent))
        return A.any_(held)

    def misses_prop(self, A: Any, s: State) -> Any:
        if self.rl1 is None:
            raise ConfigError("the misses check needs an L1 in the unit")
        return A.eq(s["misses"], s["r.misses"])

    def prop(self, check: str) -> Callable[[Any, State], Any]:
        if check not in STREAM_CHECKS:
            raise ConfigError(f"unknown check {check!r}; known checks: {', '.join(STREAM_CHECKS)}")
        parts = self.parts(check)
        return lambda A, s: A.and_(*[p(A, s) for p in parts.values()])

    def parts(self, check: str) -> dict[str, Callable[[Any, State], Any]]:
        every: dict[str, Callable[[Any, State], Any]] = {"order": self.order_prop, "wait": self.wait_prop,
                                                         "progress": self.progress_prop,
                                                         "misses": self.misses_prop}
        if check != "stream":
            return {check: every[check]}
        return {n: p for n, p in every.items() if n != "misses" or self.rl1 is not None}

    # -- lemmas (candidates: each is proved before it is used) ---------------------------
    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        out = dict(self.inner.lemmas(A, s))
        W, n = self.inner.work.warps, self.inner.work.length
        started = A.ne(s["r.lw"], A.const(-1))
        last = self.ref.last_key(A, s)
        for w in range(W):
            for k in range(n):
                st = s[f"st.{w}.{k}"]
                out[f"delivered_is_status.{w}.{k}"] = A.eq(s[f"r.d.{w}.{k}"], A.ne(st, A.const(WAITING)))
                upto = A.and_(started, A.not_(sorts_before(A, last, self.ref.key(A, s, w, k))))
                out[f"sent_is_upto_last.{w}.{k}"] = A.eq(A.eq(st, A.const(SENT)),
                                                         A.and_(self.ref.present(A, s, w, k), upto))
        out["last_epoch"] = A.implies(started, A.eq(s["r.le"], A.select(
            [A.select([self.ref.epoch(A, s, w, k) for k in range(n)], s["r.lk"]) for w in range(W)], s["r.lw"])))
        out["last_present"] = A.implies(started, A.select(
            [A.select([self.ref.present(A, s, w, k) for k in range(n)], s["r.lk"]) for w in range(W)], s["r.lw"]))
        out["none_started"] = A.eq(started, A.ne(s["r.lk"], A.const(-1)))
        out["order"] = self.order_prop(A, s)
        sent_now = A.count([A.eq(s[f"st.{w}.{k}"], A.const(SENT)) for w in range(W) for k in range(n)])
        out["seq_counts_sent"] = A.eq(s["seq"], sent_now)
        out["reference_counts_sent"] = A.eq(s["r.n"], s["seq"])
        if self.rl1 is not None:
            sent = A.count([A.eq(s[f"st.{w}.{k}"], A.const(SENT)) for w in range(W) for k in range(n)])
            out["misses_within_sent"] = A.le(s["misses"], sent)
            out["misses_equal"] = A.eq(s["misses"], s["r.misses"])
            mine = set(self.inner.l1.names())
            for x in self.rl1.names():
                twin = "l1." + x.removeprefix("r1.")
                if twin in mine:
                    out[f"l1_equal.{x}"] = A.eq(s[twin], s[x])
        return out


def prove_streams(m: StreamMonitor, check: str = "stream", max_k: int = 4, timeout: float | None = None,
                  depth: int | None = None) -> Result:
    """k-induction with proved lemmas; when it is UNKNOWN, BMC to ``depth`` for a counterexample."""
    prop = m.prop(check)
    r = kinduction(m, prop, max_k, timeout)
    if r.status is not Status.UNKNOWN:
        return r
    depth = depth if depth is not None else default_depth(m)
    left = None if timeout is None else max(0.001, timeout - r.seconds)
    deep = bmc(m, prop, depth, left)
    if deep.status is Status.FAIL:
        deep.seconds += r.seconds
        return deep
    if deep.status is Status.PASS:
        r.message += f"; BMC found no violation in the first {depth + 1} cycles"
    return r


def default_depth(m: StreamMonitor) -> int:
    """A BMC depth that runs every request of the bound through the unit, plus the wait bound."""
    return m.inner.work.total + m.inner.channel + m.bound + 2
