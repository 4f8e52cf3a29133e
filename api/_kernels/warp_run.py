"""The ``simt`` verb's work: one warp run concretely (per-thread registers, activation stack)."""
from __future__ import annotations

from warpcheck._kernels.loaders import inputs_from_mapping, load_inputs, load_kernel
from warpcheck._kernels.options import SimtOptions
from warpcheck._kernels.results import SimtResult
from warpcheck._kernels.warp_level_cfg import cost_model
from warpcheck.models.kernels.cfg import KernelCFG
from warpcheck.sim.kernels.simt import run_warp

__all__ = ["simt_one"]


def simt_one(o: SimtOptions) -> SimtResult:
    """Run the warp ``o.warp`` of the kernel's block: the (block, active mask) steps and the cycles."""
    from tabulate import tabulate

    kernel = load_kernel(o.kernel, o.entry)
    inputs = inputs_from_mapping(o.inputs, kernel) if isinstance(o.inputs, dict) else load_inputs(o.inputs, kernel)
    run = run_warp(kernel, inputs, o.threads, cost_model(o), o.max_steps, o.warp)
    cfg = KernelCFG(kernel)
    steps = [{"block": cfg.blocks[b].label, "mask": _bits(m, o.threads)} for b, m in run.steps]
    text = (f"kernel {kernel.name}: one warp of {o.threads} threads, {len(steps)} blocks, {run.cycles} cycles\n"
            + tabulate([[i, s["block"], s["mask"]] for i, s in enumerate(steps)],
                       headers=["step", "block", "active mask (thread 0 first)"]))
    return SimtResult(kernel=kernel.name, text=text, threads=o.threads, steps=steps, cycles=run.cycles)


def _bits(mask: int, width: int) -> str:
    return "".join("1" if mask >> t & 1 else "0" for t in range(width))
