"""One schema per file format the kit reads, declared once (pydantic 2) and used to load, check and explain.

A schema states the keys, their types and their ceilings; the meaning checks
(a policy name is known, SWaS needs a long enough ibuffer) stay with the
objects built from the data.  :func:`validated` turns pydantic's report into
the kit's one line: the file, the key path, the value and what is allowed.
"""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Mapping, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from warpcheck.models.errors import InputFileError
from warpcheck.models.limits import (MAX_LATENCY, MAX_LOOP_BOUND, MAX_REPLAY_CYCLES, MAX_STAGE,
                                     MAX_SWEEP_RUNS, MAX_TIMEOUT, MAX_WARPS)




def _stage() -> Any:
    return Field(default=None, ge=1, le=MAX_STAGE)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class SMConfigFile(_Strict):
    """An SM configuration: an ``[sm]`` table, a witness's ``config``, the SM keys of a job task."""

    warps: int | None = Field(default=None, ge=1, le=MAX_WARPS)
    design: str | None = None
    fetch_policy: str | None = None
    issue_policy: str | None = None
    t_fetch: int | None = _stage()
    t_decode: int | None = _stage()
    ibuffer: int | None = _stage()
    threads_per_warp: int | None = _stage()
    miss_latency: int | None = Field(default=None, ge=1, le=MAX_LATENCY)
    latency: dict[str, int] | None = None
    unpipelined: list[str] | None = None
    kernel_of_warp: list[int] | None = None
    budgets: list[int] | None = None
    launches: list[int] | None = None
    check_buffer: bool | None = None


class InstrRecord(_Strict):
    """One fetched instruction of a witness, at the level of the program."""

    cls: str
    dep: bool = False
    taken: bool = False
    miss: bool = False
    refetch_misses: int = Field(default=0, ge=0, le=MAX_LATENCY)


class WitnessFile(_Strict):
    """A front-end witness (``warpcheck prove``), version 2."""

    format: Literal["warpcheck-witness"]
    version: Literal[2]
    config: dict[str, Any]
    property: str = "oracle"
    cycle: int | None = Field(default=None, ge=0, le=MAX_REPLAY_CYCLES)
    prologue: int = Field(default=0, ge=0, le=MAX_REPLAY_CYCLES)
    note: dict[str, Any] = {}
    initial_ibuffer: list[list[InstrRecord]]
    streams: list[list[InstrRecord]]


class ReorderWitnessFile(_Strict):
    """A per-kernel witness of ``warpcheck reorder prove``: the kernel's launch, the unit's options, the schedules."""

    format: Literal["warpcheck-reorder-witness"]
    version: Literal[1]
    kernel: str = Field(min_length=1)
    entry: str | None = None
    grid: str = Field(min_length=1, max_length=100)
    block: str = Field(min_length=1, max_length=100)
    params: list[str]
    line_bytes: int = Field(ge=1, le=1 << 20)
    cache: str = Field(min_length=1, max_length=100)
    stores: str
    channel: int = Field(ge=1, le=64)
    order: str
    unit: bool
    check: str
    mutant: str | None = None  # the broken copy of the unit the witness was found on (None: the unit)
    # one delivery (warp, request index) per cycle; -1 for none
    schedules: list[Annotated[list[Annotated[list[int], Field(min_length=2, max_length=2)]],
                              Field(max_length=MAX_REPLAY_CYCLES)]] = Field(max_length=100)


class StreamBounds(_Strict):
    """The symbolic streams a stream witness was found over (the ceilings are checked by the model)."""

    blocks: list[Annotated[int, Field(ge=0, le=64)]] = Field(min_length=1, max_length=64)
    length: int = Field(ge=1, le=64)
    lines: int = Field(ge=1, le=64)
    line_bytes: int = Field(ge=1, le=1 << 20)
    barriers: int | None = Field(default=None, ge=0, le=64)  # bar.sync counted per warp (None: length)
    addresses: int = Field(default=0, ge=0, le=64)  # instruction addresses per request (the paper's order)


