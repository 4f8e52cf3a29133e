"""What the figures read from a store: SQL over the runs' JSON results, one function per kind of run.

A figure's data is the same whichever sweep file produced the runs: a store may hold several sweeps,
and two runs that measured the same thing (a simulation is deterministic) are averaged into one point.
"""
from __future__ import annotations

import json
import math
import sys
from typing import Any

from warpcheck.models.errors import InputFileError

# One row per design run of `simulate` (baseline fetch-issue pair, or SWaS policy), with its SM's t_F.
FRONTEND = """
SELECT workload, design, policies, warps, t_fetch, avg(ipc), avg(errors), avg(error_rate), avg(cycles)
FROM (SELECT r->>'workload' AS workload, r->>'design' AS design, r->>'policies' AS policies,
             CAST(r->>'warps' AS INTEGER) AS warps, CAST(result->'config'->>'t_fetch' AS INTEGER) AS t_fetch,
             CAST(r->>'ipc' AS DOUBLE) AS ipc, CAST(r->>'errors' AS DOUBLE) AS errors,
             CAST(r->>'error_rate' AS DOUBLE) AS error_rate, CAST(r->>'cycles' AS DOUBLE) AS cycles
      FROM (SELECT result, unnest(CAST(result->'runs' AS JSON[])) AS r FROM runs
            WHERE verb = 'simulate' AND NOT failed AND json_type(result->'runs') = 'ARRAY')
      WHERE r->>'design' IS NOT NULL AND CAST(r->>'finished' AS BOOLEAN))
GROUP BY ALL ORDER BY ALL"""
UNFINISHED = """
SELECT count(*) FROM (SELECT unnest(CAST(result->'runs' AS JSON[])) AS r FROM runs
                      WHERE verb = 'simulate' AND NOT failed AND json_type(result->'runs') = 'ARRAY')
WHERE r->>'design' IS NOT NULL AND NOT CAST(r->>'finished' AS BOOLEAN)"""
FRONTEND_KEYS = ("workload", "design", "policies", "warps", "t_fetch", "ipc", "errors", "error_rate", "cycles")

MAKESPAN = """
SELECT result->>'kernel', CAST(result->'sigma' AS VARCHAR), CAST(result->>'warps' AS INTEGER),
       CAST(result->>'pessimistic' AS BIGINT), CAST(result->'approximation'->>'value' AS BIGINT),
       CAST(result->'approximation'->>'x' AS INTEGER), CAST(result->>'makespan' AS BIGINT),
       CAST(result->>'exact' AS BOOLEAN), CAST(result->'upper'->>'value' AS BIGINT), seconds
FROM runs WHERE verb = 'makespan' AND NOT failed AND result->>'makespan' IS NOT NULL ORDER BY 1, 2, 3"""
MAKESPAN_KEYS = ("kernel", "sigma", "warps", "pessimistic", "approximation", "x", "makespan", "exact", "upper",
                 "seconds")

PROVE = """
SELECT result->'config'->>'design', coalesce(result->'config'->>'issue_policy', ''),
       coalesce(result->'config'->>'fetch_policy', ''), CAST(result->'config'->>'warps' AS INTEGER),
       result->>'status', CAST(result->>'seconds' AS DOUBLE), result->>'engine'
FROM runs WHERE verb = 'prove' AND NOT failed AND result->>'seconds' IS NOT NULL ORDER BY 1, 2, 3, 4"""
PROVE_KEYS = ("design", "issue", "fetch", "warps", "status", "seconds", "engine")

KERNEL_PAIRS = """
SELECT result FROM runs WHERE verb = 'simulate' AND NOT failed AND json_type(result->'kernels') = 'ARRAY'"""


def _rows(store: Any, sql: str, keys: tuple[str, ...], what: str, sweep: str) -> list[dict[str, Any]]:
    rows = [dict(zip(keys, r)) for r in store.query(sql)]
    if not rows:
        raise InputFileError(f"store {store.path!r} holds no {what}; run a sweep such as examples/sweeps/{sweep} "
                             "into it first")
    return rows


def _number(value: Any, positive: bool = False) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) \
        and (value > 0 or not positive)


def _checked(store: Any, rows: list[dict[str, Any]], what: str, names: tuple[str, ...],
             numbers: dict[str, str]) -> list[dict[str, Any]]:
    """``rows``, each with a text for every key of ``names`` and a number for every key of ``numbers``.

    ``numbers`` says per key what is needed: "number", "positive" (a divisor, a log scale), or
    "optional" (a number or nothing). A row that has not is refused, named by its texts.
    """
    for row in rows:
        bad = next((k for k in names if not isinstance(row[k], str)), None) or \
            next((k for k, need in numbers.items() if not (need == "optional" and row[k] is None)
                  and not _number(row[k], need == "positive")), None)
        if bad is not None:
            which = ", ".join(f"{k} {row[k]}" for k in names if isinstance(row[k], str))
            need = "a name" if bad in names else "a number > 0" if numbers[bad] == "positive" else "a finite number"
            raise InputFileError(f"store {store.path!r} holds a {what} ({which}) whose {bad} is {row[bad]!r}, not "
                                 f"{need}; its result is not what warpcheck writes")
    return rows


