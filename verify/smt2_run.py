"""Running an SMT-LIB2 script with several ``(check-sat)`` commands through bitwuzla or cvc5, answer by answer.

Neither solver is the one the kit proves with (Z3): a certificate written by a
Z3 proof is checked here by a solver that shares no code with it.  Each solver
reads the script through its own parser; ``time_limit`` bounds each answer.
"""
from __future__ import annotations

from typing import Callable

from warpcheck.models.errors import ConfigError

SOLVERS = ("bitwuzla", "cvc5")


def answers(text: str, solver: str, time_limit: float | None = None) -> list[str]:
    """The answer (``sat``, ``unsat`` or ``unknown``) of each ``(check-sat)`` of ``text``, in order."""
    run = _RUNNERS.get(solver)
    if run is None:
        raise ConfigError(f"unknown solver {solver!r}; choose one of: {', '.join(SOLVERS)}")
    return run(text, None if time_limit is None else max(1, int(time_limit * 1000)))


def version(solver: str) -> str:
    """The solver's name and version, as it reports them."""
    if solver == "bitwuzla":
        import bitwuzla
        return f"bitwuzla {bitwuzla.version()}"
    from importlib.metadata import version as of
    return f"cvc5 {of('cvc5')}"


def _bitwuzla(text: str, ms: int | None) -> list[str]:
    """bitwuzla's parser runs every command but ``check-sat`` (``parse_only``): the checks are asked here."""
    try:
        import bitwuzla as bz
    except ImportError:
        raise ConfigError("bitwuzla is not installed (pip install bitwuzla, or warpcheck's test extra); "
                          "choose the solver cvc5, which warpcheck installs") from None
    options = bz.Options()
    if ms is not None:
        options.set(bz.Option.TIME_LIMIT_PER, ms)
    parser = bz.Parser(bz.TermManager(), options, "smt2")
    out: list[str] = []
    pending: list[str] = []
    for command in commands(text):
        if command.strip("() \n\t\r") == "check-sat":
            parser.parse("\n".join(pending), parse_only=True, parse_file=False)
            out.append(str(parser.bitwuzla().check_sat()))
            pending = []
        else:
            pending.append(command)
    parser.parse("\n".join(pending), parse_only=True, parse_file=False)
    return out


def commands(text: str) -> list[str]:
    """The top-level S-expressions of ``text`` (comments, quoted symbols and strings skipped as SMT-LIB2 says).

    Raises ``ValueError`` on unbalanced parentheses or text outside an S-expression.
    """
    out, depth, start, k, n = [], 0, 0, 0, len(text)
    while k < n:
        c = text[k]
        if c == ";":
            k = text.find("\n", k)
            k = n if k < 0 else k
        elif c in "|\"":
            end = text.find(c, k + 1)
            if end < 0:
                raise ValueError(f"an unclosed {c} at character {k}")
            k = end
        elif c == "(":
            start, depth = (k if depth == 0 else start), depth + 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"a ')' without its '(' at character {k}")
            if depth == 0:
                out.append(text[start:k + 1])
        elif depth == 0 and not c.isspace():
            raise ValueError(f"text outside a command at character {k}")
        k += 1
    if depth:
        raise ValueError("unbalanced parentheses: the text ends inside a command")
    return out


def _cvc5(text: str, ms: int | None) -> list[str]:
    """cvc5's own parser and command loop; each ``check-sat`` prints its answer."""
    import cvc5
    solver = cvc5.Solver()
    solver.setOption("incremental", "true")
    solver.setOption("bv-solver", "bitblast-internal")  # the front end at W = 2, consecution: 6 s, not > 120 s
    if "(forall " in text or "(exists " in text:  # model-based instantiation: the sat obligations of the every-W
        solver.setOption("mbqi", "true")  # certificate answer sat (unknown without), its unsat ones as fast
    if ms is not None:
        solver.setOption("tlimit-per", str(ms))
    symbols = cvc5.SymbolManager(solver.getTermManager())
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "certificate")
    out: list[str] = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            return out
        said = command.invoke(solver, symbols).strip()
        if command.getCommandName() == "check-sat":
            out.append(said)


_RUNNERS: dict[str, Callable[[str, int | None], list[str]]] = {"bitwuzla": _bitwuzla, "cvc5": _cvc5}
