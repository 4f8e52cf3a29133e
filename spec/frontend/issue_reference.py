"""Independent references for the SM front end: the oracle views and the analysis machine.

Written from the paper (Crouzet et al., Sec. IV-VI) and the README's cycle
table, sharing no function with ``models/frontend/design.py``, ``models/frontend/policies.py``
or ``models/frontend/oracles.py``.  Each reference is a small transition system run
beside the design (see ``models/frontend/checked.py``); every cycle it exports the
same *issue record* as the design (``o.w``: the issued warp or -1; ``o.cls``,
``o.dep``, ``o.tk``: the instruction, a NOP when nothing issues), and a
property states that the two records are equal.

- :class:`OracleReference` is the paper's oracle scheduler, resynchronised
  every cycle: it reads the design's state at the start of the cycle and
  applies the reference policy to its own view of which warps are eligible
  (``osched2``: empty ibuffers count as ready outside the predictable windows;
  ``ideal``: empty ibuffers always count as ready, the SWaS suspension kept).
- :class:`AnalysisMachine` is the machine a static timing analysis of SWaS
  would use, driven only by the program: per warp the next ``ibuffer`` items
  it will issue (correct-path instructions, or NOPs where a miss or a taken
  branch leaves a bubble), its suspension after a miss, its own scoreboard,
  and the unpipelined units.  No fetch pipe, no buffer occupancy: it assumes
  that the instruction is there, which is what SWaS promises.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES
from warpcheck.spec.frontend.ghost import LaunchClock, Windows
from warpcheck.spec.frontend.priority_lists import RefPolicy, ref_policy
from warpcheck.models.ts import State, Var

NOP, BRANCH, EXIT = CLASS_INDEX["nop"], CLASS_INDEX["branch"], CLASS_INDEX["exit"]
INSTR = ("cls", "dep", "tk")
RECORD = ("o.w", "o.cls", "o.dep", "o.tk")  # what was issued; the analysis machine also compares o.f


def _bubble(A: Any) -> dict[str, Any]:
    return {"cls": A.const(NOP), "dep": A.const(False), "tk": A.const(False)}


def _is_flush(A: Any, e: Mapping[str, Any]) -> Any:
    """A taken branch or an exit ends the warp's current path."""
    return A.or_(e["tk"], A.eq(e["cls"], A.const(EXIT)))


def _countdown(A: Any, x: Any) -> Any:
    return A.ite(A.eq(x, A.const(0)), A.const(0), A.sub(x, A.const(1)))


def _at(A: Any, items: list[Any], index: Any, default: Any) -> Any:
    """``items[index]``, or ``default`` when index is -1."""
    out = default
    for k, x in enumerate(items):
        out = A.ite(A.eq(index, A.const(k)), x, out)
    return out


def _policy_state_vars(pol: RefPolicy, W: int) -> list[Var]:
    return [Var(f"pol.{name}", "int", lo, hi) for name, lo, hi in pol.fields(W)]


def _bound_policy(config: SMConfig) -> RefPolicy:
    return ref_policy(config.issue_policy, config.kernel_of_warp, config.budgets)


def _record_vars(W: int) -> list[Var]:
    return [Var("o.w", "int", -1, W - 1), Var("o.cls", "int", 0, len(CLASSES) - 1),
            Var("o.dep", "bool"), Var("o.tk", "bool")]


def _pol_state(r: Mapping[str, Any]) -> dict[str, Any]:
    return {k[4:]: v for k, v in r.items() if k.startswith("pol.")}


def ptr_candidates(A: Any, W: int, d: Mapping[str, Any], r: Mapping[str, Any]) -> dict[str, Any]:
    """Candidate links between the design's scheduler state and the reference's (Houdini keeps the true ones).

    The pointer against the last issued warp or the turn (or one after it);
    every other field of the design's record (``is.f``) against the
    reference's field of the same name (``pol.f``), when it has one.
    """
    ptr, out = d.get("is.ptr"), {}  # a user's policy may keep no pointer
    for k in ("pol.last", "pol.turn"):
        if k in r and ptr is not None:
            nxt = A.ite(A.eq(r[k], A.const(W - 1)), A.const(0), A.add(r[k], A.const(1)))
            out[f"ptr=={k}"], out[f"ptr=={k}+1"] = A.eq(ptr, r[k]), A.eq(ptr, nxt)
    for k in d:
        if k.startswith("is.") and k != "is.ptr" and f"pol.{k[3:]}" in r:
            out[f"{k[3:]}==pol.{k[3:]}"] = A.eq(d[k], r[f"pol.{k[3:]}"])
    return out


