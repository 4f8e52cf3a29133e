"""The AIGER export against the kit's step, bit by bit, and ABC as an engine (issue 36): its counterexamples
replay, its proofs count only once the kit re-checks their invariant, and a machine without ABC is told so."""
from __future__ import annotations

import functools
import json
import random
import re
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import warpcheck
from warpcheck._frontend.options import ProveOptions
from warpcheck._frontend.proof import prove_run
from warpcheck.cli.main import main
from warpcheck.encodings import aiger
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.models.errors import OptionError
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.mutants import MUTANTS
from warpcheck.models.ts import Var
from warpcheck.verify import abc
from warpcheck.verify.frontend.properties import default_property, get_property

import aiger_interp

needs_abc = pytest.mark.skipif(abc.missing() is not None, reason=f"{abc.missing()} (the ABC engine tests need it)")
BASELINE = SMConfig(design="baseline", fetch_policy="lrr", issue_policy="gtlrr", warps=2)


@functools.cache
def _exported(design: str) -> tuple[Any, dict[str, Any], Any, bytes]:
    """The AIGER file of a design at W = 2 (read by the tests' own reader), its map and the kit's system."""
    files = warpcheck.export("aiger", design=design, warps=2)
    data = next(v for k, v in files.items() if k.endswith(".aig"))
    bits = json.loads(next(v for k, v in files.items() if k.endswith(".map.json")))
    ts = get_property(default_property(design)).checked(FrontEnd(SMConfig(design=design, warps=2)))
    return aiger_interp.parse(data), bits, ts, data


def _value(v: Var, spill: int) -> Any:
    return st.booleans() if v.kind == "bool" else st.integers(v.lo - spill, v.hi + spill)


def _assign(rows: list[dict[str, Any]], values: dict[str, Any], width: int) -> dict[int, bool] | None:
    """The file's bits of the kit's values (None: a value the file's bits cannot hold, e.g. -1 in a range >= 0)."""
    out: dict[int, bool] = {}
    used: dict[str, int] = {}
    for row in rows:
        name, bit = row["variable"], row["bit"]
        x = int(values[name])
        out[row["literal"]] = bool(x >> bit & 1)
        used[name] = max(used.get(name, 0), bit + 1)
    for name, n in used.items():
        x = int(values[name]) % (1 << width)
        if n < width and x >> n:
            return None
    return out


def _read(rows: list[dict[str, Any]], lits: dict[int, int], val: dict[int, bool], width: int) -> dict[str, Any]:
    """The kit's values of the latches' next bits."""
    raw: dict[str, int] = {}
    kinds = {}
    for row in rows:
        raw[row["variable"]] = raw.get(row["variable"], 0) | (val[lits[row["literal"]]] << row["bit"])
        kinds[row["variable"]] = row["kind"]
    return {k: bool(x) if kinds[k] == "bool" else x - (1 << width) if x >> (width - 1) else x for k, x in raw.items()}


