"""The SM configuration: validated, loadable from TOML, the same for simulator and proofs."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from warpcheck.models.errors import ConfigError
from warpcheck.models.files import load_toml
from warpcheck.models.kernels.kernel import CLASSES
from warpcheck.models.frontend.policies import POLICIES, check_policy

DESIGNS = ("baseline", "swas")

# Functional-unit latencies by class (Crouzet et al., Sec. VI-A): fp 4, fcvt 5,
# fdiv/fsqrt 16 and not pipelined, integer 1; memory is configurable.
DEFAULT_LATENCY = {"nop": 1, "int": 1, "fadd": 4, "fmul": 4, "fmadd": 4, "fcvt": 5,
                   "fdiv": 16, "fsqrt": 16, "mem": 20, "branch": 1, "exit": 1}
DEFAULT_UNPIPELINED = ("fdiv", "fsqrt")
# Other names in use for a policy: the QAWS paper calls greedy-then-oldest GTO, the kit gtlo.
POLICY_ALIASES = {"gto": "gtlo"}


def canonical_policy(name: str) -> str:
    """The kit's name of a policy (``gto`` is ``gtlo``); any other name is returned unchanged."""
    return POLICY_ALIASES.get(name, name)


@dataclass(frozen=True)
class SMConfig:
    """One SM front end: warps, fetch/decode timing, ibuffers, design and policies.

    ``design = "swas"`` uses one scheduler (``issue_policy``) for fetch and
    issue and needs ``ibuffer >= t_fetch + t_decode``; ``baseline`` has a
    separate ``fetch_policy``.
    """

    warps: int = 4
    design: str = "swas"
    fetch_policy: str = "lrr"
    issue_policy: str = "gtlrr"
    t_fetch: int = 3
    t_decode: int = 1
    miss_latency: int = 10
    ibuffer: int = 4
    latency: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_LATENCY))
    unpipelined: tuple[str, ...] = DEFAULT_UNPIPELINED
    threads_per_warp: int = 32
    kernel_of_warp: tuple[int, ...] = ()
    budgets: tuple[int, ...] = ()  # QAWS: the budget of kernel k at index k
    launches: tuple[int, ...] = ()  # the launch cycle of kernel k at index k (default: all at cycle 0)
    check_buffer: bool = True  # False only for mutation tests of a too-short ibuffer

    def __post_init__(self) -> None:
        for name in ("fetch_policy", "issue_policy"):  # one name per policy from here on: gto is gtlo
            if isinstance(getattr(self, name), str):
                object.__setattr__(self, name, canonical_policy(getattr(self, name)))
        _validate(self)

    @property
    def pipe(self) -> int:
        """Cycles from a fetch request to the instruction being issuable (t_F + decode)."""
        return self.t_fetch + self.t_decode

    @property
    def max_latency(self) -> int:
        return max(self.latency.values())

    def with_(self, **changes: Any) -> "SMConfig":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["latency"] = dict(self.latency)
        out["unpipelined"] = list(self.unpipelined)
        out["kernel_of_warp"] = list(self.kernel_of_warp)
        out["budgets"] = list(self.budgets)
        out["launches"] = list(self.launches)
        return out


def _positive(name: str, value: Any, least: int = 1) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ConfigError(f"{name} = {value!r} is not allowed; it must be an integer >= {least}")


def _validate(c: SMConfig) -> None:
    _positive("warps", c.warps)
    for name in ("t_fetch", "t_decode", "miss_latency", "ibuffer", "threads_per_warp"):
        _positive(name, getattr(c, name))
    if c.design not in DESIGNS:
        raise ConfigError(f"design = {c.design!r} is not allowed; choose one of: {', '.join(DESIGNS)}")
    check_policy("fetch_policy", c.fetch_policy)
    check_policy("issue_policy", c.issue_policy)
    unknown = set(c.latency) - set(CLASSES)
    if unknown or set(CLASSES) - set(c.latency):
        raise ConfigError(f"latency must give every instruction class ({', '.join(CLASSES)}); "
                          f"unknown: {sorted(unknown)}, missing: {sorted(set(CLASSES) - set(c.latency))}")
    for cls, lat in c.latency.items():
        _positive(f"latency.{cls}", lat)
    for cls in c.unpipelined:
        if cls not in CLASSES:
            raise ConfigError(f"unpipelined class {cls!r} is unknown; known classes: {', '.join(CLASSES)}")
    if c.design == "swas" and c.check_buffer and c.ibuffer < c.pipe:
        raise ConfigError(f"ibuffer = {c.ibuffer} is too short for design 'swas': it needs at least "
                          f"t_fetch + t_decode = {c.pipe} entries; use ibuffer >= {c.pipe}")
    if c.kernel_of_warp and len(c.kernel_of_warp) != c.warps:
        raise ConfigError(f"kernel_of_warp has {len(c.kernel_of_warp)} entries for {c.warps} warps; give one per warp")
    _validate_kernels(c)