class OracleReference:
    """The oracle scheduler ``osched2`` or the ``ideal`` machine, with the reference policy."""

    compared = ("o.w",)

    def __init__(self, config: SMConfig, view: str) -> None:
        self.c, self.W, self.view = config, config.warps, view
        self.B, self.P = config.ibuffer, config.pipe - 1
        self.pol = _bound_policy(config)
        self.swas = config.design == "swas"
        self.name = f"{view}-{self.pol.name}"
        self.windows = Windows(config) if view == "osched2" else None
        self.clock = LaunchClock(config)

    def state_vars(self) -> list[Var]:
        ghost = self.windows.state_vars() if self.windows else []
        return _policy_state_vars(self.pol, self.W) + ghost + self.clock.state_vars() + _record_vars(self.W)

    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        st = {f"pol.{k}": v for k, v in self.pol.init(A, self.W).items()}
        st.update({**(self.windows.init(A, p) if self.windows else {}), **self.clock.init(A)})
        return {**st, "o.w": A.const(-1), **{f"o.{f}": v for f, v in _bubble(A).items()}}

    def _head_ready(self, A: Any, d: Mapping[str, Any], w: int) -> Any:
        cls, dep = d[f"w{w}.b0.cls"], d[f"w{w}.b0.dep"]
        ok = A.or_(A.not_(dep), A.eq(d[f"w{w}.sb"], A.const(0)))
        for c in self.c.unpipelined:
            ok = A.and_(ok, A.or_(A.not_(A.eq(cls, A.const(CLASS_INDEX[c]))), A.eq(d[f"u.{c}"], A.const(0))))
        return ok

    def eligible(self, A: Any, d: Mapping[str, Any], w: int, r: Mapping[str, Any], win: Any = None) -> Any:
        """Whether the reference deems warp ``w`` eligible in design state ``d`` (``win``: its window now)."""
        live = A.and_(A.not_(d[f"w{w}.done"]), self.clock.launched(A, r, w))
        empty = A.eq(d[f"w{w}.n"], A.const(0))
        suspended = A.lt(A.const(0), d[f"w{w}.miss"]) if self.swas else A.const(False)
        assumed = A.and_(live, A.or_(empty, self._head_ready(A, d, w)))
        if self.view == "ideal":
            return A.and_(assumed, A.not_(suspended))
        real = A.and_(live, A.not_(empty), self._head_ready(A, d, w), A.not_(suspended))
        return A.ite(A.lt(A.const(0), win), real, assumed)

    def occupancy(self, A: Any, d: Mapping[str, Any], w: int) -> Any:
        """Instructions of warp w fetched and not issued (Icount's key)."""
        n = d[f"w{w}.n"]
        for k in range(self.P):
            mine = A.and_(d[f"p{k}.v"], A.eq(d[f"p{k}.w"], A.const(w)))
            n = A.add(n, A.ite(mine, A.const(1), A.const(0)))
        return n

    def step(self, A: Any, r: Mapping[str, Any], i: Mapping[str, Any], d: Mapping[str, Any]) -> State:
        now = self.windows.now(A, r, d) if self.windows else {}
        elig = [self.eligible(A, d, w, r, now.get(f"w{w}.win")) for w in range(self.W)]
        keys = [self.occupancy(A, d, w) for w in range(self.W)]
        choice = self.pol.choose(A, _pol_state(r), elig, keys)
        nxt = self.pol.next(A, _pol_state(r), choice, self.W, elig)
        ghost = {**(self.windows.step(A, now, i) if self.windows else {}), **self.clock.step(A, r)}
        return {**{f"pol.{k}": v for k, v in nxt.items()}, **ghost, "o.w": choice,
                **{f"o.{f}": v for f, v in _bubble(A).items()}}

    def lemmas(self, A: Any, r: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, Any]:
        ghost = {**(self.windows.lemmas(A, r, d) if self.windows else {}), **self.clock.lemmas(A, r, d)}
        return {**ptr_candidates(A, self.W, d, r), **{f"ghost.{k}": v for k, v in ghost.items()}}


