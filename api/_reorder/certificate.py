"""The certificates of a ``reorder prove --streams`` PASS and the system such a certificate covers.

The system is the unit (or a mutant) over symbolic streams next to the
reference (``verify/reorder/streams.py``: :class:`StreamMonitor`), the property
the check's parts together.  A stream proof runs over a family of barrier
bounds (``stream_proof.family``): each member is its own system, so each gets
its own certificate: the last member's (any number of barriers, or the one
``barriers`` given) goes to the file asked for, an earlier one with at most B
barriers to the same name with ``.barriers-B`` before its suffix.  The
proofs are k-inductive (k = 2 with the default bounds), which the files state.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from warpcheck._reorder.options import ReorderProveOptions
from warpcheck._reorder.stream_proof import build
from warpcheck.encodings import certificate as cert
from warpcheck.encodings.unroll import _width
from warpcheck.models.errors import ConfigError
from warpcheck.models.files import write_files
from warpcheck.models.ts import Predicate, TransitionSystem

VERB = "reorder prove"
FIELDS = ("streams", "warps", "blocks", "lines", "line_bytes", "order", "cache", "stores", "channel", "mutant",
          "check")  # the options a stream proof's system depends on, besides the member's barrier bound


def covers(a: ReorderProveOptions, barriers: int | None) -> dict[str, Any]:
    """What the certificate of the family member with ``barriers`` covers, as plain data."""
    out = {name: getattr(a, name) for name in FIELDS}
    return {"verb": VERB, **out, "blocks": list(a.blocks), "barriers": barriers}


def system_of(covered: Mapping[str, Any], where: str) -> tuple[TransitionSystem, Predicate]:
    """The monitored unit and property a certificate's ``covers`` names (``ConfigError`` if it names none)."""
    if covered.get("verb") != VERB or covered.get("streams") is None:
        raise ConfigError(f"{where}: covers no {VERB} --streams proof the kit knows")
    given = {name: covered.get(name) for name in FIELDS if covered.get(name) is not None}
    a = ReorderProveOptions(**given, barriers=covered.get("barriers"))
    assert a.check is not None  # the record settles it
    m = build(a, a.barriers)
    return m, m.prop(a.check)


def paths(path: str, barriers: list[int | None]) -> list[str]:
    """Where each member's certificate goes: the last at ``path``, an earlier one at ``STEM.barriers-B.SUFFIX``."""
    p = Path(path)
    return [str(p.with_name(f"{p.stem}.barriers-{b}{p.suffix}")) for b in barriers[:-1]] + [path]


def write_certificates(a: ReorderProveOptions, members: list[tuple[int | None, dict[str, Any]]]) -> list[str]:
    """Write the certificate of each PASS member (its barrier bound, its run's data) of the family; their paths."""
    assert a.certificate is not None
    where = paths(a.certificate, [b for b, _ in members])
    texts = {}
    for path, (barriers, run) in zip(where, members):
        covered = covers(a, barriers)
        ts, prop = system_of(covered, "the run")
        header = [f"covers: {json.dumps(covered, sort_keys=True)}",
                  f"claim: {run['claim']}",
                  f"proved by: z3 (warpcheck reorder prove, engine {run['engine']}: {run['message']})",
                  "check: warpcheck check FILE (bitwuzla or cvc5), or any SMT-LIB2 solver: each (check-sat) must "
                  "answer as its (set-info :status) says"]
        texts[path] = cert.certificate(ts, prop, run["lemmas"], _width(ts), header, run["depth"])
    write_files(texts, "certificate")
    return where


def attach(a: ReorderProveOptions, out: dict[str, Any], members: list[tuple[int | None, dict[str, Any]]]) -> None:
    """Write the certificates of a stream proof that PASSed into ``out["certificates"]``, or say why none."""
    why = cert.not_certifiable(out["status"], bool(out.get("bounded")), int(out.get("depth", 0)))
    why = why or next((f"the member proof with {b} barriers is {r['depth']}-inductive beyond {cert.MAX_K}"
                       for b, r in members if not 1 <= r["depth"] <= cert.MAX_K), None)
    if why:
        out["no_certificate"] = why
        return
    out["certificates"] = write_certificates(a, members)
