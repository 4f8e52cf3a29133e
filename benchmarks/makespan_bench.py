"""Benchmark the worst-case makespan methods: the paper's two families, or a family of random kernels.

For "LLCLL" (sigmas 1) and "LCLCL" (sigma_L = 1/2), each method runs at
W = 1, 2, 3, ... (then by larger steps) until one run passes the cap or does
not end exact.  With ``--random N``: N seeded random kernels of 1 to 8
instructions over up to 3 units (L, C, M), each sigma drawn from {1, 2, 3,
1/2, 1/3}, at W = 32, 128 and 600; per W and method (deficit, ranking,
enumerate) how many are exact within the cap and the median time of those.
Every exact answer there is written as a certificate and checked by
``spec/makespan/certificate_check.py``; methods that are both exact must agree, and at
W = 3 every method is compared with the per-warp brute force (the counter
enumeration when the kernel has more than 12 phases).  Writes a markdown
table and a JSON file.

    python benchmarks/makespan_bench.py --cap 120 --out bench-makespan
    python benchmarks/makespan_bench.py --random 50 --cap 10 --out bench-makespan-random
    python benchmarks/makespan_bench.py --random 50 --auto --out bench-makespan-auto

With ``--auto``: the family through ``warpcheck makespan`` (auto, as a user
starts it) with the issue's timeouts, every exact answer's certificate
checked again; per W how many are exact, how fast, and by which method.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

from warpcheck._makespan.certificate import certificate
from warpcheck.encodings.makespan.ilp import MakespanIlp
from warpcheck.models.makespan.kernel import MkKernel, make_kernel
from warpcheck.spec.makespan.certificate_check import check
from warpcheck.spec.makespan.interval_check import check_interval
from warpcheck.sim.makespan.enum import SearchBudgetExceeded, worst_case, worst_case_per_warp
from warpcheck.verify.makespan.abstract import abstract_search
from warpcheck.verify.makespan.cegar import cegar_search
from warpcheck.verify.makespan.phases import phase_search
from warpcheck.verify.makespan.block_ranking import block_ranking_search
from warpcheck.verify.makespan.pump import closed_form
from warpcheck.verify.makespan.ranking import ranking_search
from warpcheck.verify.makespan.search import bound_search, optimize_search

FAMILIES = {"LLCLL": {"L": 1, "C": 1}, "LCLCL": {"L": "1/2", "C": 1}}
WARPS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256, 420, 600]


def _ilp(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = MakespanIlp(k, w).solve(timeout=cap, threads=1)
    return r.makespan, r.optimal


def _smt(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = bound_search(k, w, timeout=cap)
    return r.makespan, r.exact


def _optimize(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = optimize_search(k, w, timeout=cap)
    return r.makespan, r.exact


def _enum(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    try:
        return worst_case(k, w, timeout=cap).makespan, True
    except SearchBudgetExceeded:
        return None, False


def _deficit(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = abstract_search(k, w, budget=cap)
    return r.makespan, r.exact


def _ranking(k: MkKernel, w: int, cap: float) -> tuple[int | None, bool]:
    r = ranking_search(k, w, budget=cap)
    return r.makespan, r.exact


METHODS: dict[str, Callable[[MkKernel, int, float], tuple[int | None, bool]]] = {
    "ilp-highs": _ilp, "smt-bound-search": _smt, "smt-optimize": _optimize, "enumerate": _enum, "deficit": _deficit,
    "ranking": _ranking}


def series(kernel: MkKernel, method: str, cap: float, repeat: int = 1) -> list[dict[str, Any]]:
    """Run one method at growing W until a run passes ``cap`` seconds or is not exact."""
    rows = []
    for w in WARPS:
        times = []
        for _ in range(repeat):
            t0 = time.monotonic()
            value, exact = METHODS[method](kernel, w, cap)
            times.append(time.monotonic() - t0)
            if times[-1] > cap:
                break
        secs = statistics.median(times)
        rows.append({"warps": w, "makespan": value, "exact": exact, "seconds": round(secs, 3)})
        print(f"{kernel.text()} {method} W={w}: {value} exact={exact} {secs:.2f} s", flush=True)
        if secs > cap or (not exact and method not in ("deficit", "ranking")):
            break  # the deficit bound may be unmet at small W and met at larger W
    return rows


def markdown(results: dict[str, dict[str, list[dict[str, Any]]]], cap: float) -> str:
    """One table per family: W down, methods across (seconds, or '>cap')."""
    out = [f"Cap {cap:g} s per run; median of the runs per point; {platform.machine()}.", ""]
    for fam, per in results.items():
        ws = sorted({r["warps"] for rows in per.values() for r in rows})
        out += [f"**{fam}** ({', '.join(f'sigma_{u}={v}' for u, v in FAMILIES[fam].items())})", "",
                "| W | makespan | " + " | ".join(per) + " |", "|---" * (len(per) + 2) + "|"]
        for w in ws:
            cells, value = [], ""
            for rows in per.values():
                r = next((r for r in rows if r["warps"] == w), None)
                if r is None:
                    cells.append("")
                elif r["exact"] and r["seconds"] <= cap:
                    cells.append(f"{r['seconds']:.2f} s")
                    value = value or str(r["makespan"])
                elif r["seconds"] <= cap:
                    cells.append("bound not met")
                else:
                    cells.append(f"> {cap:g} s")
            out.append(f"| {w} | {value} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


SIGMAS = ["1", "2", "3", "1/2", "1/3"]
RANDOM_WARPS = (32, 128, 600)


def random_family(n: int, seed: int) -> list[tuple[str, dict[str, str]]]:
    """``n`` random kernels with their sigmas (seeded, so every run benchmarks the same kernels)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        units = "LCM"[:rng.randint(1, 3)]
        text = "".join(rng.choice(units) for _ in range(rng.randint(1, 8)))
        out.append((text, {u: rng.choice(SIGMAS) for u in sorted(set(text))}))
    return out


