"""Reading and writing the user's files with one clear error for whatever is wrong.

Every file the kit writes goes through one writer, :func:`write_files` (and its
one-file forms :func:`atomic_write_text` and :func:`atomic_write_bytes`): each
file is staged as a temporary file in the target's folder, then renamed over
the target, so a reader (or an interrupted run) never sees half a file, and a
set of files (a figure's PNG and SVG, export's scripts) is written whole or not
at all.  A path holding anything but a regular file (a device such as
``/dev/full``, a FIFO, a socket, a folder, a symbolic link) is refused by name,
before any work (:func:`check_writable`) and again just before the rename: the
kit writes regular files only and never replaces anything else.
"""
from __future__ import annotations

import json
import os
import stat
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Mapping

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


def not_a_file(path: str | Path) -> str | None:
    """What sits at ``path`` when it is not a regular file (``"a folder"``, ``"a FIFO"``, ...); None otherwise."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # nothing there, or a path under a file (ENOTDIR): the write itself says why
        return None
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def refuse_non_file(path: str | Path, what: str) -> None:
    """Refuse an output path that holds anything but a regular file: the kit would replace it."""
    kind = not_a_file(path)
    if kind is not None:
        raise InputFileError(f"{what} {str(path)!r} is {kind}; the kit writes only regular files and replaces "
                             "nothing else: give the path of a file")


def check_writable(path: str | Path, what: str, folder: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written (missing parent, read-only, under a file)
    or that holds anything but a regular file (a device, a FIFO, a socket, a folder, a symbolic link)."""
    p = Path(path)
    if str(path) == "":
        raise InputFileError(f"{what} {str(path)!r} is empty; give a file path")
    if not folder:
        if p.is_dir() and not p.is_symlink():
            raise InputFileError(f"{what} {str(path)!r} is a folder; give a file path")
        refuse_non_file(p, what)
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
    write_files({str(path): text}, what)


def atomic_write_bytes(path: str | Path, data: bytes, what: str = "output") -> None:
    """Write ``data`` to ``path`` all at once (a figure, say): a temporary file in the same folder, then a rename."""
    write_files({str(path): data}, what)


def write_files(files: Mapping[str, str | bytes], what: str = "output") -> None:
    """Write a set of files whole or not at all: each staged next to its target, then all renamed.

    A text is written as UTF-8.  An existing regular file at a target is replaced (say so in the verb's
    help); anything else there is refused before anything is written.  On any failure (a full disk, a
    target that became a folder) every staged file is removed and no target is touched; only a rename
    failing half-way (which the checks just before make very unlikely) leaves the earlier targets new.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files.items():
            staged.append((_stage(Path(path), data.encode("utf-8") if isinstance(data, str) else data, what), Path(path)))
        for _, p in staged:  # again just before the renames: nothing but a regular file is ever replaced
            refuse_non_file(p, what)
        for tmp, p in staged:
            _rename(tmp, p, what)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def _stage(p: Path, data: bytes, what: str) -> str:
    """``data`` in a new temporary file in ``p``'s folder (made if missing), with an output file's usual mode."""
    refuse_non_file(p, what)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as e:
        raise InputFileError(f"cannot write {what} {str(p)!r}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; an output file gets the usual mode
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise InputFileError(f"cannot write {what} {str(p)!r}: {e.strerror or e}") from None
        raise
    return tmp


def _rename(tmp: str, p: Path, what: str) -> None:
    try:
        os.replace(tmp, p)
    except OSError as e:
        raise InputFileError(f"cannot write {what} {str(p)!r}: {e.strerror or e}") from None
