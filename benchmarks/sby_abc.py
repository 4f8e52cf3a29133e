"""Debian's ABC (``berkeley-abc``, a 2022 build) as SymbiYosys' ABC: ``ABC="python benchmarks/sby_abc.py" sby ...``.

SymbiYosys calls ``$ABC -c 'read_aiger ...; pdr -v -l; write_cex -a FILE'``.
The 2022 ABC has no ``pdr -l`` (it prints its usage and proves nothing) and
writes ``write_cex -a`` without the AIGER witness header (``1``, ``b0``) and
the final ``.`` that ``yosys-witness`` reads.  This script drops ``-l``, runs
ABC (``$BERKELEY_ABC``, else ``/usr/bin/berkeley-abc``), and completes the
witness; a current ABC (``yosys-abc``) needs none of it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

WITNESS_HEADS = ("0", "1", "2")  # an AIGER witness starts with its status line


def command(script: str) -> str:
    """The ABC script without ``pdr``'s ``-l``."""
    return re.sub(r"(\bpdr\b[^;]*?) -l\b", r"\1", script)


def complete_witness(path: Path) -> None:
    """Give a headless ``write_cex -a`` file the AIGER witness header and end (one property, bad 0)."""
    words = path.read_text().replace("# DONE", " ").split()
    if words and words[0] not in WITNESS_HEADS:
        path.write_text("\n".join(["1", "b0", *words, "."]) + "\n")


def main(argv: list[str]) -> int:
    """Run ABC on SymbiYosys' ``-c SCRIPT`` and complete the witness it writes."""
    if len(argv) != 2 or argv[0] != "-c":
        sys.exit(f"sby_abc.py: expected -c 'ABC SCRIPT' as SymbiYosys passes it, got {argv!r}")
    script = command(argv[1])
    code = subprocess.call([os.environ.get("BERKELEY_ABC", "/usr/bin/berkeley-abc"), "-c", script])
    cex = re.search(r"write_cex -a (\S+)\s*;?\s*$", script)
    if cex and Path(cex.group(1)).exists():
        complete_witness(Path(cex.group(1)))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