def _certified(text: str, sigma: dict[str, str], w: int, schedule: Any, proof: tuple[str, Any]) -> int:
    return check(certificate(text, sigma, w, schedule, proof)).makespan


def _enum_certified(text: str, sigma: dict[str, str], w: int, cap: float) -> dict[str, Any]:
    t0 = time.monotonic()
    try:
        r = worst_case(make_kernel(text, sigma), w, timeout=cap)
    except SearchBudgetExceeded:
        return {"makespan": None, "seconds": time.monotonic() - t0, "states": None}
    secs = time.monotonic() - t0
    value = _certified(text, sigma, w, r.schedule, ("enumerate", r))
    return {"makespan": value, "seconds": secs, "states": r.states, "lower": value, "upper": value}


BOUND_SEARCHES: dict[str, Callable[..., Any]] = {"blocks": phase_search, "block-ranking": block_ranking_search,
                                                 "deficit": cegar_search, "ranking": ranking_search}


def _abstract_certified(name: str) -> Callable[[str, dict[str, str], int, float], dict[str, Any]]:
    """A run of ``blocks``, ``deficit`` or ``ranking`` counted exact only within the cap, its certificate checked.

    Besides the exact value: the longest run found (a lower bound) and the
    bound proved (an upper bound) whether they meet or not, and the closed
    form when the run was pumped.
    """
    search = BOUND_SEARCHES[name]

    def run(text: str, sigma: dict[str, str], w: int, cap: float) -> dict[str, Any]:
        t0 = time.monotonic()
        r = search(make_kernel(text, sigma), w, budget=cap)
        secs = time.monotonic() - t0
        out = {"makespan": None, "seconds": secs, "states": None, "lower": r.makespan, "upper": r.upper}
        if r.exact and secs <= cap:
            out.update(makespan=_certified(text, sigma, w, r.schedule, (name, r)), states=r.states,
                       closed_form=closed_form(r.pump) if r.pump else None)
        return out
    return run


RANDOM_METHODS = {m: _abstract_certified(m) for m in BOUND_SEARCHES}


