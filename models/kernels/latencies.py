"""The block-cost model's latencies: one warp in isolation, each instruction costs its class's latency."""
from __future__ import annotations

from typing import Mapping

from warpcheck.models.kernels.opcodes import EXTRA_UNITS

DEFAULT_LATENCIES: Mapping[str, int] = {
    "nop": 1, "int": 1, "fadd": 4, "fmul": 4, "fmadd": 4, "fcvt": 5,
    "fdiv": 16, "fsqrt": 16, "mem": 100, "branch": 1, "exit": 1,
    **EXTRA_UNITS,  # tensor-core and asynchronous-copy instructions have latency classes of their own
}
# Memory accesses outside global/local memory are cheaper than the "mem" class.
DEFAULT_SPACE_LATENCIES: Mapping[str, int] = {"param": 4, "const": 4, "shared": 20}
CLASSES_WITH_LATENCY = tuple(DEFAULT_LATENCIES) + tuple(DEFAULT_SPACE_LATENCIES)
