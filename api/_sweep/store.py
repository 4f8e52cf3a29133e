"""The results store of sweeps: one DuckDB file, one row per run, keyed by the run's parameters.

Why DuckDB: the key is a PRIMARY KEY, so a run delivered twice (a Dask task redone after its worker
died) is stored once by the store itself; each run is one INSERT, committed whole or not at all, even
if the process is killed; and the figures are SQL group-bys over the runs' JSON results, without a
data-frame library.  Only the process that drives the sweep writes; workers send results back.
"""
from __future__ import annotations

import datetime
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

from warpcheck.models.errors import InputFileError
from warpcheck.models.files import refuse_non_file

SCHEMA = """CREATE TABLE IF NOT EXISTS runs (
    key VARCHAR PRIMARY KEY, sweep VARCHAR, verb VARCHAR, params JSON, argv JSON,
    exit_code INTEGER, failed BOOLEAN, status VARCHAR, error VARCHAR, result JSON,
    seconds DOUBLE, worker VARCHAR, finished_at TIMESTAMP)"""
# A run with a result is never replaced; a failed one is, by the next attempt.
PUT = """INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET exit_code = excluded.exit_code, failed = excluded.failed,
    status = excluded.status, error = excluded.error, result = excluded.result, seconds = excluded.seconds,
    worker = excluded.worker, finished_at = excluded.finished_at WHERE runs.failed"""
COLUMNS = ("key", "sweep", "verb", "params", "argv", "exit_code", "failed", "status", "error", "result",
           "seconds", "worker", "finished_at")


def _create(path: str) -> None:
    """A new, empty store at ``path``, made whole under a temporary name and linked there: a failure (a full
    disk) leaves no file behind, and a store another sweep made meanwhile is kept (and opened, or refused as
    busy), never replaced."""
    import duckdb
    folder = Path(path).parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{Path(path).name}.", suffix=".tmp")
    os.close(fd)
    os.unlink(tmp)  # DuckDB makes the file itself; the name stays ours (mkstemp chose one no one else has)
    try:
        db = duckdb.connect(tmp)
        try:
            db.execute(SCHEMA)
            db.execute("CHECKPOINT")
        finally:
            db.close()
        try:
            os.link(tmp, path)  # unlike a rename, never over what is there now
        except FileExistsError:
            pass
    finally:
        for left in (tmp, f"{tmp}.wal"):
            Path(left).unlink(missing_ok=True)


class Store:
    """A sweep's results store (a DuckDB file); use as a context manager."""

    def __init__(self, path: str, read_only: bool = False) -> None:
        import duckdb
        if read_only and not Path(path).is_file():
            raise InputFileError(f"store {path!r} does not exist; a sweep writes it (warpcheck sweep FILE --store {path})")
        if not read_only:
            refuse_non_file(path, "store")
        try:
            if not read_only and not Path(path).exists():
                _create(path)
            self.db = duckdb.connect(path, read_only=read_only)
        except duckdb.IOException as e:
            busy = "lock" in str(e).lower()
            why = "another process (a sweep still running?) has it open" if busy else str(e).splitlines()[0][:160]
            raise InputFileError(f"store {path!r} cannot be opened: {why}") from None
        except OSError as e:
            raise InputFileError(f"store {path!r} cannot be written: {e.strerror or e}") from None
        except duckdb.Error as e:
            raise InputFileError(f"store {path!r} is not a warpcheck results store ({str(e).splitlines()[0][:160]})") \
                from None
        if not read_only:
            self.db.execute(SCHEMA)
        elif not self.db.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'runs'") \
                .fetchone()[0]:  # type: ignore[index]
            raise InputFileError(f"store {path!r} holds no runs table; it was not written by warpcheck sweep")
        self.path = path

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def done(self) -> set[str]:
        """Keys of the runs that have a result (failed runs are not done: they are tried again)."""
        return {k for (k,) in self.db.execute("SELECT key FROM runs WHERE NOT failed").fetchall()}

    def put(self, sweep: str, verb: str, key: str, params: dict[str, Any], argv: list[str],
            outcome: dict[str, Any], failed: bool) -> None:
        """Store one run, in one statement (all of it or nothing); a run with a result already there stays."""
        result = outcome.get("result")
        status = str(result.get("status", "done")) if isinstance(result, dict) else "no result"
        self.db.execute(PUT, [key, sweep, verb, json.dumps(params), json.dumps(argv), outcome["code"], failed,
                              status, outcome.get("error", ""), json.dumps(result), outcome.get("seconds"),
                              outcome.get("worker", ""), datetime.datetime.now(datetime.timezone.utc)])

    def query(self, sql: str, args: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Rows of a SQL query over the ``runs`` table."""
        return self.db.execute(sql, args or []).fetchall()

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every run as a dict, JSON columns decoded, in key order."""
        for row in self.db.execute(f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY sweep, key").fetchall():
            out = dict(zip(COLUMNS, row))
            for name in ("params", "argv", "result"):
                out[name] = json.loads(out[name]) if out[name] is not None else None
            yield out

    def count(self) -> tuple[int, int]:
        """(runs with a result, failed runs)."""
        got = self.db.execute("SELECT count(*) FILTER (NOT failed), count(*) FILTER (failed) FROM runs").fetchone()
        return (int(got[0]), int(got[1])) if got else (0, 0)
