"""Shared test helpers."""
from __future__ import annotations

from warpcheck.models.config import SMConfig
from warpcheck.models.frontend import FrontEnd
from warpcheck.verify.engines import engine
from warpcheck.verify.properties import get_property
from warpcheck.verify.result import Result


def assert_status(config: SMConfig, prop: str = "oracle", expect: str = "PASS", engine_name: str = "kind",
                  depth: int = 6, timeout: float = 120) -> Result:
    """Run an engine on a front end and fail with the status and message if it is not ``expect``."""
    fe = FrontEnd(config)
    r = engine(engine_name)(fe, get_property(prop).predicate(fe), depth, timeout)
    assert r.status.value == expect, f"{fe.name} {prop}: {r.label} ({r.message}), expected {expect}"
    return r
