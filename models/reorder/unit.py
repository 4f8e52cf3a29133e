"""The warp-based load/store reordering unit (Huangfu and Zhang, JCSE 2017, Sec. III-E) as a transition system.

Between the LD/ST unit and the L1 data cache sit one *channel* per warp (a
FIFO with a head, a tail and a *search pointer*), the *distributing unit*
(which puts each request into its warp's channel) and the *reordering unit*,
which holds the *reordering configuration* (how many requests of each warp it
has sent) and waits at the channel of the warp whose request comes next in
the static order.  The LD/ST side is left free: each cycle it may deliver one
request of any warp, in any order within the warp, or nothing (a stall).

Cycle conventions (one step is one clock cycle):

=====================================  =============================================
event at cycle t                       visible at
=====================================  =============================================
LD/ST delivers request (w, k)          in channel w (at its tail) from t + 1
the unit finds the expected request    sent to L1 at t: output record at t + 1,
at the search pointer                  the slot is freed and the pointer goes home
the slot under the pointer holds       the pointer moves one slot at t + 1
another request (or nothing)           (wrapping to the head)
without the unit (``unit=False``)      the request delivered at t goes to L1 at t
=====================================  =============================================

The LD/ST side obeys two rules (``assume``): a warp has at most ``channel``
requests between its oldest request not yet sent to L1 and its newest
(the channel depth), and a request after a warp's e-th ``bar.sync`` (epoch e)
may be delivered only once every request of epoch < e of every warp of its
block has been sent to L1 (``bar.sync`` waits for the warp's outstanding
memory requests, and the block's warps all reach the barrier).

Every cycle the step exports an output record: ``o_valid``, ``o_warp``,
``o_idx`` (the request sent to L1, as (warp, index in the warp's requests))
``o_key`` (its key in the unit's order), ``o_epoch`` (its barrier epoch),
``o_seq`` (a ghost sequence number: how many requests went to L1 before it,
from the ghost counter ``seq``), with streams ``o_line`` (the line it
touches); with an L1 (``l1``), also
``o_hits`` and ``o_misses`` (load lines of that request that hit or miss) and
the running count ``misses``.  Properties compare the record with a reference
written apart (``spec.reorder.reference``, ``verify.reorder``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping, Sequence

from warpcheck.models.errors import ConfigError
from warpcheck.models.reorder.l1 import L1Port, L1Spec
from warpcheck.models.reorder.order import ORDERS, paper_keys
from warpcheck.models.reorder.streams import Streams
from warpcheck.models.ts import State, TransitionSystem, Var

WAITING, QUEUED, SENT = 0, 1, 2


@dataclass(frozen=True)
class Workload:
    """What the unit sees of a kernel: per warp (global order), the epoch of each request, and its block."""

    epochs: tuple[tuple[int, ...], ...]
    blocks: tuple[int, ...]
    accesses: tuple[tuple[tuple[str, tuple[int, ...]], ...], ...] = ()  # per request: kind "L"|"S", lines
    pcs: tuple[tuple[int, ...], ...] = ()  # per request: its instruction address (the paper's order needs them)

    def __post_init__(self) -> None:
        if len(self.epochs) != len(self.blocks) or not self.epochs:
            raise ConfigError(f"a workload needs one block index per warp and at least one warp; got "
                              f"{len(self.epochs)} warps and {len(self.blocks)} block indices")

    @property
    def warps(self) -> int:
        return len(self.epochs)

    def count(self, w: int) -> int:
        """How many requests warp ``w`` sends."""
        return len(self.epochs[w])

    @property
    def total(self) -> int:
        return sum(len(e) for e in self.epochs)

    @cached_property
    def longest(self) -> int:
        return max(len(e) for e in self.epochs)

    def peers(self, w: int) -> list[int]:
        """The warps of ``w``'s block (``w`` included)."""
        return [q for q in range(self.warps) if self.blocks[q] == self.blocks[w]]

    # -- the same view as ``Streams`` gives of symbolic streams: here every value is a constant
    symbolic = False

    @property
    def max_epoch(self) -> int:
        return max([e for eps in self.epochs for e in eps] + [0])

    def vars(self) -> list[Var]:
        return []

    def size(self, A: Any, s: State, w: int) -> Any:
        return A.const(self.count(w))

    def exists(self, A: Any, s: State, w: int, k: int) -> Any:
        return A.true

    def epoch(self, A: Any, s: State, w: int, k: int) -> Any:
        return A.const(self.epochs[w][k])


