"""The certificates of a ``reorder prove`` PASS and the system such a certificate covers.

Over streams (``--streams N``) the system is the unit (or a mutant) over
symbolic streams next to the reference (``verify/reorder/streams.py``), the
property the check's parts together.  A stream proof runs over a family of
barrier bounds (``stream_proof.family``): each member is its own system, so
each gets its own certificate: the last member's (any number of barriers, or
the one ``barriers`` given) goes to the file asked for, an earlier one with at
most B barriers to the same name with ``.barriers-B`` before its suffix.

On a kernel the system is the unit over the kernel's requests next to the
static order's counter (``verify/reorder/props.py``), rebuilt by the checker
from the PTX file (named by its absolute path, with its SHA-256: a changed file
is refused).  Every check but ``progress`` comes with the ``progress`` proof
(the run ends): its certificate goes to the same name with ``.progress``.
The proofs are k-inductive (k = 2 for the unit over streams), which the files state.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from warpcheck._reorder.kernel_proof import monitored, progress_system
from warpcheck._reorder.options import ReorderProveOptions
from warpcheck._reorder.stream_proof import build, witness_folder
from warpcheck.encodings import certificate as cert
from warpcheck.encodings.unroll import _width
from warpcheck.models.errors import ConfigError
from warpcheck.models.files import write_files
from warpcheck.models.ts import Predicate, TransitionSystem

VERB = "reorder prove"
FIELDS = ("streams", "warps", "blocks", "lines", "line_bytes", "order", "cache", "stores", "channel", "mutant",
          "check")  # the options a stream proof's system depends on, besides the member's barrier bound
KERNEL_FIELDS = ("kernel", "entry", "grid", "block", "param", "line_bytes", "order", "cache", "stores", "channel",
                 "mutant", "check")  # those of a proof on a kernel
Member = tuple[Any, dict[str, Any]]  # a proof of the run: its barrier bound or "check"/"progress", and its data


def covers(a: ReorderProveOptions, member: Any) -> dict[str, Any]:
    """What the certificate of one proof of the run covers, as plain data."""
    if a.streams is not None:
        return {"verb": VERB, **{name: getattr(a, name) for name in FIELDS}, "blocks": list(a.blocks),
                "barriers": member}
    assert a.kernel is not None and a.grid is not None and a.block is not None
    given = {name: getattr(a, name) for name in KERNEL_FIELDS}
    return {"verb": VERB, **given, "kernel": os.path.abspath(a.kernel), "kernel_sha256": _digest(a.kernel),
            "grid": list(a.grid), "block": list(a.block), "proof": member}


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def system_of(covered: Mapping[str, Any], where: str) -> tuple[TransitionSystem, Predicate]:
    """The monitored unit and property a certificate's ``covers`` names (``ConfigError`` if it names none)."""
    if covered.get("verb") != VERB or (covered.get("streams") is None) == (covered.get("kernel") is None):
        raise ConfigError(f"{where}: covers no {VERB} proof the kit knows (over streams or on a kernel)")
    if covered.get("streams") is not None:
        given = {name: covered.get(name) for name in FIELDS if covered.get(name) is not None}
        a = ReorderProveOptions(**given, barriers=covered.get("barriers"))
        assert a.check is not None  # the record settles it
        m = build(a, a.barriers)
        return m, m.prop(a.check)
    a = ReorderProveOptions(**{name: covered.get(name) for name in KERNEL_FIELDS if covered.get(name) is not None})
    assert a.kernel is not None and a.check is not None
    if not Path(a.kernel).is_file() or _digest(a.kernel) != covered.get("kernel_sha256"):
        raise ConfigError(f"{where}: the kernel {a.kernel} is not the file proved (missing, or its SHA-256 differs)")
    km = monitored(a)[3]
    if covered.get("proof") == "progress":
        return (p := progress_system(km)), p.prop("progress")
    return km, km.prop(a.check)


def paths(path: str, members: list[Any]) -> list[str]:
    """Where each proof's certificate goes: the main one (a kernel's check, the last of a stream family) at
    ``path``, another at ``STEM.barriers-B.SUFFIX`` (streams) or ``STEM.progress.SUFFIX`` (a kernel's progress)."""
    p = Path(path)
    main = members.index("check") if "check" in members else len(members) - 1

    def other(m: Any) -> str:
        return str(p.with_name(f"{p.stem}.{'progress' if m == 'progress' else f'barriers-{m}'}{p.suffix}"))
    return [path if k == main else other(m) for k, m in enumerate(members)]


def default_path(a: ReorderProveOptions, out: dict[str, Any], folder: str | None) -> str:
    """Where a PASS's certificate goes without ``certificate``: beside the witness a FAIL would have had."""
    what = f"reorder-{out['kernel']}" if a.streams is None else f"reorder-streams-{a.mutant or 'unit'}"
    return f"{witness_folder(folder)}/{what}-{a.check}.smt2"


def write_certificates(a: ReorderProveOptions, members: list[Member], path: str) -> list[str]:
    """Write the certificate of each proof (its member, its run's data) of the PASS to ``path`` (and beside it)."""
    where = paths(path, [m for m, _ in members])
    texts = {}
    for path, (member, run) in zip(where, members):
        covered = covers(a, member)
        ts, prop = system_of(covered, "the run")
        header = [f"covers: {json.dumps(covered, sort_keys=True)}", f"claim: {run['claim']}",
                  f"proved by: z3 (warpcheck reorder prove, engine {run['engine']}: {run['message']})",
                  "check: warpcheck check FILE (bitwuzla or cvc5), or any SMT-LIB2 solver: each (check-sat) must "
                  "answer as its (set-info :status) says"]
        texts[path] = cert.certificate(ts, prop, run["lemmas"], _width(ts), header, run["depth"])
    write_files(texts, "certificate")
    return where


def kernel_members(a: ReorderProveOptions, out: dict[str, Any]) -> list[Member]:
    """The proofs of a kernel run, each with its claim: the check's, then (unless it is the check) progress."""
    def claim(check: str) -> str:
        return (f"the property {check!r} (verify/reorder/props.py) holds in every reachable state of the reordering "
                f"unit (channel {a.channel}, order {a.order}) on kernel {out['kernel']} launched as in covers, for "
                "every LD/ST schedule, interleaving and stall")
    members: list[Member] = [("check", {**out, "claim": claim(str(a.check))})]
    if "progress" in out:
        members.append(("progress", {**out["progress"], "claim": claim("progress")}))
    return members


def attach(a: ReorderProveOptions, out: dict[str, Any], members: list[Member], path: str) -> None:
    """Write the certificates of a proof that PASSed into ``out["certificates"]``, or say why none."""
    why = cert.not_certifiable(out["status"], bool(out.get("bounded")), int(out.get("depth", 0)))
    why = why or next((cert.not_certifiable(r["status"], bool(r["bounded"]), int(r["depth"])) for _, r in members
                       if cert.not_certifiable(r["status"], bool(r["bounded"]), int(r["depth"]))), None)
    if why:
        out["no_certificate"] = why
        return
    out["certificates"] = write_certificates(a, members, path)