@pytest.mark.parametrize("design", ["swas", "baseline"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_aiger_one_step_is_the_kits_on_random_states_and_inputs(design, data):
    """One cycle of the file, simulated bit by bit, against the kit's concrete step: next states, the bad
    state (the property's negation) and the constraints (ranges, the assumption, first -> initial state)."""
    m, bits, ts, _ = _exported(design)
    width = bits["width"]
    p = {f"p.{v.name}": data.draw(_value(v, 2)) for v in ts.param_vars()}
    s = {f"s.{v.name}": data.draw(_value(v, 0)) for v in ts.state_vars()}
    i = {f"i.{v.name}": data.draw(_value(v, 2)) for v in ts.input_vars()}
    first = data.draw(st.booleans())
    init = ts.init(CONCRETE, {k[2:]: x for k, x in p.items()})
    if first and data.draw(st.booleans()):  # often the initial state itself, so that the constraint can hold
        s = {f"s.{k}": x for k, x in init.items()}
    ins = _assign(bits["inputs"], i, width)
    lat = _assign([r for r in bits["latches"]], {**p, **s, "first": first}, width)
    if ins is None or lat is None:
        return
    val = aiger_interp.evaluate(m, lat, ins)
    kit_s, kit_i, kit_p = ({k[2:]: x for k, x in d.items()} for d in (s, i, p))
    allowed = (all(v.contains(kit_p[v.name]) for v in ts.param_vars())
               and all(v.contains(kit_i[v.name]) for v in ts.input_vars()) and bool(ts.assume(CONCRETE, kit_s, kit_i))
               and (not first or all(kit_s[k] == x for k, x in init.items())))
    assert all(val[c] for c in m.constraints) == allowed
    if not allowed:
        return
    assert val[m.bad[0]] == (not ts.agree(CONCRETE, kit_s))
    nxt = {lit: n for lit, n, _ in m.latches}
    got = _read([r for r in bits["latches"] if r["variable"].startswith("s.")], nxt, val, width)
    assert got == {f"s.{k}": x for k, x in ts.step(CONCRETE, kit_s, kit_i).items()}


def test_aiger_header_resets_and_map():
    """Binary AIGER 1.9 with one bad state and its constraints; parameters' latches keep their value and reset
    to themselves; every input and latch bit is named in the map and the symbol table."""
    m, bits, ts, data = _exported("swas")
    assert data.startswith(b"aig ") and m.header[4:7] == [len(m.ands), 1, len(m.constraints)] and m.constraints
    named = {r["literal"]: r for r in bits["latches"]}
    params = [(lit, n, reset) for lit, n, reset in m.latches if named[lit]["variable"].startswith("p.")]
    assert params and all(n == lit == reset for lit, n, reset in params)
    assert {named[lit]["variable"] for lit, _, reset in m.latches if reset == 1} <= {"first"} | {
        f"s.{v.name}" for v in ts.state_vars()}
    assert len(bits["inputs"]) == len(m.inputs) and all("variable" in r for r in bits["inputs"] + bits["latches"])
    assert m.symbols["l0"] == "p." + ts.param_vars()[0].name + "[0]"


def test_structural_hashing_and_folding():
    """An AND of two literals is made once; constants and x & x, x & ~x fold."""
    g = aiger.Aig()
    a, b = g.input("a"), g.input("b")
    assert g.and_(a, b) == g.and_(b, a) and len(g.ands) == 1
    assert (g.and_(a, a), g.and_(a, a ^ 1), g.and_(a, aiger.TRUE), g.and_(a, aiger.FALSE)) == (a, 0, a, 0)


@needs_abc
@pytest.mark.parametrize("design", ["swas", "baseline"])
def test_abc_reads_the_export(design, tmp_path):
    m, _, _, data = _exported(design)
    (tmp_path / "m.aig").write_bytes(data)
    said = subprocess.run([abc.binary(), "-c", f"read_aiger {tmp_path / 'm.aig'}; print_stats"],
                          capture_output=True, text=True, check=True).stdout
    assert re.search(r"lat =\s*(\d+)", said).group(1) == str(len(m.latches))
    assert f"(c={len(m.constraints)})" in said


@needs_abc
def test_abc_bmc_finds_the_baselines_shortest_violation_and_it_replays(tmp_path):
    out = prove_run(ProveOptions(config=BASELINE, engine="abc-bmc", witness=str(tmp_path / "w.json")))
    r = out.result
    assert r.status.value == "FAIL" and r.depth == 5 and r.engine == "abc-bmc", (r.label, r.message)
    assert out.witness_path and out.replays[0].first_violation == 4  # depth 5 checks cycle 4's issue


@needs_abc
def test_abc_timeout_is_never_a_pass(tmp_path):
    """SWaS at W = 4 is beyond the lemmas and ABC's pdr in a second: the run stops at the timeout."""
    r = prove_run(ProveOptions(design="swas", warps=4, engine="abc-pdr", timeout=1)).result
    assert r.status.value == "TIMEOUT" and r.seconds < 10


def test_abc_missing_is_refused_by_name_exit_2(monkeypatch, tmp_path, capsys):
    """Never silently skipped: the script and the verb refuse the engine with the line that says how to install."""
    monkeypatch.setenv("ABC", str(tmp_path / "no-abc"))
    with pytest.raises(OptionError, match="apt-get install berkeley-abc, or set ABC=/path/to/abc"):
        ProveOptions(design="swas", warps=2, engine="abc-pdr")
    capsys.readouterr()
    assert main(["prove", "--design", "swas", "--warps", "2", "--engine", "abc-bmc"]) == 2
    said = capsys.readouterr().err
    assert "--engine abc-bmc: needs ABC" in said and "apt-get install berkeley-abc" in said and len(said.splitlines()) == 1


def _bit(name: str, values: dict[str, Any]) -> bool:
    """A file input's value: ``i.x[3]`` is bit 3 of ``values["i.x"]`` (``@0``: the initial value of a latch)."""
    var, _, bit = name.removesuffix("@0").partition("[")
    return bool(int(values[var]) >> int(bit.rstrip("]") or 0) & 1)


@pytest.mark.parametrize("design", ["swas", "baseline"])
def test_abc_model_runs_as_the_kit(design):
    """The model ABC runs (narrowed, constraints folded, resets 0) simulated along the kit's concrete runs:
    the same states, and its bad state exactly where the property fails."""
    ts = get_property(default_property(design)).checked(FrontEnd(SMConfig(design=design, warps=2)))
    m, rng, seen = abc.abc_model(ts, ts.agree), random.Random(7), set()
    for _ in range(4):
        params = {v.name: rng.randint(v.lo, v.hi) if v.kind != "bool" else rng.random() < 0.5 for v in ts.param_vars()}
        states, inputs = [ts.init(CONCRETE, params)], []
        for _ in range(10):
            i = next(i for i in ({v.name: rng.randint(v.lo, v.hi) if v.kind != "bool" else rng.random() < 0.5
                                  for v in ts.input_vars()} for _ in iter(int, 1)) if ts.assume(CONCRETE, states[-1], i))
            inputs.append(i)
            states.append(ts.step(CONCRETE, states[-1], i))
        known = [{**{f"p.{k}": x for k, x in params.items()}, **{f"s.{k}": x for k, x in states[0].items()},
                  **{f"i.{k}": x for k, x in i.items()}} for i in inputs]
        values = aiger.simulate(m.aig, [False] * len(m.aig.latches),
                                [[_bit(m.aig.names[v], k) for v in m.aig.inputs] for k in known])
        for t, val in enumerate(values):
            assert {v.name: aiger.read_value(val, m.map[f"s.{v.name}"], m.kinds[f"s.{v.name}"])
                    for v in ts.state_vars()} == states[t]
            bad = m.aig.bad[0]
            assert (val[bad // 2] ^ bool(bad & 1)) == (not ts.agree(CONCRETE, states[t]))
            seen.add(ts.agree(CONCRETE, states[t]))
    assert True in seen


def _toy() -> tuple[Any, Any]:
    """A small system ABC proves in well under a second, and its property."""
    from warpcheck.models.ts import TransitionSystem

    class Counter(TransitionSystem):  # 0, 1, 2, 0, ...: never 3 (4 bits of state; 3 is unreachable)
        def state_vars(self) -> list[Var]:
            return [Var("x", "int", 0, 3), Var("y", "int", 0, 3)]

        def init(self, A: Any, p: Any) -> dict[str, Any]:
            return {"x": A.const(0), "y": A.const(0)}

        def step(self, A: Any, s: Any, i: Any) -> dict[str, Any]:
            nx = A.ite(A.eq(s["x"], A.const(2)), A.const(0), A.add(s["x"], A.const(1)))
            return {"x": nx, "y": s["x"]}
    return Counter(), lambda A, s: A.not_(A.eq(s["y"], A.const(3)))


def _toy_invariant() -> tuple[aiger.Model, list[list[int]]]:
    m = abc.abc_model(*_toy())
    clauses = abc.prove_invariant(m)
    assert clauses is not None
    return m, clauses


@needs_abc
def test_abc_pdr_invariant_is_rechecked_and_a_dropped_clause_refused():
    m, clauses = _toy_invariant()
    assert clauses and abc.recheck(m, clauses) is None
    dropped = [abc.recheck(m, clauses[:k] + clauses[k + 1:]) for k in range(len(clauses))]
    assert any(dropped) and abc.recheck(m, []) is not None


@needs_abc
def test_abc_pdr_proof_whose_invariant_fails_the_recheck_is_not_a_pass(monkeypatch):
    ts, prop = _toy()
    assert abc.abc_pdr(ts, prop).label == "PASS (unbounded)"
    monkeypatch.setattr(abc, "read_invariant", lambda text, m: [])  # a tampered invariant: every clause dropped
    r = abc.abc_pdr(ts, prop)
    assert r.status.value == "UNKNOWN" and "fails the kit's re-check" in r.message and "not a PASS" in r.message


@needs_abc
def test_abc_pdr_kills_a_mutant(tmp_path):
    mut = MUTANTS["pick-when-none"]
    cfg = SMConfig(warps=2, design="swas", issue_policy=mut.policy or "gtlrr", check_buffer=False)
    out = prove_run(ProveOptions(config=cfg, engine="abc-pdr", witness=str(tmp_path / "w.json")), model=mut.make(cfg))
    assert out.result.status.value == "FAIL" and out.replays[0].first_violation is not None, out.result.message


@needs_abc
def test_abc_pdr_proves_swas_at_two_warps_with_lemmas_and_invariant_rechecked():
    r = prove_run(ProveOptions(design="swas", policy="gtlrr", warps=2, engine="abc-pdr")).result
    assert r.label == "PASS (unbounded)" and r.lemmas, r.message
    assert "the lemmas (initial, preserved) and its inductive invariant" in r.message and "re-checked by Z3" in r.message


@needs_abc
def test_a_lemma_that_is_no_invariant_is_refused_by_the_recheck():
    """A false lemma given to ABC as a constraint makes every state safe: the re-check must refuse it."""
    ts, prop = _toy()
    m = abc.abc_model(ts, prop, [lambda A, s: A.eq(s["x"], A.const(0))])  # x = 0 initially, x = 1 one step later
    clauses = abc.prove_invariant(m)
    assert clauses is not None and abc.recheck(m, clauses) == "one step does not preserve the lemmas"
    wrong = abc.abc_model(ts, prop, [lambda A, s: A.eq(s["x"], A.const(1))])  # not even initially
    assert abc.recheck(wrong, abc.prove_invariant(wrong) or []) == "a lemma fails in an initial state"


@pytest.mark.slow  # about 9 CPU-seconds
@needs_abc
def test_abc_pdr_proves_swas_at_four_warps(tmp_path):
    r = prove_run(ProveOptions(design="swas", warps=4, engine="abc-pdr")).result
    assert r.label == "PASS (unbounded)" and "re-checked by Z3" in r.message, r.message


@needs_abc
def test_abc_bmc_without_a_violation_is_a_bounded_pass():
    r = prove_run(ProveOptions(design="swas", warps=2, engine="abc-bmc", depth=3)).result
    assert r.label == "PASS (up to depth 3)" and r.bounded, r.message


@needs_abc
@pytest.mark.parametrize("engine", ["abc-pdr", "abc-bmc"])
def test_abc_engines_write_no_certificate_and_take_no_recheck(engine, tmp_path):
    with pytest.raises(OptionError, match="certificate"):
        ProveOptions(design="swas", warps=2, engine=engine, certificate=str(tmp_path / "c.smt2"))
    with pytest.raises(OptionError, match="recheck.*checked already"):
        ProveOptions(design="swas", warps=2, engine=engine, recheck=True)


@needs_abc
def test_the_exported_lemma_model_gives_abcs_pdr_the_kits_verdict_and_its_lemmas_check(tmp_path):
    """export --format aiger also writes NAME.lemmas.aig (the kit's lemmas assumed) and the two SMT-LIB2 scripts that
    show the lemmas inductive: pdr proves SWaS from the file alone, and the scripts answer as they must."""
    from warpcheck.verify.smt2_run import answers
    out = warpcheck.export("aiger", design="swas", warps=2, out=str(tmp_path))
    assert sorted(p.rsplit("/", 1)[1] for p in out.paths) == [
        "swas-gtlrr-W2-exact.aig", "swas-gtlrr-W2-exact.aig.map.json", "swas-gtlrr-W2-exact.lemmas-init.smt2",
        "swas-gtlrr-W2-exact.lemmas-step.smt2", "swas-gtlrr-W2-exact.lemmas.aig"]
    said = subprocess.run([abc.binary(), "-c", f"read_aiger {tmp_path / 'swas-gtlrr-W2-exact.lemmas.aig'}; pdr"],
                          capture_output=True, text=True, check=True).stdout
    assert "Property proved" in said
    init, step = (answers((tmp_path / f"swas-gtlrr-W2-exact.lemmas-{s}.smt2").read_text(), "bitwuzla")
                  for s in ("init", "step"))
    assert init == ["unsat"] and step == ["sat", "unsat"]  # step: its hypotheses have a model, then no way out
    bare = warpcheck.export("aiger", design="swas", warps=2, no_lemmas=True)
    assert sorted(bare.texts) == ["swas-gtlrr-W2-exact.aig", "swas-gtlrr-W2-exact.aig.map.json"]


def test_the_exported_lemma_scripts_refuse_a_lemma_that_does_not_hold():
    """What a pdr PASS on NAME.lemmas.aig rests on: a lemma the kit did not prove (here: every ibuffer empty, false in
    the warm start) makes the initiation script sat, so the pair of files is refused, never a proof."""
    pytest.importorskip("bitwuzla")
    from warpcheck.encodings import smt2
    from warpcheck.encodings.unroll import _width
    from warpcheck.verify.smt2_run import answers
    ts = get_property("exact").checked(FrontEnd(SMConfig(warps=2, design="swas")))
    counts = [v.name for v in ts.state_vars() if v.name.endswith(".n") and v.name.startswith("w")]  # ibuffer fill
    assert counts, "the model has no ibuffer count to state a false lemma on"
    wrong = [lambda A, s: A.and_(*[A.eq(s[n], 0) for n in counts])]
    assert answers(smt2.lemmas_init(ts, wrong, _width(ts), "wrong"), "bitwuzla") == ["sat"]