def frontend(store: Any, sweep: str = "swas-table2.toml") -> list[dict[str, Any]]:
    """Finished `simulate` design runs: workload, design, policies, warps, t_F, IPC, errors, error rate."""
    left_out = store.query(UNFINISHED)[0][0]
    if left_out:  # their IPC and error rate cover only the cycles run: never plotted, never silently
        print(f"note: {left_out} simulate run(s) that did not finish within their --max-cycles are left out",
              file=sys.stderr)
    rows = _rows(store, FRONTEND, FRONTEND_KEYS, "finished simulate runs of the baseline or SWaS", sweep)
    return _checked(store, rows, "simulate run", ("workload", "design", "policies"),
                    {"warps": "positive", "t_fetch": "number", "ipc": "positive", "errors": "number",
                     "error_rate": "number", "cycles": "positive"})


def makespan(store: Any) -> list[dict[str, Any]]:
    """`makespan` runs: kernel, sigmas, W, the pessimistic bound, the approximation, the makespan found."""
    rows = _checked(store, _rows(store, MAKESPAN, MAKESPAN_KEYS, "makespan runs", "makespan-fig6.toml"),
                    "makespan run", ("kernel", "sigma"),
                    {"warps": "positive", "pessimistic": "positive", "approximation": "positive",
                     "makespan": "positive", "x": "optional", "upper": "optional", "seconds": "optional"})
    for r in rows:
        sigma = json.loads(r["sigma"])
        if not isinstance(sigma, dict) or not isinstance(r["exact"], bool):  # sigmas as written: "1", "1/2"
            raise InputFileError(f"store {store.path!r} holds a makespan run (kernel {r['kernel']}, W {r['warps']}) "
                                 f"whose sigma {r['sigma']} or exact {r['exact']!r} is not what warpcheck writes")
    return rows


def proofs(store: Any) -> list[dict[str, Any]]:
    """`prove` runs: design, policies, W, status and seconds."""
    return _checked(store, _rows(store, PROVE, PROVE_KEYS, "prove runs", "proof-time.toml"), "prove run",
                    ("design", "issue", "fetch", "status"), {"warps": "positive", "seconds": "number"})


def kernel_pairs(store: Any) -> list[dict[str, Any]]:
    """Per pair of kernels: K2's response time under LRR, GTO and QAWS (QAWS at the budget best for K2)."""
    best: dict[str, dict[str, Any]] = {}
    unfinished = 0
    for (text,) in store.query(KERNEL_PAIRS):
        try:
            got = _pair(json.loads(text))
        except InputFileError as e:
            raise InputFileError(f"store {store.path!r}: {e}") from None
        if got is None:
            continue
        if None in (got["lrr"], got["gto"], got["qaws"]):  # K2 did not finish within --max-cycles: no response
            unfinished += 1
            continue
        old = best.get(got["pair"])
        if old is None or got["qaws"] < old["qaws"]:
            best[got["pair"]] = got
    if unfinished:
        print(f"note: {unfinished} simulate --kernels run(s) whose K2 did not finish within their --max-cycles are "
              "left out", file=sys.stderr)
    if not best:
        raise InputFileError(f"store {store.path!r} holds no simulate --kernels runs of two kernels under lrr, gto "
                             "and qaws; run a sweep such as examples/sweeps/qaws-pairs.toml into it first")
    return list(best.values())


def _pair(result: Any) -> dict[str, Any] | None:
    kernels = result.get("kernels") if isinstance(result, dict) else None
    runs = result.get("runs") if isinstance(result, dict) else None
    if not isinstance(kernels, list) or len(kernels) != 2 or not isinstance(runs, list):
        return None
    try:
        k2 = {r["policy"]: r["kernels"][1]["response"] for r in runs if len(r.get("kernels", [])) > 1}
        if not {"lrr", "gto", "qaws"} <= set(k2):
            return None
        got = {"pair": f"{kernels[0]['workload']}+{kernels[1]['workload']}", "budget": kernels[1]["budget"],
               "lrr": k2["lrr"], "gto": k2["gto"], "qaws": k2["qaws"]}
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise InputFileError(f"a simulate --kernels run's result lacks what warpcheck writes there "
                             f"({type(e).__name__}: {e})") from None
    if not all(got[p] is None or _number(got[p], positive=True) for p in ("lrr", "gto", "qaws")):
        raise InputFileError(f"a simulate --kernels run ({got['pair']}) has K2 responses {got['lrr']!r}, "
                             f"{got['gto']!r}, {got['qaws']!r} under lrr, gto, qaws, not numbers > 0")
    return got