class AnalysisMachine:
    """The static-analysis model of SWaS: instructions always there, bubbles where the paper puts NOPs.

    Its record also names the fetching warp (``o.f``, the issuing one, as in
    SWaS), so the input of a cycle means the same warp's instruction to the
    design and to this machine for as long as the records agree.
    """

    compared = RECORD + ("o.f",)

    def __init__(self, config: SMConfig) -> None:
        self.c, self.W, self.B = config, config.warps, config.ibuffer
        self.pol = _bound_policy(config)
        self.lat = [config.latency[c] for c in CLASSES]
        self.name = f"analysis-{self.pol.name}"
        self.clock = LaunchClock(config)
        # QAWS's group and counts, which the design exports as its scheduler record (is.grp, is.c0, is.c1)
        self.exported = tuple((f"is.{n}", f"pol.{n}") for n, _, _ in self.pol.fields(self.W) if n not in ("last", "turn"))

    # -- variables ---------------------------------------------------------
    def state_vars(self) -> list[Var]:
        vs: list[Var] = []
        for w in range(self.W):
            for j in range(self.B):
                vs += [Var(f"w{w}.q{j}.cls", "int", 0, len(CLASSES) - 1), Var(f"w{w}.q{j}.dep", "bool"),
                       Var(f"w{w}.q{j}.tk", "bool")]
            vs += [Var(f"w{w}.sb", "int", 0, self.c.max_latency - 1), Var(f"w{w}.susp", "int", 0, self.c.miss_latency),
                   Var(f"w{w}.refetch", "bool"), Var(f"w{w}.wrong", "bool"), Var(f"w{w}.done", "bool")]
        vs += [Var(f"u.{c}", "int", 0, self.c.latency[c] - 1) for c in self.c.unpipelined]
        vs += self.clock.state_vars()
        return vs + _policy_state_vars(self.pol, self.W) + _record_vars(self.W) + [Var("o.f", "int", -1, self.W - 1)]

    def _q(self, r: Mapping[str, Any], w: int, j: int) -> dict[str, Any]:
        return {f: r[f"w{w}.q{j}.{f}"] for f in INSTR}

    # -- initial state -------------------------------------------------------
    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        """The program's first ``ibuffer`` instructions of each warp (only branches may be taken)."""
        s: State = {}
        for w in range(self.W):
            flush = A.const(False)
            for j in range(self.B):
                e = {f: p[f"w{w}.b{j}.{f}"] for f in INSTR}
                e["tk"] = A.and_(e["tk"], A.eq(e["cls"], A.const(BRANCH)))
                s.update({f"w{w}.q{j}.{f}": e[f] for f in INSTR})
                flush = A.or_(flush, _is_flush(A, e))
            s.update({f"w{w}.sb": A.const(0), f"w{w}.susp": A.const(0), f"w{w}.refetch": A.const(False),
                      f"w{w}.wrong": flush, f"w{w}.done": A.const(False)})
        s.update({f"u.{c}": A.const(0) for c in self.c.unpipelined})
        s.update(self.clock.init(A))
        s.update({f"pol.{k}": v for k, v in self.pol.init(A, self.W).items()})
        return {**s, "o.w": A.const(-1), "o.f": A.const(-1), **{f"o.{f}": v for f, v in _bubble(A).items()}}

    # -- one cycle -------------------------------------------------------------
    def eligible(self, A: Any, r: Mapping[str, Any], w: int) -> Any:
        """Launched, not exited, not suspended, head operands available, head's unit free."""
        head = self._q(r, w, 0)
        ok = A.and_(self.clock.launched(A, r, w), A.not_(r[f"w{w}.done"]), A.eq(r[f"w{w}.susp"], A.const(0)),
                    A.or_(A.not_(head["dep"]), A.eq(r[f"w{w}.sb"], A.const(0))))
        for c in self.c.unpipelined:
            ok = A.and_(ok, A.or_(A.not_(A.eq(head["cls"], A.const(CLASS_INDEX[c]))), A.eq(r[f"u.{c}"], A.const(0))))
        return ok

    def choice(self, A: Any, r: Mapping[str, Any], elig: list[Any] | None = None) -> Any:
        """The warp the reference policy issues (every warp holds ``ibuffer`` items: Icount ties)."""
        elig = [self.eligible(A, r, w) for w in range(self.W)] if elig is None else elig
        return self.pol.choose(A, _pol_state(r), elig, [A.const(self.B)] * self.W)

    def step(self, A: Any, r: Mapping[str, Any], i: Mapping[str, Any], d: Mapping[str, Any] | None = None) -> State:
        """One cycle; the issuing warp also fetches (SWaS), and ``i`` is its next program instruction."""
        elig = [self.eligible(A, r, w) for w in range(self.W)]
        iw = self.choice(A, r, elig)
        heads = [self._q(r, w, 0) for w in range(self.W)]
        issued = {f: _at(A, [h[f] for h in heads], iw, _bubble(A)[f]) for f in INSTR}
        out: State = {}
        for w in range(self.W):
            out.update(self._warp(A, r, i, w, A.eq(iw, A.const(w))))
        for c in self.c.unpipelined:
            busy = A.eq(issued["cls"], A.const(CLASS_INDEX[c]))
            out[f"u.{c}"] = A.ite(busy, A.const(self.c.latency[c] - 1), _countdown(A, r[f"u.{c}"]))
        out.update({f"pol.{k}": v for k, v in self.pol.next(A, _pol_state(r), iw, self.W, elig).items()})
        out.update(self.clock.step(A, r))
        return {**out, "o.w": iw, "o.f": iw, **{f"o.{f}": issued[f] for f in INSTR}}

    def _warp(self, A: Any, r: Mapping[str, Any], i: Mapping[str, Any], w: int, me: Any) -> State:
        p, head = f"w{w}", self._q(r, w, 0)
        flush = A.and_(me, _is_flush(A, head))
        hit = A.or_(i["f.hit"], r[f"{p}.refetch"], r[f"{p}.wrong"])
        got = {f: i[f"f.{f}"] for f in INSTR}
        new = {f: A.ite(A.or_(flush, A.not_(hit)), _bubble(A)[f], got[f]) for f in INSTR}
        queue = [self._q(r, w, j) for j in range(self.B)]
        shifted = queue[1:] + [new]
        out: State = {}
        for j in range(self.B):
            e = {f: A.ite(flush, _bubble(A)[f], A.ite(me, shifted[j][f], queue[j][f])) for f in INSTR}
            out.update({f"{p}.q{j}.{f}": e[f] for f in INSTR})
        missed = A.and_(me, A.not_(hit))
        begins_wrong = A.and_(me, hit, A.not_(r[f"{p}.wrong"]), _is_flush(A, got))
        lat = _at(A, [A.const(x) for x in self.lat], head["cls"], A.const(1))
        sb = _countdown(A, r[f"{p}.sb"])
        out.update({
            f"{p}.sb": A.ite(A.and_(me, A.lt(sb, A.sub(lat, A.const(1)))), A.sub(lat, A.const(1)), sb),
            f"{p}.susp": A.ite(missed, A.const(self.c.miss_latency), _countdown(A, r[f"{p}.susp"])),
            f"{p}.refetch": A.ite(missed, A.const(True), A.and_(r[f"{p}.refetch"], A.not_(me))),
            f"{p}.wrong": A.and_(A.not_(flush), A.or_(r[f"{p}.wrong"], begins_wrong)),
            f"{p}.done": A.or_(r[f"{p}.done"], A.and_(flush, A.eq(head["cls"], A.const(EXIT))))})
        return out

    # -- the link to the design, as candidate lemmas -----------------------------
    def lemmas(self, A: Any, r: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, Any]:
        """Candidates relating the design's state to this machine's (proved before use, never assumed)."""
        out = {**ptr_candidates(A, self.W, d, r), **self.clock.lemmas(A, r, d)}
        for c in self.c.unpipelined:
            out[f"u.{c}"] = A.eq(d[f"u.{c}"], r[f"u.{c}"])
        for w in range(self.W):
            p = f"w{w}"
            for mine, theirs in (("sb", "sb"), ("miss", "susp"), ("refetch", "refetch"), ("pend", "wrong"),
                                 ("done", "done")):
                out[f"{p}.{theirs}"] = A.eq(d[f"{p}.{mine}"], r[f"{p}.{theirs}"])
            for j, e in enumerate(self.design_queue(A, d, w)):
                out[f"{p}.q{j}"] = A.and_(*[A.eq(e[f], r[f"{p}.q{j}.{f}"]) for f in INSTR])
        return out

    def design_queue(self, A: Any, d: Mapping[str, Any], w: int) -> list[dict[str, Any]]:
        """The design's items of warp w in issue order: its ibuffer, then its fetch-pipe slots, oldest first."""
        P = sum(1 for k in range(len(d)) if f"p{k}.v" in d)  # the slots the design has
        older = A.const(0)
        slots = []  # (position in the queue, record), oldest slot first
        for k in reversed(range(P)):
            mine = A.and_(d[f"p{k}.v"], A.eq(d[f"p{k}.w"], A.const(w)))
            slots.append((mine, A.add(d[f"w{w}.n"], older), {f: d[f"p{k}.{f}"] for f in INSTR}))
            older = A.add(older, A.ite(mine, A.const(1), A.const(0)))
        out = []
        for j in range(self.B):
            e = _bubble(A)
            for mine, pos, rec in slots:
                take = A.and_(mine, A.eq(pos, A.const(j)))
                e = {f: A.ite(take, rec[f], e[f]) for f in INSTR}
            if f"w{w}.b{j}.cls" in d:
                inbuf = A.lt(A.const(j), d[f"w{w}.n"])
                e = {f: A.ite(inbuf, d[f"w{w}.b{j}.{f}"], e[f]) for f in INSTR}
            out.append(e)
        return out


# The reference of each front-end property (verify/frontend/properties.py names and documents them).
REFERENCES: dict[str, Callable[[SMConfig], Any]] = {
    "exact": AnalysisMachine,
    "oracle": lambda c: OracleReference(c, "osched2"),
    "ideal": lambda c: OracleReference(c, "ideal"),
}