class ReorderStreamWitnessFile(_Strict):
    """A stream witness of ``warpcheck reorder prove --streams``: the solver's stream, its schedule, the unit."""

    format: Literal["warpcheck-reorder-stream-witness"]
    version: Literal[1]
    streams: StreamBounds
    # the values the solver chose: a request count, a line number, a barrier or load flag per name
    stream: dict[Annotated[str, Field(max_length=100)], int | bool] = Field(max_length=10_000)
    channel: int = Field(ge=1, le=64)
    order: str
    cache: str = Field(min_length=1, max_length=100)
    stores: str
    mutant: str | None
    check: str
    # one delivery (warp, request index) per cycle; -1 for none
    schedule: Annotated[list[Annotated[list[int], Field(min_length=2, max_length=2)]],
                        Field(max_length=MAX_REPLAY_CYCLES)]
    # the proof's trace as the unit exported it: per cycle the request sent ([-1, -1]: none), the running load
    # misses, and per state whether the unit accepted the static order's next request
    record: dict[Literal["sent", "misses", "accepts"], list[Any] | None] | None = None


class JobTask(_Strict):
    """A ``[[task]]`` (or the ``[defaults]``) of a job file: run keys, then any SM configuration key."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)  # the SM keys: SMConfigFile checks them
    name: str | None = Field(default=None, min_length=1)
    expect: str | None = None  # "pass" or "fail": checked by the job loader, with its own message
    property: str | None = None
    engine: str | None = None
    depth: int | None = Field(default=None, ge=0, le=10_000)
    timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT, allow_inf_nan=False)
    policy: str | None = None
    fetch: str | None = None
    issue: str | None = None


class WorkloadFile(_Strict):
    """A workload of ``warpcheck simulate``: instruction lines and the tables that steer its branches."""

    name: str | None = Field(default=None, min_length=1)
    description: str = ""
    instructions: list[str] = Field(min_length=1)
    loops: dict[str, int] = {}       # label -> trip count (checked against the labels by the workload)
    branches: dict[str, float] = {}  # label -> probability that the branch to it is taken
    seed: int = 1
    opcodes: dict[str, str] = {}     # opcode -> instruction class


Dim = Annotated[int, Field(ge=0, le=2**31 - 1)]
BlockDim = Annotated[int, Field(ge=1, le=1024)]  # a CUDA block holds at most 1024 threads


class KernelInputsFile(_Strict):
    """What one ``simt`` warp run depends on: parameters, block index and size, memory seed."""

    params: dict[str, int | float] = {}  # by full name, ``param_N`` suffix or index
    ctaid: Annotated[list[Dim], Field(min_length=1, max_length=3)] = [0]
    ntid: Annotated[list[BlockDim], Field(min_length=1, max_length=3)] = [32]
    nctaid: Annotated[list[Dim], Field(min_length=1, max_length=3)] = [1]
    seed: int = 0
    int_max: int = Field(default=8, ge=0, le=2**31 - 1)  # loaded integers lie in [0, int_max]

    @field_validator("ctaid", "ntid", "nctaid", mode="before")
    @classmethod
    def _one_number_is_x(cls, value: Any) -> Any:
        return [value] if isinstance(value, int) and not isinstance(value, bool) else value


class LoopBoundsFile(_Strict):
    """Loop bounds of ``wcet --bounds``: ``[loops] LABEL = N``; a kernel's companion file also holds
    the benchmarks' ``[params]`` and ``[inputs]`` tables, which ``wcet`` does not read."""

    loops: dict[str, Annotated[int, Field(ge=0, le=MAX_LOOP_BOUND)]] = {}
    params: dict[str, Any] = {}
    inputs: dict[str, Any] = {}


OptionName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")]
Scalar = str | int | float | bool
OptionValue = Scalar | list[str | int | float]  # a list is a repeated option (--sigma L=1 --sigma C=1)


class SweepGrid(_Strict):
    """A ``[[grid]]`` of a sweep file: options and axes added to the top level's for this part of the sweep."""

    options: dict[OptionName, OptionValue] = {}
    axes: dict[OptionName, Annotated[list[OptionValue], Field(min_length=1, max_length=MAX_SWEEP_RUNS)]] = {}


