"""The options of ``warpcheck makespan`` (and of :func:`warpcheck.makespan`): one record, checked once.

Every field is named like the verb's option (``loop_bound`` is ``--loop-bound``) and its default is stated
here only; the command line builds the same record from argv, a script from keywords.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from warpcheck._values import (DEFAULT_MEMORY_GIB, distinct_paths, gib, one_of, optional_integer, path, seconds, settle,
                               text, whole)
from warpcheck.models.errors import ConfigError, OptionError
from warpcheck.models.limits import MAX_LOOP_BOUND
from warpcheck.models.makespan.kernel import parse_kernel, parse_sigmas

METHODS = ("auto", "interval", "blocks", "block-ranking", "deficit", "ranking", "smt", "optimize", "ilp", "enumerate",
           "approx", "pessimistic")
ESTIMATES = ("approx", "pessimistic")  # the paper's estimates: never exact, no search
CERTIFYING = ("auto", "interval", "enumerate", "blocks", "block-ranking", "deficit", "ranking")
AUTO_BUDGET = 120.0  # seconds auto spends when no timeout is given: every search in it is bounded
SMT_BUDGET = 300.0  # the SMT and ILP searches stop here when no timeout is given
BOUND_BUDGET = 60.0  # blocks, block-ranking, deficit and ranking stop here when no timeout is given
ENUMERATE_BUDGET = 3600.0  # the exhaustive search has no budget of its own: the run's backstop
OWN_BUDGET = {"auto": AUTO_BUDGET, "smt": SMT_BUDGET, "optimize": SMT_BUDGET, "ilp": SMT_BUDGET,
              "enumerate": ENUMERATE_BUDGET}


@dataclass(frozen=True)
class MakespanOptions:
    """What to compute: a kernel and its warps (or a PTX entry on an SM), the method, the budget; or a check.

    ``kernel`` is one letter per instruction, its unit (``"LLCLL"``; ``C4`` holds unit C four cycles, ``C4p``
    pipelined); ``sigma`` gives every unit of the kernel its warps per cycle, as a mapping (``{"L": 1, "C":
    "1/2"}``) or as the command line's items (``["L=1", "C=1/2"]``): a unit left out is refused by name.
    ``timeout`` None is the method's own budget (auto 120 s, smt, optimize and ilp 300 s, the bound methods
    60 s, enumerate 3600 s).  ``certificate``: a file to write the checked certificate to, or True to build
    and check it only.  ``check``: a certificate file to check instead of searching.  ``ptx`` (with ``sm``,
    ``entry``, ``bounds``, ``loop_bound``, ``max_loop_bound``) builds the kernel and its sigmas from a PTX
    entry instead.  ``memory``: GiB the run and its workers may hold.
    """

    kernel: str | None = None
    warps: int | None = None
    sigma: Any = field(default_factory=dict)  # after checking: dict unit -> sigma text, in the order given
    method: str = "auto"
    x: int | None = None  # x of the approximation T^(W,x); None: min(W, 4)
    timeout: float | None = None
    certificate: bool | str = False
    check: str | None = None
    ptx: str | None = None
    entry: str | None = None
    sm: str | None = None
    bounds: str | None = None
    loop_bound: Any = field(default_factory=dict)  # after checking: dict label -> bound
    max_loop_bound: int | None = None
    memory: float | None = DEFAULT_MEMORY_GIB

    def __post_init__(self) -> None:
        settle(self, warps=optional_integer("warps", self.warps, low=1), method=one_of("method", self.method, METHODS),
               x=optional_integer("x", self.x, low=1), timeout=seconds("timeout", self.timeout),
               certificate=_certificate(self.certificate, self.method), check=path("check", self.check),
               ptx=path("ptx", self.ptx), entry=text("entry", self.entry), sm=path("sm", self.sm),
               bounds=path("bounds", self.bounds), loop_bound=_loop_bounds(self.loop_bound),
               max_loop_bound=optional_integer("max_loop_bound", self.max_loop_bound, 0, MAX_LOOP_BOUND,
                                               "as wcet's: past it the IPET solvers' answers no longer agree"),
               memory=gib("memory", self.memory), kernel=_kernel(self.kernel), sigma=_sigmas(self.sigma))
        distinct_paths(self, inputs=("check", "ptx", "sm", "bounds"), outputs=("certificate",))
        self._needs()

    def _needs(self) -> None:
        """What goes together: a kernel with its warps, a PTX file with an SM file, a check alone."""
        if self.check is not None:
            return
        if self.ptx is not None:
            if self.kernel is not None or self.sigma:
                raise OptionError("ptx", self.ptx, "given with a kernel string and its sigmas; give either a kernel "
                                  "string with its sigmas, or a PTX file with an SM file, not both")
            if self.sm is None:
                raise OptionError("ptx", self.ptx, "needs an SM file too (sm: the SM's lanes per unit, e.g. "
                                  "examples/sm/fermi-makespan.toml for the paper's Fermi, "
                                  "examples/sm/ampere-makespan.toml for a recent SM)")
        if (self.kernel is None and self.ptx is None) or self.warps is None:
            raise ConfigError("nothing to compute: give a kernel (e.g. 'LLCLL', with a sigma per unit) or a PTX "
                              "file and an SM file, and the number of warps W; or a certificate to check")
        if self.kernel is not None:
            self._sigma_per_unit(self.kernel)

    def _sigma_per_unit(self, kernel: str) -> None:
        """Every unit of the kernel has its sigma, and every sigma its unit: one left out is refused by name."""
        units = list(dict.fromkeys(ins.unit for ins in parse_kernel(kernel)))
        missing = [u for u in units if u not in self.sigma]
        if missing:
            raise OptionError("sigma", self.sigma, f"unit {missing[0]!r} of the kernel has no sigma; give it one: "
                              f"{missing[0]}=1 (or n, or 1/n)")
        stray = [u for u in self.sigma if u not in units]
        if stray:
            raise OptionError("sigma", self.sigma, f"unit {stray[0]!r} is not in the kernel; its units: "
                              f"{', '.join(sorted(units))}")

    @property
    def budget(self) -> float:
        """The whole run's budget in seconds: ``timeout``, or the method's own when it is None."""
        return whole_run_budget(self.timeout, self.method)


def whole_run_budget(timeout: float | None, method: str | None) -> float:
    """The run's budget: ``timeout``, or when it is None the method's own, so that every run ends."""
    return float(timeout) if timeout else OWN_BUDGET.get(method or "auto", BOUND_BUDGET)


def _kernel(value: Any) -> str | None:
    """The kernel string, parsed once here so that a bad one is refused before any work."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise OptionError("kernel", value, "not a kernel string; give one letter per instruction, e.g. 'LLCLL'")
    try:
        parse_kernel(value)
    except ConfigError as e:
        raise OptionError("kernel", value, str(e)) from None
    return value


