"""The static analysis machine of SWaS for every number of warps: the reference of ``exact``, over a warp sort.

Written again from the paper (Crouzet et al., Sec. IV-VI) and the README's
cycle table, importing nothing of the design: the machine a timing analysis
of SWaS would use.  Each warp holds the next ``ibuffer`` items it will issue
(its correct-path instructions, or bubbles where a miss or a taken branch
leaves one), its suspension after a miss, its scoreboard, whether it is on a
wrong path, whether it exited; no fetch pipe and no buffer occupancy.

The warps are a sort (``A.before`` orders them, ``A.forall`` ranges over them,
see ``encodings/warp_sort.py``); each warp's state is a function of it.  The
policy is a priority list: the warp issued is the eligible one that no other
eligible warp outranks (``h``, an action parameter), where the ranks follow
the papers: GTLRR the last issued warp first, then round robin after it;
GTLO the last issued warp first, then the oldest (lowest numbered); LRR round
robin after the last issued warp.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES

NOP, BRANCH, EXIT = CLASS_INDEX["nop"], CLASS_INDEX["branch"], CLASS_INDEX["exit"]
ITEM = ("cls", "dep", "tk")
Fn = Callable[[Any], Any]


@dataclass
class SortState:
    """The machine's state: per-warp functions and shared values."""

    warp: dict[str, Fn] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)


def _up_to(A: Any, a: Any, b: Any) -> Any:
    return A.not_(A.before(b, a))


def turn_after(A: Any, last: Any, x: Any, h: Any) -> Any:
    """Round robin after ``last``: warp x's turn comes before warp h's (ranks x - last - 1 mod W)."""
    x_after, h_after = A.before(last, x), A.before(last, h)
    return A.or_(A.and_(x_after, A.or_(A.before(x, h), A.not_(h_after))),
                 A.and_(A.not_(x_after), A.not_(h_after), A.before(x, h)))


def _greedy(then: Callable[[Any, Any, Any, Any], Any]) -> Callable[[Any, Any, Any, Any], Any]:
    """The last issued warp outranks every other; among the others ``then`` decides."""
    def outranks(A: Any, last: Any, x: Any, h: Any) -> Any:
        return A.or_(A.and_(A.eq(x, last), A.ne(h, last)),
                     A.and_(A.ne(x, last), A.ne(h, last), then(A, last, x, h)))
    return outranks


@dataclass(frozen=True)
class RankPolicy:
    """A policy as a priority list: whether warp x outranks warp h, and the first ``last``."""

    name: str
    outranks: Callable[[Any, Any, Any, Any], Any]  # (A, last, x, h)
    starts_last: bool  # before any issue ``last`` is the last warp (LRR: warp 0 comes first), else the first


RANK_POLICIES: dict[str, RankPolicy] = {p.name: p for p in [
    RankPolicy("gtlrr", _greedy(turn_after), False),
    RankPolicy("gtlo", _greedy(lambda A, last, x, h: A.before(x, h)), False),
    RankPolicy("lrr", turn_after, True),
]}


