"""Fixture kernels shared by the kernel tests (paths relative to the repository)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.ptx import parse_ptx
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.models.kernels.warp_cfg import WarpCFG, build_warp_cfg

ROOT = Path(__file__).resolve().parent.parent
PTX = sorted((ROOT / "examples" / "kernels").glob("*.ptx"))
SASS = sorted((ROOT / "examples" / "sass").glob("*.sass"))
ALL = PTX + SASS


@lru_cache(maxsize=None)
def kernel(path: Path) -> Kernel:
    """The (first) kernel of a fixture file."""
    text = path.read_text()
    return (parse_ptx if path.suffix == ".ptx" else parse_sass)(text, str(path))[0]


@lru_cache(maxsize=None)
def warp_cfg(path: Path, value_agreement: bool = True) -> WarpCFG:
    """The warp-level CFG of a fixture kernel."""
    return build_warp_cfg(kernel(path), value_agreement)
