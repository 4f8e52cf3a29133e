"""Broken copies of the makespan design (transform, machine, moves, bounds, PTX roles), one single-point bug each.

A mutant names the design objects it replaces (``"kernel.transform"``,
``"sm.CountSM"``, ``"moves.CountMoves"``: a module of ``models/makespan`` and a
name in it) and an instance small enough to enumerate, on which the bug
changes what the searches answer.  ``api/_makespan/mutation.py`` puts the
replacements in place wherever the searches took those names, runs a search,
and judges its answer with the certificate checker and the reference
enumeration (``sim/makespan/``), which import none of these objects.  A
mutant of the PTX roles (``"ptx_units.role_of"``) names an example PTX entry
instead; it is judged by the reference reading of that entry
(``spec/makespan/ptx_roles.py``, through ``api/_makespan/ptx_check.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

from warpcheck.models.errors import ConfigError
from warpcheck.models.kernels.kernel import Instruction
from warpcheck.models.makespan.alternation import alternation_bound, critical_warp_bound
from warpcheck.models.makespan.closed import time_horizon
from warpcheck.models.makespan.kernel import MkInstr, MkKernel, pessimistic, transform
from warpcheck.models.makespan.moves import CountMoves, Key
from warpcheck.models.makespan.pairs import pair_bound, pairs
from warpcheck.models.makespan.ptx_units import role_of
from warpcheck.models.makespan.sm import CountSM, Phase


def _transform_copies(extra: int) -> Any:
    """The transform, writing n + extra copies of every instruction of a unit with sigma 1/n (n > 1)."""

    def patched(instrs: tuple[MkInstr, ...], sigma: Mapping[str, Fraction]) -> MkKernel:
        k = transform(instrs, sigma)
        out: list[MkInstr] = []
        for ins in instrs:
            n = sigma[ins.unit].denominator
            out += [ins] * (n + extra if n > 1 else n)
        return MkKernel(tuple(out), k.sigma)
    return patched


def _transform_sigma_rounded_up(instrs: tuple[MkInstr, ...], sigma: Mapping[str, Fraction]) -> MkKernel:
    """The transform taking sigma 1/n as 1 (rounded up) and writing one copy."""
    return transform(instrs, {u: Fraction(1) if v < 1 else v for u, v in sigma.items()})


def _transform_pipelined_copies_wait(instrs: tuple[MkInstr, ...], sigma: Mapping[str, Fraction]) -> MkKernel:
    """The transform writing n whole copies of a pipelined instruction (each waits its full latency)."""
    k = transform(instrs, sigma)
    out = [c for ins in instrs for c in [ins] * sigma[ins.unit].denominator]
    return MkKernel(tuple(out), k.sigma)


class UnitReleasedEarly(CountSM):
    """A non-pipelined instruction frees its unit slot one cycle before it ends."""

    def holds_slot(self, p: int) -> bool:
        ph = self.phases[p]
        return super().holds_slot(p) and ph.stage < self.kernel.instrs[ph.instr].latency - 1


class PipelinedHoldsUnit(CountSM):
    """A pipelined instruction keeps its unit slot for its whole latency."""

    def holds_slot(self, p: int) -> bool:
        return self.phases[p].stage > 0


class LatencyOneLong(CountSM):
    """Every multi-cycle instruction gets one busy phase more than its latency."""

    def __init__(self, kernel: MkKernel, warps: int) -> None:
        super().__init__(kernel, warps)
        out: list[Phase] = []
        for i, ins in enumerate(kernel.instrs):
            out += [Phase(i, k) for k in range(ins.latency + (ins.latency > 1))]
        self.phases = tuple(out) + (Phase(-1),)
        self.done = len(self.phases) - 1
        self.waits = [p for p, ph in enumerate(self.phases) if ph.is_wait]
        self._is_wait = [ph.is_wait for ph in self.phases]


class OneMoreIssue(CountMoves):
    """Every unit lets one warp more than its free slots issue (two warps on a unit of sigma 1)."""

    def __init__(self, sm: CountSM) -> None:
        super().__init__(sm)
        self.units = [(sm.kernel.sigma_of(u) + 1, sm.waits_on(u), sm.holders_on(u)) for u in sm.kernel.units]


class MayIdle(CountMoves):
    """Not work-conserving: a unit may also issue one warp fewer than min(free slots, ready warps).

    Only while some other warp still moves: a cycle in which nothing moves
    would make the worst case infinite, a bug the search would hang on.
    """

    def successors(self, k: Key) -> list[tuple[tuple[tuple[int, int], ...], Key]]:
        out = super().successors(k)
        for moves, nxt in list(out):
            if moves:
                p, a = moves[0]
                fewer = ((p, a - 1),) * (a > 1) + moves[1:]
                back = list(nxt)
                back[p], back[p + 1] = back[p] + 1, back[p + 1] - 1
                if tuple(back) != k:
                    out.append((fewer, tuple(back)))
        return out


class BusyWarpStalls(CountMoves):
    """A busy warp in its first busy phase may stay there a cycle while some other warp moves."""

    def successors(self, k: Key) -> list[tuple[tuple[tuple[int, int], ...], Key]]:
        out = super().successors(k)
        first = [p for p in self.busy if self.sm.phases[p].stage == 1 and k[p]]
        for moves, nxt in list(out):
            for p in first[:1]:
                stay = list(nxt)
                stay[p], stay[p + 1] = stay[p] + 1, stay[p + 1] - 1
                if tuple(stay) != k:
                    out.append((moves, tuple(stay)))
        return out


def _alternation_without_tail(kernel: MkKernel, warps: int) -> int | None:
    """The alternation bound without its last min(W, sigma_max) P cycles (the few warps left at the end)."""
    full = alternation_bound(kernel, warps)
    if full is None:
        return None
    return full - (min(warps, max(s for _, s in kernel.sigma)) * len(kernel.instrs) + 2) // 3


def _alternation_final_is_exit(kernel: MkKernel, warps: int) -> int | None:
    """The alternation bound counting a warp's last phase as an exit (it finishes: no unit follows it)."""
    full = alternation_bound(kernel, warps)
    if full is None:
        return None
    units = [i.unit for i in kernel.instrs]
    stay = sum(1 for p in range(len(units) - 1) if units[p + 1] == units[p])
    tail = min(warps, max(s for _, s in kernel.sigma)) * len(units)
    return (2 * warps * len(units) + warps * stay + tail) // 3


