"""Two kernels on one SWaS front end, every stall pattern left free: the space of the worst-case search.

Each kernel runs a fixed program (a list of instruction classes; ``exit`` is
appended) on each of its warps.  What the front end leaves open is left open
here, as inputs and parameters: whether an instruction depends on the result
of the previous one (``dep``), whether a branch is taken (``tk``), whether a
fetch misses the I-cache (``f.hit``).  The model adds one counter per warp,
``q{w}``: how many instructions of its program have reached it on the correct
path (the warm ibuffer holds the first ``ibuffer`` of them), and its input
assumption makes the fetched instruction the program's next one.  Inputs that
the front end ignores (no fetch, a wrong-path fetch, a refetch forced to hit,
the content of a missed fetch) are pinned to one canonical value, so that an
exhaustive enumeration of the allowed inputs sees each stall pattern once.

Kernel ``k`` is launched at ``config.launches[k]`` (default 0): the front
end's launch counter keeps its warps from issuing and fetching until then.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.kernels.kernel import CLASS_INDEX, CLASSES
from warpcheck.models.ts import State, Var

CANONICAL = {"f.cls": CLASS_INDEX["int"], "f.dep": False, "f.tk": False, "f.hit": True}


class StallSpace(FrontEnd):
    """The SWaS front end running one fixed program per kernel, stalls free (misses, dependences, branches)."""

    def __init__(self, config: SMConfig, programs: Sequence[Sequence[str]], misses: bool = True,
                 deps: bool = True, branches: bool = True) -> None:
        if config.design != "swas":
            raise ConfigError(f"design {config.design!r}: the response-time search models SWaS only")
        super().__init__(config)
        kow = config.kernel_of_warp or (0,) * config.warps
        _check(programs, kow)
        self.kow, self.launches = kow, config.launches or (0,) * len(programs)
        self.prog = [tuple(CLASS_INDEX[c] for c in programs[k]) + (CLASS_INDEX["exit"],) for k in kow]
        self.misses, self.deps, self.branches = misses, deps, branches
        self.name = f"stalls-{config.design}-{config.issue_policy}-W{config.warps}"

    # -- variables -----------------------------------------------------------
    def state_vars(self) -> list[Var]:
        return super().state_vars() + [Var(f"q{w}", "int", 0, len(self.prog[w])) for w in range(self.W)]

    def param_vars(self) -> list[Var]:
        """Only the free bits of the warm ibuffers: dependences, and taken branches."""
        out = []
        for w in range(self.W):
            for j in range(min(self.B, len(self.prog[w]))):
                if self.deps:
                    out.append(Var(f"w{w}.b{j}.dep", "bool"))
                if self.branches and self.prog[w][j] == CLASS_INDEX["branch"]:
                    out.append(Var(f"w{w}.b{j}.tk", "bool"))
        return out

    # -- initial state ---------------------------------------------------------
    def init(self, A: Any, p: Mapping[str, Any]) -> State:
        full: dict[str, Any] = {}
        for w in range(self.W):
            for j in range(self.B):
                cls = self.prog[w][j] if j < len(self.prog[w]) else CANONICAL["f.cls"]
                full[f"w{w}.b{j}.cls"] = A.const(cls)
                full[f"w{w}.b{j}.dep"] = p.get(f"w{w}.b{j}.dep", A.false)
                full[f"w{w}.b{j}.tk"] = p.get(f"w{w}.b{j}.tk", A.false)
        s = super().init(A, full)
        for w in range(self.W):
            s[f"q{w}"] = A.const(min(self.B, len(self.prog[w])))
        return s

    # -- the fetched instruction is the program's next one ----------------------
    def fetch_facts(self, A: Any, s: State) -> tuple[Any, Any, Any]:
        """This cycle's fetching warp, whether its request is on the correct path, whether it is a forced refetch."""
        fw = self.issue_choice(A, s)
        heads = [self.flushes(A, self.entry(s, f"w{w}.b0")) for w in range(self.W)]
        on = A.and_(A.le(A.const(0), fw), A.not_(self.on_wrong_path(A, s, fw)), A.not_(A.select(heads, fw)))
        return fw, on, A.select([s[f"w{v}.refetch"] for v in range(self.W)], fw)

    def assume(self, A: Any, s: State, i: Mapping[str, Any]) -> Any:
        return self._allowed(A, s, i, self.fetch_facts(A, s))

    def _allowed(self, A: Any, s: State, i: Mapping[str, Any], facts: tuple[Any, Any, Any]) -> Any:
        fw, on, forced = facts
        asks = A.and_(on, A.not_(forced))  # the I-cache's answer matters
        hit_ok = A.or_(i["f.hit"], A.and_(asks, A.true if self.misses else A.false))
        delivered = A.and_(on, A.or_(forced, i["f.hit"]))
        return A.and_(super().assume(A, s, i), hit_ok,
                      A.ite(delivered, self._next_instruction(A, s, i, fw), self._canonical(A, i, hit=False)))

    def _canonical(self, A: Any, i: Mapping[str, Any], hit: bool = True) -> Any:
        same = [A.eq(i["f.cls"], A.const(CANONICAL["f.cls"])), A.not_(i["f.dep"]), A.not_(i["f.tk"])]
        return A.and_(*same, i["f.hit"]) if hit else A.and_(*same)

    def _next_instruction(self, A: Any, s: State, i: Mapping[str, Any], fw: Any) -> Any:
        """The fetched instruction is the program's next one; its dep (and tk for a branch) are free."""
        opts = []
        for w in range(self.W):
            q = s[f"q{w}"]
            cls = A.select([A.const(c) for c in self.prog[w]] + [A.const(CANONICAL["f.cls"])], q)
            tk_free = A.and_(A.true if self.branches else A.false, A.eq(cls, A.const(CLASS_INDEX["branch"])))
            ok = A.and_(A.eq(i["f.cls"], cls), A.implies(i["f.dep"], A.true if self.deps else A.false),
                        A.implies(i["f.tk"], tk_free))
            opts.append(A.and_(A.eq(fw, A.const(w)), ok))
        return A.any_(opts)

    def step(self, A: Any, s: State, i: Mapping[str, Any]) -> State:
        fw, on, forced = self.fetch_facts(A, s)
        delivered = A.and_(on, A.or_(forced, i["f.hit"]))
        out = super().step(A, s, i)
        for w in range(self.W):
            more = A.and_(delivered, A.eq(fw, A.const(w)))
            out[f"q{w}"] = A.min(A.add(s[f"q{w}"], A.ite(more, A.const(1), A.const(0))), A.const(len(self.prog[w])))
        return out

    # -- what the search asks ---------------------------------------------------
    def kernel_done(self, A: Any, s: State, k: int) -> Any:
        """Every warp of kernel ``k`` has exited (its exit issued at an earlier cycle)."""
        return A.all_([s[f"w{w}.done"] for w in range(self.W) if self.kow[w] == k])

    def choices(self, A: Any, s: State) -> list[dict[str, Any]]:
        """Every input the model allows in concrete state ``s`` (A: a concrete algebra), no-stall first."""
        nxt = {self.prog[w][min(s[f"q{w}"], len(self.prog[w]) - 1)] for w in range(self.W)}
        cands = [{"f.cls": c, "f.dep": d, "f.tk": t, "f.hit": h} for h in (True, False) for d in (False, True)
                 for t in (False, True) for c in sorted(nxt | {CANONICAL["f.cls"]})]
        facts = self.fetch_facts(A, s)
        return [i for i in cands if self._allowed(A, s, i, facts) is True]

    def lemmas(self, A: Any, s: State) -> dict[str, Any]:
        return {}


def _check(programs: Sequence[Sequence[str]], kow: Sequence[int]) -> None:
    """One-line errors for programs the search cannot take."""
    kernels = max(kow) + 1
    if len(programs) != kernels:
        raise ConfigError(f"{len(programs)} program(s) for {kernels} kernel(s); give one program per kernel")
    for k, prog in enumerate(programs):
        for c in prog:
            if c not in CLASSES or c in ("nop", "exit"):
                raise ConfigError(f"instruction class {c!r} in the program of K{k + 1} is not allowed; "
                                  f"use one of {', '.join(x for x in CLASSES if x not in ('nop', 'exit'))}")
