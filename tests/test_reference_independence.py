"""Never prove a design against itself: in every domain, the reference imports nothing of the design.

For each domain, the modules that make the design and the modules that make its
reference are listed; the reference's imports within the project, followed
transitively, must reach none of the design's.  Shared inputs (configurations,
errors, the transition-system record) are where the walk stops: they describe
the input, not the behaviour.  A new domain adds its row here.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The vocabulary both sides may share: what the input is, never what the hardware does with it.
SHARED = {"models.errors", "models.ts", "models.files", "models.file_schemas", "models.frontend.config",
          "models.kernels.kernel"}

DOMAINS: dict[str, tuple[list[str], list[str]]] = {
    # domain: (design modules, reference modules)
    "frontend": (["models.frontend.design", "models.frontend.policies", "models.frontend.oracles",
                  "models.frontend.open_warp"],
                 ["spec.frontend.issue_reference", "spec.frontend.priority_lists", "spec.frontend.ghost"]),
    # QAWS: the policy (Alg. 1 as rules) and the front end that runs it; the reference QAWS, the analysis
    # machine and the oracle, and the switch monitor's reading of which kernel is K1
    "qaws": (["models.frontend.policies", "models.frontend.design", "models.qaws.mutants"],
             ["spec.frontend.priority_lists", "spec.frontend.issue_reference", "spec.frontend.ghost",
              "spec.qaws.kernel_roles"]),
    # the searches and the design's transform, vs the certificate checker and the reference enumeration;
    # the PTX roles (ptx_units over the opcode table and the PTX parser) vs the reference's own reading of PTX
    "makespan": (["models.makespan.kernel", "models.makespan.sm", "models.makespan.moves", "models.makespan.schedule",
                  "models.makespan.alternation", "models.makespan.pairs", "models.makespan.closed",
                  "models.makespan.ptx_units",
                  "models.kernels.opcodes", "models.kernels.ptx", "models.kernels.ptx_calls",
                  "sim.makespan.enum", "encodings.makespan.smt", "encodings.makespan.ilp",
                  *[f"verify.makespan.{m}" for m in ("abstract", "block_ranking", "cegar", "phases", "pump",
                                                     "ranking", "search", "worst_runs", "backlog")]],
                 [f"spec.makespan.{m}" for m in ("certificate_check", "replay", "capped", "lininv", "pump_check",
                                                 "block_bound_check", "numbers", "reference", "reference_enum",
                                                 "alternation_check", "interval_check", "backlog_check", "ptx_roles",
                                                 "pair_bound_check")]),
    # the warp-level analyses (parser classes, stack, CFG, value agreement, IPET) vs each thread run alone
    "kernels": (["models.kernels.opcodes", "models.kernels.ptx", "models.kernels.sass", "models.kernels.cfg",
                 "models.kernels.simt_stack", "models.kernels.abstract_stack", "models.kernels.value_agreement",
                 "models.kernels.warp_cfg", "encodings.kernels.ipet", "sim.kernels.simt"],
                ["spec.kernels.reference", "spec.kernels.thread_ops", "spec.kernels.instructions"]),
    "reorder": (["models.reorder.unit", "models.reorder.l1", "models.reorder.order", "models.reorder.mutants"],
                ["spec.reorder.reference", "spec.reorder.reference_l1", "spec.reorder.l1_replay"]),
}


def _file(mod: str) -> Path:
    parts = mod.split(".")
    base = ROOT.joinpath("api", *parts) if parts[0].startswith("_") else ROOT.joinpath(*parts)  # warpcheck._x: api/
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _project_imports(mod: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(_file(mod).read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        out |= {n.removeprefix("warpcheck.") for n in names if n.startswith("warpcheck.")}
    return out


def reached(mod: str) -> set[str]:
    """Every project module ``mod`` imports, transitively, stopping at the shared vocabulary."""
    seen, todo = set(), [mod]
    while todo:
        m = todo.pop()
        if m in seen or m in SHARED:
            continue
        seen.add(m)
        todo += _project_imports(m)
    return seen - {mod}


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_reference_imports_nothing_of_the_design(domain):
    design, references = DOMAINS[domain]
    for mod in design + references:
        assert _file(mod).exists(), f"{domain}: {mod} is listed but does not exist"
    bad = {ref: sorted(reached(ref) & set(design)) for ref in references}
    assert not any(bad.values()), f"{domain}: references import the design: {bad}"


def test_the_walk_sees_an_import_of_the_design():
    assert "models.frontend.design" in reached("models.frontend.oracles")  # the test can fail
    assert "models.makespan.kernel" in reached("sim.makespan.enum")
    assert {"models.makespan.ptx_units", "models.kernels.ptx"} <= reached("_makespan.ptx_check")
