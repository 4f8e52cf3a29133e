"""Every PTX entry of examples/corpus/ through ``simulate --ptx`` at W = 32: its metrics on both designs, or its refusal.

Each entry gets one launch of 1024 threads (32 warps on one SM): one block of
1024, or 1024 / N blocks of N threads for the ``block_sum<T, N>`` templates and
an entry declaring ``.maxntid N``.
Parameters: a 64-bit one is a pointer (parameter k at (k + 1) MiB), a 32-bit
integer is 1024 (a length), any other 1.  Baseline LRR-GTLRR against SWaS
GTLRR with the default 16 KiB 4-way L1.  An entry the simulator cannot take is
listed with its one-line refusal; a run past ``--timeout`` seconds is listed as
such.

    python benchmarks/ptx_corpus_sim.py [--timeout S] [--out FILE.jsonl]
"""
from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from warpcheck import simulate
from warpcheck.models.errors import WarpcheckError
from warpcheck.models.files import read_text
from warpcheck.models.kernels.ptx import parse_ptx_module

CORPUS = Path(__file__).resolve().parent.parent / "examples" / "corpus"
THREADS = 1024


def launch(text: str, entry: str) -> tuple[int, int, dict[str, int]]:
    """(grid, block, parameters) of the entry's launch."""
    head = text[text.index(f".entry {entry}("):]
    body = head[head.index(")"):head.index("{")]
    head = head[:head.index(")")]
    types = re.findall(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)", head)
    params = {str(k): (k + 1) << 20 if t in ("u64", "b64", "s64") else THREADS if t in ("u32", "s32", "b32") else 1
              for k, t in enumerate(types)}
    size = re.search(r"Li(\d+)E", entry) or re.search(r"\.maxntid\s+(\d+)", body)  # block_sum<T, N>, .maxntid N
    block = min(int(size.group(1)), THREADS) if size else THREADS
    return THREADS // block, block, params


def one(path: Path, entry: str, timeout: int) -> dict:
    """The entry's two rows of metrics, or why the simulator refuses it."""
    grid, block, params = launch(path.read_text(errors="replace"), entry)
    out: dict = {"file": path.name, "entry": entry, "grid": grid, "block": block, "param": params}
    t = time.process_time()
    try:
        r = simulate(ptx=str(path), entry=entry, grid=grid, block=block, param=params, design="both",
                     max_cycles=400_000, timeout=timeout)
        out["runs"] = [{k: getattr(x, k) for k in ("design", "cycles", "committed", "warp_instructions", "ipc",
                                                      "errors", "nops", "l1_loads", "l1_misses", "finished")}
                       for x in r.runs]
    except WarpcheckError as e:
        out["refused"] = str(e)
    out["cpu_s"] = round(time.process_time() - t, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=int, default=900, help="seconds per entry (wall time, set-up included)")
    ap.add_argument("--out", help="also write one JSON object per entry to this file")
    a = ap.parse_args()
    rows = []
    for path in sorted(CORPUS.glob("*.ptx")):
        module = parse_ptx_module(read_text(path, "corpus module", lenient=True), path.name)
        for e in module.entries:
            rows.append(one(path, e.name, a.timeout))
            r = rows[-1]
            print(f"{r['file']} {r['entry']}: " + (r["refused"] if "refused" in r else
                  ", ".join(f"{x['design']} {x['cycles']} cycles IPC {x['ipc']:.2f} errors {x['errors']}"
                            for x in r["runs"])), flush=True)
    if a.out:
        Path(a.out).write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