class ReorderUnit(TransitionSystem):
    """Channels, distributing unit and reordering unit in front of L1 (or, with ``unit=False``, nothing).

    ``work`` is one kernel's :class:`Workload` (constants) or symbolic
    :class:`~warpcheck.models.reorder.streams.Streams` (free parameters): the
    step reads both through the same few accessors.
    """

    port_class = L1Port  # the L1 model (a mutant may swap it)

    def __init__(self, work: Workload | Streams, channel: int = 2, order: str = "round", unit: bool = True,
                 l1: L1Spec | None = None, channel_lemmas: bool = False) -> None:
        if channel < 1:
            raise ConfigError(f"channel depth is {channel!r}; a channel holds at least one request")
        if order not in ORDERS:
            raise ConfigError(f"unknown order {order!r}; known orders: {', '.join(ORDERS)}")
        self.work, self.channel, self.order, self.unit = work, channel, order, unit
        self.channel_lemmas = channel_lemmas  # state (and so prove) that no delivery is ever dropped
        if l1 is None:
            self.l1 = None
        elif isinstance(work, Streams):
            if l1.line_bytes != work.line_bytes:
                raise ConfigError(f"the L1's lines are {l1.line_bytes} bytes, the streams' {work.line_bytes}")
            self.l1 = self.port_class(l1, universe=work.universe())
        else:
            if [len(a) for a in work.accesses] != [len(e) for e in work.epochs]:
                raise ConfigError("an L1 needs the kind and lines of every request of the workload")
            self.l1 = self.port_class(l1, [a for warp in work.accesses for a in warp])
        self.paper = None
        if order == "paper" and isinstance(work, Streams):
            if not work.addresses:
                raise ConfigError("the paper's order needs each request's instruction address: give the streams "
                                  "addresses")
        elif order == "paper":
            if [len(p) for p in work.pcs] != [len(e) for e in work.epochs]:
                raise ConfigError("the paper's order needs the instruction address of every request of the workload")
            self.paper = paper_keys(work.pcs)
        self.name = f"reorder-{'unit' if unit else 'none'}-{order}-W{work.warps}-C{channel}"
        self._earlier_cache: dict[tuple[int, int], list[str]] = {}

    # -- variables -----------------------------------------------------------
    def key(self, A: Any, s: State, w: int, k: int) -> Any:
        """The unit's key of request (w, k): lower goes first; ties go to the lower warp."""
        if self.order == "round":
            return A.const(k)
        if self.paper is not None:
            return A.const(self.paper[w][k])
        if self.order == "paper":
            return self._stream_paper_key(A, s, w, k)
        span = self.work.longest + 1
        return A.add(A.select([A.const(e * span) for e in range(self.work.max_epoch + 1)],
                              self.work.epoch(A, s, w, k)), A.const(k))

    def _stream_paper_key(self, A: Any, s: State, w: int, k: int) -> Any:
        """Request (w, k)'s key under the paper's rule over streams: iteration x addresses + address, a warp's
        iteration growing each time an address is not above its previous one."""
        assert isinstance(self.work, Streams)
        pcs = [self.work.pc(A, s, w, j) for j in range(k + 1)]
        it = A.count([A.le(pcs[j], pcs[j - 1]) for j in range(1, k + 1)])
        span = self.work.addresses
        return A.add(A.select([A.const(i * span) for i in range(k + 1)], it), pcs[k])

    @property
    def max_key(self) -> int:
        if self.order == "paper" and isinstance(self.work, Streams):
            return max(1, self.work.length * self.work.addresses - 1)
        if self.paper is not None:
            return max([1] + [x for keys in self.paper for x in keys])
        span = self.work.longest + 1
        return max(1, self.work.longest - 1 + (0 if self.order == "round" else self.work.max_epoch * span))

    def param_vars(self) -> list[Var]:
        return self.work.vars()

    def state_vars(self) -> list[Var]:
        W, n = self.work.warps, self.work.longest
        vs = self.work.vars() + [Var(f"st.{w}.{k}", "int", WAITING, SENT) for w in range(W)
                                 for k in range(self.work.count(w))]
        if self.unit:
            for w in range(W):
                vs += [Var(f"ch.{w}.{c}", "int", -1, n - 1) for c in range(self.channel)]
                vs += [Var(f"sp.{w}", "int", 0, self.channel - 1), Var(f"sent.{w}", "int", 0, self.work.count(w))]
        vs += [Var("o_valid", "bool"), Var("o_warp", "int", -1, W - 1), Var("o_idx", "int", -1, n - 1),
               Var("o_key", "int", -1, self.max_key), Var("o_epoch", "int", -1, self.work.max_epoch),
               Var("seq", "int", 0, self.work.total), Var("o_seq", "int", -1, max(self.work.total - 1, 0))]
        if isinstance(self.work, Streams):
            vs.append(Var("o_line", "int", -1, self.work.lines - 1))
        return vs + self._l1_vars()

    def _l1_vars(self) -> list[Var]:
        if self.l1 is None:
            return []
        loads = sum(len(lines) for kind, lines in self.l1.requests if kind == "L")
        if self.work.symbolic:
            loads = self.work.total
        lines = len(self.l1.line_id)
        return [Var(n, "int", -1, max(lines - 1, 0)) for n in self.l1.names()] + [
            Var("o_hits", "int", 0, self.l1.widest), Var("o_misses", "int", 0, self.l1.widest),
            Var("misses", "int", 0, loads)]

    def input_vars(self) -> list[Var]:
        return [Var("a_warp", "int", -1, self.work.warps - 1), Var("a_idx", "int", 0, self.work.longest - 1)]

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        s: State = {v.name: A.const(v.lo) for v in self.state_vars()}
        s.update({k: A.const(-1) for k in s if k.startswith(("ch.", "l1."))})
        s.update({v.name: p[v.name] for v in self.work.vars()})
        s["o_valid"] = A.false
        return s

    # -- the LD/ST side ----------------------------------------------------------
    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """The LD/ST side delivers a request still waiting, within the channel depth, past its barrier."""
        options = [A.eq(i["a_warp"], A.const(-1))]
        for w in range(self.work.warps):
            for k in range(self.work.count(w)):
                chosen = A.and_(A.eq(i["a_warp"], A.const(w)), A.eq(i["a_idx"], A.const(k)))
                options.append(A.and_(chosen, self.deliverable(A, s, w, k)))
        return A.or_(*options)

    def deliverable(self, A: Any, s: State, w: int, k: int) -> Any:
        """Request (w, k) may be delivered now: waiting, within the depth, its barrier passed."""
        conds = [self.work.exists(A, s, w, k), A.eq(s[f"st.{w}.{k}"], A.const(WAITING))]
        conds += [A.eq(s[f"st.{w}.{j}"], A.const(SENT)) for j in range(k - self.backlog() + 1)]
        return A.and_(*conds, self.barrier_passed(A, s, w, k))

    def backlog(self) -> int:
        """LD/ST back-pressure: requests a warp may have from its oldest unsent one to its newest (the depth)."""
        return self.channel

    def barrier_passed(self, A: Any, s: State, w: int, k: int) -> Any:
        """Every request of an epoch below (w, k)'s, of every warp of ``w``'s block, has been sent to L1."""
        if not self.work.symbolic:
            return A.all_([A.eq(s[name], A.const(SENT)) for name in self._earlier(w, self.work.epochs[w][k])])
        mine = self.work.epoch(A, s, w, k)
        return A.all_([A.implies(A.and_(self.work.exists(A, s, q, j), A.lt(self.work.epoch(A, s, q, j), mine)),
                                 A.eq(s[f"st.{q}.{j}"], A.const(SENT)))
                       for q in self.work.peers(w) for j in range(self.work.count(q))])

    def _earlier(self, w: int, epoch: int) -> list[str]:
        """The status fields of the requests of ``w``'s block before its barrier ``epoch`` (cached)."""
        key = (self.work.blocks[w], epoch)
        if key not in self._earlier_cache:
            self._earlier_cache[key] = [f"st.{q}.{j}" for q in self.work.peers(w)
                                        for j in range(self.work.count(q)) if self.work.epochs[q][j] < epoch]
        return self._earlier_cache[key]

    # -- one cycle -----------------------------------------------------------------
    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        return self._step_unit(A, s, i) if self.unit else self._step_direct(A, s, i)

    def _step_direct(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        """Without the unit: the delivered request goes to L1 in the same cycle."""
        nxt = dict(s)
        for w in range(self.work.warps):
            for k in range(self.work.count(w)):
                hit = A.and_(A.eq(i["a_warp"], A.const(w)), A.eq(i["a_idx"], A.const(k)))
                nxt[f"st.{w}.{k}"] = A.ite(hit, A.const(SENT), s[f"st.{w}.{k}"])
        valid = A.not_(A.eq(i["a_warp"], A.const(-1)))
        key = self._key_select(A, i["a_warp"], i["a_idx"], s)
        return self._output(A, nxt, valid, i["a_warp"], i["a_idx"], key)

    def _key_select(self, A: Any, w: Any, k: Any, s: State | None = None) -> Any:
        rows = [A.select([self.key(A, s, q, j) for j in range(self.work.count(q))] or [A.const(-1)], k)
                for q in range(self.work.warps)]
        return A.select(rows, w)

    def _output(self, A: Any, s: State, valid: Any, w: Any, k: Any, key: Any) -> State:
        s["o_valid"] = valid
        s["o_warp"] = A.ite(valid, w, A.const(-1))
        s["o_idx"] = A.ite(valid, k, A.const(-1))
        s["o_key"] = A.ite(valid, key, A.const(-1))
        s["o_epoch"] = A.ite(valid, self._stream_select(A, s, w, k, self.work.epoch), A.const(-1))
        s["o_seq"] = A.ite(valid, s["seq"], A.const(-1))  # ghost: how many requests went to L1 before this one
        s["seq"] = A.min(A.add(s["seq"], A.ite(valid, A.const(1), A.const(0))), A.const(self.work.total))
        if isinstance(self.work, Streams):
            s["o_line"] = A.ite(valid, self._stream_select(A, s, w, k, self.work.line), A.const(-1))
        if self.l1 is not None and isinstance(self.work, Streams):
            line = self._stream_select(A, s, w, k, self.work.line)
            is_load = self._stream_select(A, s, w, k, self.work.is_load)
            ways, hits, misses = self.l1.access_ids(A, s, valid, is_load, [line])
            s.update(ways)
            s["o_hits"], s["o_misses"] = hits, misses
            s["misses"] = A.add(s["misses"], misses)
        elif self.l1 is not None:
            ways, hits, misses = self.l1.access(A, s, valid, self._request_number(A, w, k))
            s.update(ways)
            s["o_hits"], s["o_misses"] = hits, misses
            s["misses"] = A.add(s["misses"], misses)
        return s

    def _stream_select(self, A: Any, s: State, w: Any, k: Any, field: Any) -> Any:
        """A stream field of request (w, k), for symbolic ``w`` and ``k`` (-1 for a warp without requests)."""
        rows = [A.select([field(A, s, q, j) for j in range(self.work.count(q))] or [A.const(-1)], k)
                for q in range(self.work.warps)]
        return A.select(rows, w)

    def _request_number(self, A: Any, w: Any, k: Any) -> Any:
        """Request (w, k) numbered warp after warp, as the L1 port numbers them."""
        rows, first = [], 0
        for q in range(self.work.warps):
            rows.append(_table(A, [first + j for j in range(self.work.count(q))], k))
            first += self.work.count(q)
        return A.select(rows, w)

    def expected_warp(self, A: Any, s: State) -> Any:
        """The channel the reordering unit waits at: the lowest key among warps with requests left."""
        W = self.work.warps
        left = [A.lt(s[f"sent.{w}"], self.work.size(A, s, w)) for w in range(W)]
        keys = [self._warp_key(A, s, w) for w in range(W)]
        return self.lowest(A, left, keys)

    def lowest(self, A: Any, left: Sequence[Any], keys: Sequence[Any]) -> Any:
        """The warp with requests left and the lowest key; the lower warp on a tie."""
        return A.argmin_true(list(left), list(keys))

    def _warp_key(self, A: Any, s: State, w: int) -> Any:
        return A.select([self.key(A, s, w, k) for k in range(self.work.count(w))] or [A.const(-1)], s[f"sent.{w}"])

    def search(self, A: Any, slots: Sequence[Any], sp: Any, expected: Any) -> tuple[Any, Any, Any]:
        """Look under the search pointer: (found, the request there, its slot)."""
        there = A.select(list(slots), sp)
        return A.eq(there, expected), there, sp

    def _step_unit(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        nxt, star = dict(s), self.expected_warp(A, s)
        valid, warp, idx, key = A.false, A.const(-1), A.const(-1), A.const(-1)
        for w in range(self.work.warps):
            sent_now, there = self._channel(A, s, i, nxt, w, A.eq(star, A.const(w)))
            valid = A.or_(valid, sent_now)
            warp = A.ite(sent_now, A.const(w), warp)
            idx = A.ite(sent_now, there, idx)
            key = A.ite(sent_now, self._warp_key(A, s, w), key)
        return self._output(A, nxt, valid, warp, idx, key)

    def _channel(self, A: Any, s: State, i: Mapping[str, Any], nxt: State, w: int, waited: Any) -> tuple[Any, Any]:
        """Channel ``w`` for one cycle: the unit's search, then the distributing unit's append."""
        slots = [s[f"ch.{w}.{c}"] for c in range(self.channel)]
        sp, sent = s[f"sp.{w}"], s[f"sent.{w}"]
        found, there, slot = self.search(A, slots, sp, sent)
        go = A.and_(waited, found, A.lt(sent, self.work.size(A, s, w)), A.ne(there, A.const(-1)))
        kept = self.free(A, slots, go, slot)
        used = A.count([A.ne(x, A.const(-1)) for x in slots])
        nxt[f"sp.{w}"] = A.ite(go, self.home(A, sp), A.ite(waited, self.advance(A, sp, used), sp))
        nxt[f"sent.{w}"] = A.ite(go, A.add(sent, A.const(1)), sent)
        self._deliver(A, s, i, nxt, w, slots, kept, go, there)
        return go, there

    def free(self, A: Any, slots: Sequence[Any], go: Any, slot: Any) -> list[Any]:
        """The slots once a send from ``slot`` (if ``go``) frees it: the entries behind it move up one."""
        n = self.channel
        return [A.ite(A.and_(go, A.le(slot, A.const(c))), slots[c + 1] if c + 1 < n else A.const(-1), slots[c])
                for c in range(n)]

    def home(self, A: Any, sp: Any) -> Any:
        """Where the search pointer goes after a send: the channel's head."""
        return A.const(0)

    def advance(self, A: Any, sp: Any, used: Any) -> Any:
        """The search pointer's next slot when the one under it is not the expected request (wraps to the head)."""
        return A.ite(A.lt(A.add(sp, A.const(1)), used), A.add(sp, A.const(1)), A.const(0))

    def routed(self, A: Any, i: Mapping[str, Any], w: int) -> Any:
        """The distributing unit puts this cycle's delivery into channel ``w``: it is warp ``w``'s."""
        return A.eq(i["a_warp"], A.const(w))

    def tail(self, A: Any, slots: Sequence[Any], kept: Sequence[Any]) -> Any:
        """The slot a delivery lands in: the first free one once this cycle's send has freed its slot."""
        return A.count([A.ne(x, A.const(-1)) for x in kept])

    def _deliver(self, A: Any, s: State, i: Mapping[str, Any], nxt: State, w: int, slots: list, kept: list,
                 go: Any, there: Any) -> None:
        """Statuses of warp ``w``'s requests, and the distributing unit's append at the channel's tail."""
        arrives, routed = A.eq(i["a_warp"], A.const(w)), self.routed(A, i, w)
        tail = self.tail(A, slots, kept)
        for c in range(self.channel):
            nxt[f"ch.{w}.{c}"] = A.ite(A.and_(routed, A.eq(tail, A.const(c))), i["a_idx"], kept[c])
        for k in range(self.work.count(w)):
            old = s[f"st.{w}.{k}"]
            queued = A.ite(A.and_(arrives, A.eq(i["a_idx"], A.const(k))), A.const(QUEUED), old)
            nxt[f"st.{w}.{k}"] = A.ite(A.and_(go, A.eq(there, A.const(k))), A.const(SENT), queued)

    # -- lemmas the model states about itself --------------------------------------------
    def _channel_lemmas(self, A: Any, s: State, w: int) -> dict[str, Any]:
        """Channel w is packed from its head, holds distinct queued requests, all within the depth."""
        slots = A.count([A.ne(s[f"ch.{w}.{c}"], A.const(-1)) for c in range(self.channel)])
        queued = A.count([A.eq(s[f"st.{w}.{k}"], A.const(QUEUED)) for k in range(self.work.count(w))])
        out: dict[str, Any] = {f"channel_holds_queued.{w}": A.eq(slots, queued)}
        ch = [s[f"ch.{w}.{c}"] for c in range(self.channel)]
        status = [s[f"st.{w}.{k}"] for k in range(self.work.count(w))] or [A.const(WAITING)]
        for c in range(self.channel):
            used = A.ne(ch[c], A.const(-1))
            if c + 1 < self.channel:
                out[f"packed.{w}.{c}"] = A.implies(A.not_(used), A.eq(ch[c + 1], A.const(-1)))
            out[f"slot_queued.{w}.{c}"] = A.implies(used, A.and_(
                A.lt(ch[c], A.const(self.work.count(w))), A.eq(A.select(status, ch[c]), A.const(QUEUED)),
                *[A.ne(ch[c], ch[d]) for d in range(c + 1, self.channel)]))
        for k in range(self.work.count(w)):
            out[f"within_depth.{w}.{k}"] = A.implies(A.eq(status[k], A.const(QUEUED)),
                                                     A.lt(A.const(k), A.add(s[f"sent.{w}"], A.const(self.channel))))
        return out

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        if not self.unit:
            return {}
        out: dict[str, Any] = {}
        for w in range(self.work.warps):
            if self.channel_lemmas:
                out.update(self._channel_lemmas(A, s, w))
            if self.work.symbolic:
                out[f"sent_within.{w}"] = A.le(s[f"sent.{w}"], self.work.size(A, s, w))
                out.update({f"absent_waits.{w}.{k}": A.implies(A.not_(self.work.exists(A, s, w, k)),
                                                                A.eq(s[f"st.{w}.{k}"], A.const(WAITING)))
                            for k in range(self.work.count(w))})
            for k in range(self.work.count(w)):
                out[f"sent_prefix.{w}.{k}"] = A.eq(A.eq(s[f"st.{w}.{k}"], A.const(SENT)),
                                                   A.lt(A.const(k), s[f"sent.{w}"]))
        return out


def _table(A: Any, values: Sequence[int], index: Any) -> Any:
    """``values[index]`` for a possibly symbolic index; -1 for an empty table."""
    return A.select([A.const(v) for v in values] or [A.const(-1)], index)
