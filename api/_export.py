"""Proof problems for other checkers: SMT-LIB2 scripts (BMC, k-induction) and BTOR2 models."""
from __future__ import annotations

from typing import Any

from warpcheck._frontend import Policyish, sm_config
from warpcheck.cli.frontend.run import default_depth, run_name, ProveJob
from warpcheck.encodings import btor2, smt2
from warpcheck.encodings.unroll import _width
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.lemmas import prove_lemmas

__all__ = ["export", "FORMATS"]

FORMATS = ("smt2", "btor2")


def export(format: str, design: str | None = None, policy: Policyish = None, warps: int | None = None,
           property: str | None = None, depth: int = 0, k: int = 1, *, fetch: Policyish = None,
           lemmas: bool = True, config: SMConfig | None = None, **sm: Any) -> dict[str, str]:
    """The proof problem of a ``prove`` configuration as files for other checkers: ``{file name: text}``.

    ``format="btor2"``: one BTOR2 model (states, inputs, init, next,
    constraints, one ``bad``: the property's violation), for hardware model
    checkers.  ``format="smt2"``: SMT-LIB2 scripts, each with one
    ``check-sat``: ``bmc`` (sat exactly when the property fails within
    ``depth`` cycles; default the prove horizon), and the ``k``-induction
    obligations ``lemmas-init``, ``lemmas-step`` and ``step`` (all unsat: the
    property holds for every depth), strengthened by the lemmas the kit
    proves first (``lemmas=False``: none).
    """
    if format not in FORMATS:
        raise ConfigError(f"format = {format!r} is not an export format; choose one of: {', '.join(FORMATS)}")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or not isinstance(depth, int) or depth < 0:
        raise ConfigError(f"k = {k!r} must be at least 1 and depth = {depth!r} at least 0 (0: the prove horizon)")
    cfg = sm_config(design, policy, warps, fetch, config, **sm)
    job = ProveJob(cfg, property or "", depth=depth or default_depth(cfg))
    ts = get_property(job.prop).checked(FrontEnd(cfg))
    name, width = run_name(job), _width(ts)
    if format == "btor2":
        return {f"{name}.btor2": btor2.to_btor2(ts, ts.agree, width)}
    proved = [pred for _, pred in prove_lemmas(ts)[0]] if lemmas else []
    return {f"{name}.bmc{job.depth}.smt2": smt2.bmc(ts, ts.agree, job.depth, width, name),
            f"{name}.lemmas-init.smt2": smt2.lemmas_init(ts, proved, width, name),
            f"{name}.lemmas-step.smt2": smt2.lemmas_step(ts, proved, width, name),
            f"{name}.step{k}.smt2": smt2.step(ts, ts.agree, k, proved, width, name)}
