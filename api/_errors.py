"""The API's exceptions: the kit's one family, each carrying the command line's exit code as ``code``."""
from __future__ import annotations

from warpcheck.models.errors import ConfigError, InputFileError, KitError, WarpcheckError

__all__ = ["WarpcheckError", "ConfigError", "InputFileError", "KitError"]
