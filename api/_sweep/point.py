"""One run of a sweep: the verb's options record built from the run's row and run by the library.

This function is what a worker runs (a local process or a Dask worker): it needs only the installed
kit.  Its outcome is plain data (the exit code the command line would give, the result as the verb's
``--json`` object, the error line), so it crosses process and machine boundaries.
"""
from __future__ import annotations

import os
import socket
import time
from typing import Any

from warpcheck._verbs import chosen, options_of
from warpcheck.models.errors import OutOfMemoryError, RunTimeoutError, WarpcheckError

# A verdict: the run ended and its JSON object is the result (PASS, FAIL, UNKNOWN, TIMEOUT, success).
VERDICT_CODES = {0, 1, 3, 4}


def run_point(name: str, arguments: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """Run verb ``name`` on its record from ``arguments`` and ``options``; its exit code, result and error line."""
    start = time.monotonic()
    code, result, error = 0, None, ""
    try:
        record = options_of(name, arguments, options)
        done = chosen(name, {k.replace("-", "_"): x for k, x in options.items()}).run(record)
        code, result = done.code, done.to_dict()
    except (RunTimeoutError, OutOfMemoryError) as e:  # a bounded run: its verdict is the stop
        code, error = e.code, str(e)
        result = {"status": "TIMEOUT" if isinstance(e, RunTimeoutError) else "OUT_OF_MEMORY", "error": error}
    except WarpcheckError as e:
        code, error = e.code, str(e)
    except Exception as e:  # noqa: BLE001 - a bug of the kit is this run's failure, not the sweep's
        first = str(e).splitlines()[0][:300] if str(e) else ""
        code, error = 5, f"internal error ({type(e).__name__}: {first}), a bug of warpcheck"
    return {"code": code, "result": result, "error": error[:500], "seconds": round(time.monotonic() - start, 3),
            "worker": f"{socket.gethostname()}:{os.getpid()}"}


def failed(outcome: dict[str, Any]) -> bool:
    """A run that gave no result: bad input, a crash of the kit, or no JSON object."""
    return outcome["code"] not in VERDICT_CODES or outcome["result"] is None
