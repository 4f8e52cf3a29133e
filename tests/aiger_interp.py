"""A small binary AIGER 1.9 reader and simulator for the tests, written from the format's definition
(fmv.jku.at/aiger/FORMAT), importing nothing of the kit."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Aiger:
    """The parts of a binary AIGER file, by literal."""

    header: list[int]
    inputs: list[int]  # literals 2, 4, ... 2 * I
    latches: list[tuple[int, int, int]]  # (literal, next, reset literal: 0, 1, or the latch's own)
    bad: list[int]
    constraints: list[int]
    ands: list[tuple[int, int, int]]  # (lhs, rhs0, rhs1)
    symbols: dict[str, str] = field(default_factory=dict)  # "i0", "l3", "b0", "c2" -> name


def _number(data: bytes, pos: int) -> tuple[int, int]:
    x, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        x |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return x, pos


def parse(data: bytes) -> Aiger:
    """Read a binary AIGER file; refuse what the format does not allow (the checks a strict reader makes)."""
    pos = data.index(b"\n") + 1
    words = data[:pos].split()
    assert words[0] == b"aig" and 6 <= len(words) <= 10, words
    head = [int(w) for w in words[1:]] + [0] * (9 - len(words[1:]))
    M, I, L, O, A, B, C = head[:7]
    assert M == I + L + A and O == 0 and head[7] == head[8] == 0, head
    lines = []
    for _ in range(L + B + C):
        end = data.index(b"\n", pos)
        lines.append([int(w) for w in data[pos:end].split()])
        pos = end + 1
    latches = []
    for k, row in enumerate(lines[:L]):
        lit = 2 * (I + k + 1)
        reset = row[1] if len(row) > 1 else 0
        assert reset in (0, 1, lit) and row[0] <= 2 * M + 1, row
        latches.append((lit, row[0], reset))
    ands = []
    for k in range(A):
        lhs = 2 * (I + L + k + 1)
        d0, pos = _number(data, pos)
        d1, pos = _number(data, pos)
        r0 = lhs - d0
        r1 = r0 - d1
        assert lhs > r0 >= r1 >= 0
        ands.append((lhs, r0, r1))
    symbols = {}
    for line in data[pos:].decode().splitlines():
        if line == "c":
            break
        key, name = line.split(" ", 1)
        symbols[key] = name
    return Aiger(head, [2 * (k + 1) for k in range(I)], latches, [r[0] for r in lines[L:L + B]],
                 [r[0] for r in lines[L + B:]], ands, symbols)


def evaluate(m: Aiger, latches: dict[int, bool], inputs: dict[int, bool]) -> dict[int, bool]:
    """Every literal's value (both polarities) in one cycle, from the latches' and inputs' values."""
    val = {0: False, 1: True}
    for lit, v in [*latches.items(), *inputs.items()]:
        val[lit], val[lit + 1] = v, not v
    for lhs, r0, r1 in m.ands:
        val[lhs] = val[r0] and val[r1]
        val[lhs + 1] = not val[lhs]
    return val