def one_kernel(job: tuple[str, dict[str, str], float]) -> dict[str, Any]:
    """Every method at every W on one kernel, plus the W = 3 cross-check."""
    text, sigma, cap = job
    k = make_kernel(text, sigma)
    row: dict[str, Any] = {"kernel": text, "sigma": sigma, "phases": len(k.instrs), "runs": {}}
    small = worst_case_per_warp(k, 3) if len(k.instrs) <= 12 else worst_case(k, 3).makespan
    checks = [worst_case(k, 3).makespan == small]
    for m in RANDOM_METHODS.values():
        checks.append(m(text, sigma, 3, cap)["makespan"] in (None, small))
    enum_ok = True
    for w in RANDOM_WARPS:
        runs = {m: fn(text, sigma, w, cap) for m, fn in RANDOM_METHODS.items()}
        runs["enumerate"] = (_enum_certified(text, sigma, w, cap) if enum_ok
                             else {"makespan": None, "seconds": None, "states": None})
        enum_ok = runs["enumerate"]["makespan"] is not None
        values = {v["makespan"] for v in runs.values() if v["makespan"] is not None}
        lowers = [v["lower"] for v in runs.values() if v.get("lower") is not None]
        uppers = [v["upper"] for v in runs.values() if v.get("upper") is not None]
        checks.append(len(values) <= 1 and (not lowers or not uppers or max(lowers) <= min(uppers)))
        row["runs"][str(w)] = runs
        print(f"{text} {sigma} W={w}: " + ", ".join(f"{m} {v['makespan']} ({v['seconds'] or 0:.1f} s)"
                                                    for m, v in runs.items()), flush=True)
    row["agree"] = all(checks)
    return row


def random_table(rows: list[dict[str, Any]], cap: float) -> str:
    """Per W and method: exact count and median seconds of the exact ones; closed forms; brackets of the rest."""
    names = [*RANDOM_METHODS, "enumerate"]
    out = [f"{len(rows)} kernels, cap {cap:g} s per run; median seconds over the exact answers; closed form: "
           "exact answers that also hold for every W of a class (a pumped run)", "",
           "| W | " + " | ".join(f"{m} exact | median s" for m in names) + " | any | closed form | all cross-checks |",
           "|---" * (2 * len(names) + 4) + "|"]
    for w in map(str, RANDOM_WARPS):
        cells = []
        for m in names:
            times = [r["runs"][w][m]["seconds"] for r in rows if r["runs"][w][m]["makespan"] is not None]
            cells += [f"{len(times)}", f"{statistics.median(times):.2f}" if times else "-"]
        either = sum(any(r["runs"][w][m]["makespan"] is not None for m in names) for r in rows)
        closed = sum(any(r["runs"][w][m].get("closed_form") for m in names) for r in rows)
        agree = sum(r["agree"] for r in rows)
        out.append(f"| {w} | " + " | ".join(cells) + f" | {either} | {closed} | {agree}/{len(rows)} |")
    return "\n".join(out + ["", brackets(rows)])


def brackets(rows: list[dict[str, Any]]) -> str:
    """The kernels no method answers exactly at some W: the best run found and the best bound proved."""
    out = ["Not exact within the cap: longest run found .. least bound proved (gap)", "",
           "| kernel | sigma | " + " | ".join(f"W = {w}" for w in RANDOM_WARPS) + " |",
           "|---|---|" + "---|" * len(RANDOM_WARPS)]
    for r in rows:
        cells = []
        for w in map(str, RANDOM_WARPS):
            runs = r["runs"][w].values()
            if any(v["makespan"] is not None for v in runs):
                cells.append("exact")
                continue
            lo = max((v["lower"] for v in runs if v.get("lower")), default=None)
            hi = min((v["upper"] for v in runs if v.get("upper")), default=None)
            gap = f" ({100 * (hi - lo) / lo:.1f} %)" if lo and hi else ""
            cells.append(f"{lo or '-'} .. {hi or '-'}{gap}")
        if any(c != "exact" for c in cells):
            sig = ", ".join(f"{u}={v}" for u, v in sorted(r["sigma"].items()))
            out.append(f"| {r['kernel']} | {sig} | " + " | ".join(cells) + " |")
    return "\n".join(out)


