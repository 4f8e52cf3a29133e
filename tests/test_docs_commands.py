"""Every command shown in README.md and docs/*.md runs as shown.

Each ```sh block is run, command by command, in a fresh folder that sees the repository's
``examples/`` and ``benchmarks/`` (so a block's later commands may use what its earlier ones wrote).
A command's trailing comment states what to expect: ``exit N`` (default 1 when it says FAIL, else 0) and, in double quotes,
text its output must contain (the figures the page quotes). A block after ``<!-- slow -->`` is
marked slow. The commands of the README's table of verbs run too (slow: ``demo`` is among them).
Installs and the test suite itself are not run.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from warpcheck.cli.main import main
from warpcheck.verify import abc

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(<!-- slow -->\n)?```sh\n(.*?)^```", re.S | re.M)
NOT_RUN = ("pip ", "python -m venv", ". ", "python -m pytest")  # installs, activation, and the suite itself
SHELL = set("|&;<>$()`*")  # a command with any of these runs in bash, not in this process


@dataclass(frozen=True)
class Command:
    text: str
    code: int
    expect: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    where: str
    slow: bool
    commands: tuple[Command, ...]


def _split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment (a '#' after a blank, outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].strip(), line[i + 1:]
    return line.strip(), ""


def _command(line: str) -> Command | None:
    text, comment = _split_comment(line)
    if not text or text.startswith(NOT_RUN):
        return None
    code = re.search(r"\bexit (\d+)\b", comment)
    expected = int(code.group(1)) if code else 1 if re.search(r"\bFAIL\b", comment) else 0
    return Command(text, expected, tuple(re.findall(r'"([^"]+)"', comment)))


def _lines(body: str) -> list[str]:
    """Lines with backslash continuations joined; '&&' chains split into their commands."""
    joined = re.sub(r"\s*\\\n\s*", " ", body)
    out = []
    for line in joined.splitlines():
        text, comment = _split_comment(line)
        parts = [p.strip() for p in text.split("&&")] if "&&" in text else [text]
        out += [p for p in parts[:-1] if p] + [f"{parts[-1]} #{comment}" if comment else parts[-1]]
    return out


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in FENCE.finditer(text):
            line = text[:m.start(2)].count("\n")
            cmds = tuple(c for c in map(_command, _lines(m.group(2))) if c is not None)
            if cmds:
                found.append(Block(f"{page.relative_to(ROOT)}:{line}", bool(m.group(1)), cmds))
    table = [m.group(1) for m in re.finditer(r"^\|.*\| `(warpcheck [^`]*)` \|$", (ROOT / "README.md").read_text(), re.M)]
    found.append(Block("README.md: the table of verbs", True, tuple(Command(t, _table_code(t), ()) for t in table)))
    return found


def _table_code(text: str) -> int:
    return 1 if "--design baseline" in text else 0  # the table's baseline proof is a FAIL


def _run(cmd: Command, cwd: Path) -> tuple[int, str]:
    """Run one command: `warpcheck ...` in this process (as the console script does), the rest in bash."""
    if cmd.text.startswith("warpcheck ") and not SHELL & set(cmd.text):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(shlex.split(cmd.text)[1:])
        return code, out.getvalue()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    p = subprocess.run(["bash", "-c", cmd.text], cwd=cwd, env=env, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


ALL = blocks()


@pytest.mark.parametrize("block", [pytest.param(b, id=b.where, marks=[pytest.mark.slow] if b.slow else [])
                                   for b in ALL])
def test_every_command_shown_runs_as_shown(block, tmp_path, monkeypatch):
    if any("--engine abc-" in c.text for c in block.commands) and abc.missing():
        pytest.skip(f"{abc.missing()} (this block runs ABC)")
    for name in ("examples", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    for cmd in block.commands:
        code, out = _run(cmd, tmp_path)
        assert code == cmd.code, f"{block.where}: `{cmd.text}` exited {code}, the page says {cmd.code}\n{out[-3000:]}"
        missing = [e for e in cmd.expect if e not in out]
        assert not missing, f"{block.where}: `{cmd.text}` did not print {missing}\n{out[-3000:]}"


def test_the_extraction_sees_the_pages_commands():
    """The parser itself: comments, quoted figures, exit codes, continuations and installs."""
    body = 'warpcheck x --a "b # c" \\\n    --d 1   # exit 3 "fig 1" and "fig 2"\npip install .\n# only a comment\n'
    cmds = [c for c in map(_command, _lines(body)) if c is not None]
    assert cmds == [Command('warpcheck x --a "b # c" --d 1', 3, ("fig 1", "fig 2"))]
    assert [c.text for c in map(_command, _lines("python -m venv v && . v/bin/activate && warpcheck\n")) if c] == ["warpcheck"]
    assert sum(len(b.commands) for b in ALL) >= 30 and any(not b.slow for b in ALL)


# Words that tell the project's history or how the team works, not what the software does now.
# Phrases, not single words: "before the first issue" or "the old value" are technical.
HISTORY = re.compile(
    r"\b(?:previous|this|next|last) round\b|new this round|(?:this|latest|later|last) stop\b|re-measured|"
    r"used to (?:take|be|keep|read|end|give)\b|at the last measurement|earlier (?:days|versions?)|"
    r"was measured before|before the change|what changed|as before\b|no longer part|last session|"
    r"\bhelpers?\b|\bissue \d+|\bissues \d+ and \d+|we tried|previous best|before / after|the old (?:checker|parser|derivation)",
    re.I)


def test_readme_is_a_users_page():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 300  # five papers' systems, thirteen verbs, an API: details go to docs/
    history = re.findall(r"previous round|this round|(?:this|latest|later|last) stop|re-measured|used to take|"
                         r"at the last measurement|earlier (?:days|versions?)", text, re.I)
    assert not history, history


@pytest.mark.parametrize("page", PAGES[1:], ids=lambda p: p.name)
def test_docs_describe_the_software_as_it_is(page):
    """docs/*.md say what the kit does now: no story of rounds, stops, issues or earlier versions."""
    found = [f"{page.name}:{page.read_text()[:m.start()].count(chr(10)) + 1}: {m.group(0)!r}"
             for m in HISTORY.finditer(page.read_text())]
    assert not found, found


def test_the_history_words_are_phrases_not_technical_words():
    flagged = ["the previous round of work", "New this round:", "at this stop", "issue 21", "(issues 10 and 26)", "as before,",
               "it used to take 5 s", "an earlier version", "the helpers", "We tried it"]
    technical = ["-1 before the first issue", "returns the old value", "the issue policy",
                 "round robin", "the dynamic round", "one learning round", "the previous cycle",
                 "issues 3 from phase 0", "before any issue", "issue slots"]
    assert all(HISTORY.search(s) for s in flagged), [s for s in flagged if not HISTORY.search(s)]
    assert not any(HISTORY.search(s) for s in technical), [s for s in technical if HISTORY.search(s)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
        assert (page.parent / target).exists(), f"{page.name}: link to {target} leads nowhere"


def test_the_readme_stays_a_users_page_of_at_most_250_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250, "move details to docs/"
