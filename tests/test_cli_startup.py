"""The command line starts at once: the verb list is a table, and a run imports only the verb it runs.

The goal is a time (``--version`` in under 0.3 s, ``python benchmarks/startup.py``); these tests check
its cause instead: what a start imports, and that the table cannot drift from the verbs' own parsers.
"""
from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

from warpcheck.cli.main import VERB_MODULES, VERBS, _Parser, build_parser, main


def _verb_lines(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(a.dest, str(a.help)) for a in sub._choices_actions]


def test_the_table_of_verbs_is_what_each_verb_module_defines():
    for name in VERB_MODULES:
        sub = _Parser(prog="t").add_subparsers(dest="verb", parser_class=_Parser)
        importlib.import_module(name).register(sub)
        defined = {verb: str(a.help) for verb, a in zip(sub.choices, sub._choices_actions)}
        table = {verb: line for verb, (module, line) in VERBS.items() if f"warpcheck.cli.{module}" == name}
        assert defined == table, name


def test_the_verb_list_without_imports_is_the_full_one():
    assert _verb_lines(build_parser(verbs=())) == _verb_lines(build_parser()) == [
        (verb, line) for verb, (_, line) in VERBS.items()]


RUN = ("import json, sys\nfrom warpcheck.cli.main import main\ncode = main(sys.argv[1:])\n"
       "print(json.dumps([code, sorted(sys.modules)]), file=sys.__stdout__)")


def _imported(*argv: str) -> tuple[int, set[str]]:
    """The exit code of ``warpcheck ARGV`` in a fresh interpreter, and the modules it had imported by then."""
    done = subprocess.run([sys.executable, "-c", RUN, *argv], capture_output=True, text=True)
    code, names = json.loads(done.stdout.splitlines()[-1])
    return code, set(names)


@pytest.mark.parametrize("argv, code", [(["--version"], 0), (["--help"], 0), ([], 2), (["--bogus"], 2),
                                        (["nosuchverb"], 2), (["--json", "prve"], 2)])
def test_help_version_and_a_refused_verb_import_no_verb_and_no_solver(argv, code):
    got, names = _imported(*argv)
    assert got == code
    heavy = {n for n in names if n.split(".")[0] in {"z3", "numpy", "pydantic", "networkx"} or n in VERB_MODULES
             or n.startswith(("warpcheck._frontend", "warpcheck.verify", "warpcheck.sim", "warpcheck.encodings.z3"))}
    assert not heavy, heavy


HEAVY = {"z3", "numpy", "pydantic", "networkx", "pysmt", "highspy", "bitwuzla", "cvc5", "tabulate", "duckdb"}


@pytest.mark.parametrize("argv", [["prove", "--warps", "0"], ["simulate", "--warps", "0"], ["export", "--format", "x"],
                                  ["demo", "--warps", "0"], ["makespan", "--warps", "0"],
                                  ["reorder", "prove", "--warps", "0"], ["analyze", "--bogus"],
                                  ["qaws", "wcrt", "--bogus"], ["cfg", "--bogus"], ["wcet", "--bogus"],
                                  ["sweep", "--bogus"], ["plot", "--bogus"], ["check", "--bogus"]])
def test_a_refused_option_loads_no_solver_graph_or_schema_library(argv):
    """Checking a verb's options imports its record, never the libraries of its run (the start stays quick)."""
    got, names = _imported(*argv)
    assert got == 2
    assert not {n.split(".")[0] for n in names} & HEAVY, sorted({n.split(".")[0] for n in names} & HEAVY)


def test_a_verb_imports_its_own_module_only():
    got, names = _imported("prove", "--help")
    assert got == 0 and "warpcheck.cli.frontend.verbs" in names
    others = {m for m in VERB_MODULES if m != "warpcheck.cli.frontend.verbs"} & names
    assert not others, others


def test_a_refused_option_of_a_verb_is_still_one_line(capsys):
    assert main(["makespan", "--no-such-option"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "warpcheck: error: unrecognized arguments: --no-such-option"]