class SweepFile(SweepGrid):
    """A sweep (``warpcheck sweep``): one verb's runs over the product of named axes, in one or more grids."""

    verb: str = Field(min_length=1, max_length=100)  # with its action: "simulate", "qaws wcrt", "reorder simulate"
    description: str = ""
    arguments: list[str] = Field(default=[], max_length=16)  # positional arguments; "{axis}" takes the value
    store: str | None = Field(default=None, min_length=1)  # default store, relative to the working folder
    grid: list[SweepGrid] = Field(default=[], max_length=100)


M = TypeVar("M", bound=BaseModel)


def validated(schema: type[M], data: Any, where: str) -> M:
    """``data`` checked against ``schema``, or an InputFileError naming the first problem in one line."""
    if not isinstance(data, Mapping):
        raise InputFileError(f"{where}: expected a table of keys ({', '.join(schema.model_fields)}), "
                             f"got {type(data).__name__}")
    try:
        return schema.model_validate(dict(data))
    except ValidationError as e:
        raise InputFileError(f"{where}: {_explain(schema, *_untagged(e.errors()))}") from None


_MEMBER = re.compile(r"^(int|float|str|bool|list\[.*\]|dict\[.*\])$")  # how pydantic tags a union's members


def _untagged(errors: list[Any]) -> tuple[Any, list[str]]:
    """The first error with its union-member tag taken off its path, and what the union's members expect."""
    err = dict(errors[0])
    if not (err["loc"] and isinstance(err["loc"][-1], str) and _MEMBER.match(err["loc"][-1])):
        return err, []
    err["loc"] = err["loc"][:-1]
    members = [e for e in errors if e["loc"][:-1] == err["loc"]]
    return err, list(dict.fromkeys(EXPECTED.get(e["type"], e["loc"][-1]) for e in members))


def _explain(schema: type[BaseModel], err: Any, union: list[str] | None = None) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    if err["type"] == "extra_forbidden":
        known = ", ".join(_fields_at(schema, err["loc"][:-1]))
        return f"unknown key {path!r}; known keys: {known}"
    if err["type"] == "missing":
        return f"key {path!r} is missing"
    value = repr(err["input"])
    value = value if len(value) <= 40 else value[:37] + "..."
    return f"{path} = {value} is not allowed; {'it must be ' + ' or '.join(union) if union else _allowed(err)}"


EXPECTED = {"int_type": "an integer", "bool_type": "true or false", "string_type": "a string",
            "float_type": "a number", "list_type": "a list", "dict_type": "a table of keys",
            "model_type": "a table of keys", "int_from_float": "an integer", "finite_number": "a finite number"}


def _allowed(err: Any) -> str:
    """What the schema allows where ``err`` happened, in the kit's words."""
    ctx = err.get("ctx", {})
    bound = next((v for k, v in ctx.items() if k in ("ge", "gt")), 0)
    kind = "an integer" if isinstance(err["input"], int) and isinstance(bound, int) else "a number"
    if err["type"] == "greater_than_equal":
        return f"it must be {kind} >= {ctx['ge']}"
    if err["type"] == "greater_than":
        return f"it must be {kind} > {ctx['gt']:g}"
    if err["type"] == "less_than_equal":
        return f"the ceiling is {ctx['le']} (larger sizes do not finish on one machine)"
    if err["type"] in ("too_long", "too_short"):
        most = err["type"] == "too_long"
        n = ctx["max_length" if most else "min_length"]
        return f"it must have at {'most' if most else 'least'} {n} item{'s' if n != 1 else ''}"
    if err["type"] == "literal_error":
        return f"allowed: {ctx['expected']}"
    return f"it must be {EXPECTED.get(err['type'], err['msg'][0].lower() + err['msg'][1:])}"


def _fields_at(schema: type[BaseModel], loc: tuple) -> list[str]:
    """The keys allowed at ``loc`` (a nested record's, or the top level's)."""
    nested: dict[str, type[BaseModel]] = {"initial_ibuffer": InstrRecord, "streams": InstrRecord, "grid": SweepGrid}
    model = nested.get(loc[0], schema) if loc else schema
    return list(model.model_fields)
