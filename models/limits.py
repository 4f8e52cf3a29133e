"""Ceilings of the kit's inputs: sizes past them would not finish (or not fit a solver's bit-vectors) on one machine.

Kept apart from the file schemas (pydantic) so that checking a command line's
options loads no schema library.
"""
from __future__ import annotations

MAX_WARPS = 1024
MAX_STAGE = 64  # t_fetch, t_decode, ibuffer entries, threads of a warp
MAX_LATENCY = 100_000
MAX_REPLAY_CYCLES = 10_000  # a witness violates within its first cycles (as `replay --cycles`)
MAX_TIMEOUT = 10**6  # seconds (11 days): a longer budget is no bound
MAX_LOOP_BOUND = 10**6  # past it the two IPET solvers' floating-point answers no longer agree
MAX_SWEEP_RUNS = 100_000  # grid points of one sweep: a store of that many runs is still read in seconds
MAX_THREADS_PER_BLOCK = 1024  # a CUDA block
MAX_BLOCKS = 4096  # blocks of one launch the analyzer runs
