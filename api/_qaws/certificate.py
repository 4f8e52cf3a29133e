"""The certificate of a ``qaws switches`` PASS and the system such a certificate covers.

The system is the switch monitor over the SWaS front end under the policy
(``verify/qaws/switches.py``); the certificate names the SM configuration
(warps of each kernel, budgets, policy) so that ``warpcheck check`` rebuilds it.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from warpcheck.encodings import certificate as cert
from warpcheck.encodings.unroll import _width
from warpcheck.models.errors import ConfigError
from warpcheck.models.files import write_files
from warpcheck.models.frontend.config import SMConfig, config_from_mapping
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import Predicate, TransitionSystem
from warpcheck.verify.qaws.switches import SwitchMonitor, bounded
from warpcheck.verify.result import Result

VERB = "qaws switches"


def system_of(covered: Mapping[str, Any], where: str) -> tuple[TransitionSystem, Predicate]:
    """The switch monitor and bound a certificate's ``covers`` names (``ConfigError`` if it names none)."""
    if covered.get("verb") != VERB or not isinstance(covered.get("config"), Mapping):
        raise ConfigError(f"{where}: covers no {VERB} configuration the kit knows")
    ts = SwitchMonitor(FrontEnd(config_from_mapping(covered["config"], where=f"{where}: config")))
    return ts, bounded(ts)


def write_certificate(path: str, config: SMConfig, r: Result, claim: str) -> str:
    """Write the certificate of the switch bound's PASS ``r`` on ``config`` to ``path``; its path."""
    ts, prop = system_of({"verb": VERB, "config": config.to_json()}, "the run")
    covered = {"verb": VERB, "design": config.design, "issue_policy": config.issue_policy, "warps": config.warps,
               "kernel_of_warp": list(config.kernel_of_warp), "budgets": list(config.budgets),
               "config": config.to_json()}
    header = [f"covers: {json.dumps(covered, sort_keys=True)}",
              f"claim: {claim}, in every reachable state of {FrontEnd(config).name}, for every program and stall "
              "pattern (these warps and budgets exactly)",
              f"proved by: z3 (warpcheck qaws switches, engine {r.engine}: {r.message})",
              "check: warpcheck check FILE (bitwuzla or cvc5), or any SMT-LIB2 solver: each (check-sat) must "
              "answer as its (set-info :status) says"]
    write_files({path: cert.certificate(ts, prop, r.lemmas, _width(ts), header, r.depth)}, "certificate")
    return path
