"""Shared test helpers, and the Hypothesis settings of the whole suite."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from warpcheck.models.frontend.config import SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify.engines import engine
from warpcheck.verify.frontend.properties import default_property, get_property
from warpcheck.verify.result import Result

# No test's verdict hangs on the clock: Hypothesis's 200 ms deadline per example failed
# test_algebra.py on a loaded machine (258 ms), and its too_slow health check times the drawing of
# examples. Examples stay bounded by number (max_examples), never by time.
settings.register_profile("warpcheck", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("warpcheck")


# A proof's or a search's timeout in a test is a hang guard only, never what decides the verdict: the tests'
# proofs end by their own bounds on work (depth, k, states) in seconds on an idle machine, and still end, with
# the same verdict, on one ten times slower (sixteen busy loops on two cores).
HANG_GUARD = 1800.0


def assert_status(config: SMConfig, prop: str = "", expect: str = "PASS", engine_name: str = "kind",
                  depth: int = 6, timeout: float = HANG_GUARD, design: FrontEnd | None = None) -> Result:
    """Run an engine on a design beside its property's reference; fail with the status if it is not ``expect``."""
    fe = design or FrontEnd(config)
    prop = prop or default_property(config.design)
    ts = get_property(prop).checked(fe)
    r = engine(engine_name)(ts, ts.agree, depth, timeout)
    assert r.status.value == expect, f"{fe.name} {prop}: {r.label} ({r.message}), expected {expect}"
    return r


def steady(x, volatile=("seconds",)):
    """``x`` as JSON reads it back (tuples as lists), without the keys that differ from run to run."""
    if isinstance(x, tuple):
        x = list(x)
    if isinstance(x, dict):
        return {k: steady(v, volatile) for k, v in x.items() if k not in volatile}
    if isinstance(x, list):
        return [steady(v, volatile) for v in x]
    return x


def verb_json(capsys, *argv):
    """A verb's exit code and the one JSON object it printed (run in this process)."""
    import json

    from warpcheck.cli.main import main
    capsys.readouterr()
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def same_refusal(capsys, call, argv):
    """An API call and the verb refuse the same input with the same exit code and the same one line."""
    import pytest

    import warpcheck
    from warpcheck.cli.main import main
    with pytest.raises(warpcheck.WarpcheckError) as e:
        call()
    capsys.readouterr()
    assert main(argv) == e.value.code == 2
    assert capsys.readouterr().err.strip().endswith(f"error: {e.value}")


@pytest.fixture(autouse=True, scope="session")
def _a_cache_of_the_suites_own(tmp_path_factory):
    """The lemmas a script's proof keeps go to the user's cache folder: the suite uses one of its own."""
    old, wasm = os.environ.get("XDG_CACHE_HOME"), os.environ.get("YOWASP_CACHE_DIR")
    # yosys' and Boolector's WebAssembly stay compiled in the user's cache (minutes of CPU to compile again)
    os.environ["YOWASP_CACHE_DIR"] = wasm or str(Path(old or Path.home() / ".cache") / "YoWASP")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if wasm is None:
        os.environ.pop("YOWASP_CACHE_DIR", None)
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old
