"""The abstract activation stack: entries over abstract thread groups.

Enumerating the concrete thread masks of a warp is far too costly, so the
abstract stack keeps only the *relations* between groups.  An abstract stack
is a concrete :data:`~warpcheck.models.kernels.simt_stack.Stack` whose masks range
over *atoms* instead of threads: an atom is a non-empty set of threads, atoms
are pairwise disjoint, and an entry's mask is the union of its atoms.  The
concrete push/pop functions of ``simt_stack`` therefore apply unchanged; a
divergent branch first splits the running group's atom in two.

A stack is kept canonical: atoms that belong to exactly the same entries are
merged (no analysis can tell them apart) and atoms are numbered by their
membership, so equal situations give equal stacks; a running PTX
reconvergence entry is typed NIL, since a warp that reconverged behaves as
one that never split.  A concrete stack maps to
its abstract stack by taking each membership class of threads as an atom.
Since atoms are non-empty and disjoint, a warp of W threads has at most W of
them: a split beyond that is infeasible.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from warpcheck.models.errors import WarpcheckError
from warpcheck.models.kernels.simt_stack import NIL, REC, Entry, Stack

Facts = Mapping[int, frozenset]  # group mask (over atoms) -> registers that may differ in the group


def atoms_of(mask: int) -> list[int]:
    """The atom numbers in ``mask``."""
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def atom_count(stack: Stack) -> int:
    """How many atoms a stack uses."""
    union = 0
    for e in stack:
        union |= e.mask
    return bin(union).count("1")


def canonical(stack: Stack, facts: Mapping | None = None) -> tuple[Stack, dict]:
    """Merge atoms with equal membership, renumber them by membership; remap ``facts``.

    Facts are frozensets or bitsets (ints): anything with ``|``.
    """
    n = len(stack)
    member: dict[int, int] = {}  # atom bit -> the entries holding it, entry 0 as the highest bit
    for j, e in enumerate(stack):
        m, bit = e.mask, 1 << (n - 1 - j)
        while m:
            low = m & -m
            member[low] = member.get(low, 0) | bit
            m ^= low
    classes = {c: 1 << i for i, c in enumerate(sorted(set(member.values()), reverse=True))}
    new_bit = {a: classes[c] for a, c in member.items()}
    remapped: dict[int, int] = {}

    def remap(mask: int) -> int:
        out = remapped.get(mask)
        if out is None:
            out, m = 0, mask
            while m:
                low = m & -m
                out |= new_bit.get(low, 0)
                m ^= low
            remapped[mask] = out
        return out

    new_stack = tuple(Entry(e.pc, remap(e.mask), e.kind, e.rpc) for e in stack)
    if new_stack and new_stack[-1].kind == REC:  # a running entry's type has no effect; reconverged == never split
        new_stack = new_stack[:-1] + (replace(new_stack[-1], kind=NIL),)
    new_facts: dict = {}
    for mask, regs in (facts or {}).items():
        key = remap(mask)
        if key:
            new_facts[key] = new_facts[key] | regs if key in new_facts else regs
    live = {e.mask for e in new_stack}
    return new_stack, {k: v for k, v in new_facts.items() if k in live}


def split_top(stack: Stack, facts: Mapping, empty=frozenset()) -> tuple[Stack, dict, int, int]:
    """Split the running group's atom in two; return the stack, facts and the two new masks.

    ``empty`` is the fact of a group with no entry (``0`` for bitset facts).
    """
    top = stack[-1].mask
    if bin(top).count("1") != 1:
        raise WarpcheckError(f"abstract stack invariant broken: running group {top:#b} has several atoms")
    union = 0
    for e in stack:
        union |= e.mask
    first, second = top, 1 << union.bit_length()

    def widen(mask: int) -> int:
        return mask | second if mask & top else mask

    new_stack = tuple(replace(e, mask=widen(e.mask)) for e in stack)
    new_facts = {widen(k): v for k, v in facts.items()}
    inherited = facts.get(top, empty)
    new_facts[first] = inherited
    new_facts[second] = inherited
    return new_stack, new_facts, first, second


def from_concrete(stack: Stack) -> Stack:
    """The canonical abstract stack of a concrete one (threads grouped by membership)."""
    union = 0
    for e in stack:
        union |= e.mask
    classes: dict[tuple, int] = {}
    for t in atoms_of(union):
        classes.setdefault(tuple(e.mask >> t & 1 for e in stack), len(classes))
    bit = {t: 1 << classes[tuple(e.mask >> t & 1 for e in stack)] for t in atoms_of(union)}

    def remap(mask: int) -> int:
        out = 0
        for t in atoms_of(mask):
            out |= bit[t]
        return out

    return canonical(tuple(replace(e, mask=remap(e.mask)) for e in stack))[0]


def describe(stack: Stack) -> str:
    """A short text of an abstract stack, top first: ``pc:kind{atoms}``."""
    parts = []
    for e in reversed(stack):
        atoms = ",".join(f"g{a}" for a in atoms_of(e.mask))
        parts.append(f"{e.pc}:{e.kind}{{{atoms}}}")
    return " | ".join(parts) or "done"
