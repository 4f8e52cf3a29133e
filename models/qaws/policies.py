"""The QAWS paper's policy names and the kit's issue policy each one is (GTO is the kit's GTLO)."""
from __future__ import annotations

POLICY_OF = {"lrr": "lrr", "gto": "gtlo", "gtlo": "gtlo", "qaws": "qaws"}
