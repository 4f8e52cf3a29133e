"""Reading the user's files (TOML, JSON) with one clear error for whatever is wrong."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from warpcheck.models.errors import InputFileError


def read_text(path: str | Path, what: str) -> str:
    """The file's text, or an InputFileError naming what it was meant to be."""
    try:
        return Path(path).read_text()
    except OSError as e:
        raise InputFileError(f"cannot read {what} {str(path)!r}: {e.strerror}") from None


def load_toml(path: str | Path, what: str) -> dict[str, Any]:
    """A TOML file as a dict."""
    try:
        return tomllib.loads(read_text(path, what))
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(f"{path}: malformed TOML: {e}") from None


def load_json(path: str | Path, what: str) -> Any:
    """A JSON file's value."""
    try:
        return json.loads(read_text(path, what))
    except json.JSONDecodeError as e:
        raise InputFileError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
