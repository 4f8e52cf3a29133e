"""Who stops a solver's check on Ctrl-C: the solver itself, or a watchdog of the run's (the run guard).

Apart from the Z3 algebra and free of solver imports, so that the guard can say so before any
solver is loaded: a verb imports its solver only when it runs, after the guard is in place.
"""
from __future__ import annotations

from typing import Callable

WATCHED = {"python": False}  # python: a watchdog interrupts checks (z3_algebra.interrupt_solvers)
INTERRUPTS: list[Callable[[], None]] = []  # what stops a running check of another solver (bitwuzla's BMC)
# A signal that came while no check was registered (between two checks, or inside a solver's callback, where
# the exception it raised was lost): the checks that start afterwards stop at once. Cleared by a new run guard.
STOP_REQUESTED: list[bool] = []


def interrupt_all() -> None:
    """Stop every check registered in INTERRUPTS, and every check started later (the run guard's watchdog)."""
    STOP_REQUESTED.append(True)
    for stop in list(INTERRUPTS):
        stop()


def stop_requested() -> bool:
    """Whether a signal asked the run to stop since the run guard started."""
    return bool(STOP_REQUESTED)


def clear_stop() -> None:
    """Forget earlier stops (a new run guard begins)."""
    STOP_REQUESTED.clear()


def leave_ctrl_c_to_python() -> None:
    """Let SIGINT reach Python during checks: whoever calls this interrupts the solver from another thread."""
    WATCHED["python"] = True
