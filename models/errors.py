"""The kit's exceptions: one root, and user errors that are also ValueErrors."""


class WarpcheckError(Exception):
    """Root of every error the kit raises on purpose.

    ``code`` is the exit code the command line gives for it (2: bad input),
    so a script and the command line report the same failure the same way.
    """

    code: int = 2


class ConfigError(WarpcheckError, ValueError):
    """A configuration, kernel or option given by the user is invalid.

    The message is one sentence: the offending field and value, what is
    allowed, and how to fix it.
    """


class InputFileError(WarpcheckError, ValueError):
    """A file given by the user (job, witness, kernel) cannot be used."""


class SymbolicBoolError(WarpcheckError, TypeError):
    """A symbolic value was used where Python needs a concrete bool."""


class KitError(WarpcheckError):
    """A bug of warpcheck itself (e.g. a witness that does not reproduce): exit code 5, never a verdict."""

    code = 5
