"""The library's arguments, fuzzed: every options record and every public function, one wrong field at a time.

The oracle is the contract, not an answer: building a record (``Record(**fields)``) or calling a public
function either succeeds or raises the kit's :class:`ConfigError` naming the field (``field=...: ...``);
never a ``TypeError``, ``AttributeError``, ``OverflowError`` or any other exception from deep in the kit.
A record that takes a value holds values of its fields' annotated types (``cache: str`` is no None), so
that the run does not trip on it later.  Each field meets every value of SPECIAL, then Hypothesis draws
more (nested junk included), bounded by ``max_examples``.  The records are the table of verbs'
(``api/_verbs.py`` VERBS) and the sweep's two, read from ``dataclasses.fields``; the functions are
``warpcheck.__all__``'s.  So a new verb, field or function is fuzzed without editing this file.  A
function is stopped once its record is built (``_values.build`` raises :class:`Built`): what is fuzzed
is the function's handling of its keywords, not the run.  Last, the ceilings: the sizes that once ran
for minutes are refused up front, naming the ceiling and why (a refusal is checked, never a speed).
"""
from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
import re
import sys
import types
import typing
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import warpcheck
from warpcheck import _values
from warpcheck._sweep import PlotOptions, SweepOptions
from warpcheck._verbs import VERBS
from warpcheck.models.errors import ConfigError, InputFileError, OptionError, WarpcheckError

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

RECORDS: dict[str, type] = {**{v.record: v.options_type() for v in VERBS.values()},
                            "SweepOptions": SweepOptions, "PlotOptions": PlotOptions}
# What a record needs besides its defaults to be whole (files are only named: building reads none but `config`).
# A record not listed here is fuzzed from its defaults; test_every_record_is_whole_from_its_base says so.
BASE: dict[str, dict[str, Any]] = {
    "ReplayOptions": {"witness": "w.json"}, "RunOptions": {"job": "job.toml"},
    "SimulateOptions": {"workloads": ("psort",)}, "SimulateKernelsOptions": {"kernels": "psort,sgemm"},
    "ExportOptions": {"format": "smt2"}, "CheckOptions": {"certificate": "c.smt2"},
    "MakespanOptions": {"kernel": "LLCLL", "warps": 4, "sigma": {"L": 1, "C": 1}},
    "CfgOptions": {"kernel": "k.ptx"}, "WcetOptions": {"kernel": "k.ptx"}, "SimtOptions": {"kernel": "k.ptx"},
    "AnalyzeOptions": {"kernel": "k.ptx", "grid": 1, "block": 32},
    "ReorderProveOptions": {"streams": 2}, "ReorderReplayOptions": {"witness": "w.json"},
    "ReorderSimulateOptions": {"kernel": "k.ptx", "grid": 1, "block": 32},
    "SweepOptions": {"sweep": "s.toml"}, "PlotOptions": {"store": "s.duckdb", "figure": "table2"},
}
NOT_A_RECORD = {"check_certificate": "reads a certificate file: one path, no options",
                "register_policy": "takes a UserPolicy, checked by the policy itself",
                "unregister_policy": "takes a policy name"}


class Opaque:
    """An object of no kind the kit knows."""


SPECIAL: list[Any] = [  # the wrong values every field meets, each of them: a draw might miss one
    None, True, False, 0, -1, 2**63, 10**30, 10**400, -(10**400), 1.5, -0.0, math.nan, math.inf, -math.inf, 1e308,
    2 + 3j, "", " ", "0", "-1", "nan", "inf", "1e400", "²", "1" * 5000, "a\x00b", "x=1", "=", ",", "x", "16x4", "0x0",
    "1,2", b"bytes", [], [None], [[1]], [{}], ["a=1"], {}, {"a": None}, {1: 2}, {"": 1}, ("a", 1), frozenset({1}),
    Opaque(), object, print]
scalars = st.one_of(st.sampled_from(SPECIAL), st.integers(), st.floats(), st.text(max_size=12),
                    st.binary(max_size=4))
junk = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                                     st.dictionaries(st.text(max_size=4) | st.integers(), inner,
                                                                     max_size=3)), max_leaves=6)


def named(e: Exception, field: str) -> bool:
    """Whether a refusal names ``field``: as its option (``field=...: ...``), else as a word of the message."""
    if isinstance(e, OptionError):
        return e.option == field and str(e).startswith(f"{field}=")
    return re.search(rf"(?<![\w.]){re.escape(field)}(?![\w])", str(e)) is not None


def fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the annotated type ``hint`` (its outer type; ``Any`` and type variables always)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(fits(value, arg) for arg in typing.get_args(hint))
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    kind = origin or hint
    if kind is type(None):
        return value is None
    return isinstance(value, kind) if isinstance(kind, type) and kind is not Any else True


def well_typed(record: Any, field: str, value: Any) -> None:
    """A record that took ``value`` holds values of its fields' annotated types (None where None is allowed)."""
    hints = typing.get_type_hints(type(record))
    wrong = [f"{f.name}={getattr(record, f.name)!r} (annotated {hints[f.name]})"
             for f in dataclasses.fields(record) if not fits(getattr(record, f.name), hints[f.name])]
    assert not wrong, f"{field}={value!r} was taken, and the record holds {wrong}: a run would trip on it"


