"""One path per question, across every verb: each verb of the command line is a record and a library
function, the parser states no default of its own, and a sweep row, a script and argv meet in one record."""
from __future__ import annotations

import argparse
import dataclasses

import pytest

from warpcheck._verbs import VERBS, options_of
from warpcheck.cli.main import build_parser

SHELL_ONLY = {"sweep", "plot"}  # verbs over other verbs' runs: records of their own, not in the table a sweep runs


def _verbs(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _verbs(child, (*words, name))
            return
    yield " ".join(words), parser


def _default(field: dataclasses.Field):
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def test_every_verb_of_the_command_line_is_a_record_and_a_function_of_the_library():
    verbs = {name for name, _ in _verbs(build_parser())}
    assert verbs - SHELL_ONLY == {n for n in VERBS if " --" not in n}


@pytest.mark.parametrize("name", [n for n in VERBS if " --" not in n])
def test_a_verb_states_no_default_of_its_own_and_its_record_is_frozen_with_a_budget(name):
    parser = dict(_verbs(build_parser()))[name]
    record = VERBS[name].options_type()
    fields = {f.name: f for f in dataclasses.fields(record)}
    assert record.__dataclass_params__.frozen and {"timeout", "memory"} <= set(fields)
    differ = [f"--{a.dest}: {a.default!r} on the parser, {_default(fields[a.dest])!r} on the record"
              for a in parser._actions if a.dest in fields and a.default is not None
              and not isinstance(a, argparse._StoreTrueAction) and a.default != _default(fields[a.dest])]
    assert not differ, differ


def test_a_sweep_row_and_the_command_line_build_the_same_record():
    argv = ["makespan", "LLCLL", "--warps", "8", "--sigma", "L=1", "--sigma", "C=1", "--method", "enumerate"]
    args = build_parser().parse_args(argv)
    from warpcheck.cli.options import record_from_args
    record = VERBS["makespan"].options_type()
    assert record_from_args(record, args) == \
        options_of("makespan", ["LLCLL"], {"warps": 8, "sigma": ["L=1", "C=1"], "method": "enumerate"})


def test_a_row_naming_an_option_the_verb_lacks_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown keyword 'polcy'; did you mean 'policy'"):
        options_of("prove", [], {"polcy": "lrr"})
