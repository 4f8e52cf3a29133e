"""A SymbiYosys project (``.sby``) over the Verilog module of :mod:`warpcheck.encodings.verilog`.

One task per engine a user may have; ``sby -f NAME.sby`` runs the default ones
(ABC's ``pdr`` and ``bmc3``), ``sby -f NAME.sby TASK`` one of the others.  The
bounded tasks check the steps 0 to ``depth`` as ``prove``'s BMC to that depth
does (SymbiYosys' ``depth`` counts the steps: ``depth + 1``); ABC's counterexamples are turned into traces by ``yosys-smtbmc`` with
Z3 (``aigsmt z3``: the ``z3`` executable comes with the ``z3-solver`` package
warpcheck installs).
"""
from __future__ import annotations

# (task, mode, engine, what it does); the first two are the defaults
TASKS = (("prove", "prove", "abc pdr", "ABC's pdr (IC3): PASS for every depth, or FAIL with a trace"),
         ("bmc", "bmc", "abc bmc3", "ABC's bmc3: FAIL with a trace, or PASS up to the depth"),
         ("bmc_z3", "bmc", "smtbmc z3", "yosys-smtbmc with Z3"),
         ("bmc_yices", "bmc", "smtbmc yices", "yosys-smtbmc with Yices 2"),
         ("bmc_bitwuzla", "bmc", "smtbmc bitwuzla", "yosys-smtbmc with the bitwuzla executable"),
         ("prove_ric3", "prove", "btor rIC3", "rIC3 (IC3) on yosys' BTOR2 of the module"),
         ("bmc_pono", "bmc", "btor pono", "Pono's BMC on yosys' BTOR2 of the module"))


def to_sby(name: str, module: str, depth: int) -> str:
    """The project ``name.sby`` that checks the module ``module`` of ``name.sv`` beside it, bounded tasks to ``depth``.

    A violation at SymbiYosys' step ``d`` is one at the kit's depth ``d``.
    """
    file = f"{name}.sv"
    lines = [f"# SymbiYosys project of {file}: `sby -f {name}.sby` runs the default tasks (prove, bmc),",
             f"# `sby -f {name}.sby TASK` one task, for the engines you have:"]
    lines += [f"#   {task:<13} {what}" for task, _, _, what in TASKS]
    lines.append("[tasks]")
    lines += [f"{task}: {mode}_mode" + (" default" if i < 2 else "") for i, (task, mode, _, _) in enumerate(TASKS)]
    lines += ["", "[options]", "prove_mode: mode prove", "bmc_mode: mode bmc", f"depth {depth + 1}", "aigsmt z3", "",
              "[engines]"]
    lines += [f"{task}: {engine}" for task, _, engine, _ in TASKS]
    lines += ["", "[script]", f"read_verilog -formal -sv {file}", f"prep -top {module}", "", "[files]", file]
    return "\n".join(lines) + "\n"
