"""Reading and writing the user's files with one clear error for whatever is wrong.

Every file the kit writes goes through :func:`atomic_write_text`: a temporary
file in the target's folder, then ``os.replace``, so a reader (or an
interrupted run) never sees half a file.
"""
from __future__ import annotations

import json
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from warpcheck.models.errors import InputFileError


MAX_INPUT_BYTES = 256 << 20  # no input the kit reads (kernel, witness, certificate, job) comes near it


def read_text(path: str | Path, what: str, lenient: bool = False) -> str:
    """The file's text (UTF-8), or an InputFileError naming what it was meant to be.

    ``lenient``: a text file (no NUL byte) with bytes that are not UTF-8 (a compiler
    writing a Latin-1 path into a comment or a string) is read with each such byte
    as ``\\xNN``, so the reader refuses it only where it matters, at its line.
    """
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)  # a bounded read: /dev/zero or a runaway file ends here
        if len(data) > MAX_INPUT_BYTES:
            raise InputFileError(f"{what} {str(path)!r} is larger than the ceiling of {MAX_INPUT_BYTES >> 20} MiB "
                                 "for an input file; give a smaller file")
        return data.decode("utf-8") if not lenient or b"\0" in data else data.decode("utf-8", "backslashreplace")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{what} {str(path)!r} is not UTF-8 text (byte {e.start}); "
                             "save it as UTF-8") from None
    except OSError as e:
        raise InputFileError(f"cannot read {what} {str(path)!r}: {e.strerror or e}") from None


def load_toml(path: str | Path, what: str) -> dict[str, Any]:
    """A TOML file as a dict."""
    try:
        return tomllib.loads(read_text(path, what))
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(f"{path}: malformed TOML: {e}") from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply to be a {what}") from None


def load_json(path: str | Path, what: str) -> Any:
    """A JSON file's value (NaN and Infinity refused: they are not JSON)."""
    try:
        return json.loads(read_text(path, what), parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputFileError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    except ValueError as e:
        raise InputFileError(f"{path}: {e}") from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply to be a {what}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number; give a finite number")


def check_writable(path: str | Path, what: str, folder: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written (missing parent, read-only, under a file)."""
    p = Path(path)
    if str(path) == "" or (p.is_dir() and not folder):
        raise InputFileError(f"{what} {str(path)!r} is a folder (or empty); give a file path")
    if folder and p.exists() and not p.is_dir():
        raise InputFileError(f"{what} {str(path)!r} is a file; give a folder")
    target = p if folder else p.parent
    existing = next((a for a in [target, *target.parents] if a.exists()), Path("."))
    if not existing.is_dir():
        raise InputFileError(f"{what} {str(path)!r} cannot be created: {str(existing)!r} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputFileError(f"{what} {str(path)!r} cannot be written: folder {str(existing)!r} is not writable")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str, what: str = "output") -> None:
    """Write ``text`` to ``path`` all at once: a temporary file in the same folder, then a rename."""
    atomic_write_bytes(path, text.encode("utf-8"), what)


def atomic_write_bytes(path: str | Path, data: bytes, what: str = "output") -> None:
    """Write ``data`` to ``path`` all at once (a figure, say): a temporary file in the same folder, then a rename."""
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as e:
        raise InputFileError(f"cannot write {what} {str(path)!r}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; an output file gets the usual mode
        os.replace(tmp, p)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise InputFileError(f"cannot write {what} {str(path)!r}: {e.strerror or e}") from None
        raise
