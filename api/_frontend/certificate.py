"""The certificate of a front-end PASS (``prove --certificate FILE``) and the system a certificate says it covers.

A certificate is written for a PASS that holds for every depth: its invariant
(the proved lemmas and the property) is k-inductive, k as the engine found it
(1 for every PASS measured so far, SWaS at W = 2 and 4).  The proof of
``exact`` for every W gets a quantified certificate over a sort of warps
(``verify/frontend/every_warp_certificate.py``).  The file names
what it covers (design, policies, W, every SM parameter, property, prologue)
so that ``warpcheck check`` rebuilds the same system and compares.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from warpcheck._frontend.options import ProveOptions
from warpcheck.encodings import certificate as cert
from warpcheck.encodings.unroll import _width
from warpcheck.models.errors import ConfigError
from warpcheck.models.files import write_files
from warpcheck.models.frontend.config import config_from_mapping
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import Predicate, Prologue, TransitionSystem
from warpcheck.verify.frontend.every_warp import Pair
from warpcheck.verify.frontend.every_warp_certificate import sections as every_warp_sections
from warpcheck.verify.frontend.every_warp_proof import check_covered
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.result import Result, Status

PROVER = "z3"  # the solver every front-end engine proves with


def proved_system(o: ProveOptions, model: FrontEnd | None = None) -> tuple[TransitionSystem, Predicate]:
    """The system and property a prove run of ``o`` checks (a prologue wraps them with its cycle counter)."""
    ts = get_property(o.prop).checked(model or FrontEnd(o.sm))
    if o.prologue:  # the record of cycle t is in state t + 1: skip states 0 .. prologue
        pts = Prologue(ts, o.prologue + 1)
        return pts, pts.guard(ts.agree)
    return ts, ts.agree


def covers(o: ProveOptions) -> dict[str, Any]:
    """What a certificate of ``o`` covers, as plain data (the line ``; covers: {...}`` of the file)."""
    c = o.sm
    every = {"warps": "every W >= 1", "all_warps": True} if o.all_warps else {}
    return {"verb": "prove", "design": c.design, "fetch_policy": c.fetch_policy, "issue_policy": c.issue_policy,
            "warps": c.warps, "property": o.prop, "prologue": o.prologue, "config": c.to_json(), **every}


def sections_of(covered: Mapping[str, Any], where: str, k: int) -> cert.Sections:
    """What a certificate naming ``covered`` must hold: a QF_BV one for a given W, the quantified one for every W."""
    if not covered.get("all_warps"):
        ts, prop = system_of(covered, where)
        return cert.sections_of(ts, prop, _width(ts), k)
    if covered.get("verb") != "prove" or not isinstance(covered.get("config"), Mapping):
        raise ConfigError(f"{where}: covers no prove configuration the kit knows")
    config = config_from_mapping(covered["config"], where=f"{where}: config")
    if covered.get("property") != "exact" or k != 1:
        raise ConfigError(f"{where}: a certificate for every W is of 'exact', 1-inductive")
    check_covered(config)
    return every_warp_sections(Pair.of(config))


def system_of(covered: Mapping[str, Any], where: str) -> tuple[TransitionSystem, Predicate]:
    """The system a certificate's ``covers`` names, rebuilt by the kit (``ConfigError`` if it names none)."""
    if covered.get("verb") != "prove" or not isinstance(covered.get("config"), Mapping):
        raise ConfigError(f"{where}: covers no prove configuration the kit knows")
    config = config_from_mapping(covered["config"], where=f"{where}: config")
    o = ProveOptions(config=config, property=covered.get("property"), prologue=covered.get("prologue", 0),
                     lemma_cache=None)
    return proved_system(o)


def why_none(o: ProveOptions, r: Result, model: FrontEnd | None) -> str | None:
    """Why a run writes no certificate (None: it writes one)."""
    if model is not None and r.status is Status.PASS:
        return "a model other than the configuration's (the mutation suite's) gets no certificate"
    if o.engine == "abc-pdr" and r.status is Status.PASS:
        return ("engine abc-pdr's invariant is over the bits of the AIGER model, not the kit's lemmas: no certificate; "
                "prove with engine kind or auto for one")
    return cert.not_certifiable(r.status.value, r.bounded, 1 if o.all_warps else r.depth)


def write_certificate(o: ProveOptions, r: Result, path: str | None = None) -> str:
    """Write the certificate of the PASS ``r`` of ``o`` to ``path`` (default ``o.certificate``); its path."""
    path = path or o.certificate
    assert path is not None
    if o.all_warps:
        return _write_every_warp(o, r, path)
    ts, prop = proved_system(o)
    header = [f"covers: {json.dumps(covers(o), sort_keys=True)}",
              f"claim: {FrontEnd(o.sm).name} satisfies the property {o.prop!r} in every reachable state, for every "
              f"program, cache and branch behaviour (W = {o.sm.warps} exactly, the SM parameters as in covers)"
              + (f", from cycle {o.prologue} on" if o.prologue else ""),
              f"proved by: {PROVER} (warpcheck prove, engine {r.engine}: {r.message})",
              "check: warpcheck check FILE (bitwuzla or cvc5), or any SMT-LIB2 solver: each (check-sat) must "
              "answer as its (set-info :status) says"]
    write_files({path: cert.certificate(ts, prop, r.lemmas, _width(ts), header, r.depth)}, "certificate")
    return path


def _write_every_warp(o: ProveOptions, r: Result, path: str) -> str:
    """The certificate of the proof for every W: quantified SMT-LIB2 (UFLIA) over a sort of warps."""
    want = every_warp_sections(Pair.of(o.sm))
    header = [f"covers: {json.dumps(covers(o), sort_keys=True)}",
              f"claim: {FrontEnd(o.sm).name.rsplit('-W', 1)[0]} satisfies the property 'exact' in every reachable "
              "state, for every number of warps W >= 1 and every program, cache and branch behaviour (t_fetch, "
              "t_decode, ibuffer, miss latency and latencies as in covers)",
              f"proved by: {PROVER} (warpcheck prove --all-warps, engine {r.engine}: {r.message})",
              f"logic: {want.logic} (warps an uninterpreted sort ordered by the asserted axioms; the state in two "
              "frames of declared symbols, d0/r0 now and d1/r1 after one step; consecution one check per lemma)",
              "check: warpcheck check FILE (cvc5, with model-based quantifier instantiation), or any SMT-LIB2 solver "
              "that decides UF with quantifiers: each (check-sat) must answer as its (set-info :status) says"]
    write_files({path: cert.assemble(header, want.system, want.invariant, want.obligations)}, "certificate")
    return path
