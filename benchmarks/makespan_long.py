"""The interval benchmark: long generated kernels and the PTX entries of examples/kernels/ (``--long``).

30 seeded kernels of 16, 32, 64 and 128 instructions (8, 8, 7, 7) over 2 to 4
units (L, C, M, S), each sigma drawn from {1, 2, 1/2, 1/4}, and every PTX
entry of ``examples/kernels/`` mapped on the Fermi SM file (the Ampere one for
tensor-core kernels), each at W = 8, 32 and 64, through ``warpcheck makespan``
as a user runs it (auto, one process per run, ``--certificate``).  Every
interval's certificate is checked again here (``spec/makespan/interval_check.py``,
or ``check.py`` for exact answers); per run: lower, upper, their ratio, what
proved the upper bound, Eq. 5-7 and the approximation.
"""
from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from warpcheck.spec.makespan.certificate_check import check
from warpcheck.spec.makespan.interval_check import check_interval

LENGTHS = {16: 8, 32: 8, 64: 7, 128: 7}
LONG_WARPS = (8, 32, 64)
PTX_DIR = "examples/kernels"


def long_family(seed: int) -> list[tuple[str, dict[str, str]]]:
    """The 30 generated kernels: (kernel string, sigmas)."""
    rng = random.Random(seed)
    out = []
    for length, count in LENGTHS.items():
        for _ in range(count):
            units = "LCMS"[:rng.randint(2, 4)]
            text = "".join(rng.choice(units) for _ in range(length))
            out.append((text, {u: rng.choice(["1", "2", "1/2", "1/4"]) for u in sorted(set(text))}))
    return out


def ptx_entries(sm_file: str | None = None) -> list[tuple[str, str, list[str]]]:
    """(name, SM file, extra argv) for each PTX file of examples/kernels/, with its bounds file when it has one;
    on ``sm_file`` if given, else Fermi (Ampere for tensor-core kernels)."""
    out = []
    for name in sorted(os.listdir(PTX_DIR)):
        if not name.endswith(".ptx"):
            continue
        path = os.path.join(PTX_DIR, name)
        toml = path[:-4] + ".toml"
        extra = ["--bounds", toml] if os.path.exists(toml) else ["--max-loop-bound", "4"]
        sm = sm_file or ("examples/sm/ampere-makespan.toml" if "wmma" in name else "examples/sm/fermi-makespan.toml")
        out.append((name[:-4], sm, ["--ptx", path, "--sm", sm, *extra]))
    return out


def one_run(argv: list[str], w: int, timeout: float) -> dict[str, Any]:
    """One ``warpcheck makespan`` run, its certificate checked again."""
    with tempfile.TemporaryDirectory() as tmp:
        cert = os.path.join(tmp, "c.json")
        cmd = [sys.executable, "-m", "warpcheck.cli", "makespan", *argv, "-W", str(w), "--timeout", str(timeout),
               "--json", "--certificate", cert]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.monotonic() - t0
        out = json.loads(p.stdout) if p.stdout.strip() else {}
        if not out:
            return {"exit": p.returncode, "error": (p.stderr.strip().splitlines() or ["?"])[-1], "seconds": secs}
        rechecked = None
        if os.path.exists(cert):
            with open(cert) as f:
                c = json.load(f)
            r = check_interval(c) if c.get("interval") else check(c)
            rechecked = [getattr(r, "lower", getattr(r, "makespan", None)), r.upper]
    upper = (out.get("upper") or {})
    approx = out.get("approximation") or {}
    return {"exit": p.returncode, "lower": out.get("makespan"), "upper": upper.get("value"), "by": upper.get("method"),
            "exact": out.get("exact"), "rechecked": rechecked, "pessimistic": out.get("pessimistic"),
            "approximation": approx.get("value"), "method": out.get("method"), "seconds": round(secs, 2),
            "phases": len(out.get("transformed", ""))}


def jobs(seed: int, timeout: float, sm_file: str | None = None) -> list[dict[str, Any]]:
    """Every (kernel, W) run of the benchmark, as plain data."""
    todo = []
    for i, (text, sigma) in enumerate(long_family(seed)):
        argv = [text, *(f"--sigma={u}={v}" for u, v in sigma.items())]
        for w in LONG_WARPS:
            todo.append({"kernel": f"g{i + 1:02d}", "text": text, "sigma": sigma, "length": len(text), "W": w,
                         "argv": argv, "timeout": timeout})
    for name, sm, argv in ptx_entries(sm_file):
        for w in LONG_WARPS:
            todo.append({"kernel": name, "text": "", "sigma": sm, "length": "ptx", "W": w, "argv": argv,
                         "timeout": timeout})
    return todo


