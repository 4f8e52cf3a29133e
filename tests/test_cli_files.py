"""Every verb declares its files where it defines the options, so no output can overwrite an input of any verb."""
from __future__ import annotations

import argparse
import re

import pytest

from warpcheck.cli.main import build_parser, main
from warpcheck.cli.options import PathOption

# Options named like files that are not files: makespan's KERNEL is an instruction string such as LLCLL;
# simulate --kernels is a comma list of workload names.
NOT_FILES = {("makespan", "kernel"), ("simulate", "kernels")}
FILE_LIKE = re.compile(r"FILE|PATH|DIR|STORE|KERNEL|WITNESS|SWEEP|WORKLOAD|^out$|^job$|^dot$|^vcd$|^csv$|^ptx$|^sm$")


def _options(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _options(child, (*path, name))
        else:
            yield path, action


def test_every_option_naming_a_file_is_declared_as_one():
    undeclared = [f"{' '.join(verb)} {a.dest}" for verb, a in _options(build_parser())
                  if (FILE_LIKE.search(str(a.metavar or "")) or FILE_LIKE.search(a.dest))
                  and (verb[0], a.dest) not in NOT_FILES and not isinstance(a.type, PathOption)]
    assert not undeclared, f"give these type=INPUT / OUTPUT_FILE / OUTPUT_FOLDER: {undeclared}"


@pytest.mark.parametrize("argv", [
    ["makespan", "--ptx", "{f}", "--sm", "examples/sm/fermi-makespan.toml", "--warps", "2", "--certificate", "{f}"],
    ["makespan", "--ptx", "k.ptx", "--sm", "{f}", "--warps", "2", "--certificate", "{f}"],
    ["cfg", "{f}", "--dot", "{f}"],
    ["replay", "{f}", "--vcd", "{f}"],
    ["sweep", "{f}", "--csv", "{f}"],
    ["prove", "--config", "{f}", "--witness", "{f}"],
])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "input.txt"
    f.write_text("kept\n")
    (tmp_path / "k.ptx").write_text("kept\n")
    assert main([a.replace("{f}", str(f)) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "it would be overwritten" in err[0], err
    assert f.read_text() == "kept\n"
