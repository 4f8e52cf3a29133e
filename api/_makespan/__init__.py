"""Worst-case makespan search: the exact worst case of W warps running one kernel, with its schedule and bounds.

One path for the verb and for scripts: :func:`makespan` (``warpcheck.makespan``) builds a
:class:`MakespanOptions` record from its keywords and :func:`run` answers it, as ``warpcheck makespan``
does from its arguments.  The modules: ``options`` (the record), ``search`` (the orchestration),
``methods``, ``auto`` and ``interval`` (the searches), ``certificate`` (writing and checking
certificates), ``ptx`` (a kernel from a PTX entry), ``result`` (what is returned), and the mutation
harness (``mutation``, ``ptx_check``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, overload

from warpcheck import _guard as guard
from warpcheck._lazy import lazy_names
from warpcheck._makespan.options import MakespanOptions
from warpcheck._values import build, callback

if TYPE_CHECKING:
    from warpcheck._makespan.certificate import CertificateCheck, check_certificate
    from warpcheck._makespan.methods import to_stderr
    from warpcheck._makespan.result import MakespanResult
__getattr__ = lazy_names(__name__, {"CertificateCheck": "certificate", "check_certificate": "certificate",
                                    "to_stderr": "methods", "MakespanResult": "result"})

__all__ = ["makespan", "run", "check_certificate", "MakespanOptions", "MakespanResult", "CertificateCheck",
           "to_stderr"]

Progress = Callable[[str], None] | None


@overload
def makespan(kernel: str | None = None, warps: int | None = None, sigma: Mapping[str, Any] | None = None, *,
             check: None = None, progress: Progress = None, **keywords: Any) -> MakespanResult: ...


@overload
def makespan(kernel: None = None, warps: None = None, sigma: None = None, *, check: str,
             progress: Progress = None, **keywords: Any) -> CertificateCheck: ...


def makespan(kernel: str | None = None, warps: int | None = None, sigma: Mapping[str, Any] | None = None, *,
             check: str | None = None, progress: Progress = None,
             **keywords: Any) -> MakespanResult | CertificateCheck:
    """The exact worst-case makespan of ``warps`` warps running ``kernel`` on a work-conserving SM.

    ``kernel`` is one letter per instruction, its unit (``"LLCLL"``; ``C4`` holds unit C four cycles,
    ``C4p`` pipelined); ``sigma`` maps every unit of the kernel to its warps per cycle (``{"L": 1, "C":
    "1/2"}``): a unit left out is refused by name.  The other keywords are the verb's options
    (:class:`MakespanOptions`): ``method`` (one of ``warpcheck makespan --method``'s, default ``"auto"``),
    ``timeout`` (seconds for the whole call; None: the method's own budget), ``memory`` (GiB), ``x``,
    ``certificate`` (True, or a file to write it to), ``ptx`` with ``sm``, ``entry``, ``bounds``,
    ``loop_bound``, ``max_loop_bound`` (the kernel from a PTX entry instead of ``kernel`` and ``sigma``).
    When the budget runs out the best run is returned with ``exact=False`` (a lower bound) and ``upper`` the
    least bound proved.  Every answer that comes with a proof is checked by the independent checker before
    it is returned.  ``check="c.json"`` checks a certificate file instead and returns a
    :class:`CertificateCheck`.  ``progress`` receives progress lines.
    """
    given = {"kernel": kernel, "warps": warps, "sigma": sigma, "check": check}
    callback("progress", progress)
    options = build(MakespanOptions, "makespan", {**{k: v for k, v in given.items() if v is not None}, **keywords})
    with guard.bounded(options.budget, options.memory):
        return run(options, progress)


def run(options: MakespanOptions, progress: Progress = None) -> MakespanResult | CertificateCheck:
    """Answer a makespan record: check its certificate file, or search (see ``search.py``)."""
    if options.check is not None:
        from warpcheck._makespan.certificate import check_certificate
        return check_certificate(options.check)
    from warpcheck._makespan.search import solve
    return solve(options, progress)