AUTO_TIMEOUTS = {32: 10.0, 128: 10.0, 600: 60.0}  # the goal: W = 128 within 10 s, W = 600 within 60 s


def _checked_exact(cert: dict[str, Any]) -> int | None:
    """The exact worst case a certificate proves: an exact method's, or an interval's whose bound the run meets."""
    if cert.get("interval") is True:
        r = check_interval(cert)
        return r.lower if r.lower == r.upper else None
    return check(cert).makespan


def auto_run(text: str, sigma: dict[str, str], w: int, timeout: float) -> dict[str, Any]:
    """One ``warpcheck makespan`` auto run as a user starts it (its own process), its certificate checked again."""
    with tempfile.TemporaryDirectory() as tmp:
        cert = os.path.join(tmp, "c.json")
        argv = [sys.executable, "-m", "warpcheck.cli", "makespan", text, "-W", str(w), "--timeout", str(timeout),
                "--json", "--certificate", cert, *(f"--sigma={u}={v}" for u, v in sigma.items())]
        t0 = time.monotonic()
        p = subprocess.run(argv, capture_output=True, text=True)
        secs = time.monotonic() - t0
        out = json.loads(p.stdout) if p.stdout.strip() else {}
        exact = p.returncode == 0 and out.get("exact") is True
        if exact:
            with open(cert) as f:
                exact = _checked_exact(json.load(f)) == out["makespan"]
    return {"exit": p.returncode, "makespan": out.get("makespan"), "exact": exact, "method": out.get("method"),
            "upper": (out.get("upper") or {}).get("value"), "seconds": round(secs, 3),
            "closed_form": (out.get("closed_form") or {}).get("formula")}


def auto_table(rows: list[dict[str, Any]]) -> str:
    """Per W: kernels exact within the timeout, median and largest seconds, and by which method; then the rest."""
    out = ["`warpcheck makespan KERNEL -W W --timeout T` (auto) as a user runs it, certificate re-checked", "",
           "| W | timeout | exact | median s | max s | by closed form / blocks / block-ranking / deficit / ranking / enumerate |", "|---" * 6 + "|"]
    for w, timeout in AUTO_TIMEOUTS.items():
        runs = [r["auto"][str(w)] for r in rows]
        ok = [x for x in runs if x["exact"]]
        by = " / ".join(str(sum(x["method"] == m for x in ok))
                        for m in ("interval", "blocks", "block-ranking", "deficit", "ranking", "enumerate"))
        times = [x["seconds"] for x in ok]
        med = f"{statistics.median(times):.2f}" if times else "-"
        out.append(f"| {w} | {timeout:g} | {len(ok)} of {len(runs)} | {med} | {max(times, default=0):.2f} | {by} |")
    out += ["", "Not exact: best run .. least bound proved", "", "| kernel | sigma | "
            + " | ".join(f"W = {w}" for w in AUTO_TIMEOUTS) + " |", "|---|---|" + "---|" * len(AUTO_TIMEOUTS)]
    for r in rows:
        cells = [("exact" if x["exact"] else f"{x['makespan']} .. {x['upper'] or '-'}")
                 for x in (r["auto"][str(w)] for w in AUTO_TIMEOUTS)]
        if any(c != "exact" for c in cells):
            sig = ", ".join(f"{u}={v}" for u, v in sorted(r["sigma"].items()))
            out.append(f"| {r['kernel']} | {sig} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def auto_main(args: argparse.Namespace, family: list[tuple[str, dict[str, str]]]) -> None:
    """The random family through ``auto``, one run at a time (auto itself runs three worker processes)."""
    rows = []
    for text, sigma in family:
        runs = {str(w): auto_run(text, sigma, w, t) for w, t in AUTO_TIMEOUTS.items()}
        rows.append({"kernel": text, "sigma": sigma, "auto": runs})
        print(f"{text} {sigma}: " + ", ".join(f"W={w} {x['makespan']} {'exact' if x['exact'] else 'open'} "
                                               f"{x['method']} {x['seconds']:.1f} s" for w, x in runs.items()), flush=True)
    text = auto_table(rows)
    with open(f"{args.out}.json", "w") as f:
        json.dump({"timeouts": AUTO_TIMEOUTS, "seed": args.seed, "rows": rows}, f, indent=1)
    with open(f"{args.out}.md", "w") as f:
        f.write(text + "\n")
    print(text)


def random_main(args: argparse.Namespace) -> None:
    """The random-kernel family on a process pool; writes the markdown and JSON files."""
    family = random_family(args.kernels, args.seed)
    only = set(args.only.split(",")) if args.only else None
    if only and not only <= {t for t, _ in family}:
        raise SystemExit(f"--only {args.only!r}: kernels not in the family: {sorted(only - {t for t, _ in family})}")
    family = [(t, s) for t, s in family if only is None or t in only]
    if args.auto:
        auto_main(args, family)
        return
    jobs = [(t, s, args.cap) for t, s in family]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(one_kernel, jobs))
    text = random_table(rows, args.cap)
    with open(f"{args.out}.json", "w") as f:
        json.dump({"cap": args.cap, "seed": args.seed, "rows": rows}, f, indent=1)
    with open(f"{args.out}.md", "w") as f:
        f.write(text + "\n")
    print(text)


