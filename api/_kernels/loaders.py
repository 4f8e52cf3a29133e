"""Reading the kernels' inputs: kernel files (PTX modules, SASS-style listings), entries, warp inputs, loop bounds.

A file is parsed once per run: within :func:`one_parse_per_file`, each entry
of a module read again with the same content reuses the parse.
"""
from __future__ import annotations

import contextlib
import hashlib
from typing import Any, Iterator

from warpcheck.models.errors import ConfigError, InputFileError, OptionError
from warpcheck.models.file_schemas import KernelInputsFile, LoopBoundsFile, validated
from warpcheck.models.files import load_json, load_toml, read_text
from warpcheck.models.kernels.kernel import Kernel
from warpcheck.models.kernels.ptx import parse_ptx_module
from warpcheck.models.kernels.ptx_calls import PtxModule
from warpcheck.models.kernels.sass import parse_sass
from warpcheck.spec.kernels.thread_ops import WarpInputs

__all__ = ["read_module", "one_parse_per_file", "entry_names", "load_kernel", "pick_name", "chosen_entries",
           "load_inputs", "inputs_from_mapping", "loop_bounds"]

# Modules read during one run, by (path, content hash): its entries parse their file once.
# None outside a run, so a later call (or a patched parser, as in the mutation suite) reads afresh.
_MODULES: dict[tuple[str, str], PtxModule | list[Kernel]] | None = None


def read_module(path: str) -> PtxModule | list[Kernel]:
    """The parsed file: a PTX module, or the kernels of a SASS-style listing (cached within a run)."""
    text = read_text(path, "kernel file", lenient=True)  # bounded: /dev/zero or a runaway file is refused
    key = (path, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if _MODULES is not None and key in _MODULES:
        return _MODULES[key]
    is_ptx = path.endswith(".ptx") or (not path.endswith(".sass") and (".entry" in text or ".version" in text))
    found = parse_ptx_module(text, path) if is_ptx else parse_sass(text, path, named=True)
    if _MODULES is not None:
        _MODULES[key] = found
    return found


@contextlib.contextmanager
def one_parse_per_file() -> Iterator[None]:
    """Within the block, a file read again with the same content is not parsed again."""
    global _MODULES
    outer, _MODULES = _MODULES, {} if _MODULES is None else _MODULES
    try:
        yield
    finally:
        _MODULES = outer


def entry_names(path: str) -> list[str]:
    """The kernels of a file, in file order."""
    found = read_module(path)
    return [k.name for k in (found.entries if isinstance(found, PtxModule) else found)]


def load_kernel(path: str, entry: str | None = None) -> Kernel:
    """Read and parse a kernel file; pick the kernel named by ``entry`` in a module with several."""
    found = read_module(path)
    if not isinstance(found, PtxModule):
        return found[pick_name([k.name for k in found], entry, path)]
    if not found.entries:
        raise InputFileError(f"{path!r} holds no kernel (.entry); give a PTX module with at least one kernel")
    kernels = list(found.entries)
    return found.inlined(kernels[pick_name([k.name for k in kernels], entry, path)])


def pick_name(names: list[str], entry: str | None, path: str) -> int:
    """The index of the kernel ``entry`` names: exactly, or as the one name it is part of."""
    if entry is None:
        if len(names) > 1:
            raise ConfigError(f"{path!r} holds {len(names)} kernels ({', '.join(names)}); choose one as the entry "
                              "(a part of its name works)")
        return 0
    exact = [i for i, n in enumerate(names) if n == entry]
    near = exact or [i for i, n in enumerate(names) if entry in n]
    if len(near) != 1:
        what = "no kernel" if not near else "several kernels"
        raise OptionError("entry", entry, f"matches {what} in {path!r}; known kernels: {', '.join(names)}")
    return near[0]


def chosen_entries(path: str, entry: tuple[str, ...] | None, all_entries: bool) -> list[str | None]:
    """The entries ``entry`` and ``all_entries`` name, each once, in the order given; [None] when neither is."""
    if not all_entries and not entry:
        return [None]
    names = entry_names(path)
    if not names:
        raise InputFileError(f"{path!r} holds no kernel (.entry); give a PTX module with at least one kernel")
    if all_entries:
        return list(names)
    return list(dict.fromkeys(names[pick_name(names, e, path)] for e in entry or ()))


def load_inputs(path: str | None, kernel: Kernel) -> WarpInputs:
    """Warp inputs from a TOML or JSON file (params by full name, ``param_N`` suffix or index)."""
    if path is None:
        return WarpInputs()
    data = load_json(path, "inputs file") if path.endswith(".json") else load_toml(path, "inputs file")
    return inputs_from_mapping(data, kernel, path)


def inputs_from_mapping(data: dict[str, Any], kernel: Kernel, where: str = "inputs") -> WarpInputs:
    """Build WarpInputs from a mapping checked against :class:`KernelInputsFile`."""
    spec = validated(KernelInputsFile, data, where)
    params = {kernel.param_named(key, f"{where}: parameter"): value for key, value in spec.params.items()}
    dims = {k: tuple(v + [0 if k == "ctaid" else 1] * (3 - len(v)))
            for k, v in (("ctaid", spec.ctaid), ("ntid", spec.ntid), ("nctaid", spec.nctaid))}
    return WarpInputs(params, dims["ctaid"], dims["ntid"], dims["nctaid"], spec.seed, spec.int_max)


def loop_bounds(bounds: str | None, given: dict[str, int]) -> dict[str, int]:
    """The loop bounds of a TOML file (``[loops] LABEL = N``), overridden by those ``given`` by label."""
    out: dict[str, int] = {}
    if bounds:
        out.update(validated(LoopBoundsFile, load_toml(bounds, "loop bounds file"), bounds).loops)
    return {**out, **given}