def keeps_the_contract(call: Any, field: str, value: Any) -> None:
    """``call()`` succeeds (or reaches its record) or refuses by naming ``field``; nothing else escapes."""
    try:
        made = call()
    except Built as built:
        well_typed(built.record, field, value)
        return
    except InputFileError as e:  # a file name that names no file: only a string can, and the message says which
        assert isinstance(value, str) and value in str(e), f"{field}={value!r}: {e}"
    except ConfigError as e:
        assert named(e, field), f"{field}={value!r}: the refusal does not name {field}: {e}"
    except WarpcheckError as e:
        pytest.fail(f"{field}={value!r}: {type(e).__name__} (code {e.code}), not a ConfigError: {e}")
    else:
        if dataclasses.is_dataclass(made):
            well_typed(made, field, value)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_record_is_whole_from_its_base(name):
    RECORDS[name](**BASE.get(name, {}))  # else add the record's few required fields to BASE


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_record_refuses_each_special_value_by_name(name):
    record = RECORDS[name]
    for field in [f.name for f in dataclasses.fields(record)]:
        for value in SPECIAL:
            keeps_the_contract(lambda: record(**{**BASE.get(name, {}), field: value}), field, value)


@pytest.mark.parametrize("name", sorted(RECORDS))
@SETTINGS
@given(data=st.data())
def test_a_record_refuses_a_wrong_field_by_name(name, data):
    record = RECORDS[name]
    field = data.draw(st.sampled_from([f.name for f in dataclasses.fields(record)]), label="field")
    value = data.draw(junk, label="value")
    keeps_the_contract(lambda: record(**{**BASE.get(name, {}), field: value}), field, value)


class Built(Exception):
    """Raised by the patched ``build`` once a function's record is whole: the run itself is not fuzzed."""

    def __init__(self, record: Any) -> None:
        super().__init__(repr(record))
        self.record = record


@contextlib.contextmanager
def stopped_at_build(discover: bool = False) -> Iterator[None]:
    """Every module's ``build`` (``warpcheck._values.build``, however imported) builds, then raises Built.

    ``discover``: raise Built with the record's type before building it (which record does a function build?).
    """
    real = _values.build

    def build(record: Any, where: str, keywords: Any) -> Any:
        raise Built(record if discover else real(record, where, keywords))

    homes = [m for m in list(sys.modules.values())
             if getattr(m, "__name__", "").startswith("warpcheck") and getattr(m, "build", None) is real]
    for m in homes:
        setattr(m, "build", build)
    try:
        yield
    finally:
        for m in homes:
            setattr(m, "build", real)


def _functions() -> dict[str, Any]:
    out = {n: getattr(warpcheck, n) for n in warpcheck.__all__ if n not in NOT_A_RECORD}
    return {n: f for n, f in out.items() if inspect.isfunction(f)}