def _pairs_overlapping(kernel: MkKernel, warps: int) -> int | None:
    """The pair bound counting every two neighbours on different units as a pair, overlapping ones too."""
    if pair_bound(kernel, warps) is None:
        return None
    units = [i.unit for i in kernel.instrs]
    overlapping = sum(1 for p in range(len(units) - 1) if units[p] != units[p + 1])
    return len(units) + (warps - 1) * (len(units) - overlapping)


def _pairs_same_unit(kernel: MkKernel, warps: int) -> int | None:
    """The pair bound pairing two neighbours on one unit of sigma 1 as well (that unit serves one warp a cycle)."""
    if pair_bound(kernel, warps) is None:
        return None
    units = [i.unit for i in kernel.instrs]
    return len(units) + (warps - 1) * (len(units) - pairs(units, {u: 2 for u in units}))


def _pairs_ignoring_latencies(kernel: MkKernel, warps: int) -> int:
    """The pair bound taken on kernels with latencies too, one cycle per instruction (it is proved for one-cycle
    kernels only)."""
    units = [i.unit for i in kernel.instrs]
    return len(units) + (warps - 1) * (len(units) - pairs(units, dict(kernel.sigma)))


def _pessimistic_on_wide_units(kernel: MkKernel, warps: int) -> int:
    """Eq. 5-7 taken as an upper bound with a unit of sigma 2 or more too (the paper's count, not a bound there)."""
    return pessimistic(kernel, warps)


def _critical_warp_without_own_cycles(kernel: MkKernel, warps: int) -> int:
    """The critical warp's bound without the warp's own cycles (only its waits)."""
    return critical_warp_bound(kernel, warps) - sum(ins.latency for ins in kernel.instrs)


def _critical_warp_one_warp_short(kernel: MkKernel, warps: int) -> int:
    """The critical-warp bound counting W - 2 other warps filling the last warp's units, not W - 1."""
    return critical_warp_bound(kernel, max(1, warps - 1))


def _horizon_one_short(kernel: MkKernel, warps: int) -> int:
    """The ILP's horizon one cycle short of the least closed bound: the longest run may be cut off."""
    return time_horizon(kernel, warps) - 1


