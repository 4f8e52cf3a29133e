"""One schema per file format the kit reads, declared once (pydantic 2) and used to load, check and explain.

A schema states the keys, their types and their ceilings; the meaning checks
(a policy name is known, SWaS needs a long enough ibuffer) stay with the
objects built from the data.  :func:`validated` turns pydantic's report into
the kit's one line: the file, the key path, the value and what is allowed.
"""
from __future__ import annotations

from typing import Any, Literal, Mapping, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from warpcheck.models.errors import InputFileError

# Ceilings: sizes past them would not finish (or not fit a solver's bit-vectors) on one machine.
MAX_WARPS = 1024
MAX_STAGE = 64  # t_fetch, t_decode, ibuffer entries, threads of a warp
MAX_LATENCY = 100_000



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
    cycle: int | None = Field(default=None, ge=0)
    prologue: int = Field(default=0, ge=0)
    note: dict[str, Any] = {}
    initial_ibuffer: list[list[InstrRecord]]
    streams: list[list[InstrRecord]]


class JobTask(_Strict):
    """A ``[[task]]`` (or the ``[defaults]``) of a job file: run keys, then any SM configuration key."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)  # the SM keys: SMConfigFile checks them
    name: str | None = Field(default=None, min_length=1)
    expect: str | None = None  # "pass" or "fail": checked by the job loader, with its own message
    property: str | None = None
    engine: str | None = None
    depth: int | None = Field(default=None, ge=0, le=10_000)
    timeout: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    policy: str | None = None
    fetch: str | None = None
    issue: str | None = None


M = TypeVar("M", bound=BaseModel)


def validated(schema: type[M], data: Any, where: str) -> M:
    """``data`` checked against ``schema``, or an InputFileError naming the first problem in one line."""
    if not isinstance(data, Mapping):
        raise InputFileError(f"{where}: expected a table of keys ({', '.join(schema.model_fields)}), "
                             f"got {type(data).__name__}")
    try:
        return schema.model_validate(dict(data))
    except ValidationError as e:
        raise InputFileError(f"{where}: {_explain(schema, e.errors()[0])}") from None


def _explain(schema: type[BaseModel], err: Any) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    if err["type"] == "extra_forbidden":
        known = ", ".join(_fields_at(schema, err["loc"][:-1]))
        return f"unknown key {path!r}; known keys: {known}"
    if err["type"] == "missing":
        return f"key {path!r} is missing"
    value = repr(err["input"])
    value = value if len(value) <= 40 else value[:37] + "..."
    return f"{path} = {value} is not allowed; {_allowed(err)}"


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
    if err["type"] == "literal_error":
        return f"allowed: {ctx['expected']}"
    return f"it must be {EXPECTED.get(err['type'], err['msg'][0].lower() + err['msg'][1:])}"


def _fields_at(schema: type[BaseModel], loc: tuple) -> list[str]:
    """The keys allowed at ``loc`` (a nested record's, or the top level's)."""
    nested = {"initial_ibuffer": InstrRecord, "streams": InstrRecord}
    model = nested.get(loc[0], schema) if loc else schema
    return list(model.model_fields)
