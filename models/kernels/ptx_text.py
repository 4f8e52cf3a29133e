"""PTX text into statements: comments removed, statements split where PTX ends them, positions kept.

PTX is free-form: a statement ends with ``;`` wherever the line breaks, except
the directives that end with their line (``.version``, ``.loc``, ...), labels
(``name:``) and the braces of a scope.  Compilers spread instructions over
lines (``-G`` writes ``call.uni`` alone on a line, NVVM 13 writes each
``{...}`` operand of an ``mma.sync`` on a line of its own), so a piece without
``;`` continues on the next line unless that line starts a statement of its
own (a guard, a directive, a label, a brace that closes, or a known opcode).
Every statement keeps where each of its pieces was written, so an error names
``FILE:LINE:COL`` of the token it quotes, as written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from warpcheck.models.kernels.opcodes import PTX_REFUSED, PTX_TABLE

_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//|/\*')
_LABEL = re.compile(r"[$%A-Za-z_][\w$]*\s*:(?!:)")
_WORD = re.compile(r"[A-Za-z_][\w]*(?=[.\s;]|$)")
_OPCODE_BASES = frozenset(name.split(".")[0] for name in [*PTX_TABLE, *PTX_REFUSED])


@dataclass(frozen=True)
class Statement:
    """One statement: its text as written (whitespace runs made one space) and where each piece was."""

    text: str
    line: int
    col: int
    pieces: tuple[tuple[int, int, str], ...] = ()
    ended: bool = True  # False: an instruction that never met its ';'

    @property
    def is_label(self) -> bool:
        return self.text.endswith(":") and _LABEL.fullmatch(self.text) is not None

    def locate(self, token: str) -> tuple[int, int]:
        """(line, column) where ``token`` was written in this statement, as a whole word (else its first
        word; else the statement's start)."""
        for needle in dict.fromkeys((token, token.split()[0] if token.split() else token)):
            word = re.compile(r"(?<![\w.%$])" + re.escape(needle) + (r"(?![\w$])" if needle[-1:].isalnum() else ""))
            for line, col, piece in self.pieces:
                m = word.search(piece)
                if m:
                    return line, col + m.start()
        return self.line, self.col

    def end(self) -> tuple[int, int, str]:
        """(line, column, text) of the last word written: where a missing ';' belongs."""
        line, col, piece = self.pieces[-1] if self.pieces else (self.line, self.col, self.text)
        word = piece.split()[-1]
        return line, col + piece.rfind(word), word


def source_lines(text: str) -> list[tuple[int, int, str]]:
    """(line number, column of the first character, text) of every line with code, comments removed.

    A comment becomes spaces, so the columns of what follows it are kept; strings
    (``.file 1 "a//b.cu"``) are not comments.
    """
    out: list[tuple[int, int, str]] = []
    in_block = False
    for n, raw in enumerate(text.splitlines(), 1):
        if in_block or "/" in raw:
            raw, in_block = _uncomment(raw, in_block)
        stripped = raw.strip()
        if stripped:
            out.append((n, len(raw) - len(raw.lstrip()) + 1, stripped))
    return out


def _uncomment(raw: str, in_block: bool) -> tuple[str, bool]:
    """``raw`` with its comments blanked; whether a block comment is still open at its end."""
    chars, i = list(raw), 0
    while i < len(raw):
        if in_block:
            end = raw.find("*/", i)
            stop = len(raw) if end < 0 else end + 2
            chars[i:stop] = " " * (stop - i)
            in_block, i = end < 0, stop
            continue
        m = _COMMENT.search(raw, i)
        if m is None:
            break
        if m.group(0) == "//":
            chars[m.start():] = " " * (len(raw) - m.start())
            break
        if m.group(0) == "/*":
            chars[m.start():m.end()] = "  "
            in_block = True
        i = m.end()
    return "".join(chars), in_block


def body_statements(lines: list[tuple[int, int, str]], start: int,
                    first: tuple[int, int, str] | None = None) -> tuple[list[Statement], int] | None:
    """Statements of a body from ``lines[start]`` (or ``first`` in its place) up to the brace that closes it.

    Returns (statements, index of the line after that brace).

    ``{`` and ``}`` that open a statement are scope braces and come out as
    statements of their own; braces inside an instruction (``{%f1, %f2}``) stay
    in it.  None when the body never closes.
    """
    out: list[Statement] = []
    pending: list[tuple[int, int, str]] = []
    depth = 0
    for index in range(start, len(lines)):
        lineno, col, text = first if index == start and first is not None else lines[index]
        if not text:
            continue
        if pending and not _continues(_joined(pending), text):
            out.append(_statement(pending, ended=False))
            pending = []
        p = 0
        while p < len(text):
            if text[p] == " " or text[p] == "\t":
                p += 1
                continue
            if not pending and text[p] in "{}":
                depth += 1 if text[p] == "{" else -1
                if depth < 0:
                    return out, index + 1
                out.append(Statement(text[p], lineno, col + p, ((lineno, col + p, text[p]),)))
                p += 1
                continue
            label = _LABEL.match(text, p) if not pending else None
            if label:
                out.append(Statement(label.group(0).replace(" ", "").replace("\t", ""), lineno, col + p,
                                     ((lineno, col + p, label.group(0)),)))
                p = label.end()
                continue
            end = text.find(";", p)
            stop = len(text) if end < 0 else end + 1
            pending.append((lineno, col + p, text[p:stop].rstrip()))
            p = stop
            if end >= 0:
                out.append(_statement(pending))
                pending = []
    return None


def _joined(pieces: list[tuple[int, int, str]]) -> str:
    return " ".join(piece for _, _, piece in pieces)


def _statement(pieces: list[tuple[int, int, str]], ended: bool = True) -> Statement:
    text = " ".join(_joined(pieces).split())
    if len(pieces) > 1:
        text = re.sub(r"\s+\)", ")", re.sub(r"\(\s+", "(", text))
    return Statement(text, pieces[0][0], pieces[0][1], tuple(pieces), ended)


def _continues(pending: str, nxt: str) -> bool:
    """Whether a statement without its ';' goes on with the line ``nxt``."""
    if any(pending.count(a) > pending.count(b) for a, b in ("()", "[]", "{}")) or pending.endswith((",", "(", "|")):
        return True
    if pending.startswith("."):  # a directive without ';' (.loc, .pragma) ends with its line
        return False
    return not starts_statement(nxt)


def starts_statement(text: str) -> bool:
    """Whether a line begins a statement: a guard, a directive, a closing brace, a label or a known opcode."""
    if text[0] in "@.}":
        return True
    if _LABEL.match(text):
        return True
    word = _WORD.match(text)
    return word is not None and word.group(0) in _OPCODE_BASES


def skip_block(lines: list[tuple[int, int, str]], start: int) -> int | None:
    """The index after the ``{ ... }`` block that opens on ``lines[start]`` or the line after; None if unclosed.

    A directive with no block (a ``.section`` on one line) ends with its line.
    """
    first = start if "{" in lines[start][2] else start + 1
    if first >= len(lines) or not (lines[first][2].startswith("{") or first == start):
        return start + 1
    depth = 0
    for index in range(first, len(lines)):
        text = lines[index][2]
        depth += text.count("{") - text.count("}")
        if depth <= 0:
            return index + 1
    return None