def _role_sfu_as_float(ins: Instruction) -> str:
    """The roles with the special-function classes (fdiv, fsqrt) among the float ones."""
    r = role_of(ins)
    return ("fp64" if (ins.dtype or "").endswith("f64") else "float") if r == "sfu" else r


def _role_fp64_as_float(ins: Instruction) -> str:
    """The roles without the .f64 test: double-precision arithmetic and conversions are float."""
    r = role_of(ins)
    return "float" if r == "fp64" else r


def _role_copy_waits_as_ldst(ins: Instruction) -> str:
    """The roles taking every opcode that starts with cp.async as a copy: its commit and waits are ldst too."""
    return "ldst" if ins.opcode.startswith("cp.async") else role_of(ins)


def _role_fragments_as_tensor(ins: Instruction) -> str:
    """The roles testing the tensor-core latency classes before memory: fragment loads and stores are tensor."""
    return "tensor" if ins.unit in ("tensor", "matrix") else role_of(ins)


def _role_float_compare_as_int(ins: Instruction) -> str:
    """The roles taking every compare (setp, set) as int, on floats too."""
    return "int" if ins.base in ("setp", "set") else role_of(ins)


def _ptx(file: str, sm: str, **extra: Any) -> dict[str, Any]:
    """The makespan options (``ptx``, ``sm``, ``bounds``, ...) of an example PTX file on an example SM (``fermi`` or
    ``ampere``)."""
    return {"ptx": f"examples/{file}", "sm": f"examples/sm/{sm}-makespan.toml", **extra}


