"""Which warps run K1 and which K2, read off the configuration alone (Singh et al., Sec. IV): a reference.

The monitors of ``qaws switches`` and ``qaws_wait`` state their bounds about the
kernel of the smaller budget (K1) and the kernel of the larger budget (K2, the
higher QoS).  They take that split from the budgets the user gave, never from
the policy's own grouping (``kernel_groups``): a policy that numbers its groups
the wrong way round must not carry the monitor's K1 and K2 along with it.
It reads the configuration only (the shared vocabulary), never the design.
"""
from __future__ import annotations

from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.config import SMConfig


def split_by_budget(config: SMConfig, what: str) -> tuple[list[int], list[int], int]:
    """(K2's warps, K1's warps, K1's budget): K2 the kernels of the largest budget, K1 the rest (one budget)."""
    budget = [config.budgets[k] for k in config.kernel_of_warp] if config.budgets else []
    if len(set(budget)) != 2:
        raise ConfigError(f"{what} needs two kernels of different budgets (kernel_of_warp, budgets)")
    top = max(budget)
    high = [w for w, b in enumerate(budget) if b == top]
    low = [w for w, b in enumerate(budget) if b != top]
    return high, low, min(budget)
