"""One writer for every output: regular files only, sets whole or absent, never over an input (issue 39).

Each kind of path that is not a regular file (a device, a FIFO, a symbolic link, a folder) is refused by
name before any work and again at the write, and left as it was; a set of files (export's scripts, a
figure's PNG and SVG, a witness and its VCD) is written whole or not at all; a store whose creation fails
leaves no file; the library refuses an output that is one of the call's inputs, as the verbs do.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import warpcheck
from warpcheck.cli.main import main
from warpcheck.models.errors import InputFileError, OptionError
from warpcheck.models.files import atomic_write_text, check_writable, write_files

ROOT = Path(__file__).resolve().parents[1]
PTX = ROOT / "examples" / "kernels" / "nw.ptx"
FERMI = ROOT / "examples" / "sm" / "fermi-makespan.toml"
TINY = 'verb = "makespan"\narguments = ["LLCLL"]\n[options]\nsigma = ["L=1", "C=1"]\n[axes]\nwarps = [1, 2]\n'


def _listing(folder: Path) -> dict[str, str]:
    """Every entry of the folder (hidden temporaries too) and what it is."""
    return {p.name: ("link" if p.is_symlink() else "dir" if p.is_dir() else "fifo" if p.is_fifo() else
                     "socket" if p.is_socket() else p.read_text()) for p in folder.iterdir()}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.txt").write_text("kept\n")
    return tmp_path


def _fifo(where: Path) -> str:
    os.mkfifo(where / "pipe")
    return "pipe"


def _link(where: Path) -> str:
    (where / "link").symlink_to(where / "other.txt")
    return "link"


def _folder(where: Path) -> str:
    (where / "folder").mkdir()
    return "folder"


def _socket(where: Path) -> str:
    import socket
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("sock")  # relative: the fixture is in ``where`` (a socket's path has at most 107 bytes)
    return "sock"


KINDS = {"a FIFO": _fifo, "a symbolic link": _link, "a folder": _folder, "a socket": _socket}


# -- nothing but a regular file is replaced ---------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_the_writer_refuses_what_is_not_a_regular_file_and_leaves_it(kind, workdir):
    path = KINDS[kind](workdir)
    before = _listing(workdir)
    with pytest.raises(InputFileError, match=f"is {kind}"):
        atomic_write_text(path, "text")  # the check at write time, whatever was checked before
    with pytest.raises(InputFileError, match=f"is {kind}"):
        check_writable(path, "--csv")  # and the check before any work
    assert _listing(workdir) == before  # nothing replaced, no temporary left


def _device(where: Path) -> str:
    """A character device to write to: a null device of our own as root (a kit that regressed must not replace
    the machine's /dev/null: as root it could), else /dev/null (which others cannot replace)."""
    if os.geteuid() != 0:
        return "/dev/null"
    os.mknod(where / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return str(where / "null")


def test_a_device_is_refused_by_name_and_not_replaced(tmp_path):
    dev = _device(tmp_path)
    before = os.lstat(dev)
    with pytest.raises(InputFileError, match=f"'{dev}' is a character device"):
        atomic_write_text(dev, "text")
    with pytest.raises(InputFileError, match=f"--dot '{dev}' is a character device"):
        check_writable(dev, "--dot")
    after = os.lstat(dev)
    assert (after.st_mode, after.st_rdev, after.st_ino) == (before.st_mode, before.st_rdev, before.st_ino)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("verb", [["cfg", str(PTX), "--dot"], ["prove", "--warps", "2", "--witness"],
                                  ["replay", "w.json", "--vcd"], ["sweep", "s.toml", "--csv"],
                                  ["makespan", "LLCLL", "-W", "2", "--sigma", "L=1", "--sigma", "C=1",
                                   "--certificate"]])
def test_a_verb_refuses_an_output_that_is_no_regular_file_before_any_work(verb, kind, workdir, capsys):
    (workdir / "w.json").write_text("{}")
    (workdir / "s.toml").write_text(TINY)
    path = KINDS[kind](workdir)
    before = _listing(workdir)
    assert main([*verb, path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{verb[-1]} " in err[0] and ("is a" in err[0]), err
    assert _listing(workdir) == before  # no store, no witness, no temporary: nothing ran


def test_the_sweep_of_the_issue_leaves_dev_full_alone(workdir, capsys):
    (workdir / "s.toml").write_text(TINY)
    assert main(["sweep", "s.toml", "--store", "S.duckdb", "--quiet"]) == 0
    dev = _device(workdir)
    assert main(["sweep", "--store", "S.duckdb", "--csv", dev]) == 2
    assert f"--csv '{dev}' is a character device" in capsys.readouterr().err
    assert Path(dev).is_char_device()


@pytest.mark.parametrize("call", [
    lambda dev: warpcheck.cfg(str(PTX), dot=dev),
    lambda dev: warpcheck.cfg(str(PTX), dot="pipe"),
    lambda dev: warpcheck.makespan("LLCLL", 2, {"L": 1, "C": 1}, certificate="pipe"),
    lambda dev: warpcheck.prove(warps=2, vcd="pipe"),
])
def test_the_library_refuses_them_too_naming_the_keyword(call, workdir):
    _fifo(workdir)
    dev = _device(workdir)
    with pytest.raises(OptionError, match=r"^(dot|certificate|vcd)='.*': it is a (character device|FIFO)"):
        call(dev)
    assert (workdir / "pipe").is_fifo() and Path(dev).is_char_device()


# -- a set of files whole or not at all --------------------------------------------------------------------

def test_a_set_whose_third_file_cannot_be_written_leaves_none(workdir):
    (workdir / "c").mkdir()  # the third target is a folder: refused at the write
    with pytest.raises(InputFileError, match="'c' is a folder"):
        write_files({"a": "1", "b": "2", "c": "3", "d": "4"}, "out")
    assert _listing(workdir) == {"other.txt": "kept\n", "c": "dir"}


def test_a_set_that_fails_in_the_middle_of_staging_leaves_none(workdir, monkeypatch):
    import warpcheck.models.files as files
    staged = files._stage
    calls = []

    def full_disk(p, data, what):
        calls.append(p)
        if len(calls) == 3:
            raise InputFileError(f"cannot write {what} {str(p)!r}: No space left on device")
        return staged(p, data, what)
    monkeypatch.setattr(files, "_stage", full_disk)
    (workdir / "b").write_text("old\n")
    with pytest.raises(InputFileError, match="No space left"):
        write_files({"a": "1", "b": "2", "c": "3", "d": "4"}, "out")
    assert _listing(workdir) == {"other.txt": "kept\n", "b": "old\n"}  # the old b kept, no a, no temporaries


def test_export_writes_its_four_scripts_or_none(workdir, capsys):
    argv = ["export", "--format", "smt2", "--design", "baseline", "--policy", "gtlrr", "--warps", "2", "--depth", "3",
            "--out", "problems", "--json"]
    assert main(argv) == 0
    names = sorted(p.name for p in (workdir / "problems").iterdir())
    assert len(names) == 4 and capsys.readouterr()
    for p in (workdir / "problems").iterdir():
        p.unlink()
    (workdir / "problems" / names[2]).mkdir()  # the third cannot be written
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{names[2]}' is a folder" in err[0]
    assert sorted(p.name for p in (workdir / "problems").iterdir()) == [names[2]]  # 0 of 4, no temporary


def test_plot_writes_png_and_svg_or_neither(workdir, capsys):
    (workdir / "s.toml").write_text(TINY)
    assert main(["sweep", "s.toml", "--store", "S.duckdb", "--quiet"]) == 0
    (workdir / "figs").mkdir()
    (workdir / "figs" / "makespan-vs-w.svg").mkdir()  # the SVG cannot be written
    capsys.readouterr()
    assert main(["plot", "S.duckdb", "--figure", "makespan-vs-w", "--out", "figs"]) == 2
    assert "makespan-vs-w.svg' is a folder" in capsys.readouterr().err
    assert [p.name for p in (workdir / "figs").iterdir()] == ["makespan-vs-w.svg"]  # no PNG left
    (workdir / "figs" / "makespan-vs-w.svg").rmdir()
    (workdir / "figs" / "makespan-vs-w.png").write_text("an earlier figure")
    assert main(["plot", "S.duckdb", "--figure", "makespan-vs-w", "--out", "figs"]) == 0  # replaced, as its help says
    assert (workdir / "figs" / "makespan-vs-w.png").read_bytes().startswith(b"\x89PNG")


def test_a_store_that_cannot_be_created_leaves_no_file(workdir, monkeypatch):
    from warpcheck._sweep import store
    monkeypatch.setattr(store, "SCHEMA", store.SCHEMA.replace("CREATE TABLE", "CREATE TABLEX"))  # fails once made
    with pytest.raises(InputFileError, match="store 'out/S.duckdb'"):
        store.Store("out/S.duckdb")
    assert _listing(workdir / "out") == {}


def test_prove_writes_the_witness_and_its_vcd_together_or_neither(workdir, monkeypatch):
    from warpcheck._frontend import proof
    text = proof.vcd_text

    def and_the_path_turns_into_a_folder(replays):  # after the checks before any work, before the write
        (workdir / "w.vcd").mkdir()
        return text(replays)
    monkeypatch.setattr(proof, "vcd_text", and_the_path_turns_into_a_folder)
    with pytest.raises(InputFileError, match="'w.vcd' is a folder"):
        warpcheck.prove("baseline", fetch="lrr", issue="gtlrr", warps=2, witness="w.json", vcd="w.vcd")
    assert _listing(workdir) == {"other.txt": "kept\n", "w.vcd": "dir"}  # no witness without its VCD


# -- the library never writes over its input ---------------------------------------------------------------

@pytest.mark.parametrize("call, option", [
    (lambda d: warpcheck.cfg(str(d / "k.ptx"), dot=str(d / "k.ptx")), "dot"),
    (lambda d: warpcheck.replay(str(d / "w.json"), vcd=str(d / "w.json")), "vcd"),
    (lambda d: warpcheck.prove(config=str(d / "sm.toml"), witness=str(d / "sm.toml")), "witness"),
    (lambda d: warpcheck.prove(config=str(d / "sm.toml"), vcd=str(d / "sm.toml")), "vcd"),
    (lambda d: warpcheck.prove(witness=str(d / "x.json"), vcd=str(d / "x.json")), "vcd"),
    (lambda d: warpcheck.makespan(ptx=str(d / "k.ptx"), sm=str(FERMI), warps=2, certificate=str(d / "k.ptx")),
     "certificate"),
    (lambda d: warpcheck.makespan(check=str(d / "w.json"), certificate=str(d / "w.json")), "certificate"),
    (lambda d: warpcheck.reorder_prove(str(d / "k.ptx"), witness=str(d / "k.ptx")), "witness"),
    (lambda d: warpcheck.export("smt2", config=str(d / "sm.toml"), out=str(d / "sm.toml")), "out"),
    (lambda d: warpcheck.sweep(str(d / "s.toml"), csv=str(d / "s.toml")), "csv"),
    (lambda d: warpcheck.sweep(str(d / "s.toml"), store=str(d / "s.toml")), "store"),
    (lambda d: warpcheck.sweep(store=str(d / "w.json"), csv=str(d / "w.json")), "csv"),
    (lambda d: warpcheck.plot(str(d / "w.json"), "table2", out=str(d / "w.json")), "out"),
    (lambda d: warpcheck.run_job(str(d / "s.toml"), out=str(d / "s.toml")), "out"),
])
def test_the_library_refuses_an_output_that_is_its_input(call, option, tmp_path):
    for name, text in {"k.ptx": PTX.read_text(), "w.json": "{}", "sm.toml": "[sm]\nwarps = 2\n",
                       "s.toml": TINY}.items():
        (tmp_path / name).write_text(text)
    before = _listing(tmp_path)
    with pytest.raises(OptionError, match=rf"^{option}=.*: it is the (input|output) .*give another path"):
        call(tmp_path)
    assert _listing(tmp_path) == before


def test_every_output_option_says_in_its_help_whether_it_replaces_a_file():
    import argparse

    from warpcheck.cli.main import build_parser
    from warpcheck.cli.options import PathOption

    def outputs(parser, verb=()):
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, child in a.choices.items():
                    yield from outputs(child, (*verb, name))
            elif isinstance(a.type, PathOption) and a.type.role != "input":
                yield " ".join(verb), a

    found = list(outputs(build_parser()))
    silent = [f"{verb} {a.option_strings[0]}" for verb, a in found if "replaced" not in (a.help or "")]
    assert len(found) >= 11 and not silent, f"say in the help whether these replace an existing file: {silent}"
