"""Who stops a solver's check on Ctrl-C: the solver itself, or a watchdog of the run's (the run guard).

Apart from the Z3 algebra and free of solver imports, so that the guard can say so before any
solver is loaded: a verb imports its solver only when it runs, after the guard is in place.
"""
from __future__ import annotations

from typing import Callable

WATCHED = {"python": False}  # python: a watchdog interrupts checks (z3_algebra.interrupt_solvers)
INTERRUPTS: list[Callable[[], None]] = []  # what stops a running check of another solver (bitwuzla's BMC)


def interrupt_all() -> None:
    """Stop every check registered in INTERRUPTS (called by the run guard's watchdog, another thread)."""
    for stop in list(INTERRUPTS):
        stop()


def leave_ctrl_c_to_python() -> None:
    """Let SIGINT reach Python during checks: whoever calls this interrupts the solver from another thread."""
    WATCHED["python"] = True
