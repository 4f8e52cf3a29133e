"""The results store of sweeps: one DuckDB file, one row per run, keyed by the run's parameters.

Why DuckDB: the key is a PRIMARY KEY, so a run delivered twice (a Dask task redone after its worker
died) is stored once by the store itself; each run is one INSERT, committed whole or not at all, even
if the process is killed; and the figures are SQL group-bys over the runs' JSON results, without a
data-frame library.  Only the process that drives the sweep writes; workers send results back.

A store says its layout in a ``meta`` table (``store_version``); one written before it had a version
is version 0, the same layout.  A store is checked whole when it is opened (its ``runs`` table, the
columns and their types, the key, and every row read once), so that a store cut short, a foreign
database or a store of a newer warpcheck is refused in one line before anything runs or is drawn.
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

STORE_VERSION = 1  # the layout below; a store of a higher version is refused, one of a lower is read
TYPES = {"key": "VARCHAR", "sweep": "VARCHAR", "verb": "VARCHAR", "params": "JSON", "argv": "JSON",
         "exit_code": "INTEGER", "failed": "BOOLEAN", "status": "VARCHAR", "error": "VARCHAR", "result": "JSON",
         "seconds": "DOUBLE", "worker": "VARCHAR", "finished_at": "TIMESTAMP"}
COLUMNS = tuple(TYPES)
SCHEMA = "CREATE TABLE runs (key VARCHAR PRIMARY KEY, " + \
    ", ".join(f"{name} {kind}" for name, kind in list(TYPES.items())[1:]) + ")"
META = "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
VERSION = f"INSERT INTO meta VALUES ('store_version', '{STORE_VERSION}') ON CONFLICT DO NOTHING"
# A run with a result is never replaced; a failed one is, by the next attempt.
PUT = """INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET exit_code = excluded.exit_code, failed = excluded.failed,
    status = excluded.status, error = excluded.error, result = excluded.result, seconds = excluded.seconds,
    worker = excluded.worker, finished_at = excluded.finished_at WHERE runs.failed"""
TABLES = "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'main'"
COLUMN_TYPES = """SELECT column_name, data_type FROM information_schema.columns
    WHERE table_schema = 'main' AND table_name = 'runs' ORDER BY ordinal_position"""
META_COLUMNS = COLUMN_TYPES.replace("'runs'", "'meta'")
KEYED = """SELECT count(*) FROM duckdb_constraints()
    WHERE table_name = 'runs' AND constraint_type = 'PRIMARY KEY' AND constraint_column_names = ['key']"""
READ_ALL = f"SELECT count(*), sum(hash({', '.join(COLUMNS)})) FROM runs"  # every value of every row read once


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
    except (duckdb.Error, OSError) as e:
        raise InputFileError(f"store {path!r} cannot be created: {_first(e)}") from None
    finally:
        for left in (tmp, f"{tmp}.wal"):
            Path(left).unlink(missing_ok=True)


class Store:
    """A sweep's results store (a DuckDB file); use as a context manager."""

    def __init__(self, path: str, read_only: bool = False) -> None:
        if read_only and not Path(path).is_file():
            raise InputFileError(f"store {path!r} does not exist; a sweep writes it (warpcheck sweep FILE --store {path})")
        if not read_only:
            refuse_non_file(path, "store")
            if not Path(path).exists():
                _create(path)
        self.path = path
        self.db = _connect(path, read_only)
        try:
            self._check(read_only)
        except BaseException:
            self.db.close()
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def _check(self, read_only: bool) -> None:
        tables = dict(self._sql(TABLES))
        if "runs" not in tables:
            if read_only or tables:
                held = f"the table(s) {', '.join(sorted(tables))} and " if tables else ""
                raise InputFileError(f"store {self.path!r} holds {held}no runs table; it was not written by "
                                     "warpcheck sweep (give a new path for a new store)")
            self._sql(SCHEMA)
        elif tables["runs"] != "BASE TABLE":
            raise self._foreign(f"its runs is a {tables['runs'].lower()}, not a table")
        else:
            self._version(tables)
            self._check_runs()
        if not read_only:  # a new store, or one written before stores had a version, says its version
            self._sql(META)
            self._sql(VERSION)

    def _version(self, tables: dict[str, str]) -> int:
        if "meta" not in tables:
            return 0  # written before stores had a version: the same layout
        if self._sql(META_COLUMNS) != [("key", "VARCHAR"), ("value", "VARCHAR")] or tables["meta"] != "BASE TABLE":
            raise self._foreign("its meta table is not warpcheck's (key, value)")
        got = self._sql("SELECT value FROM meta WHERE key = 'store_version'")
        text = str(got[0][0]) if got else "0"
        if not text.isdigit():
            raise self._foreign(f"its store_version {text!r} is not a number")
        if int(text) > STORE_VERSION:
            raise InputFileError(f"store {self.path!r} was written by a newer warpcheck (store version {text}; this "
                                 f"one reads versions up to {STORE_VERSION}); read it with that warpcheck, or "
                                 "upgrade this one")
        return int(text)

    def _check_runs(self) -> None:
        found = dict(self._sql(COLUMN_TYPES))
        for name, kind in TYPES.items():
            if name not in found:
                raise self._foreign(f"its runs table has no column {name!r}")
            if found[name] != kind:
                raise self._foreign(f"its runs column {name!r} is {found[name]}, not {kind}")
        extra = sorted(set(found) - set(TYPES))
        if extra:
            raise self._foreign(f"its runs table has a column {extra[0]!r} that warpcheck does not write")
        if not self._sql(KEYED)[0][0]:
            raise self._foreign("its runs table is not keyed by the column 'key'")
        self._sql(READ_ALL)  # a store cut short fails here, before any run or figure

    def _foreign(self, what: str) -> InputFileError:
        return InputFileError(f"store {self.path!r} is not a warpcheck results store: {what} (store version "
                              f"{STORE_VERSION} has a table runs with the columns {', '.join(COLUMNS)})")

    def _sql(self, sql: str, args: list[Any] | None = None, writing: bool = False) -> list[tuple[Any, ...]]:
        """Rows of ``sql``; a store that cannot be read or written, or a value no run wrote, is refused."""
        duckdb = _duckdb()
        try:
            return self.db.execute(sql, args or []).fetchall()
        except duckdb.InterruptException:
            raise
        except duckdb.IOException as e:
            what = "cannot be written" if writing else "is damaged (cut short?)"
            raise InputFileError(f"store {self.path!r} {what}: {_first(e)}") from None
        except (duckdb.ConversionException, duckdb.InvalidInputException) as e:
            raise InputFileError(f"store {self.path!r} holds a value that no warpcheck run writes there: "
                                 f"{_first(e)}") from None

    def done(self) -> set[str]:
        """Keys of the runs that have a result (failed runs are not done: they are tried again)."""
        return {k for (k,) in self._sql("SELECT key FROM runs WHERE NOT failed")}

    def put(self, sweep: str, verb: str, key: str, params: dict[str, Any], argv: list[str],
            outcome: dict[str, Any], failed: bool) -> None:
        """Store one run, in one statement (all of it or nothing); a run with a result already there stays."""
        result = outcome.get("result")
        status = str(result.get("status", "done")) if isinstance(result, dict) else "no result"
        self._sql(PUT, [key, sweep, verb, json.dumps(params), json.dumps(argv), outcome["code"], failed, status,
                        outcome.get("error", ""), json.dumps(result), outcome.get("seconds"),
                        outcome.get("worker", ""), datetime.datetime.now(datetime.timezone.utc)], writing=True)

    def query(self, sql: str, args: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Rows of a SQL query over the ``runs`` table."""
        return self._sql(sql, args)

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every run as a dict, JSON columns decoded, in key order."""
        for row in self._sql(f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY sweep, key"):
            out = dict(zip(COLUMNS, row))
            for name in ("params", "argv", "result"):
                try:
                    out[name] = json.loads(out[name]) if out[name] is not None else None
                except ValueError:
                    raise InputFileError(f"store {self.path!r}: the {name} of run {out['key']!r} is not JSON: "
                                         f"{str(out[name])[:80]!r}") from None
            yield out

    def count(self) -> tuple[int, int]:
        """(runs with a result, failed runs)."""
        got = self._sql("SELECT count(*) FILTER (NOT failed), count(*) FILTER (failed) FROM runs")
        return (int(got[0][0]), int(got[0][1])) if got else (0, 0)


def _duckdb() -> Any:
    import duckdb
    return duckdb


def _first(e: BaseException) -> str:
    return str(e).splitlines()[0][:160] if str(e) else type(e).__name__


def _connect(path: str, read_only: bool) -> Any:
    duckdb = _duckdb()
    try:
        if not read_only:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        return duckdb.connect(path, read_only=read_only)
    except duckdb.IOException as e:
        text = str(e)
        if "not a valid DuckDB database" in text:
            raise InputFileError(f"store {path!r} is not a warpcheck results store: it is not a DuckDB database "
                                 "file") from None
        why = "another process (a sweep still running?) has it open" if "lock" in text.lower() else \
            f"it is damaged (cut short?): {_first(e)}" if "read enough bytes" in text else _first(e)
        raise InputFileError(f"store {path!r} cannot be opened: {why}") from None
    except OSError as e:
        raise InputFileError(f"store {path!r} cannot be written: {e.strerror or e}") from None
    except duckdb.Error as e:
        raise InputFileError(f"store {path!r} is not a warpcheck results store ({_first(e)})") from None
