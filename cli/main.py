"""The ``warpcheck`` command: one verb per module; every way a run can end, with its exit code, here.

The command line sits above the four layers: ``replay`` needs the simulator
and ``prove`` the engines, and neither layer may import the other.
"""
from __future__ import annotations

import argparse
import importlib
import json
import signal
import sys
import time
from typing import Any, NoReturn

from warpcheck.cli import contract_guard as guard
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.file_schemas import MAX_LOOP_BOUND
from warpcheck.models.files import check_writable

# Each module defines register(subparsers); its parser's func(args) returns the exit code.
VERB_MODULES = [
    "warpcheck.cli.frontend.verbs",
    "warpcheck.cli.frontend.sim_verbs",
    "warpcheck.cli.frontend.jobs",
    "warpcheck.cli.makespan.verbs",
    "warpcheck.cli.kernels.verbs",
    "warpcheck.cli.reorder.verbs",
    "warpcheck.cli.qaws.verbs",
]

EPILOG = """exit codes: 0 PASS (or success), 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT, 5 ERROR (a bug of
the kit: a crash report is written), 130 interrupted (Ctrl-C)"""

# Output files and folders of each verb (verb, action) -> (option, kind, default when not given):
# checked before any work starts.
OUTPUTS: dict[tuple[str, str | None], list[tuple[str, str, str | None]]] = {
    ("prove", None): [("witness", "file", "warpcheck-out/witness.json"), ("vcd", "file", None)],
    ("replay", None): [("vcd", "file", None)],
    ("cfg", None): [("dot", "file", None)],
    ("demo", None): [("out", "folder", None)],
    ("run", None): [("out", "folder", None)],
    ("reorder", "prove"): [("witness", "file", "warpcheck-out/witness.json")],
    ("makespan", None): [("certificate", "file", None)],
}
# Sizes with a hard ceiling, the largest value allowed and why (refused up front, exit 2).
CEILINGS: dict[tuple[str, str], tuple[int, str]] = {
    ("replay", "cycles"): (10_000, "a witness violates within its first cycles; a replay runs about 400 cycles/s"),
    ("simulate", "warps"): (64, "an SM holds at most 64 warps; a run at W = 64 already takes about a minute"),
    ("simt", "max_steps"): (10**6, "a warp runs about 3,000 blocks/s: more would take over 5 minutes"),
    ("wcet", "max_loop_bound"): (MAX_LOOP_BOUND,
                                 "past it the two IPET solvers' floating-point answers no longer agree"),
}
PER_TASK_TIMEOUT = {"demo", "run"}  # their --timeout is per proof, not a budget for the whole run


class _Parser(argparse.ArgumentParser):
    last_error = ""

    def error(self, message: str) -> NoReturn:  # one line, exit 2
        _Parser.last_error = message
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser with every available verb."""
    parser = _Parser(prog="warpcheck", epilog=EPILOG,
                     description="Formal verification of the timing predictability of GPU warp scheduling.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    sub.required = True
    for name in VERB_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        module.register(sub)
    _with_exit_codes(parser)
    return parser


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


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("warpcheck")
    except PackageNotFoundError:
        return "(not installed)"


def _check_args(args: argparse.Namespace) -> None:
    """Refuse, before any work, what argparse cannot see: NaN or infinite numbers, unwritable outputs."""
    bad = guard.finite_numbers(vars(args))
    if bad:
        raise _BadOption(f"{bad} is not allowed; give a finite number")
    for (verb, option), (ceiling, why) in CEILINGS.items():
        value = getattr(args, option, None) if args.verb == verb else None
        if isinstance(value, int) and value > ceiling:
            raise _BadOption(f"--{option.replace('_', '-')} {value} is above the ceiling of {ceiling} ({why})")
    for option, kind, default in OUTPUTS.get((args.verb, getattr(args, "action", None)), []):
        path = getattr(args, option, None) or default
        if path is not None:
            check_writable(path, f"--{option}", folder=kind == "folder")


class _BadOption(WarpcheckError):
    pass


def _budget(args: argparse.Namespace) -> float | None:
    timeout = getattr(args, "timeout", None)
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
    if guard.stopped_by() == signal.SIGALRM:
        return _end(args, guard.EXIT_TIMEOUT, "TIMEOUT",
                    f"the run did not finish within --timeout {args.timeout:g} s (set-up included)")
    return _end(args, guard.EXIT_INTERRUPTED, "INTERRUPTED", "stopped by Ctrl-C; nothing partial was written",
                "interrupted")


def main(argv: list[str] | None = None) -> int:
    """Run one verb; whatever happens, end with one of the documented exit codes."""
    started = time.monotonic()
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser()
        if not argv:  # bare `warpcheck`: the verbs, not only "VERB is required"
            print(parser.format_help(), end="", file=sys.stderr)
            return guard.EXIT_BAD_INPUT
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # while the verbs were still being imported
        print("warpcheck: interrupted: stopped by Ctrl-C", file=sys.stderr)
        return guard.EXIT_INTERRUPTED
    except SystemExit as e:
        if e.code == 2 and "--json" in argv:
            print(json.dumps({"status": "BAD_INPUT", "error": _Parser.last_error}))
        return int(e.code or 0)
    stdout = sys.stdout
    try:
        _check_args(args)
        with guard.guarded(_budget(args), started):
            sys.stdout = _Watched(stdout)  # type: ignore[assignment]
            return int(args.func(args))
    except WarpcheckError as e:
        return _end(args, guard.EXIT_BAD_INPUT, "BAD_INPUT", str(e), "error")
    except (guard.RunTimeout, KeyboardInterrupt):
        return _stopped(args)
    except BrokenPipeError:  # output piped into head and the like: stop quietly
        sys.stderr.close()
        return 0
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
