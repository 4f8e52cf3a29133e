"""Any store as CSV, so that the figures can be redrawn in any tool.

One row per run, or per element of the run's ``runs`` list when the verb reports several (``simulate``:
one per design and policy pair); nested objects become dotted columns, lists JSON text.
"""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from warpcheck.models.files import atomic_write_text

RUN_COLUMNS = ("key", "sweep", "verb", "exit_code", "failed", "status", "error", "seconds", "worker")


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """A nested JSON object as one level of dotted keys; lists as JSON text."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: json.dumps(value) if isinstance(value, list) else value}


def records(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The CSV rows of one stored run."""
    base = {c: run[c] for c in RUN_COLUMNS}
    base.update(flat(run["params"] or {}, "param."))
    result = run["result"] if isinstance(run["result"], dict) else {}
    parts = result.get("runs")
    if isinstance(parts, list) and parts and all(isinstance(p, dict) for p in parts):
        common = flat({k: v for k, v in result.items() if k != "runs"}, "result.")
        return [{**base, **common, **flat(p, "run.")} for p in parts]
    return [{**base, **flat(result, "result.")}]


def write_csv(store: Any, path: str) -> int:
    """Write the store's runs to ``path`` (atomically); return the number of rows."""
    rows = [r for run in store.rows() for r in records(run)]
    columns = list(dict.fromkeys(c for r in rows for c in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    atomic_write_text(path, buf.getvalue(), "--csv")
    return len(rows)
