"""The SWaS front end for every number of warps: the warps a sort, each warp's state a function of it.

The same front end as :class:`~warpcheck.models.frontend.design.FrontEnd` with
``design = "swas"`` (Crouzet et al., Sec. V), written over an algebra whose
warps are a sort (``encodings/warp_sort.py``): ``A.before`` orders them,
``A.forall`` ranges over them, ``A.least`` and ``A.top`` are the first and the
last.  Nothing here is a loop over the warps, so one formula covers every W.

- Per-warp state (:data:`WARP_FIELDS`): functions from the warps into
  integers or booleans (``n``, ``b{j}.*``, ``sb``, ``miss``, ``refetch``,
  ``pend``, ``done``, ``win``).  Shared state: the fetch pipe (each slot's
  warp a warp constant), the scheduler's pointer (a warp), the unpipelined
  units, the issue record.
- The issue choice is an *action parameter*: ``some`` (a warp issues) and the
  warp ``g``, constrained by :meth:`SwasEveryWarp.choice` (g eligible, and the
  policy's guard: no eligible warp comes before g in its order), and ``succ``,
  g's successor in ring order (LRR's next pointer).  No warp-to-warp function.
- The program is the solver's choice, as in the per-W proofs: the warps'
  first instructions are per-warp parameters, the fetched instruction an input.

The encoding check (``verify/frontend/every_warp.py``) proves, for W = 1..6,
that this step at W is the kit's step.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES

NOP_CLS, BRANCH_CLS, EXIT_CLS = CLASS_INDEX["nop"], CLASS_INDEX["branch"], CLASS_INDEX["exit"]
INSTR = ("cls", "dep", "tk")
Fn = Callable[[Any], Any]


@dataclass
class QState:
    """A state over the warp sort: per-warp functions (``warp``) and shared values (``shared``)."""

    warp: dict[str, Fn] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Action:
    """The choice of one cycle: whether a warp issues, which one, and its successor in ring order."""

    some: Any
    g: Any
    succ: Any


def scanned_before(A: Any, start: Any, x: Any, y: Any) -> Any:
    """Warp x is scanned before warp y in the ring scan that starts at ``start``."""
    le = lambda a, b: A.not_(A.before(b, a))
    return A.or_(A.and_(le(start, x), A.or_(A.before(x, y), A.before(y, start))),
                 A.and_(A.before(x, start), A.before(x, y), A.before(y, start)))


def ring_successor(A: Any, g: Any, succ: Any) -> Any:
    """``succ`` follows ``g`` in ring order (the last warp is followed by the first)."""
    nothing_between = A.forall(lambda x: A.not_(A.and_(A.before(g, x), A.before(x, succ))))
    return A.ite(A.eq(g, A.top), A.eq(succ, A.least), A.and_(A.before(g, succ), nothing_between))


@dataclass(frozen=True)
class SortPolicy:
    """A pointer policy over the warp sort: the guard of its pick ``g`` and its next pointer."""

    name: str
    first: Callable[[Any, Any, Fn, Any], Any]  # (A, ptr, eligible, g): g is the policy's pick (g eligible)
    next_ptr: Callable[[Any, Any, Action], Any]  # (A, ptr, action): the pointer after issuing a.g
    sees: Callable[[Any, Any], Any] | None = None  # (A, w): whether the policy sees warp w at all (a mutant's mask)


def _first_from_ptr(A: Any, ptr: Any, elig: Fn, g: Any) -> Any:
    return A.forall(lambda x: A.implies(scanned_before(A, ptr, x, g), A.not_(elig(x))))


def _greedy_then_oldest(A: Any, ptr: Any, elig: Fn, g: Any) -> Any:
    oldest = A.forall(lambda x: A.implies(A.before(x, g), A.not_(elig(x))))
    return A.ite(elig(ptr), A.eq(g, ptr), oldest)


SORT_POLICIES: dict[str, SortPolicy] = {p.name: p for p in [
    SortPolicy("gtlrr", _first_from_ptr, lambda A, ptr, a: a.g),
    SortPolicy("gtlo", _greedy_then_oldest, lambda A, ptr, a: a.g),
    SortPolicy("lrr", _first_from_ptr, lambda A, ptr, a: a.succ),
]}


def warp_fields(config: SMConfig) -> dict[str, tuple[str, int, int]]:
    """The per-warp fields of the design: name -> (kind, lowest, highest)."""
    win = max(1 + config.miss_latency + config.pipe, 1 + config.pipe) - 1
    out = {"n": ("int", 0, config.ibuffer)}
    for j in range(config.ibuffer):
        out.update({f"b{j}.cls": ("int", 0, len(CLASSES) - 1), f"b{j}.dep": ("bool", 0, 1), f"b{j}.tk": ("bool", 0, 1)})
    out.update({"sb": ("int", 0, config.max_latency - 1), "miss": ("int", 0, config.miss_latency),
                "refetch": ("bool", 0, 1), "pend": ("bool", 0, 1), "done": ("bool", 0, 1), "win": ("int", 0, win)})
    return out


class SwasEveryWarp:
    """SWaS with one policy, for every W: init, the choice's guard, the step, the per-warp lemmas."""

    def __init__(self, config: SMConfig, policy: SortPolicy | None = None) -> None:
        self.c, self.B, self.P = config, config.ibuffer, config.pipe - 1
        self.policy = policy or SORT_POLICIES[config.issue_policy]
        self.lat = [config.latency[c] for c in CLASSES]
        self.miss_window, self.branch_window = 1 + config.miss_latency + config.pipe, 1 + config.pipe
        self.fields = warp_fields(config)

    # -- shared helpers ----------------------------------------------------------
    @staticmethod
    def nop(A: Any) -> dict[str, Any]:
        return {"cls": A.const(NOP_CLS), "dep": A.false, "tk": A.false}

    @staticmethod
    def flushes(A: Any, e: Mapping[str, Any]) -> Any:
        return A.or_(e["tk"], A.eq(e["cls"], A.const(EXIT_CLS)))

    def entry(self, s: QState, j: int, w: Any) -> dict[str, Any]:
        return {f: s.warp[f"b{j}.{f}"](w) for f in INSTR}

    def slot(self, s: QState, k: int) -> dict[str, Any]:
        return {"v": s.shared[f"p{k}.v"], "w": s.shared[f"p{k}.w"], **{f: s.shared[f"p{k}.{f}"] for f in INSTR}}

    def pick(self, A: Any, c: Any, a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
        return {f: A.ite(c, a[f], b[f]) for f in a}

    # -- initial state -------------------------------------------------------
    def init(self, A: Any, params: Mapping[str, Fn]) -> QState:
        """Warm start: every ibuffer full with the warp's first instructions (``params['b{j}.*']``)."""
        def entry(j: int, w: Any) -> dict[str, Any]:
            e = {f: params[f"b{j}.{f}"](w) for f in INSTR}
            return {**e, "tk": A.and_(e["tk"], A.eq(e["cls"], A.const(BRANCH_CLS)))}
        s = QState()
        s.warp["n"] = lambda w: A.const(self.B)
        for j in range(self.B):
            for f in INSTR:
                s.warp[f"b{j}.{f}"] = (lambda j, f: lambda w: entry(j, w)[f])(j, f)
        s.warp.update({"sb": lambda w: A.const(0), "miss": lambda w: A.const(0), "refetch": lambda w: A.false,
                       "pend": lambda w: A.any_([self.flushes(A, entry(j, w)) for j in range(self.B)]),
                       "done": lambda w: A.false, "win": lambda w: A.const(0)})
        for k in range(self.P):
            s.shared.update({f"p{k}.v": A.false, f"p{k}.w": A.least, **{f"p{k}.{f}": v for f, v in self.nop(A).items()}})
        s.shared["ptr"] = A.least
        s.shared.update({f"u.{c}": A.const(0) for c in self.c.unpipelined})
        s.shared.update({"o.some": A.false, "o.w": A.least, **{f"o.{f}": v for f, v in self.nop(A).items()}})
        return s

    # -- the choice ----------------------------------------------------------------
    def eligible(self, A: Any, s: QState, w: Any) -> Any:
        head = self.entry(s, 0, w)
        ok = [A.not_(s.warp["done"](w)), A.lt(A.const(0), s.warp["n"](w)),
              A.or_(A.not_(head["dep"]), A.eq(s.warp["sb"](w), A.const(0))), A.eq(s.warp["miss"](w), A.const(0))]
        ok += [A.or_(A.ne(head["cls"], A.const(CLASS_INDEX[c])), A.eq(s.shared[f"u.{c}"], A.const(0)))
               for c in self.c.unpipelined]
        return A.and_(*ok)

    def choice(self, A: Any, s: QState, a: Action) -> Any:
        """The guard of the action: the policy's pick when a warp is eligible, nobody otherwise."""
        sees = self.policy.sees
        elig = lambda w: A.and_(self.eligible(A, s, w), *([sees(A, w)] if sees else []))
        picked = A.and_(elig(a.g), self.policy.first(A, s.shared["ptr"], elig, a.g))
        return A.and_(A.ite(a.some, picked, A.forall(lambda x: A.not_(elig(x)))), ring_successor(A, a.g, a.succ))

    # -- one clock cycle ---------------------------------------------------------
    def step(self, A: Any, s: QState, i: Mapping[str, Any], a: Action) -> QState:
        """The next state under action ``a`` (which :meth:`choice` constrains) and input ``i``."""
        me = lambda w: A.and_(a.some, A.eq(a.g, w))
        head_g = self.entry(s, 0, a.g)
        issued = self.pick(A, a.some, head_g, self.nop(A))
        flush = lambda w: A.and_(me(w), self.flushes(A, self.entry(s, 0, w)))
        last = A.top  # the kit reads the last warp's flags when nobody fetches (A.select at -1)
        forced = A.ite(a.some, A.or_(s.warp["refetch"](a.g), s.warp["pend"](a.g)),
                       A.or_(s.warp["refetch"](last), s.warp["pend"](last)))
        hit = A.or_(i["f.hit"], forced)
        fetched = {f: i[f"f.{f}"] for f in INSTR}
        new = {"v": a.some, "w": A.ite(a.some, a.g, A.least), **self.pick(A, hit, fetched, self.nop(A))}
        slots = [self._flush_slot(A, x, flush) for x in [new] + [self.slot(s, k) for k in range(self.P)]]
        out = QState()
        for k, x in enumerate(slots[:-1]):
            out.shared.update({f"p{k}.{f}": x[f] for f in x})
        arriving = slots[-1]
        for name, fn in self._warps(A, s, i, a, me, flush, hit, arriving).items():
            out.warp[name] = fn
        out.shared["ptr"] = A.ite(a.some, self.policy.next_ptr(A, s.shared["ptr"], a), s.shared["ptr"])
        for c in self.c.unpipelined:
            busy = A.and_(a.some, A.eq(issued["cls"], A.const(CLASS_INDEX[c])))
            out.shared[f"u.{c}"] = A.ite(busy, A.const(self.c.latency[c] - 1), A.dec_sat(s.shared[f"u.{c}"]))
        out.shared.update({"o.some": a.some, "o.w": a.g, **{f"o.{f}": v for f, v in issued.items()}})
        return out

    def _flush_slot(self, A: Any, slot: dict[str, Any], flush: Fn) -> dict[str, Any]:
        return {**slot, **self.pick(A, flush(slot["w"]), self.nop(A), {f: slot[f] for f in INSTR})}

    def _warps(self, A: Any, s: QState, i: Mapping[str, Any], a: Action, me: Fn, flush: Fn, hit: Any,
               arriving: dict[str, Any]) -> dict[str, Fn]:
        """Each per-warp field's next value, as a function of the warp."""
        W, fetched = s.warp, {f: i[f"f.{f}"] for f in INSTR}
        popped_n = lambda w: A.ite(me(w), A.sub(W["n"](w), A.const(1)), W["n"](w))
        mine = lambda w: A.and_(arriving["v"], A.eq(arriving["w"], w))

        def entry(j: int, w: Any) -> dict[str, Any]:
            later = self.entry(s, j + 1, w) if j + 1 < self.B else self.nop(A)
            kept = self.pick(A, flush(w), self.nop(A), self.pick(A, me(w), later, self.entry(s, j, w)))
            new = {f: arriving[f] for f in INSTR}
            return self.pick(A, A.and_(mine(w), A.eq(popped_n(w), A.const(j))), new, kept)

        miss = lambda w: A.and_(me(w), A.not_(hit))
        correct = lambda w: A.and_(me(w), hit, A.not_(W["pend"](w)), A.not_(flush(w)))
        lat = lambda w: A.select([A.const(x) for x in self.lat], self.entry(s, 0, w)["cls"])
        win = lambda w: A.max(A.dec_sat(W["win"](w)), A.ite(miss(w), A.const(self.miss_window - 1), A.const(0)))
        out: dict[str, Fn] = {
            "n": lambda w: A.min(A.add(popped_n(w), A.ite(mine(w), A.const(1), A.const(0))), A.const(self.B)),
            "pend": lambda w: A.ite(flush(w), A.false,
                                    A.or_(W["pend"](w), A.and_(correct(w), self.flushes(A, fetched)))),
            "sb": lambda w: A.ite(me(w), A.max(A.dec_sat(W["sb"](w)), A.sub(lat(w), A.const(1))),
                                  A.dec_sat(W["sb"](w))),
            "miss": lambda w: A.ite(miss(w), A.const(self.c.miss_latency), A.dec_sat(W["miss"](w))),
            "refetch": lambda w: A.ite(miss(w), A.true, A.ite(me(w), A.false, W["refetch"](w))),
            "done": lambda w: A.or_(W["done"](w), A.and_(flush(w), A.eq(self.entry(s, 0, w)["cls"],
                                                                            A.const(EXIT_CLS)))),
            "win": lambda w: A.max(win(w), A.ite(flush(w), A.const(self.branch_window - 1), A.const(0))),
        }
        for j in range(self.B):
            for f in INSTR:
                out[f"b{j}.{f}"] = (lambda j, f: lambda w: entry(j, w)[f])(j, f)
        return out

    # -- lemmas, each for every warp w -----------------------------------------------
    def occupancy(self, A: Any, s: QState, w: Any) -> Any:
        inflight = A.count([A.and_(s.shared[f"p{k}.v"], A.eq(s.shared[f"p{k}.w"], w)) for k in range(self.P)])
        return A.add(s.warp["n"](w), inflight)

    def lemmas(self, A: Any, s: QState, w: Any) -> dict[str, Any]:
        """Facts of warp w (the per-W proofs' Houdini lemmas, over a warp variable)."""
        buf = [A.and_(A.lt(A.const(j), s.warp["n"](w)), self.flushes(A, self.entry(s, j, w))) for j in range(self.B)]
        pipe = [A.and_(x["v"], A.eq(x["w"], w), self.flushes(A, x)) for x in (self.slot(s, k) for k in range(self.P))]
        out = {"occupancy": A.eq(self.occupancy(A, s, w), A.const(self.B)),
               "pending": A.eq(s.warp["pend"](w), A.any_(buf + pipe)),
               "empty-slots-nop": A.all_([A.implies(A.le(s.warp["n"](w), A.const(j)),
                                                    A.eq(s.warp[f"b{j}.cls"](w), A.const(NOP_CLS)))
                                          for j in range(self.B)])}
        for name, (kind, lo, hi) in self.fields.items():
            if kind == "int":
                out[f"range:{name}"] = A.and_(A.le(A.const(lo), s.warp[name](w)), A.le(s.warp[name](w), A.const(hi)))
        return out

    def shared_lemmas(self, A: Any, s: QState) -> dict[str, Any]:
        """Ranges of the shared integers."""
        out = {f"range:p{k}.cls": A.and_(A.le(A.const(0), s.shared[f"p{k}.cls"]),
                                         A.lt(s.shared[f"p{k}.cls"], A.const(len(CLASSES)))) for k in range(self.P)}
        out.update({f"range:u.{c}": A.and_(A.le(A.const(0), s.shared[f"u.{c}"]),
                                           A.lt(s.shared[f"u.{c}"], A.const(self.c.latency[c])))
                    for c in self.c.unpipelined})
        return out