def run_all(seed: int, timeout: float, workers: int, only: set[str] | None = None,
            sm_file: str | None = None) -> list[dict[str, Any]]:
    """Run the benchmark (the kernels named in ``only``, e.g. g08 or lud, "ptx" for every PTX entry, if given; the
    PTX entries on ``sm_file`` if given), ``workers`` runs at a time; print one line per run."""
    todo = [j for j in jobs(seed, timeout, sm_file)
            if only is None or j["kernel"] in only or ("ptx" in only and j["length"] == "ptx")]
    if only and len({j["kernel"] for j in todo} | {"ptx"} & only) < len(only):
        raise SystemExit(f"--only: no such kernel in the long benchmark: "
                         f"{sorted(only - {j['kernel'] for j in todo})} (names: g01..g30 and the PTX files' stems)")

    def go(job: dict[str, Any]) -> dict[str, Any]:
        r = {**{k: v for k, v in job.items() if k != "argv"}, **one_run(job["argv"], job["W"], job["timeout"])}
        ratio = f"{r['upper'] / r['lower']:.3f}" if r.get("lower") and r.get("upper") else "-"
        print(f"{r['kernel']} len {r['length']} W={r['W']}: {r.get('lower')} .. {r.get('upper')} ({ratio}, "
              f"{r.get('by')}) {r['seconds']:.1f} s {r.get('error', '')}", flush=True)
        return r
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(go, todo))


def _ratio(r: dict[str, Any]) -> float | None:
    return r["upper"] / r["lower"] if r.get("lower") and r.get("upper") else None


def long_table(rows: list[dict[str, Any]]) -> str:
    """The distribution of upper / lower per length and W, then one line per kernel and W."""
    out = ["Interval ratio upper / lower (certified upper bound over a replayed run), per length and W", "",
           "| length | W | runs | exact | <= 1.02 | <= 1.10 | median | max | certificates re-checked |",
           "|---" * 9 + "|"]
    for length in list(LENGTHS) + ["ptx"]:
        for w in LONG_WARPS:
            sel = [r for r in rows if r["length"] == length and r["W"] == w]
            ratios = [x for x in map(_ratio, sel) if x is not None]
            if not sel:
                continue
            ok = sum(1 for r in sel if r.get("rechecked") and r["rechecked"][1] == r["upper"])
            out.append(f"| {length} | {w} | {len(sel)} | {sum(1 for r in sel if r.get('exact'))} | "
                       f"{sum(x <= 1.02 for x in ratios)} | {sum(x <= 1.10 for x in ratios)} | "
                       f"{statistics.median(ratios):.3f} | {max(ratios):.3f} | {ok} of {len(sel)} |"
                       if ratios else f"| {length} | {w} | {len(sel)} | - | - | - | - | - | {ok} |")
    ratios = sorted(x for x in map(_ratio, rows) if x is not None)
    if ratios:
        q = [ratios[int(f * (len(ratios) - 1))] for f in (0, 0.25, 0.5, 0.75, 1)]
        out += ["", f"All {len(ratios)} answered runs: min {q[0]:.3f}, quartiles {q[1]:.3f} / {q[2]:.3f} / {q[3]:.3f}, "
                    f"max {q[4]:.3f}; <= 1.02: {sum(x <= 1.02 for x in ratios)}, <= 1.10: "
                    f"{sum(x <= 1.10 for x in ratios)}, <= 1.25: {sum(x <= 1.25 for x in ratios)}; upper bound by "
                    + ", ".join(f"{b} {sum(1 for r in rows if r.get('by') == b)}"
                                for b in ("exact", "pairs", "backlog LP", "alternation", "critical-warp", "Eq. 5-7"))]
    out += ["", "| kernel | length | phases | sigma | W | lower .. upper | ratio | upper by | Eq. 5-7 | approx. | s |",
            "|---" * 11 + "|"]
    for r in rows:
        ratio = _ratio(r)
        sig = os.path.basename(r["sigma"]) if isinstance(r["sigma"], str) else \
            ", ".join(f"{u}={v}" for u, v in r["sigma"].items())
        if r.get("error"):
            out.append(f"| {r['kernel']} | {r['length']} | - | {sig} | {r['W']} | refused: {r['error']} |"
                       " - | - | - | - | - |")
            continue
        out.append(f"| {r['kernel']} | {r['length']} | {r.get('phases', '-')} | {sig} | {r['W']} | "
                   f"{r.get('lower')} .. {r.get('upper')} | {f'{ratio:.3f}' if ratio else '-'} | {r.get('by', '-')} | "
                   f"{r.get('pessimistic', '-')} | {r.get('approximation') or '-'} | {r['seconds']:.1f} |")
    return "\n".join(out)