def _sigmas(value: Any) -> dict[str, str]:
    """``{"L": 1, "C": "1/2"}`` or ``["L=1", "C=1/2"]`` as unit -> sigma text, each checked (n or 1/n)."""
    if isinstance(value, Mapping):
        items = [f"{u}={v}" for u, v in value.items()]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise OptionError("sigma", value, "not a mapping of units to sigmas; give e.g. {'L': 1, 'C': '1/2'}")
    try:
        parse_sigmas(items)
    except ConfigError as e:
        raise OptionError("sigma", value, str(e)) from None
    return {u.strip(): v.strip() for u, _, v in (item.partition("=") for item in items)}


def _loop_bounds(value: Any) -> dict[str, int]:
    """``{"LOOP": 4}`` or ``["LOOP=4"]``: each bound an integer from 0 to MAX_LOOP_BOUND."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = [tuple(v.rpartition("=")[::2]) if "=" in v else (v, "") for v in value]
    else:
        raise OptionError("loop_bound", value, "not a mapping of loop labels to bounds; give e.g. {'LOOP': 4}")
    out: dict[str, int] = {}
    for name, bound in items:
        n = whole(bound)
        if not isinstance(name, str) or not name or n is None or not 0 <= n <= MAX_LOOP_BOUND:
            raise OptionError("loop_bound", value, f"{name}={bound} is not LABEL=N with N from 0 to {MAX_LOOP_BOUND}")
        out[name] = n
    return out


def _certificate(value: Any, method: Any) -> bool | str:
    """True (build and check it), False, or the file to write it to; only methods that prove a bound give one."""
    if value is None or value is False:
        return False
    if value is not True:
        value = path("certificate", value, optional=False)
    if method not in CERTIFYING:
        raise OptionError("certificate", value, f"a certificate comes from the methods {', '.join(CERTIFYING)}, "
                          f"not from method {method!r}")
    return value
