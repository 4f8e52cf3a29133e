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
