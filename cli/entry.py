"""The ``warpcheck`` command's entry point: a Ctrl-C while the kit is still importing ends quietly.

Importing the command line (pydantic, the models) takes a moment, before
``main`` can install its guard; a Ctrl-C in that moment would print a
traceback from some import.  Here it prints one line and exits 130.
"""
from __future__ import annotations

import os
import signal
import sys
from types import FrameType


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    sys.stderr.write("warpcheck: interrupted: stopped by Ctrl-C while starting\n")
    sys.stderr.flush()
    os._exit(130)  # nothing has been written yet: no clean-up to run


def main() -> int:
    """Import the command line with Ctrl-C ending quietly, then run it."""
    early = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if early:
        signal.signal(signal.SIGINT, _interrupted_while_starting)
    from warpcheck.cli.main import main as run
    if early:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    code = run()
    if code in STOPPED_CODES:  # workers are killed; the interpreter's exit would still join the pools' threads
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


STOPPED_CODES = (130, 143)  # interrupted, terminated: every file was written whole or not at all
