"""Native simulation: the traced step, feeder and metrics compiled to machine code with numba.

The front end's ``step``, ``fetch_choice``, ``issue_choice`` and the two
oracles are traced together into one DAG (:class:`~warpcheck.sim.frontend.compiled.TraceAlgebra`,
so they share subexpressions), emitted as straight-line code over int64
locals (a bool is 0 or 1), and wrapped in a loop that runs each lane of a
batch to completion: per cycle, the choices from the state, the driver's
feeder rule (the same as :class:`~warpcheck.sim.frontend.driver.Feeder` and
:class:`~warpcheck.sim.frontend.batch.BatchFeeder`), the metrics, then the step.
numba is optional (``pip install warpcheck[fast]``); ``available()`` says
whether it is there.  Tests compare every figure with the concrete simulator.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from warpcheck.encodings.numpy_algebra import NumpyAlgebra
from warpcheck.models.files import atomic_write_text
from warpcheck.models.frontend.design import NOP_CLS, FrontEnd
from warpcheck.models.frontend.oracles import osched1_choice, osched2_choice
from warpcheck.sim.frontend.batch import BatchFeeder, initial_params
from warpcheck.sim.frontend.compiled import Ref, TraceAlgebra, _is_ref
from warpcheck.sim.frontend.workloads import WorkloadSource

CACHE_ENV = "WARPCHECK_CACHE_DIR"

HELPERS = '''
@njit(cache=CACHE)
def _sel(t, i):
    return t[i] if 0 <= i < len(t) else t[len(t) - 1]

@njit(cache=CACHE)
def _first_true(t, none):
    for j in range(len(t)):
        if t[j]:
            return j
    return none

@njit(cache=CACHE)
def _first_from(t, start, none):
    n = len(t)
    if start < 0 or start >= n:
        return none
    for j in range(n):
        k = (start + j) % n
        if t[k]:
            return k
    return none

@njit(cache=CACHE)
def _argmin_true(bits, keys, none):
    best = none
    bk = 0
    found = False
    for j in range(len(bits)):
        if bits[j] and (not found or keys[j] < bk):
            best = j
            bk = keys[j]
            found = True
    return best
'''


def available() -> bool:
    """Whether numba can be imported."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _c(x: Any) -> str:
    if _is_ref(x):
        return f"t{x.n}"
    return str(int(x))


def _tuple(xs: Sequence[Any]) -> str:
    return "(" + ", ".join(_c(x) for x in xs) + ",)"


def _expr(op: str, args: tuple[Any, ...], extra: Any) -> str:
    a = [_tuple(x) if isinstance(x, tuple) else _c(x) for x in args]
    # Branch-free forms: numba's SSA pass recurses once per basic block.
    simple = {"add": "{0} + {1}", "sub": "{0} - {1}", "eq": "int({0} == {1})",
              "lt": "int({0} < {1})", "le": "int({0} <= {1})", "not_": "(1 - {0})",
              "ite": "({2} + ({1} - {2}) * {0})", "max": "max({0}, {1})",
              "min": "min({0}, {1})", "dec_sat": "max({0} - 1, 0)"}
    if op in simple:
        return simple[op].format(*a)
    if op in ("and_", "or_"):
        return "(" + (" & " if op == "and_" else " | ").join(a) + ")"
    if op == "count":
        return "(0 + " + " + ".join(_c(x) for x in args[0]) + ")"
    if op == "select":
        return f"_sel({a[0]}, {a[1]})"
    if op == "first_true":
        return f"_first_true({a[0]}, {extra})"
    if op == "first_from":
        return f"_first_from({a[0]}, {a[1]}, {extra})"
    if op == "argmin_true":
        return f"_argmin_true({a[0]}, {a[1]}, {extra})"
    raise ValueError(f"no native code for {op!r}")


