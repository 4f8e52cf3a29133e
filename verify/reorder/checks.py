"""The names of the reordering unit's checks, on a kernel's accesses and on free streams (no solver loaded here)."""
from __future__ import annotations

CHECKS = ("order", "deadlock", "misses", "wait", "progress")  # verify/reorder/props.py: on a kernel's accesses
STREAM_CHECKS = ("stream", "order", "wait", "progress", "misses")  # verify/reorder/streams.py: on free streams
