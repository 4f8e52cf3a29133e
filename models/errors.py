"""The kit's exceptions: one root, and user errors that are also ValueErrors."""


class WarpcheckError(Exception):
    """Root of every error the kit raises on purpose."""


class ConfigError(WarpcheckError, ValueError):
    """A configuration, kernel or option given by the user is invalid.

    The message is one sentence: the offending field and value, what is
    allowed, and how to fix it.
    """


class InputFileError(WarpcheckError, ValueError):
    """A file given by the user (job, witness, kernel) cannot be used."""


class SymbolicBoolError(WarpcheckError, TypeError):
    """A symbolic value was used where Python needs a concrete bool."""
