"""The progress of a sweep on stderr: runs done, failed and the time left (a tqdm bar on a terminal, lines otherwise)."""
from __future__ import annotations

import sys
import time
from typing import Any


class Progress:
    """Counts finished runs; draws a bar on a terminal, else one line per run (logs of a batch job)."""

    def __init__(self, total: int, already: int, quiet: bool) -> None:
        self.total, self.done, self.failed, self.quiet = total, 0, 0, quiet
        self.start = time.monotonic()
        self.bar: Any = None
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="run", file=sys.stderr, dynamic_ncols=True,
                            desc=f"sweep ({already} already stored)")
        elif not quiet:
            print(f"  .. {total} run(s) to do, {already} already in the store", file=sys.stderr, flush=True)

    def step(self, label: str, failed: bool) -> None:
        """One more run finished (``failed``: it gave no result)."""
        self.done += 1
        self.failed += failed
        if self.bar is not None:
            self.bar.set_postfix(failed=self.failed, refresh=False)
            self.bar.update(1)
        elif not self.quiet:
            print(f"  .. {self.done}/{self.total} done, {self.failed} failed, {self.left()} left: {label}",
                  file=sys.stderr, flush=True)

    def left(self) -> str:
        """The time left, from the mean time per finished run so far."""
        spent = time.monotonic() - self.start
        seconds = spent / self.done * (self.total - self.done) if self.done else float("nan")
        return "?" if seconds != seconds else f"{seconds / 60:.1f} min" if seconds >= 120 else f"{seconds:.0f} s"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
