"""The ``warpcheck`` command: one verb per module, errors as one line and exit code 2.

The command line sits above the four layers: ``replay`` needs the simulator
and ``prove`` the engines, and neither layer may import the other.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from warpcheck.models.errors import WarpcheckError

# Each module defines register(subparsers); its parser's func(args) returns the exit code.
VERB_MODULES = [
    "warpcheck.cli.frontend_verbs",
    "warpcheck.cli.sim_verbs",
    "warpcheck.cli.jobs",
    "warpcheck.cli.makespan_verbs",
    "warpcheck.cli.kernel_verbs",
    "warpcheck.cli.reorder_verbs",
    "warpcheck.cli.qaws_verbs",
]

EPILOG = """exit codes: 0 PASS (or success), 1 FAIL, 2 bad input, 3 UNKNOWN, 4 TIMEOUT, 5 ERROR"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser with every available verb."""
    parser = _Parser(prog="warpcheck", epilog=EPILOG,
                     description="Formal verification of the timing predictability of GPU warp scheduling.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one verb; user errors print one line and exit 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except WarpcheckError as e:
        print(f"warpcheck {args.verb}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("warpcheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head and the like: stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
