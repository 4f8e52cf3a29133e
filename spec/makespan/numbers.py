"""Read the rational numbers of a certificate: an integer, or a string "p/q"."""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any


def read_number(v: Any) -> Fraction | None:
    """Return an integer or a "p/q" string as a Fraction, or None when it is neither (booleans included)."""
    if type(v) is int:
        return Fraction(v)
    if isinstance(v, str) and re.fullmatch(r"-?\d+(/[1-9]\d*)?", v):
        return Fraction(v)
    return None
