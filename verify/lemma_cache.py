"""Lemmas proved for one exact transition system, kept in a folder so that a stopped proof resumes.

The key is a hash of the formulas the proof is about: the SMT-LIB text of the
initial states, of one step and of every candidate lemma (with its name), and
Z3's version.  Whether a set of lemmas is inductive is a property of exactly
those formulas, so a lemma read back under the same key is proved, without a
re-check; another model, configuration, property or candidate set gives
other formulas, hence another key, and its lemmas are never read.

A file holds the candidates rejected so far (dropping a candidate is always
sound: it only weakens what is assumed), the candidates one step was shown to
preserve assuming all candidates not rejected (valid while that set stays as
it is), and, once Houdini has finished, the lemmas proved.  A run stopped in
the middle of Houdini resumes without the candidates it had rejected and
without asking again what it had shown preserved; a finished one is read
back whole.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

import z3

from warpcheck.encodings.unroll import Unrolling
from warpcheck.models.files import atomic_write_text

FORMAT = "warpcheck-lemmas-1"


class LemmaCache:
    """The cache file of one transition system's candidate lemmas in ``folder``."""

    def __init__(self, folder: str | Path, u: Unrolling, candidates: Iterable[tuple[str, Any]]) -> None:
        self.key = formula_key(u, candidates)
        self.path = Path(folder) / f"{self.key[:32]}.json"

    def load(self) -> dict[str, Any] | None:
        """What an earlier run kept under this key (None: nothing, or an unreadable or foreign file)."""
        try:
            got = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = isinstance(got, dict) and got.get("format") == FORMAT and got.get("key") == self.key
        return got if ok and isinstance(got.get("rejected"), list) else None

    def save(self, rejected: Iterable[str], proved: Iterable[str] | None = None,
             preserved: Iterable[str] = (), stage: str = "") -> None:
        """Keep the rejected candidates, those shown preserved under all the others, and the lemmas proved once
        Houdini has finished (``proved`` given); ``stage`` "step": the random runs and the initial states are
        done (every candidate not rejected holds initially)."""
        data = {"format": FORMAT, "key": self.key, "rejected": sorted(rejected), "preserved": sorted(preserved),
                "proved": None if proved is None else sorted(proved), "stage": stage}
        try:
            atomic_write_text(self.path, json.dumps(data), "lemma cache")
        except Exception:  # noqa: BLE001 - a cache that cannot be written costs time on the next run, never a verdict
            pass


def formula_key(u: Unrolling, candidates: Iterable[tuple[str, Any]]) -> str:
    """The hash of the initial states, one step and the named candidates, as SMT-LIB text."""
    s = z3.Solver()
    s.add(u.init())
    s.add(u.trans(0))
    h = hashlib.sha256(f"{FORMAT} z3 {z3.get_version_string()}\n".encode())
    h.update(s.sexpr().encode())
    for name, f in candidates:
        h.update(f"\n{name}\n".encode())
        h.update(u.holds(f, 0).sexpr().encode())
    return h.hexdigest()
