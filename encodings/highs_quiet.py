"""A HiGHS instance that prints nothing: its banner would break `--json` (one JSON object on stdout)."""
from __future__ import annotations

import os
import sys
from typing import Any


def quiet_highs() -> Any:
    """``highspy.Highs()`` with the banner it prints on construction sent to /dev/null, and output off."""
    import highspy

    sys.stdout.flush()
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    h.setOptionValue("output_flag", False)
    return h


def run_interruptible(h: Any) -> Any:
    """``h.run()`` in HiGHS's solver thread, so that Ctrl-C or the run's alarm stops it within a moment.

    A plain ``run()`` holds the main thread inside C++ until HiGHS finishes (tens of
    seconds on a large ILP), and the signal waits with it.  Here the main thread
    waits in short slices; on any interruption it asks HiGHS to stop (its user
    interrupt callback), waits for the solver thread to leave, and lets the
    interruption go on.  (highspy's own ``solve()`` prints and swallows it.)
    """
    h.HandleUserInterrupt = True
    h.startSolve()
    try:
        while True:
            done, status = h.wait(0.05)
            if done:
                return status
    except BaseException:
        h.cancelSolve()
        h.joinSolve()
        raise
