"""The ``warpcheck`` command: the verbs' parsers, the check of files, and every way a run can end, with its exit code.

The command line is a shell over the library: each verb parses argv into its
options record, the library runs it, the verb prints the result.  Here the
library's refusals are re-spelled with the flags the user typed.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
import time
from typing import Any, Iterable, NoReturn

from warpcheck import _guard as guard, _values as values
from warpcheck.cli.options import PathOption, positive_gib
from warpcheck.models.errors import OptionError, OutOfMemoryError, RunTimeoutError, WarpcheckError
from warpcheck.models.files import check_writable

# verb -> (the module whose register(subparsers) defines it, its one line in the verb list).  Only the
# chosen verb's module is imported; tests/test_cli_startup.py checks this table against each module's parser.
VERBS: dict[str, tuple[str, str]] = {
    "prove": ("frontend.verbs", "prove (or refute) a front-end property for every input"),
    "replay": ("frontend.verbs", "replay a witness cycle by cycle, on one design or both side by side"),
    "demo": ("frontend.verbs", "the main job: prove SWaS, refute the baseline, replay, summarise"),
    "simulate": ("frontend.sim_verbs", "run workloads on the front-end models and report IPC and scheduling errors"),
    "run": ("frontend.jobs", "run a TOML job file of named proof tasks with expected outcomes"),
    "makespan": ("makespan.verbs", "worst-case makespan of W identical warps on one SM"),
    "cfg": ("kernels.verbs", "print the warp-level CFG of a kernel"),
    "wcet": ("kernels.verbs", "IPET WCET bound of one warp in isolation"),
    "simt": ("kernels.verbs", "run one warp concretely through the activation stack"),
    "analyze": ("reorder.verbs", "list every warp's dynamic global loads/stores and the static order"),
    "reorder": ("reorder.verbs", "proofs about the load/store reordering unit"),
    "qaws": ("qaws.verbs", "worst-case searches for two kernels under LRR, GTO and QAWS"),
    "export": ("export", "write a proof problem as SMT-LIB2, BTOR2, AIGER, Verilog or a SymbiYosys project"),
    "check": ("check", "check a proof's certificate with a solver other than the one that proved it"),
    "sweep": ("sweep.verbs", "run a grid of runs of any verb (a sweep file) into a resumable results store"),
    "plot": ("sweep.verbs", "draw a paper's figure (PNG + SVG) or table from a sweep's results store"),
}
VERB_MODULES = list(dict.fromkeys(f"warpcheck.cli.{module}" for module, _ in VERBS.values()))

EPILOG = """exit codes: 0 PASS (or success), 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT or OUT_OF_MEMORY, 5 ERROR (a bug of
the kit: a crash report is written), 130 interrupted (Ctrl-C), 141 output pipe closed by its reader,
143 terminated (SIGTERM)"""

PER_TASK_TIMEOUT = {"demo"}  # their --timeout is per proof, not a budget for the whole run


class _Parser(argparse.ArgumentParser):
    last_error = ""

    def error(self, message: str) -> NoReturn:  # one line, exit 2
        _Parser.last_error = message
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(verbs: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser with every verb, or with only ``verbs`` (and the others of their modules) ready to parse.

    A verb left out is a stub with its line of help: ``warpcheck --help`` lists every
    verb without importing one, and a run imports only the modules of the verb it runs.
    """
    wanted = set(VERBS) if verbs is None else set(verbs)
    modules = {VERBS[v][0] for v in wanted if v in VERBS}
    parser = _Parser(prog="warpcheck", epilog=EPILOG,
                     description="Formal verification of the timing predictability of GPU warp scheduling.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version, nargs=0, help="show the installed version and exit")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    sub.required = True
    for verb, (module, help_line) in VERBS.items():
        if verb in sub.choices:
            continue
        if module not in modules or not _register(f"warpcheck.cli.{module}", sub):
            sub.add_parser(verb, help=help_line, add_help=False)  # a stub: never parses a run
    for verb in wanted & set(sub.choices):
        _give_memory(sub.choices[verb])
    _with_exit_codes(parser)
    return parser


def _register(name: str, sub: Any) -> bool:
    """Import a verb module and let it add its verbs; False if that module is not installed."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return False
    module.register(sub)
    return True


def _chosen_verb(argv: list[str]) -> str:
    """The verb ``argv`` names, read by the parser of stubs (imports no verb): its --help, --version, a missing
    or unknown verb end here (SystemExit), as the full parser would."""
    args, _ = build_parser(verbs=()).parse_known_args(argv)
    return str(args.verb)


DEFAULT_MEMORY_GIB = values.DEFAULT_MEMORY_GIB


def _give_memory(p: argparse.ArgumentParser) -> None:
    """Add ``--memory`` (GiB) to a verb and its actions: what the run and its workers may hold together."""
    for action in [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]:
        for sub_parser in action.choices.values():
            _give_memory(sub_parser)
    if any("--memory" in a.option_strings for a in p._actions):
        return
    p.add_argument("--memory", type=positive_gib, default=DEFAULT_MEMORY_GIB, metavar="GIB",
                   help=f"GiB the run and its worker processes may hold together; past it the run stops, "
                        f"exit 4 (default {DEFAULT_MEMORY_GIB:g})")


def _with_exit_codes(parser: argparse.ArgumentParser) -> None:
    """Every --help, down to ``reorder prove``, ends with the exit codes (a verb's own list is kept)."""
    if "exit codes" not in (parser.epilog or ""):
        parser.epilog = f"{parser.epilog}\n\n{EPILOG}" if parser.epilog else EPILOG
        if parser.formatter_class is argparse.HelpFormatter:
            parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                _with_exit_codes(child)


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (reading package metadata is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        parser.exit(0, f"{parser.prog} {_version()}\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("warpcheck")
    except PackageNotFoundError:
        return "(not installed)"


def _check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, before any work, what argparse cannot see: NaN or infinite numbers, unwritable outputs.

    Each verb marks its files where it defines the options (``cli.options.PathOption``): an output must
    be writable and may be neither an input of the run nor another of its outputs.
    """
    bad = guard.finite_numbers(vars(args))
    if bad:
        raise _BadOption(f"{bad} is not allowed; give a finite number")
    files = [(a, a.type) for a in verb_actions(parser, args) if isinstance(a.type, PathOption)]
    taken = _input_paths(args, [a for a, kind in files if kind.role == "input"])
    for a, kind in files:
        if kind.role == "input":
            continue
        given, name = getattr(args, a.dest, None), _flag(a)
        if given is not None and not str(given).strip():
            raise _BadOption(f"{name} is empty; give a path, or leave the option out for the default")
        path = given or kind.fallback
        if path is None:
            continue
        real = os.path.realpath(path)
        if real in taken:
            raise _BadOption(f"{name} {path} is also {taken[real]}; give another path, it would be overwritten")
        check_writable(path, name, folder=kind.role == "folder")
        taken[real] = f"the path of {name}"


def verb_actions(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[argparse.Action]:
    """The options of the verb (and action, as in ``reorder prove``) that ``args`` was parsed by."""
    found: list[argparse.Action] = []
    todo = [parser]
    while todo:
        p = todo.pop()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                chosen = getattr(args, a.dest, None)
                if chosen in a.choices:
                    todo.append(a.choices[chosen])
            else:
                found.append(a)
    return found


def _flag(action: argparse.Action) -> str:
    """How the user names an option: its long flag, or its metavar for a positional argument."""
    longs = [o for o in action.option_strings if o.startswith("--")]
    return longs[0] if longs else str(action.metavar or action.dest.upper())


def _input_paths(args: argparse.Namespace, inputs: list[argparse.Action]) -> dict[str, str]:
    """The files this run reads (real path -> how the user named it), to keep outputs off them."""
    found: dict[str, str] = {}
    for a in inputs:
        value = getattr(args, a.dest, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and v and os.path.isfile(v):
                found[os.path.realpath(v)] = f"the input {v}"
    return found


def _spelled(parser: argparse.ArgumentParser, args: argparse.Namespace, e: OptionError) -> str:
    """An options record's refusal in the command line's words: the flag the user typed, not the keyword."""
    action = next((a for a in verb_actions(parser, args) if a.dest == e.option), None)
    if action is None:
        return str(e)
    given = getattr(args, e.option, e.value)
    if given is None:  # an option left out that the run needs: name the flag alone
        return e.spelled(_flag(action))
    shown = " ".join(map(str, given)) if isinstance(given, (list, tuple)) else given
    return e.spelled(f"{_flag(action)} {shown}")


class _BadOption(WarpcheckError):
    pass


def _budget(args: argparse.Namespace) -> float | None:
    budget_of = getattr(args, "budget_of", None)  # a verb whose default budget depends on its other options
    timeout = budget_of(args) if budget_of is not None else getattr(args, "timeout", None)
    return None if args.verb in PER_TASK_TIMEOUT or not timeout or timeout <= 0 else float(timeout)


class _Watched:
    """stdout, noting whether the verb wrote to it (then it printed its own JSON object)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.used = inner, False

    def write(self, text: str) -> int:
        self.used = self.used or bool(text)
        return self.inner.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _end(args: argparse.Namespace, code: int, status: str, message: str, label: str = "") -> int:
    """Say how the run ended: one line on stderr, and one JSON object on stdout with --json."""
    print(f"warpcheck {args.verb}: {label or status}: {message}", file=sys.stderr)
    if getattr(args, "json", False) and not getattr(sys.stdout, "used", False):
        print(json.dumps({"status": status, "error": message}), flush=True)
    return code


def _stopped(args: argparse.Namespace) -> int:
    kept = args.kept_on_stop(args) if hasattr(args, "kept_on_stop") else ""  # a verb's work kept for its next run
    if guard.stopped_by_memory() is not None:
        held = guard.stopped_by_memory() / 2**30
        return _end(args, guard.EXIT_TIMEOUT, "OUT_OF_MEMORY",
                    f"the run and its workers held {held:.2f} GiB, above --memory {args.memory:g} GiB; "
                    f"nothing partial was written (raise --memory, or give a smaller input){kept}", "out of memory")
    if guard.stopped_by() == signal.SIGALRM:
        return _end(args, guard.EXIT_TIMEOUT, "TIMEOUT",
                    f"the run did not finish within --timeout {_budget(args) or 0:g} s (set-up included){kept}")
    if guard.stopped_by() == signal.SIGTERM:
        return _end(args, guard.EXIT_TERMINATED, "TERMINATED", f"stopped by SIGTERM; nothing partial was written"
                    f"{kept}", "terminated")
    return _end(args, guard.EXIT_INTERRUPTED, "INTERRUPTED", f"stopped by Ctrl-C; nothing partial was written{kept}",
                "interrupted")


def main(argv: list[str] | None = None) -> int:
    """Run one verb; whatever happens, end with one of the documented exit codes."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        if not argv:  # bare `warpcheck`: the verbs, not only "VERB is required"
            print(build_parser(verbs=()).format_help(), end="", file=sys.stderr)
            return guard.EXIT_BAD_INPUT
        parser = build_parser(verbs=[_chosen_verb(argv)])
        args = parser.parse_args(argv)
        started = time.monotonic()  # the run's budget counts from here: see docs/cli.md, "Start-up"
    except KeyboardInterrupt:  # while the verbs were still being imported
        print("warpcheck: interrupted: stopped by Ctrl-C", file=sys.stderr)
        return guard.EXIT_INTERRUPTED
    except SystemExit as e:
        if e.code == 2 and "--json" in argv:
            print(json.dumps({"status": "BAD_INPUT", "error": _Parser.last_error}))
        return int(e.code or 0)
    stdout = sys.stdout
    try:
        _check_args(parser, args)
        memory = getattr(args, "memory", None)
        with guard.guarded(_budget(args), started, memory * 2**30 if memory else None):
            sys.stdout = _Watched(stdout)  # type: ignore[assignment]
            code = int(args.func(args))
            stdout.flush()  # a reader that went away shows here, not at exit
            return code
    except OptionError as e:  # an options record refused a value: name the flag the user typed
        return _end(args, guard.EXIT_BAD_INPUT, "BAD_INPUT", _spelled(parser, args, e), "error")
    except RunTimeoutError as e:  # the library stopped a step of its own at its budget
        return _end(args, guard.EXIT_TIMEOUT, "TIMEOUT", str(e))
    except OutOfMemoryError as e:
        return _end(args, guard.EXIT_TIMEOUT, "OUT_OF_MEMORY", str(e), "out of memory")
    except WarpcheckError as e:  # its code is the exit code (the API raises the same errors)
        if e.code != guard.EXIT_BAD_INPUT:
            return _end(args, e.code, "ERROR", str(e), "internal error")
        return _end(args, guard.EXIT_BAD_INPUT, "BAD_INPUT", str(e), "error")
    except (guard.RunTimeout, KeyboardInterrupt):
        return _stopped(args)
    except BrokenPipeError:  # output piped into head and the like: the verdict was not all read
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())  # no second error at exit
        return guard.EXIT_BROKEN_PIPE
    except Exception as e:  # noqa: BLE001 - a bug of the kit: ERROR, never a verdict
        if guard.stopped_by() is not None:  # the signal surfaced as another exception (e.g. inside ctypes)
            return _stopped(args)
        path = guard.crash_report(args.verb, argv)
        first = str(e).splitlines()[0] if str(e) else ""
        return _end(args, guard.EXIT_ERROR, "ERROR",
                    f"internal error ({type(e).__name__}: {first[:200]}), a bug of warpcheck; traceback in {path}")
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