class NativeFrontEnd:
    """One configuration's lane loop, compiled on first use."""

    def __init__(self, fe: FrontEnd) -> None:
        self.fe = fe
        self.state_names = [v.name for v in fe.state_vars()]
        self.source = self._generate()
        self._fn: Any = None

    def _trace(self) -> tuple[TraceAlgebra, dict[str, Any], set[int]]:
        fe, T = self.fe, TraceAlgebra()
        s = {n: T.var(f"s:{n}", "int") for n in self.state_names}
        i = {v.name: T.var(f"i:{v.name}", v.kind) for v in fe.input_vars()}
        outs: dict[str, Any] = {"fw": fe.fetch_choice(T, s), "iw": fe.issue_choice(T, s),
                                "o1": osched1_choice(fe, T, s), "o2": osched2_choice(fe, T, s)}
        outs["head"] = T.select([s[f"w{w}.b0.cls"] for w in range(fe.W)], outs["iw"])
        outs["done"] = T.and_(*[s[f"w{w}.done"] for w in range(fe.W)])
        outs["pend"] = T.node("tuple", (tuple(s[f"w{w}.pend"] for w in range(fe.W)),))
        outs["refetch"] = T.node("tuple", (tuple(s[f"w{w}.refetch"] for w in range(fe.W)),))
        nxt = fe.step(T, s, i)
        outs.update({f"n:{k}": v for k, v in nxt.items()})
        inputs = {r.n for r in i.values()}
        return T, outs, inputs

    def _generate(self) -> str:
        T, outs, input_nodes = self._trace()
        core_outs = {k: v for k, v in outs.items() if k not in ("o1", "o2")}
        need, late = self._needed(T, core_outs, input_nodes)
        need_oracles, _ = self._needed(T, {"o1": outs["o1"], "o2": outs["o2"]}, input_nodes)
        early_lines, late_lines = [self._line(T, n) for n in sorted(need) if n not in late], []
        late_lines = [self._line(T, n) for n in sorted(late)]
        oracle_lines = [self._line(T, n) for n in sorted(need_oracles - need)]
        k = len(self.state_names)
        load = "; ".join(f"s{j} = S[e, {j}]" for j in range(k))
        new = ", ".join(f"s{j}" for j in range(k))
        nxt = ", ".join(_c(outs[f"n:{name}"]) for name in self.state_names)
        store = "; ".join(f"S[e, {j}] = s{j}" for j in range(k))
        ind = " " * 12
        return (HELPERS + f'''
@njit(cache=CACHE)
def run_lanes(S, PC, CLS, DEP, TK, WARM, POS, MISSED, TAGS, LINES, LSIZE, PLEN, MAXC, ORACLES, OUT):
    for e in range(S.shape[0]):
        {load}
        cycles = 0; issued = 0; nops = 0; disc = 0; err = 0; finished = 0
        for t in range(MAXC + 1):
{ind}{(chr(10) + ind).join(early_lines)}
{ind}if {_c(outs["done"])}:
{ind}    finished = 1
{ind}    break
{ind}if t == MAXC:
{ind}    break
{ind}fw = {_c(outs["fw"])}
{ind}f_cls = 1; f_dep = 0; f_tk = 0; f_hit = 1
{ind}if fw >= 0 and not _sel({_c(outs["pend"])}, fw):
{ind}    at = min(WARM[e, fw] + POS[e, fw], PLEN)
{ind}    missed = MISSED[e, fw]
{ind}    pc = PC[e, fw, at]
{ind}    cache_hit = 1
{ind}    if missed == 0 and pc >= 0:
{ind}        block = pc // LSIZE
{ind}        slot = block % LINES
{ind}        cache_hit = 1 if TAGS[e, slot] == block else 0
{ind}        TAGS[e, slot] = block
{ind}    f_hit = 1 if (_sel({_c(outs["refetch"])}, fw) or missed or cache_hit) else 0
{ind}    if f_hit:
{ind}        POS[e, fw] += 1
{ind}        MISSED[e, fw] = 0
{ind}    else:
{ind}        MISSED[e, fw] = 1
{ind}    f_cls = CLS[e, fw, at]; f_dep = DEP[e, fw, at]; f_tk = TK[e, fw, at]
{ind}iw = {_c(outs["iw"])}
{ind}if iw >= 0:
{ind}    if {_c(outs["head"])} == {NOP_CLS}:
{ind}        nops += 1
{ind}    else:
{ind}        issued += 1
{ind}if ORACLES:
{ind}    {(chr(10) + ind + "    ").join(oracle_lines) or "pass"}
{ind}    disc += 1 if iw != {_c(outs["o1"])} else 0
{ind}    err += 1 if iw != {_c(outs["o2"])} else 0
{ind}cycles = t + 1
{ind}{(chr(10) + ind).join(late_lines)}
{ind}{new} = {nxt}
        {store}
        OUT[e, 0] = cycles; OUT[e, 1] = issued; OUT[e, 2] = nops; OUT[e, 3] = disc; OUT[e, 4] = err
        OUT[e, 5] = finished
''')

    def _line(self, T: TraceAlgebra, n: int) -> str:
        op, args, extra = T.nodes[n]
        if op == "var":
            src, name = extra.split(":", 1)
            return f"t{n} = s{self.state_names.index(name)}" if src == "s" else f"t{n} = {name.replace('.', '_')}"
        if op == "tuple":
            return f"t{n} = {_tuple(args[0])}"
        return f"t{n} = {_expr(op, args, extra)}"

    @staticmethod
    def _needed(T: TraceAlgebra, outs: dict[str, Any], input_nodes: set[int]) -> tuple[set[int], set[int]]:
        """Nodes the outputs need, and those that depend on the cycle's inputs (emitted after the feeder)."""
        need: set[int] = set()
        stack = [x for x in outs.values() if isinstance(x, Ref)]
        while stack:
            r = stack.pop()
            if r.n not in need:
                need.add(r.n)
                for a in T.nodes[r.n][1]:
                    stack += [y for y in (a if isinstance(a, tuple) else (a,)) if isinstance(y, Ref)]
        late: set[int] = set()
        for n in sorted(need):
            args = T.nodes[n][1]
            flat = [y for a in args for y in (a if isinstance(a, tuple) else (a,)) if isinstance(y, Ref)]
            if n in input_nodes or any(y.n in late for y in flat):
                late.add(n)
        return need, late

    def function(self) -> Any:
        """The compiled lane loop (numba compiles it on the first call).

        With ``WARPCHECK_CACHE_DIR`` set, the generated module is written
        there (named by its hash) and numba keeps its machine code beside it,
        so a later process skips the compile (minutes at W = 32).
        """
        if self._fn is None:
            cache = os.environ.get(CACHE_ENV)
            self._fn = self._load_cached(Path(cache)) if cache else self._load_fresh()
        return self._fn

    def _load_fresh(self) -> Any:
        from numba import njit
        env: dict[str, Any] = {"njit": njit, "CACHE": False}
        exec(compile(self.source, f"<native {self.fe.name}>", "exec"), env)  # noqa: S102 - generated here
        return env["run_lanes"]

    def _load_cached(self, folder: Path) -> Any:
        text = "from numba import njit\nCACHE = True\n" + self.source
        digest = hashlib.sha256(text.encode()).hexdigest()[:20]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"warpcheck_native_{digest}.py"
        if not path.exists():
            atomic_write_text(path, text, "native module cache")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load the generated module {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # numba's cache re-imports the module by name
        spec.loader.exec_module(module)
        return module.run_lanes

    def run(self, sources: Sequence[WorkloadSource], max_cycles: int, oracles: bool = True) -> np.ndarray:
        """Run every lane to completion (or ``max_cycles``): rows of (cycles, issued, nops, disc, err, finished)."""
        fe, n = self.fe, len(sources)
        A = NumpyAlgebra(n)
        s0 = fe.init(A, initial_params(fe, sources))
        S = np.empty((n, len(self.state_names)), dtype=np.int64)
        for j, name in enumerate(self.state_names):
            S[:, j] = s0[name]
        f = BatchFeeder(fe, A, sources, fetch_choice=lambda s: -1)
        out = np.zeros((n, 6), dtype=np.int64)
        self.function()(S, f.pc, f.cls.astype(np.int64), f.dep.astype(np.int64), f.tk.astype(np.int64),
                        f.warm, f.pos, f.missed.astype(np.int64), f.tags, f.lines, f.line_size, f.L,
                        max_cycles, oracles, out)
        self.final_states = S
        return out
