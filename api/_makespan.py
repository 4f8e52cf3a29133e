"""Worst-case makespan search: the exact worst case of W warps running one kernel, with its schedule and bounds."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from warpcheck.cli.makespan.auto import auto_exact
from warpcheck.cli.makespan.cert import CERTIFYING, certificate as build_certificate, write
from warpcheck.cli.makespan.methods import exact as run_exact
from warpcheck.cli.makespan.verbs import AUTO_BUDGET, AUTO_RESERVE, METHODS
from warpcheck.models.errors import ConfigError, KitError
from warpcheck.models.makespan.kernel import check_warps, parse_kernel, parse_sigmas, pessimistic, transform
from warpcheck.models.makespan.schedule import Schedule
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check
from warpcheck.spec.makespan.reference import reference_kernel
from warpcheck.spec.makespan.replay import replay_issue

__all__ = ["makespan", "MakespanResult"]


@dataclass
class MakespanResult:
    """The worst-case makespan found: ``makespan`` (cycles), ``exact`` (proved the worst), the bounds and the run.

    ``upper`` is the least upper bound proved (the makespan itself when
    exact); ``schedule`` a work-conserving run that reaches ``makespan``
    (replayed by an independent checker before it is returned);
    ``certificate`` the checked certificate of an exact answer, when asked.
    """

    kernel: str
    warps: int
    sigma: dict[str, str]
    makespan: int | None
    exact: bool
    upper: int | None
    method: str
    note: str
    seconds: float
    pessimistic: int
    schedule: Schedule | None = field(repr=False, default=None)
    certificate: dict[str, Any] | None = field(repr=False, default=None)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the schedule as issue cycles per warp)."""
        out = {k: getattr(self, k) for k in ("kernel", "warps", "sigma", "makespan", "exact", "upper", "method",
                                             "note", "pessimistic")}
        out["seconds"] = round(self.seconds, 3)
        out["schedule"] = self.schedule.to_json() if self.schedule else None
        return out


def makespan(kernel: str, warps: int, sigma: Mapping[str, Any] | None = None, timeout: float | None = None,
             method: str = "auto", certificate: bool | str = False,
             progress: Callable[[str], None] | None = None) -> MakespanResult:
    """The exact worst-case makespan of ``warps`` warps running ``kernel`` on a work-conserving SM.

    ``kernel`` is one letter per instruction, its unit (``"LLCLL"``; ``C4``
    holds unit C four cycles, ``C4p`` pipelined); ``sigma`` maps each unit to
    its issue rate (``{"L": 1, "C": "1/2"}``; a unit left out has rate 1);
    ``method`` one of ``warpcheck makespan --method``'s.  When ``timeout``
    runs out the best run is returned with ``exact=False`` (a lower bound) and
    ``upper`` the least bound proved.  ``certificate=True`` (or a file path to
    write it to) builds and checks the certificate of an exact answer.
    """
    if method not in METHODS or method in ("approx", "pessimistic"):
        raise ConfigError(f"method = {method!r} is not an exact method; choose one of: "
                          f"{', '.join(m for m in METHODS if m not in ('approx', 'pessimistic'))}")
    if certificate and method not in CERTIFYING:
        raise ConfigError(f"a certificate comes from the methods {', '.join(CERTIFYING)}, not {method!r}")
    if timeout is not None and not timeout > 0:
        raise ConfigError(f"timeout = {timeout!r} must be a positive number of seconds (or None)")
    if not isinstance(kernel, str):
        raise ConfigError(f"kernel = {kernel!r} must be a string of unit letters, e.g. 'LLCLL'")
    check_warps(warps)
    sig = {str(u): str(v) for u, v in (sigma or {}).items()}
    k = _kernel(kernel, sig)
    t0 = time.monotonic()
    if method == "auto":
        method, out = auto_exact(k, warps, t0 + AUTO_RESERVE * (timeout or AUTO_BUDGET), progress)
    else:
        out = run_exact(method, k, warps, timeout, progress)
    if out.schedule is not None:
        _replayed(kernel, sig, out.schedule, out.makespan)
    upper = out.makespan if out.exact else (out.upper[0] if out.upper else None)
    result = MakespanResult(kernel, warps, sig, out.makespan, out.exact, upper, method, out.note,
                            time.monotonic() - t0, pessimistic(k, warps), out.schedule)
    if certificate and out.exact and out.proof is not None and out.schedule is not None:
        result.certificate = _certified(kernel, sig, warps, out.schedule, out.proof)
        if isinstance(certificate, str):
            write(certificate, result.certificate)
    return result


def _kernel(text: str, sigma: dict[str, str]) -> Any:
    instrs, sigmas = parse_kernel(text), parse_sigmas(f"{u}={v}" for u, v in sigma.items())
    stray = sorted(set(sigmas) - {ins.unit for ins in instrs})
    if stray:
        raise ConfigError(f"sigma {stray[0]}=...: unit {stray[0]!r} is not in the kernel {text!r}")
    return transform(instrs, sigmas)


def _replayed(kernel: str, sigma: dict[str, str], schedule: Schedule, value: int | None) -> None:
    """The run must replay on the checker's own reading of the kernel, at the makespan claimed."""
    r = replay_issue(reference_kernel(kernel, sigma), schedule.issue)
    if not r.ok or r.makespan != value:
        raise KitError(f"internal error: the schedule found does not replay ({r.problem or r.makespan}); "
                       "a bug of warpcheck")


def _certified(kernel: str, sigma: dict[str, str], warps: int, schedule: Schedule, proof: Any) -> dict[str, Any]:
    cert = build_certificate(kernel, sigma, warps, schedule, proof)
    try:
        check(cert)
    except CertificateRefused as e:
        raise KitError(f"internal error: the certificate does not hold: {e}") from None
    return cert
