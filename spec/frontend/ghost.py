"""Ghost state the front-end references keep themselves: osched2's windows and the launch clock.

Written from the paper (Crouzet et al., Sec. VI-A4) and the README's cycle
table, apart from ``models/frontend/design.py``: nothing here reads the
design's ghost state.  The windows are computed from what the design did, as
its issue record says (``o.f``: the warp that fetched, ``o.w`` and ``o.cls``,
``o.tk``: the warp issued and its instruction) and from the inputs of the cycle.

The record of cycle t is read in the state of cycle t + 1, so each step first
catches up with the events of the previous cycle (with that cycle's inputs,
kept in ``fin.*``) and then gives the windows as they stand at the start of
this one:

- a fetch of warp w *misses* when the I-cache input says so, unless it is the
  refetch after a miss or a fetch down a wrong path (both hit);
- an issued taken branch or exit *flushes* warp w;
- a miss opens a window of 1 + miss_latency + t_fetch + t_decode cycles, a
  flush one of 1 + t_fetch + t_decode cycles (the first of them being the
  cycle of the event); inside a window osched2 uses the real eligibility.
"""
from __future__ import annotations

from typing import Any, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES
from warpcheck.models.ts import State, Var

BRANCH, EXIT = CLASS_INDEX["branch"], CLASS_INDEX["exit"]


def _ends_path(A: Any, cls: Any, tk: Any) -> Any:
    return A.or_(tk, A.eq(cls, A.const(EXIT)))


def _down(A: Any, x: Any) -> Any:
    return A.ite(A.lt(A.const(0), x), A.sub(x, A.const(1)), A.const(0))


def _larger(A: Any, x: Any, y: Any) -> Any:
    return A.ite(A.lt(x, y), y, x)


class Windows:
    """Per warp: the cycles left in its predictable window, and the refetch / wrong-path flags that decide a miss."""

    def __init__(self, config: SMConfig) -> None:
        self.W, self.B = config.warps, config.ibuffer
        self.miss_len = 1 + config.miss_latency + config.pipe
        self.flush_len = 1 + config.pipe

    def state_vars(self) -> list[Var]:
        vs = [Var("fin.hit", "bool"), Var("fin.cls", "int", 0, len(CLASSES) - 1), Var("fin.tk", "bool")]
        for w in range(self.W):
            vs += [Var(f"w{w}.win", "int", 0, max(self.miss_len, self.flush_len) - 1),
                   Var(f"w{w}.refetch", "bool"), Var(f"w{w}.pend", "bool")]
        return vs

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        """No window open; a warp whose first instructions end its path is on a wrong path already."""
        s: State = {"fin.hit": A.const(True), "fin.cls": A.const(0), "fin.tk": A.const(False)}
        for w in range(self.W):
            ends = A.const(False)
            for j in range(self.B):
                cls = p[f"w{w}.b{j}.cls"]
                ends = A.or_(ends, _ends_path(A, cls, A.and_(p[f"w{w}.b{j}.tk"], A.eq(cls, A.const(BRANCH)))))
            s.update({f"w{w}.win": A.const(0), f"w{w}.refetch": A.const(False), f"w{w}.pend": ends})
        return s

    def now(self, A: Any, r: Mapping[str, Any], d: Mapping[str, Any]) -> State:
        """The windows and flags at the start of this cycle: ``r``'s, after the events of ``d``'s record."""
        out: State = {}
        for w in range(self.W):
            me = A.const(w)
            fetched, refetch, pend = A.eq(d["o.f"], me), r[f"w{w}.refetch"], r[f"w{w}.pend"]
            hit = A.or_(r["fin.hit"], refetch, pend)
            miss = A.and_(fetched, A.not_(hit))
            flush = A.and_(A.eq(d["o.w"], me), _ends_path(A, d["o.cls"], d["o.tk"]))
            on_path = A.and_(fetched, hit, A.not_(pend), A.not_(flush))
            win = _larger(A, _down(A, r[f"w{w}.win"]), A.ite(miss, A.const(self.miss_len - 1), A.const(0)))
            out[f"w{w}.win"] = _larger(A, win, A.ite(flush, A.const(self.flush_len - 1), A.const(0)))
            out[f"w{w}.refetch"] = A.or_(miss, A.and_(refetch, A.not_(A.and_(fetched, hit))))
            out[f"w{w}.pend"] = A.and_(A.not_(flush),
                                       A.or_(pend, A.and_(on_path, _ends_path(A, r["fin.cls"], r["fin.tk"]))))
        return out

    def step(self, A: Any, now: State, i: Mapping[str, Any]) -> State:
        """What is kept for the next cycle: the windows now, and this cycle's inputs."""
        return {**now, "fin.hit": i["f.hit"], "fin.cls": i["f.cls"], "fin.tk": i["f.tk"]}

    def lemmas(self, A: Any, r: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, Any]:
        """Candidates: the design's own counters equal the windows computed here (proved before use, never assumed)."""
        now, out = self.now(A, r, d), {}
        for w in range(self.W):
            for f in ("win", "refetch", "pend"):
                if f"w{w}.{f}" in d:
                    out[f"w{w}.{f}"] = A.eq(d[f"w{w}.{f}"], now[f"w{w}.{f}"])
        return out


class LaunchClock:
    """Cycles since reset, saturated at the last launch: a warp is launched from its kernel's launch cycle on."""

    def __init__(self, config: SMConfig) -> None:
        kow = config.kernel_of_warp or (0,) * config.warps
        self.at = [config.launches[k] if config.launches else 0 for k in kow]
        self.kernels = list(config.launches)
        self.last = max(self.at, default=0)

    def state_vars(self) -> list[Var]:
        return [Var("clock", "int", 0, self.last)] if self.last else []

    def init(self, A: Any) -> State:
        return {"clock": A.const(0)} if self.last else {}

    def launched(self, A: Any, r: Mapping[str, Any], w: int) -> Any:
        return A.le(A.const(self.at[w]), r["clock"]) if self.at[w] else A.const(True)

    def step(self, A: Any, r: Mapping[str, Any]) -> State:
        if not self.last:
            return {}
        return {"clock": A.ite(A.lt(r["clock"], A.const(self.last)), A.add(r["clock"], A.const(1)), r["clock"])}

    def lemmas(self, A: Any, r: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, Any]:
        """Candidates: the design's launch counter of kernel k is its launch cycle minus the clock (at least 0)."""
        out = {}
        for k, at in enumerate(self.kernels):
            if f"k{k}.launch" in d:
                left = A.sub(A.const(at), r["clock"])
                out[f"k{k}.launch"] = A.eq(d[f"k{k}.launch"], A.ite(A.lt(left, A.const(0)), A.const(0), left))
        return out