def _validate_kernels(c: SMConfig) -> None:
    """Each warp's kernel is known, each kernel has one budget >= 1, QAWS sees at most two groups."""
    for w, k in enumerate(c.kernel_of_warp):
        _positive(f"kernel_of_warp[{w}]", k, 0)
    for k, b in enumerate(c.budgets):
        _positive(f"budgets[{k}]", b)
    _validate_launches(c)
    if not c.budgets:
        return
    if not c.kernel_of_warp:
        raise ConfigError(f"budgets = {list(c.budgets)!r} are given but no warp has a kernel; "
                          "set kernel_of_warp (one kernel per warp)")
    kernels = set(c.kernel_of_warp)
    unknown = [k for k in range(len(c.budgets)) if k not in kernels]
    if unknown:
        raise ConfigError(f"budgets[{unknown[0]}] is a budget for kernel {unknown[0]}, but no warp runs it; "
                          f"kernels of the warps: {sorted(kernels)}")
    missing = sorted(k for k in kernels if k >= len(c.budgets))
    if missing:
        raise ConfigError(f"kernel {missing[0]} has no budget; give one budget per kernel (budgets[{missing[0]}])")
    if "qaws" in (c.issue_policy, c.fetch_policy) and len(set(c.budgets)) > 2:
        raise ConfigError(f"policy 'qaws' groups warps by budget into two groups; budgets = {list(c.budgets)!r} "
                          "make more; use at most two distinct budgets")


def _validate_launches(c: SMConfig) -> None:
    """One launch cycle >= 0 per kernel of the warps."""
    for k, launch in enumerate(c.launches):
        _positive(f"launches[{k}]", launch, 0)
    if not c.launches:
        return
    kernels = max(c.kernel_of_warp, default=0) + 1
    if len(c.launches) != kernels:
        raise ConfigError(f"launches = {list(c.launches)!r} has {len(c.launches)} entries for {kernels} kernel(s) "
                          "(kernel_of_warp); give one launch cycle per kernel")


def config_from_mapping(data: Mapping[str, Any], where: str = "configuration") -> SMConfig:
    """Build a configuration from a TOML table or JSON object, naming unknown keys."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: the configuration must be one table ([sm]), not {type(data).__name__}")
    known = {f.name for f in fields(SMConfig)}
    extra = sorted(set(data) - known)
    if extra:
        raise ConfigError(f"{where}: unknown key {extra[0]!r}; known keys: {', '.join(sorted(known - {'check_buffer'}))}")
    args: dict[str, Any] = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
    from warpcheck.models.file_schemas import SMConfigFile, validated  # pydantic: loaded when a configuration is read
    validated(SMConfigFile, args, where)
    if "latency" in args:
        args["latency"] = {**DEFAULT_LATENCY, **dict(args["latency"])}
    for key in ("unpipelined", "kernel_of_warp", "budgets", "launches"):
        if key in args:
            args[key] = tuple(args[key])
    try:
        return SMConfig(**args)
    except TypeError as e:  # wrong value types
        raise ConfigError(f"{where}: {e}") from None


def load_config(path: str | Path) -> SMConfig:
    """Read an SM configuration from a TOML file."""
    data = load_toml(path, "configuration")
    return config_from_mapping(data.get("sm", data), where=str(path))


__all__ = ["SMConfig", "DESIGNS", "DEFAULT_LATENCY", "load_config", "config_from_mapping", "POLICIES"]
