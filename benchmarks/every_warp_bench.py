"""The proof of ``exact`` for every W, timed, beside the per-W proof at a large W (a script, not a timed test).

Per policy (gtlrr, gtlo, lrr), in this process: the three EPR checks of the
every-W proof (initiation, consistency of the hypotheses, consecution) and
the encoding check at each W = 1..6; in a fresh process: the whole
``warpcheck prove --design swas --policy P --all-warps --property exact``.
Then the per-W proof (``--warps W``) for comparison, with its own timeout.
Writes a markdown table on stdout and JSON to --out.

    python benchmarks/every_warp_bench.py --per-w 64 --per-w-timeout 1800 --out benchmarks/results/every_warp_bench.json
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

POLICIES = ("gtlrr", "gtlo", "lrr")


def _cli(args: list[str]) -> dict:
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "warpcheck.cli", "prove", *args, "--json", "--quiet"],
                       capture_output=True, text=True)
    try:
        out = json.loads(r.stdout)
    except json.JSONDecodeError:
        out = {"status": f"no JSON (exit {r.returncode}): {r.stderr.strip()[-200:]}"}
    return {"status": out.get("status"), "warps_covered": out.get("warps_covered"), "message": out.get("message"),
            "seconds": out.get("seconds"), "wall": round(time.monotonic() - start, 1)}


def parts(policy: str) -> dict:
    """The every-W proof's checks and the encoding check per W, each timed."""
    from warpcheck.models.frontend.config import SMConfig
    from warpcheck.models.frontend.design import FrontEnd
    from warpcheck.verify.frontend.every_warp import Pair, consecution, consistency, initiation
    from warpcheck.verify.frontend.every_warp_encoding import encoding_agrees
    cfg = SMConfig(design="swas", issue_policy=policy)
    pair = Pair.of(cfg)
    out: dict = {c.name: [c.answer, round(c.seconds, 2)] for c in (initiation(pair), consistency(pair), consecution(pair))}
    for w in range(1, 7):
        t = time.monotonic()
        same, _ = encoding_agrees(pair, FrontEnd(cfg.with_(warps=w)))
        out[f"encoding W={w}"] = [same, round(time.monotonic() - t, 2)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-w", type=int, nargs="*", default=[64])
    ap.add_argument("--per-w-timeout", type=float, default=1800.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rows: dict = {}
    for p in POLICIES:
        rows[p] = {"parts": parts(p), "prove --all-warps": _cli(["--design", "swas", "--policy", p, "--all-warps",
                                                                 "--property", "exact", "--timeout", "600"])}
    per_w = {w: _cli(["--design", "swas", "--policy", "gtlrr", "--warps", str(w), "--property", "exact",
                      "--timeout", str(a.per_w_timeout)]) for w in a.per_w}
    print("| policy | initiation | consistency | consecution | encoding W=1..6 | prove --all-warps (wall) |")
    print("|---|---|---|---|---|---|")
    for p, r in rows.items():
        q = r["parts"]
        enc = sum(v[1] for k, v in q.items() if k.startswith("encoding"))
        print(f"| {p} | {q['initiation'][1]} s | {q['consistency'][1]} s | {q['consecution'][1]} s | {enc:.1f} s | "
              f"{r['prove --all-warps']['status']} {r['prove --all-warps']['warps_covered']} "
              f"{r['prove --all-warps']['wall']} s |")
    for w, r in per_w.items():
        print(f"\nper-W proof, gtlrr, W = {w}: {r['status']} in {r['wall']} s ({r['message']})")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"every_w": rows, "per_w": per_w}, f, indent=1)


if __name__ == "__main__":
    main()