def _record_of(function: Any) -> type:
    """The record a public function builds, found by calling it with its required parameters as None."""
    required = {p.name: None for p in inspect.signature(function).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    with stopped_at_build(discover=True), pytest.raises(Built) as built:
        function(**required)
    return built.value.record  # type: ignore[no-any-return]


FUNCTIONS = _functions()


def test_every_public_function_builds_its_verbs_record():
    built = {_record_of(f) for f in FUNCTIONS.values()}
    assert built == set(RECORDS.values()), built ^ set(RECORDS.values())


def _keywords_of(function: Any) -> tuple[type, list[str]]:
    """The record a function builds and the keywords it takes: the record's fields and its own parameters."""
    record = _record_of(function)
    own = [p.name for p in inspect.signature(function).parameters.values()
           if p.kind is p.KEYWORD_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD]
    return record, sorted({f.name for f in dataclasses.fields(record)} | set(own))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_public_function_refuses_each_special_value_by_name(name):
    function = FUNCTIONS[name]
    record, keywords = _keywords_of(function)
    with stopped_at_build():
        for keyword in keywords:
            for value in SPECIAL:
                given = {**BASE.get(record.__name__, {}), keyword: value}
                keeps_the_contract(lambda: function(**given), keyword, value)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@SETTINGS
@given(data=st.data())
def test_a_public_function_refuses_a_wrong_keyword_by_name(name, data):
    function = FUNCTIONS[name]
    record, keywords = _keywords_of(function)
    keyword = data.draw(st.sampled_from(keywords), label="keyword")
    value = data.draw(junk, label="value")
    given = {**BASE.get(record.__name__, {}), keyword: value}
    with stopped_at_build():
        keeps_the_contract(lambda: function(**given), keyword, value)


EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"
WITNESS = str(EXAMPLES / "witnesses" / "baseline-lrr-gtlrr-W4-oracle.json")
SLIDES = str(EXAMPLES / "sass" / "slides.sass")
PAPER = str(EXAMPLES / "reorder" / "paper_example.ptx")
LAUNCH = dict(grid=1, block=64, param={"in": 0})


@pytest.mark.parametrize("call, says", [
    # the calls that ran for minutes (or to 7.6 GB): refused before any work, naming the ceiling and why
    (lambda: warpcheck.replay(WITNESS, cycles=10**9), "cycles=1000000000: above the ceiling of 10000 (a witness"),
    (lambda: warpcheck.simulate("psort", warps=1000), "warps=1000: above the ceiling of 64 (an SM holds"),
    (lambda: warpcheck.simulate("psort", icache=(10**9, 4)), "icache=(1000000000, 4): above the ceiling of 4096x64"),
    (lambda: warpcheck.export("smt2", warps=2, depth=10**9), "depth=1000000000: above the ceiling of 10000 (a "
                                                               "witness holds"),
    (lambda: warpcheck.export("smt2", warps=2, k=10**9), "k=1000000000: above the ceiling of 10000"),
    (lambda: warpcheck.prove(warps=2, depth=10**9), "depth=1000000000: above the ceiling of 10000"),
    (lambda: warpcheck.prove(warps=2, prologue=10**9), "prologue=1000000000: above the ceiling of 10000"),
    (lambda: warpcheck.prove(warps=10**6), "warps=1000000: above the ceiling of 1024 (larger sizes"),
    (lambda: warpcheck.prove(t_fetch=10**30), "t_fetch=1000000000000000000000000000000: above the ceiling of 64"),
    (lambda: warpcheck.qaws_wcrt(horizon=10**9), "horizon=1000000000: above the ceiling of 10000"),
    (lambda: warpcheck.qaws_wcrt(miss_latency=10**9), "miss_latency=1000000000: above the ceiling of 100000"),
    (lambda: warpcheck.qaws_wcrt(latency={"mem": 10**9}), "latency={'mem': 1000000000}: mem=1000000000 is not"),
    (lambda: warpcheck.qaws_inversion(depth=10**9), "depth=1000000000: above the ceiling of 10000"),
    (lambda: warpcheck.wcet(SLIDES, mem_latency=10**9), "mem_latency=1000000000: above the ceiling of 100000"),
    (lambda: warpcheck.wcet(SLIDES, latency={"mem": 10**9}), "above the ceiling of 100000"),
    (lambda: warpcheck.makespan(ptx=PAPER, sm="sm.toml", warps=4, max_loop_bound=10**9),
     "max_loop_bound=1000000000: above the ceiling of 1000000"),
    (lambda: warpcheck.reorder_simulate(PAPER, **LAUNCH, hit=10**30), "hit=1000000000000000000000000000000: above"),
    (lambda: warpcheck.analyze(PAPER, **LAUNCH, line_bytes=2**40), "line_bytes=1099511627776: above the ceiling"),
    (lambda: warpcheck.prove(timeout=10**400), "timeout=1000"),  # past a float: refused, not an OverflowError
])
def test_a_value_past_the_verbs_ceiling_is_refused_up_front(call, says):
    with pytest.raises(OptionError) as e:
        call()
    assert says in str(e.value), str(e.value)


@pytest.mark.parametrize("call, says", [
    (lambda: warpcheck.prove(all_warps="no"), "all_warps='no': not a bool"),
    (lambda: warpcheck.simulate("psort", design="x"), "design='x': not one of"),
    (lambda: warpcheck.makespan("LLCLL", 4, sigma=[("L", 1)]), "sigma=[('L', 1)]: not a mapping"),
    (lambda: warpcheck.export("smt2", warps=2, lemmas="no"), "lemmas='no': not a bool"),
    (lambda: warpcheck.export("smt2", warps=2, depth=0), "depth=0: not allowed; it must be >= 1"),
    (lambda: warpcheck.reorder_prove(streams=2, check=False), "check=False: not one of"),
    (lambda: warpcheck.reorder_prove(streams=2, cache=0), "cache=0: not a non-empty string"),
    (lambda: warpcheck.simulate("psort", fetch=[["lrr"]]), "fetch=[['lrr']]: ['lrr'] is not a known policy"),
    (lambda: warpcheck.simulate("psort", icache="²x4"), "icache='²x4': not LINESxSIZE"),
    (lambda: warpcheck.qaws_wcrt(latency={"mem": True}), "latency={'mem': True}: mem=True is not allowed"),
    (lambda: warpcheck.prove(witness="a\x00b"), "witness='a\\x00b': holds a NUL character"),
    (lambda: warpcheck.prove(warps=2, progress="yes"), "progress='yes': not a function"),
    (lambda: warpcheck.reorder_simulate(PAPER, **LAUNCH, hit=500), "miss=200: not allowed; it must be >= 500 (hit"),
])
def test_a_wrong_value_the_kit_once_accepted_is_refused_by_name(call, says):
    with pytest.raises(OptionError) as e:
        call()
    assert says in str(e.value), str(e.value)


def test_the_command_line_refuses_the_same_ceiling_with_its_flag(capsys):
    from warpcheck.cli.main import main
    assert main(["export", "--format", "smt2", "--warps", "2", "--depth", "1000000000"]) == 2
    assert "--depth 1000000000: above the ceiling of 10000" in capsys.readouterr().err