class AnalysisEveryWarp:
    """The analysis machine of SWaS for every W; its record: ``o.some``, ``o.w``, ``o.cls/dep/tk``."""

    def __init__(self, config: SMConfig, policy: RankPolicy | None = None) -> None:
        self.c, self.B = config, config.ibuffer
        self.policy = policy or RANK_POLICIES[config.issue_policy]
        self.lat = [config.latency[c] for c in CLASSES]

    @staticmethod
    def bubble(A: Any) -> dict[str, Any]:
        return {"cls": A.const(NOP), "dep": A.false, "tk": A.false}

    @staticmethod
    def ends_path(A: Any, e: Mapping[str, Any]) -> Any:
        return A.or_(e["tk"], A.eq(e["cls"], A.const(EXIT)))

    def item(self, r: SortState, j: int, w: Any) -> dict[str, Any]:
        return {f: r.warp[f"q{j}.{f}"](w) for f in ITEM}

    def init(self, A: Any, program: Mapping[str, Fn]) -> SortState:
        """Each warp's first ``ibuffer`` program instructions (``program['b{j}.*']``; only branches are taken)."""
        def first(j: int, w: Any) -> dict[str, Any]:
            e = {f: program[f"b{j}.{f}"](w) for f in ITEM}
            return {**e, "tk": A.and_(e["tk"], A.eq(e["cls"], A.const(BRANCH)))}
        r = SortState()
        for j in range(self.B):
            for f in ITEM:
                r.warp[f"q{j}.{f}"] = (lambda j, f: lambda w: first(j, w)[f])(j, f)
        r.warp.update({"sb": lambda w: A.const(0), "susp": lambda w: A.const(0), "refetch": lambda w: A.false,
                       "wrong": lambda w: A.any_([self.ends_path(A, first(j, w)) for j in range(self.B)]),
                       "done": lambda w: A.false})
        r.shared.update({f"u.{c}": A.const(0) for c in self.c.unpipelined})
        r.shared["last"] = A.top if self.policy.starts_last else A.least
        r.shared.update({"o.some": A.false, "o.w": A.least, **{f"o.{f}": v for f, v in self.bubble(A).items()}})
        return r

    def eligible(self, A: Any, r: SortState, w: Any) -> Any:
        """Not exited, not suspended, the head's operand available and its unit free."""
        head = self.item(r, 0, w)
        ok = [A.not_(r.warp["done"](w)), A.eq(r.warp["susp"](w), A.const(0)),
              A.or_(A.not_(head["dep"]), A.eq(r.warp["sb"](w), A.const(0)))]
        ok += [A.or_(A.not_(A.eq(head["cls"], A.const(CLASS_INDEX[c]))), A.eq(r.shared[f"u.{c}"], A.const(0)))
               for c in self.c.unpipelined]
        return A.and_(*ok)

    def choice(self, A: Any, r: SortState, some: Any, h: Any) -> Any:
        """Warp h issues (``some``) iff it is eligible and no eligible warp outranks it; nobody iff none is eligible."""
        elig = lambda w: self.eligible(A, r, w)
        best = A.forall(lambda x: A.implies(A.and_(elig(x), A.ne(x, h)),
                                            A.not_(self.policy.outranks(A, r.shared["last"], x, h))))
        return A.ite(some, A.and_(elig(h), best), A.forall(lambda x: A.not_(elig(x))))

    def step(self, A: Any, r: SortState, i: Mapping[str, Any], some: Any, h: Any) -> SortState:
        """One cycle: warp h (if ``some``) issues its head and fetches; ``i`` is its next program instruction."""
        me = lambda w: A.and_(some, A.eq(h, w))
        head_h = self.item(r, 0, h)
        issued = {f: A.ite(some, head_h[f], self.bubble(A)[f]) for f in ITEM}
        out = SortState()
        out.warp.update(self._warps(A, r, i, me))
        for c in self.c.unpipelined:
            busy = A.eq(issued["cls"], A.const(CLASS_INDEX[c]))
            u = r.shared[f"u.{c}"]
            out.shared[f"u.{c}"] = A.ite(busy, A.const(self.c.latency[c] - 1),
                                         A.ite(A.eq(u, A.const(0)), A.const(0), A.sub(u, A.const(1))))
        out.shared["last"] = A.ite(some, h, r.shared["last"])
        out.shared.update({"o.some": some, "o.w": h, **{f"o.{f}": v for f, v in issued.items()}})
        return out

    def _warps(self, A: Any, r: SortState, i: Mapping[str, Any], me: Fn) -> dict[str, Fn]:
        R, got = r.warp, {f: i[f"f.{f}"] for f in ITEM}
        down = lambda x: A.ite(A.eq(x, A.const(0)), A.const(0), A.sub(x, A.const(1)))
        head = lambda w: self.item(r, 0, w)
        ends = lambda w: A.and_(me(w), self.ends_path(A, head(w)))
        hit = lambda w: A.or_(i["f.hit"], R["refetch"](w), R["wrong"](w))
        missed = lambda w: A.and_(me(w), A.not_(hit(w)))

        def item(j: int, w: Any) -> dict[str, Any]:
            if j + 1 < self.B:
                nxt = self.item(r, j + 1, w)
            else:  # the fetched instruction joins the back, or a bubble after a miss or an end of path
                nxt = {f: A.ite(A.or_(ends(w), A.not_(hit(w))), self.bubble(A)[f], got[f]) for f in ITEM}
            cur = self.item(r, j, w)
            return {f: A.ite(ends(w), self.bubble(A)[f], A.ite(me(w), nxt[f], cur[f])) for f in ITEM}

        def lat(w: Any) -> Any:
            out: Any = A.const(1)
            for k, x in enumerate(self.lat):
                out = A.ite(A.eq(head(w)["cls"], A.const(k)), A.const(x), out)
            return out

        sb = lambda w: down(R["sb"](w))
        begins_wrong = lambda w: A.and_(me(w), hit(w), A.not_(R["wrong"](w)), self.ends_path(A, got))
        out: dict[str, Fn] = {
            "sb": lambda w: A.ite(A.and_(me(w), A.lt(sb(w), A.sub(lat(w), A.const(1)))), A.sub(lat(w), A.const(1)),
                                  sb(w)),
            "susp": lambda w: A.ite(missed(w), A.const(self.c.miss_latency), down(R["susp"](w))),
            "refetch": lambda w: A.ite(missed(w), A.true, A.and_(R["refetch"](w), A.not_(me(w)))),
            "wrong": lambda w: A.and_(A.not_(ends(w)), A.or_(R["wrong"](w), begins_wrong(w))),
            "done": lambda w: A.or_(R["done"](w), A.and_(ends(w), A.eq(head(w)["cls"], A.const(EXIT)))),
        }
        for j in range(self.B):
            for f in ITEM:
                out[f"q{j}.{f}"] = (lambda j, f: lambda w: item(j, w)[f])(j, f)
        return out

    def ranges(self, A: Any, r: SortState, w: Any) -> dict[str, Any]:
        """The machine's integers stay in their ranges (for every warp w)."""
        rng = {"sb": self.c.max_latency - 1, "susp": self.c.miss_latency,
               **{f"q{j}.cls": len(CLASSES) - 1 for j in range(self.B)}}
        return {f"range:{k}": A.and_(A.le(A.const(0), r.warp[k](w)), A.le(r.warp[k](w), A.const(hi)))
                for k, hi in rng.items()}
