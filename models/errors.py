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


class OptionError(ConfigError):
    """A bad value of one named option, said in the caller's words.

    The library names the keyword (``warps=0: ...``); the command line, which
    built the same options record from argv, re-spells it with the flag the
    user typed (``--warps 0: ...``).  The problem text is the same for both.
    """

    def __init__(self, option: str, value: object, problem: str) -> None:
        self.option, self.value, self.problem = option, value, problem
        super().__init__(self.spelled(f"{option}={value!r}"))

    def spelled(self, named: str) -> str:
        """The message with the option and its value written as ``named``."""
        return f"{named}: {self.problem}"


class RunTimeoutError(WarpcheckError, TimeoutError):
    """A run went past its ``timeout`` (set-up included): exit code 4, as ``--timeout`` gives."""

    code = 4


class OutOfMemoryError(WarpcheckError, MemoryError):
    """A run and its workers held more than its ``memory`` budget: exit code 4, as ``--memory`` gives."""

    code = 4
