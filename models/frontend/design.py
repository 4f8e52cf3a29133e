"""The SM front end (fetch, I-cache, decode, ibuffers, issue) as one transition system.

Both designs of Crouzet et al. share this step function; they differ in three
small places (who fetches, what a miss or a flush leaves in the ibuffer, and
whether a missing warp is suspended at issue).

Cycle conventions (one ``step`` is one clock cycle):

=========================  =====================================================
event at cycle t           visible at
=========================  =====================================================
issue choice               made from the state at the start of t
fetch request              enters the fetch pipe at t; on a hit its instruction
                           is in the ibuffer (issuable) at t + t_fetch + t_decode
I-cache miss of a request  known at t + 1: the warp cannot fetch (baseline) or is
                           suspended (swas) during t+1 .. t+miss_latency, then
                           refetches the same instruction, which hits
taken branch / exit        resolves when issued at t: the warp's younger
                           instructions (ibuffer, fetch pipe, the request of t)
                           are dropped (baseline) or become NOPs (swas); correct
                           path fetch resumes at t + 1
result of an instruction   a dependent instruction may issue at t + latency
=========================  =====================================================

The fetch pipe holds the requests of the last ``pipe - 1`` cycles; the oldest
one drains into its warp's ibuffer at the end of the cycle.  States are flat
dicts; an instruction is a record ``{cls, dep, tk}`` (class index, depends on
an in-flight result, taken branch).

The step exports its *issue record* (in the manner of riscv-formal's RVFI):
``o.w`` is the warp it issued (-1: none), ``o.cls/dep/tk`` the instruction it
popped (a NOP record when none) and ``o.f`` the warp that sent a fetch request,
readable in the next state.  The issue scheduler's state after the cycle
(``is.*``: for QAWS the group in front and the counts of context switches) is
part of the record too.  Properties are stated over this record, never over a
recomputation of the choice.
"""
from __future__ import annotations

from typing import Any, Mapping

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES
from warpcheck.models.frontend.policies import POLICIES, PolicyContext
from warpcheck.models.ts import State, TransitionSystem, Var

NOP_CLS, BRANCH_CLS, EXIT_CLS = CLASS_INDEX["nop"], CLASS_INDEX["branch"], CLASS_INDEX["exit"]
FIELDS = ("cls", "dep", "tk")


def nop(A: Any) -> dict[str, Any]:
    return {"cls": A.const(NOP_CLS), "dep": A.false, "tk": A.false}


