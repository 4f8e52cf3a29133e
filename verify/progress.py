"""Progress lines for long runs: a phase says where it is, at most once per period, never once per query."""
from __future__ import annotations

import time
from typing import Callable

Progress = Callable[[str], None]
PERIOD = 10.0  # seconds between two lines of the same phase


def every(progress: Progress | None, seconds: float = PERIOD) -> Progress:
    """``progress`` passing on at most one line per ``seconds`` (the first only after ``seconds``); none if None."""
    if progress is None:
        return lambda msg: None
    last = [time.monotonic()]

    def say(msg: str) -> None:
        now = time.monotonic()
        if now - last[0] >= seconds:
            last[0] = now
            progress(msg)
    return say


def always(progress: Progress | None) -> Progress:
    """``progress``, or a callable that says nothing."""
    return progress if progress is not None else (lambda msg: None)
