"""The front-end simulator's engines and cycle limit, as the verbs' options name them (no engine is loaded here)."""
from __future__ import annotations

DEFAULT_MAX_CYCLES = 200_000
ENGINES = ("compiled", "reference", "native")