def long_main(args: argparse.Namespace) -> None:
    """The interval benchmark of ``makespan_long.py``; writes the markdown and JSON files."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from makespan_long import long_table, run_all

    rows = run_all(args.seed, args.cap, args.jobs, set(args.only.split(",")) if args.only else None, args.ptx_sm)
    text = long_table(rows)
    with open(f"{args.out}.json", "w") as f:
        json.dump({"timeout": args.cap, "seed": args.seed, "rows": rows}, f, indent=1)
    with open(f"{args.out}.md", "w") as f:
        f.write(text + "\n")
    print(text)


def main() -> None:
    """Run every family and method, then write the markdown and JSON files."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cap", type=float, default=120.0, help="seconds per run before a method stops")
    p.add_argument("--out", default="makespan-bench", help="output prefix (.md and .json)")
    p.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of " + ",".join(METHODS))
    p.add_argument("--repeat", type=int, default=1, help="runs per point; the median is reported")
    p.add_argument("--random", dest="kernels", type=int, default=0, metavar="N",
                   help="instead: N random kernels (1-8 instructions, up to 3 units, sigmas 1, 2, 3, 1/2, 1/3) "
                        "at W = 32, 128, 600, every exact answer certified and checked")
    p.add_argument("--seed", type=int, default=12, help="seed of the random family")
    p.add_argument("--auto", action="store_true",
                   help="with --random: run the family through auto (the CLI, one process per run) with the goal's "
                        "timeouts (10 s at W = 32 and 128, 60 s at W = 600), instead of each method at --cap")
    p.add_argument("--only", default="", metavar="K1,K2",
                   help="with --random: run only these kernels of the family (their texts, comma-separated); with "
                        "--long: only these kernels (g01..g30, PTX file stems such as lud, or ptx for all PTX entries)")
    p.add_argument("--ptx-sm", metavar="FILE", help="with --long: every PTX entry on this SM file (default: Fermi, "
                   "Ampere for tensor-core kernels), e.g. examples/sm/ampere-makespan.toml")
    p.add_argument("--jobs", type=int, default=2, help="worker processes for the random family (runs at a time "
                   "with --long)")
    p.add_argument("--long", action="store_true",
                   help="instead: the interval benchmark (benchmarks/makespan_long.py): 30 generated kernels of 16-128 "
                        "instructions and the PTX entries of examples/kernels/, at W = 8, 32, 64, through auto with "
                        "--timeout CAP, every certificate re-checked; prints the interval ratio upper / lower")
    args = p.parse_args()
    if args.long:
        long_main(args)
        return
    if args.kernels:
        random_main(args)
        return
    results = {fam: {m: series(make_kernel(fam, sig), m, args.cap, args.repeat) for m in args.methods.split(",")}
               for fam, sig in FAMILIES.items()}
    text = markdown(results, args.cap)
    with open(f"{args.out}.json", "w") as f:
        json.dump({"cap": args.cap, "results": results}, f, indent=1)
    with open(f"{args.out}.md", "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
