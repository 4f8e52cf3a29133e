"""One run of a sweep: the command line in this process, argv in, the verb's JSON object and exit code out.

This function is what a worker runs (a local process or a Dask worker): it needs only the installed
kit.  Its outcome is plain data, so it crosses process and machine boundaries.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import threading
import time
from typing import Any

# A verdict: the run ended and its JSON object is the result (PASS, FAIL, UNKNOWN, TIMEOUT, success).
VERDICT_CODES = {0, 1, 3, 4}
_ONE_AT_A_TIME = threading.Lock()  # stdout is the process's: a worker with several threads runs one verb at a time


def run_point(argv: list[str]) -> dict[str, Any]:
    """Run ``warpcheck ARGV --json`` in this process; return its exit code, JSON object and last error line."""
    from warpcheck.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with _ONE_AT_A_TIME, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--json"])
    result = _json_object(out.getvalue())
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip() and not ln.startswith("  .. ")]
    return {"code": code, "result": result, "error": lines[-1][:500] if lines else "",
            "seconds": round(time.monotonic() - start, 3), "worker": f"{socket.gethostname()}:{os.getpid()}"}


def _json_object(text: str) -> dict[str, Any] | None:
    """The verb's one JSON object (the last line that parses as one, if progress came first)."""
    for chunk in (text, *reversed(text.strip().splitlines())):
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def failed(outcome: dict[str, Any]) -> bool:
    """A run that gave no result: bad input, a crash of the kit, or no JSON object."""
    return outcome["code"] not in VERDICT_CODES or outcome["result"] is None
