"""The kill table of one domain's mutation suite: every mutant checked, killed or proved equivalent.

Usage: python benchmarks/mutants.py --domain frontend|reorder|qaws|makespan|kernels
                                    [--only NAME,...] [--json FILE]

A mutant is killed when its domain's check ends FAIL with evidence that
reproduces independently of the solver (a replayed witness, a refused
certificate, a differing concrete answer); a mutant declared equivalent must
PASS instead.  Exit 0 when every row is as expected, 1 otherwise.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tabulate import tabulate

from warpcheck.verify.mutation import DOMAINS, TABLE_HEADERS, summary, table_rows

def _suite(domain: str) -> Any:
    """The domain's mutation harness, in the library (``warpcheck._<domain>.mutation``)."""
    return importlib.import_module(f"warpcheck._{domain}.mutation")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain", choices=DOMAINS, default="frontend")
    ap.add_argument("--only", default="", help="comma-separated mutant names (default: all)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    a = ap.parse_args()
    suite = _suite(a.domain)
    names = [n for n in a.only.split(",") if n] or list(suite.MUTANTS)
    unknown = [n for n in names if n not in suite.MUTANTS]
    if unknown:
        print(f"unknown {a.domain} mutant(s) {unknown}; known: {', '.join(suite.MUTANTS)}", file=sys.stderr)
        return 2
    kills = []
    with tempfile.TemporaryDirectory() as d:
        for n in names:
            kills.append(suite.kill(n, Path(d)))
            print(f"  .. {n}: {kills[-1].status} ({kills[-1].seconds:.1f} s)", file=sys.stderr)
    print(tabulate(table_rows(kills), headers=TABLE_HEADERS))
    print("\n" + summary(a.domain, kills))
    if a.json:
        Path(a.json).write_text(json.dumps([k.to_json() for k in kills], indent=1) + "\n")
    return 0 if all(k.verdict != "SURVIVED" for k in kills) else 1


if __name__ == "__main__":
    sys.exit(main())