class FrontEnd(TransitionSystem):
    """The front end of one SM for a configuration (design, policies, timing)."""

    def __init__(self, config: SMConfig) -> None:
        self.c = config
        self.W, self.B, self.P = config.warps, config.ibuffer, config.pipe - 1
        self.name = f"{config.design}-{self._policy_label()}-W{self.W}"
        self.swas = config.design == "swas"
        self.issue_policy = POLICIES[config.issue_policy]
        self.fetch_policy = POLICIES[config.issue_policy if self.swas else config.fetch_policy]
        self.pctx = PolicyContext(self.W, config.kernel_of_warp, config.budgets)
        self.lat = [config.latency[c] for c in CLASSES]
        self.miss_window = 1 + config.miss_latency + config.pipe
        self.branch_window = 1 + config.pipe

    def _policy_label(self) -> str:
        c = self.c
        return c.issue_policy if c.design == "swas" else f"{c.fetch_policy}-{c.issue_policy}"

    # -- variables ---------------------------------------------------------
    def _instr_vars(self, prefix: str) -> list[Var]:
        return [Var(f"{prefix}.cls", "int", 0, len(CLASSES) - 1),
                Var(f"{prefix}.dep", "bool"), Var(f"{prefix}.tk", "bool")]

    def state_vars(self) -> list[Var]:
        vs: list[Var] = []
        win = max(self.miss_window, self.branch_window) - 1
        for w in range(self.W):
            vs.append(Var(f"w{w}.n", "int", 0, self.B))
            for j in range(self.B):
                vs += self._instr_vars(f"w{w}.b{j}")
            vs += [Var(f"w{w}.sb", "int", 0, self.c.max_latency - 1),
                   Var(f"w{w}.miss", "int", 0, self.c.miss_latency),
                   Var(f"w{w}.refetch", "bool"), Var(f"w{w}.pend", "bool"),
                   Var(f"w{w}.done", "bool"), Var(f"w{w}.win", "int", 0, win)]
        for k in range(self.P):
            vs += [Var(f"p{k}.v", "bool"), Var(f"p{k}.w", "int", 0, self.W - 1)] + self._instr_vars(f"p{k}")
        vs += [Var(f"is.{f.name}", "int", f.lo, f.hi) for f in self.issue_policy.fields(self.pctx)]
        if not self.swas:
            vs += [Var(f"fs.{f.name}", "int", f.lo, f.hi) for f in self.fetch_policy.fields(self.pctx)]
        vs += [Var(f"u.{c}", "int", 0, self.c.latency[c] - 1) for c in self.c.unpipelined]
        vs += [Var(f"k{k}.launch", "int", 0, launch) for k, launch in enumerate(self.c.launches) if launch > 0]
        record = [Var("o.w", "int", -1, self.W - 1), Var("o.f", "int", -1, self.W - 1)]
        kept = [Var("o.ok", "bool")] if self.contracts() else []
        return vs + record + self._instr_vars("o") + kept

    def input_vars(self) -> list[Var]:
        return self._instr_vars("f") + [Var("f.hit", "bool")]

    def param_vars(self) -> list[Var]:
        return [v for w in range(self.W) for j in range(self.B) for v in self._instr_vars(f"w{w}.b{j}")]

    # -- records -------------------------------------------------------------
    @staticmethod
    def entry(s: Mapping[str, Any], prefix: str) -> dict[str, Any]:
        return {f: s[f"{prefix}.{f}"] for f in FIELDS}

    @staticmethod
    def put(out: State, prefix: str, e: Mapping[str, Any]) -> None:
        for f in FIELDS:
            out[f"{prefix}.{f}"] = e[f]

    def flushes(self, A: Any, e: Mapping[str, Any]) -> Any:
        """A taken branch or an exit: the warp's younger instructions are wrong path."""
        return A.or_(e["tk"], A.eq(e["cls"], A.const(EXIT_CLS)))

    # -- initial state -------------------------------------------------------
    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        """Warm start: every ibuffer full with the warp's first instructions (params)."""
        s: State = {}
        for w in range(self.W):
            s[f"w{w}.n"] = A.const(self.B)
            entries = [self._only_branches_taken(A, self.entry(p, f"w{w}.b{j}")) for j in range(self.B)]
            for j, e in enumerate(entries):
                self.put(s, f"w{w}.b{j}", e)
            s.update({f"w{w}.sb": A.const(0), f"w{w}.miss": A.const(0), f"w{w}.refetch": A.false,
                      f"w{w}.pend": A.any_([self.flushes(A, e) for e in entries]),
                      f"w{w}.done": A.false, f"w{w}.win": A.const(0)})
        for k in range(self.P):
            s[f"p{k}.v"], s[f"p{k}.w"] = A.false, A.const(0)
            self.put(s, f"p{k}", nop(A))
        s.update({f"is.{k}": v for k, v in self.issue_policy.init(A, self.pctx).items()})
        if not self.swas:
            s.update({f"fs.{k}": v for k, v in self.fetch_policy.init(A, self.pctx).items()})
        for c in self.c.unpipelined:
            s[f"u.{c}"] = A.const(0)
        s.update({f"k{k}.launch": A.const(launch) for k, launch in enumerate(self.c.launches) if launch > 0})
        s["o.w"], s["o.f"] = A.const(-1), A.const(-1)
        self.put(s, "o", nop(A))
        if self.contracts():
            s["o.ok"] = A.true
        return s

    def _only_branches_taken(self, A: Any, e: dict[str, Any]) -> dict[str, Any]:
        return {**e, "tk": A.and_(e["tk"], A.eq(e["cls"], A.const(BRANCH_CLS)))}

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """Only branches are taken; the fetched stream holds no NOP of the design's own."""
        return A.and_(A.implies(i["f.tk"], A.eq(i["f.cls"], A.const(BRANCH_CLS))),
                      A.ne(i["f.cls"], A.const(NOP_CLS)))

    # -- issue ---------------------------------------------------------------
    def head_ready(self, A: Any, s: State, w: int) -> Any:
        """Operands of the head available and its unit free (if not pipelined)."""
        cls, dep = s[f"w{w}.b0.cls"], s[f"w{w}.b0.dep"]
        ok = [A.or_(A.not_(dep), A.eq(s[f"w{w}.sb"], A.const(0)))]
        for c in self.c.unpipelined:
            ok.append(A.or_(A.ne(cls, A.const(CLASS_INDEX[c])), A.eq(s[f"u.{c}"], A.const(0))))
        return A.and_(*ok)

    def suspended(self, A: Any, s: State, w: int) -> Any:
        """SWaS suspends a warp at issue while its I-cache miss is outstanding."""
        return A.lt(A.const(0), s[f"w{w}.miss"]) if self.swas else A.false

    def launched(self, A: Any, s: State, w: int) -> list[Any]:
        """[warp w's kernel is launched: its launch counter has run down], or [] for a kernel launched at 0.

        A list, so that an SM without late launches keeps exactly its former terms.
        """
        k = self.c.kernel_of_warp[w] if self.c.kernel_of_warp else 0
        return [A.eq(s[f"k{k}.launch"], A.const(0))] if f"k{k}.launch" in s else []

    def issue_eligible(self, A: Any, s: State) -> list[Any]:
        return [A.and_(A.not_(s[f"w{w}.done"]), A.lt(A.const(0), s[f"w{w}.n"]), *self.launched(A, s, w),
                       self.head_ready(A, s, w), A.not_(self.suspended(A, s, w)))
                for w in range(self.W)]

    def occupancy(self, A: Any, s: State, w: int) -> Any:
        """Instructions of warp w in its ibuffer and in the fetch pipe."""
        inflight = A.count([A.and_(s[f"p{k}.v"], A.eq(s[f"p{k}.w"], A.const(w))) for k in range(self.P)])
        return A.add(s[f"w{w}.n"], inflight)

    def choose(self, A: Any, s: State, elig: list[Any]) -> Any:
        """The issue policy's choice from the scheduler state of ``s`` among ``elig``."""
        keys = [self.occupancy(A, s, w) for w in range(self.W)]
        return self.issue_policy.choose(A, self.sched_state(s, "is"), elig, keys, self.pctx)

    @staticmethod
    def sched_state(s: Mapping[str, Any], prefix: str) -> dict[str, Any]:
        """The state record of the issue (``is``) or fetch (``fs``) scheduler in ``s``."""
        return {k[len(prefix) + 1:]: v for k, v in s.items() if k.startswith(prefix + ".")}

    def issue_choice(self, A: Any, s: State) -> Any:
        return self.choose(A, s, self.issue_eligible(A, s))

    # -- fetch ---------------------------------------------------------------
    def fetch_ready(self, A: Any, s: State) -> list[Any]:
        return [A.and_(A.not_(s[f"w{w}.done"]), A.eq(s[f"w{w}.miss"], A.const(0)), *self.launched(A, s, w),
                       A.lt(self.occupancy(A, s, w), A.const(self.B))) for w in range(self.W)]

    def fetch_choice(self, A: Any, s: State, issued: Any = None) -> Any:
        """The warp that sends a fetch request this cycle (-1: none)."""
        if self.swas:
            return self.issue_choice(A, s) if issued is None else issued
        keys = [self.occupancy(A, s, w) for w in range(self.W)]
        return self.fetch_policy.choose(A, self.sched_state(s, "fs"), self.fetch_ready(A, s), keys, self.pctx)

    def on_wrong_path(self, A: Any, s: State, w: Any) -> Any:
        """Whether a fetch of warp ``w`` (possibly symbolic) is on the wrong path."""
        return A.select([s[f"w{v}.pend"] for v in range(self.W)], w)

    def hits(self, A: Any, s: State, i: Mapping[str, Any], fw: Any) -> Any:
        """The fetch hits: by input, or forced (a refetch after a miss, or wrong path)."""
        forced = A.select([A.or_(s[f"w{v}.refetch"], s[f"w{v}.pend"]) for v in range(self.W)], fw)
        return A.or_(i["f.hit"], forced)

    # -- one clock cycle -------------------------------------------------------
    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        iw = self.scheduled(A, s, i)
        fw = self.fetch_choice(A, s, iw)
        heads = [self.entry(s, f"w{w}.b0") for w in range(self.W)]
        issued = A.ite(A.lt(iw, A.const(0)), nop(A), A.select(heads, iw))
        flush = [A.and_(A.eq(iw, A.const(w)), self.flushes(A, heads[w])) for w in range(self.W)]
        hit = self.hits(A, s, i, fw)
        pipe, arriving = self._advance_pipe(A, s, i, fw, hit, flush)
        out: State = {}
        for k, slot in enumerate(pipe):
            out[f"p{k}.v"], out[f"p{k}.w"] = slot["v"], slot["w"]
            self.put(out, f"p{k}", slot)
        for w in range(self.W):
            self._step_warp(A, s, i, out, w, (iw, fw, hit, flush[w]), arriving, heads[w])
        self._step_schedulers(A, s, out, iw, fw)
        out.update(self.units_next(A, s, i, iw, issued))
        out.update({f"k{k}.launch": A.dec_sat(s[f"k{k}.launch"]) for k, n in enumerate(self.c.launches) if n > 0})
        out["o.w"], out["o.f"] = iw, fw  # the issue record: what this cycle did (visible next cycle)
        self.put(out, "o", issued)
        if self.contracts():  # and whether the user's policies kept their contract in it
            out["o.ok"] = A.and_(*[ok for _, ok in self.contract_terms(A, s)])
        return out

    def scheduled(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        """The warp issued this cycle: the issue policy's choice (a hook for OpenWarp)."""
        return self.issue_choice(A, s)

    def units_next(self, A: Any, s: State, i: Mapping[str, Any], iw: Any, issued: Any) -> State:
        """The unpipelined units' countdowns after this cycle."""
        out: State = {}
        for c in self.c.unpipelined:
            busy = A.and_(A.le(A.const(0), iw), A.eq(issued["cls"], A.const(CLASS_INDEX[c])))
            out[f"u.{c}"] = A.ite(busy, A.const(self.c.latency[c] - 1), A.dec_sat(s[f"u.{c}"]))
        return out

    def _flush_slot(self, A: Any, slot: dict[str, Any], flush: list[Any]) -> dict[str, Any]:
        """Apply this cycle's flushes to one fetch-pipe slot."""
        hit = A.select(flush, slot["w"])
        if self.swas:  # the slot stays, as a NOP
            return {**slot, **A.ite(hit, nop(A), {f: slot[f] for f in FIELDS})}
        return {**slot, "v": A.and_(slot["v"], A.not_(hit))}

    def _advance_pipe(self, A: Any, s: State, i: Mapping[str, Any], fw: Any, hit: Any,
                      flush: list[Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """New request in, oldest out (to the ibuffers); returns (pipe, arriving slot)."""
        fetched = {f: i[f"f.{f}"] for f in FIELDS}
        some = A.le(A.const(0), fw)
        if self.swas:  # a miss leaves a NOP in place of the instruction
            new = {"v": some, "w": A.ite(some, fw, A.const(0)), **A.ite(hit, fetched, nop(A))}
        else:
            new = {"v": A.and_(some, hit), "w": A.ite(some, fw, A.const(0)), **fetched}
        old = [{"v": s[f"p{k}.v"], "w": s[f"p{k}.w"], **self.entry(s, f"p{k}")} for k in range(self.P)]
        slots = [self._flush_slot(A, x, flush) for x in [new] + old]
        return slots[:-1], slots[-1]

    def _step_warp(self, A: Any, s: State, i: Mapping[str, Any], out: State, w: int,
                   cycle: tuple[Any, Any, Any, Any], arriving: dict[str, Any], head: dict[str, Any]) -> None:
        iw, fw, hit, flush = cycle
        p, me = f"w{w}", A.const(w)
        pop, fetches = A.eq(iw, me), A.eq(fw, me)
        self._step_ibuffer(A, s, out, w, pop, flush, arriving)
        miss = A.and_(fetches, A.not_(hit))
        correct = A.and_(fetches, hit, A.not_(s[f"{p}.pend"]), A.not_(flush))
        fetched = {f: i[f"f.{f}"] for f in FIELDS}
        out[f"{p}.pend"] = A.ite(flush, A.false,
                                 A.or_(s[f"{p}.pend"], A.and_(correct, self.flushes(A, fetched))))
        lat = A.select([A.const(x) for x in self.lat], head["cls"])
        out[f"{p}.sb"] = A.ite(pop, A.max(A.dec_sat(s[f"{p}.sb"]), A.sub(lat, A.const(1))),
                               A.dec_sat(s[f"{p}.sb"]))
        out[f"{p}.miss"] = A.ite(miss, A.const(self.c.miss_latency), A.dec_sat(s[f"{p}.miss"]))
        out[f"{p}.refetch"] = A.ite(miss, A.true, A.ite(A.and_(fetches, hit), A.false, s[f"{p}.refetch"]))
        out[f"{p}.done"] = A.or_(s[f"{p}.done"], A.and_(flush, A.eq(head["cls"], A.const(EXIT_CLS))))
        win = A.max(A.dec_sat(s[f"{p}.win"]), A.ite(miss, A.const(self.miss_window - 1), A.const(0)))
        out[f"{p}.win"] = A.max(win, A.ite(flush, A.const(self.branch_window - 1), A.const(0)))

    def _step_ibuffer(self, A: Any, s: State, out: State, w: int, pop: Any, flush: Any,
                      arriving: dict[str, Any]) -> None:
        """Pop the issued head, apply a flush, append the arriving instruction."""
        p = f"w{w}"
        slots = [self.entry(s, f"{p}.b{j}") for j in range(self.B)] + [nop(A)]
        slots = [A.ite(pop, slots[j + 1], slots[j]) for j in range(self.B)]
        n = A.ite(pop, A.sub(s[f"{p}.n"], A.const(1)), s[f"{p}.n"])
        slots = [A.ite(flush, nop(A), x) for x in slots]
        if not self.swas:  # baseline drops the wrong-path instructions
            n = A.ite(flush, A.const(0), n)
        mine = A.and_(arriving["v"], A.eq(arriving["w"], A.const(w)))
        new = {f: arriving[f] for f in FIELDS}
        for j in range(self.B):
            self.put(out, f"{p}.b{j}", A.ite(A.and_(mine, A.eq(n, A.const(j))), new, slots[j]))
        out[f"{p}.n"] = A.min(A.add(n, A.ite(mine, A.const(1), A.const(0))), A.const(self.B))

    def _step_schedulers(self, A: Any, s: State, out: State, iw: Any, fw: Any) -> None:
        elig = self.issue_eligible(A, s) if self.issue_policy.reads_elig else []
        nxt = self.issue_policy.update(A, self.sched_state(s, "is"), iw, elig, self.pctx)
        out.update({f"is.{k}": v for k, v in nxt.items()})
        if not self.swas:
            elig = self.fetch_ready(A, s) if self.fetch_policy.reads_elig else []
            nxt = self.fetch_policy.update(A, self.sched_state(s, "fs"), fw, elig, self.pctx)
            out.update({f"fs.{k}": v for k, v in nxt.items()})

    # -- the contract of a user's policy ---------------------------------------
    def contracts(self) -> list[tuple[str, Any]]:
        """(scheduler prefix, policy) of each policy written by the user (``is``: issue, ``fs``: fetch)."""
        mine = [("is", self.issue_policy)] + ([] if self.swas else [("fs", self.fetch_policy)])
        return [(prefix, pol) for prefix, pol in mine if pol.contract]

    def contract_terms(self, A: Any, s: State) -> list[tuple[str, Any]]:
        """(the breach, whether it is avoided) of each term of the user policies' contract in the cycle stepped from
        ``s``: the warp chosen is eligible (-1 exactly when none is), and the update keeps every field within its
        declared range."""
        out: list[tuple[str, Any]] = []
        mine = self.contracts()
        keys = [self.occupancy(A, s, w) for w in range(self.W)] if mine else []
        for prefix, pol in mine:
            elig = self.issue_eligible(A, s) if prefix == "is" else self.fetch_ready(A, s)
            st = self.sched_state(s, prefix)
            c = pol.choose(A, st, elig, keys, self.pctx)
            some = A.any_(elig)
            eligible = A.any_([A.and_(A.eq(c, A.const(w)), e) for w, e in enumerate(elig)])
            role = "issue" if prefix == "is" else "fetch"
            out.append((f"policy {pol.name!r} ({role}) chose a warp that is not eligible (or none while one is)",
                        A.or_(A.and_(some, eligible), A.and_(A.not_(some), A.eq(c, A.const(-1))))))
            nxt = pol.update(A, st, c, elig if pol.reads_elig else [], self.pctx)
            for f in pol.fields(self.pctx):
                out.append((f"policy {pol.name!r} ({role}) set {f.name} outside its range {f.lo} .. {f.hi}",
                            A.and_(A.le(A.const(f.lo), nxt[f.name]), A.le(nxt[f.name], A.const(f.hi)))))
        return out

    # -- lemmas the kit proves before using them ------------------------------
    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        """Candidate invariants, stated for any number of warps (proved, never assumed)."""
        out: dict[str, Any] = {}
        for w in range(self.W):
            p = f"w{w}"
            if self.swas:
                out[f"{p}.occupancy"] = A.eq(self.occupancy(A, s, w), A.const(self.B))
            else:
                out[f"{p}.capacity"] = A.le(self.occupancy(A, s, w), A.const(self.B))
            out[f"{p}.suspended-in-window"] = A.le(s[f"{p}.miss"], s[f"{p}.win"])
            out[f"{p}.pending"] = A.eq(s[f"{p}.pend"], self._holds_flush(A, s, w))
            out[f"{p}.empty-slots-nop"] = A.all_([A.implies(A.le(s[f"{p}.n"], A.const(j)),
                                                            A.eq(s[f"{p}.b{j}.cls"], A.const(NOP_CLS)))
                                                  for j in range(self.B)])
        return out

    def _holds_flush(self, A: Any, s: State, w: int) -> Any:
        """Some instruction of warp w (ibuffer or pipe) is a taken branch or an exit."""
        buf = [A.and_(A.lt(A.const(j), s[f"w{w}.n"]), self.flushes(A, self.entry(s, f"w{w}.b{j}")))
               for j in range(self.B)]
        pipe = [A.and_(s[f"p{k}.v"], A.eq(s[f"p{k}.w"], A.const(w)), self.flushes(A, self.entry(s, f"p{k}")))
                for k in range(self.P)]
        return A.any_(buf + pipe)