@dataclass(frozen=True)
class Mutant:
    """A named single-point bug: what it breaks, the design objects it replaces, and an instance that shows it."""

    name: str
    breaks: str
    patches: Mapping[str, Any]  # "module.name" under models/makespan -> the replacement
    kernel: str
    sigma: Mapping[str, str] = field(default_factory=dict)
    warps: int = 3
    equivalent: bool = False
    method: str = "enumerate"  # the search the harness runs; "interval": the anytime interval (api/_makespan/interval.py);
    # "auto", "ilp", ...: the verb's method, its answer given the proof the verb checks (api/_makespan/search.py)
    ptx: Mapping[str, Any] = field(default_factory=dict)  # method "ptx-roles": the options ptx, sm, ... (no search)


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    Mutant("transform-n-plus-1", "transform: an instruction of a unit with sigma 1/n becomes n + 1 copies",
           {"kernel.transform": _transform_copies(1)}, "LC", {"L": "1/2", "C": "1"}),
    Mutant("transform-n-minus-1", "transform: an instruction of a unit with sigma 1/n becomes n - 1 copies",
           {"kernel.transform": _transform_copies(-1)}, "LCL", {"L": "1/3", "C": "1"}),
    Mutant("sigma-rounded-up", "transform: sigma 1/n is rounded up to 1 instead of writing n copies",
           {"kernel.transform": _transform_sigma_rounded_up}, "LLC", {"L": "1/2", "C": "1"}),
    Mutant("pipelined-copies-wait", "transform: every copy of a pipelined instruction waits its full latency",
           {"kernel.transform": _transform_pipelined_copies_wait}, "C3p L", {"C": "1/2", "L": "1"}, warps=2),
    Mutant("unit-released-early", "machine: a non-pipelined unit is released one cycle early",
           {"sm.CountSM": UnitReleasedEarly}, "C2 L", {"C": "1", "L": "1"}),
    Mutant("pipelined-holds-unit", "machine: a pipelined instruction holds its unit for its whole latency",
           {"sm.CountSM": PipelinedHoldsUnit}, "C3p L", {"C": "1", "L": "1"}),
    Mutant("latency-one-long", "machine: a multi-cycle instruction runs one cycle more than its latency",
           {"sm.CountSM": LatencyOneLong}, "L C3p", {"C": "1", "L": "1"}, warps=2),
    Mutant("two-warps-one-unit", "moves: a unit lets one warp more than its free slots issue",
           {"moves.CountMoves": OneMoreIssue}, "LLCLL", {"L": "1", "C": "1"}),
    Mutant("may-idle", "moves: a unit may leave a ready warp idle with a slot free (not work-conserving)",
           {"moves.CountMoves": MayIdle}, "LLCLL", {"L": "1", "C": "1"}),
    Mutant("busy-warp-stalls", "moves: a busy warp may stay in its phase for a cycle",
           {"moves.CountMoves": BusyWarpStalls}, "L C3 L", {"L": "1", "C": "2"}),
    Mutant("alternation-no-tail", "alternation bound: the cycles with at most sigma_max warps left are not counted",
           {"alternation.alternation_bound": _alternation_without_tail}, "LLCLL", {"L": "1", "C": "1"},
           method="interval"),
    Mutant("alternation-final-is-exit", "alternation bound: a warp's last phase is counted as an exit",
           {"alternation.alternation_bound": _alternation_final_is_exit}, "L", {"L": "1"}, method="interval"),
    Mutant("critical-warp-waits-only", "critical-warp bound: the last warp's own cycles are left out",
           {"alternation.critical_warp_bound": _critical_warp_without_own_cycles}, "L C3p", {"L": "2", "C": "1"},
           method="interval"),
    Mutant("critical-warp-one-warp-short", "critical-warp bound: W - 2 other warps fill the last warp's units, not W - 1",
           {"alternation.critical_warp_bound": _critical_warp_one_warp_short}, "LL", {"L": "2"}, warps=4,
           method="auto"),
    Mutant("ilp-horizon-one-short", "ILP: its horizon one cycle short of the least closed bound",
           {"closed.time_horizon": _horizon_one_short}, "LL", {"L": "2"}, warps=4, method="ilp"),
    Mutant("pessimistic-on-wide-units", "Eq. 5-7 bound: taken as a bound where a unit serves two warps a cycle",
           {"kernel.pessimistic_bound": _pessimistic_on_wide_units}, "LL", {"L": "2"}, warps=4, method="interval"),
    Mutant("pairs-overlapping", "pair bound: overlapping neighbours on different units counted as pairs",
           {"pairs.pair_bound": _pairs_overlapping}, "LCL", {"L": "1", "C": "1"}, method="interval"),
    Mutant("pairs-same-unit", "pair bound: two neighbours on one unit of sigma 1 counted as a pair",
           {"pairs.pair_bound": _pairs_same_unit}, "LLCLL", {"L": "1", "C": "1"}, method="interval"),
    Mutant("pairs-ignoring-latencies", "pair bound: applied to a kernel with latencies, one cycle per instruction",
           {"pairs.pair_bound": _pairs_ignoring_latencies}, "L C3", {"L": "1", "C": "1"}, method="interval"),
    Mutant("ptx-sfu-as-float", "PTX roles: special functions (rcp, ex2, div on floats) run on the float unit",
           {"ptx_units.role_of": _role_sfu_as_float}, "", method="ptx-roles",
           ptx=_ptx("kernels/backprop.ptx", "fermi", bounds="examples/kernels/backprop.toml")),
    Mutant("ptx-fp64-as-float", "PTX roles: the .f64 test dropped, double precision runs on the float unit",
           {"ptx_units.role_of": _role_fp64_as_float}, "", method="ptx-roles",
           ptx=_ptx("corpus/dmath.ptx", "fermi", entry="_Z6growthPdPKdii", max_loop_bound=4)),
    Mutant("ptx-copy-waits-as-ldst", "PTX roles: cp.async.commit_group and the waits go to the load/store unit",
           {"ptx_units.role_of": _role_copy_waits_as_ldst}, "", method="ptx-roles",
           ptx=_ptx("kernels/wmma_gemm.ptx", "ampere", max_loop_bound=4)),
    Mutant("ptx-fragments-as-tensor", "PTX roles: wmma fragment loads and stores run on the tensor core",
           {"ptx_units.role_of": _role_fragments_as_tensor}, "", method="ptx-roles",
           ptx=_ptx("kernels/wmma_gemm.ptx", "ampere", max_loop_bound=4)),
    Mutant("ptx-float-compare-as-int", "PTX roles: a compare on floats (setp.f32) runs on the integer unit",
           {"ptx_units.role_of": _role_float_compare_as_int}, "", method="ptx-roles",
           ptx=_ptx("kernels/kmeans.ptx", "ampere", bounds="examples/kernels/kmeans.toml")),
]}


def mutant(name: str) -> Mutant:
    """The mutant called ``name``, or a ConfigError listing the known ones."""
    if name not in MUTANTS:
        raise ConfigError(f"unknown makespan mutant {name!r}; known: {', '.join(MUTANTS)}")
    return MUTANTS[name]
