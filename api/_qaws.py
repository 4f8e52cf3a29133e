"""QAWS searches for two kernels on one SWaS SM (Singh et al.): worst-case response, priority inversion, switch bound.

``warpcheck qaws wcrt|inversion|switches`` call the ``*_of`` functions here on
their parsed options; the public functions build the same options from
keywords, so a script and the command line take one path.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from warpcheck._options import assignments, checked, choice, joined, namespace
from warpcheck.cli.options import at_least, positive_seconds
from warpcheck.cli.qaws.kernels_sim import _assignments
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.config import DEFAULT_LATENCY, SMConfig
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.models.qaws.response import StallSpace
from warpcheck.sim.qaws.kernels_run import POLICY_OF
from warpcheck.sim.qaws.worst import exhaustive_worst, replay
from warpcheck.verify.qaws.switches import prove_switch_bound
from warpcheck.verify.qaws.wcrt import inversion, worst_response
from warpcheck.verify.result import EXIT_CODES, Status

__all__ = ["qaws_wcrt", "qaws_inversion", "qaws_switches", "QawsResult"]

NAMES = ("K1", "K2")
SWITCH_PROPERTY = "while K2 has an eligible warp, K1 switches warps at most {b} time(s) between K2 issues"
INVERSION_PROPERTY = "K2 never finishes after K1"
SMALL = {"t_fetch": 1, "t_decode": 1, "ibuffer": 2, "miss_latency": 2}
SMALL_LATENCY = {"fadd": 2, "fmul": 2, "fmadd": 2, "fcvt": 2, "fdiv": 4, "fsqrt": 4, "mem": 3}
SWITCH_POLICIES = ("qaws", "gto", "gtlo", "lrr")
MAX_KERNEL_WARPS = 16  # warps per kernel: the searches unroll every warp's stalls; 16 + 16 already takes hours
Progress = Callable[[str], None]


@dataclass
class QawsResult:
    """A QAWS search's answer: ``to_dict()`` is what the verb's ``--json`` prints, ``code`` its exit code.

    ``status`` is the worst status over the policies (PASS, FAIL, UNKNOWN,
    TIMEOUT, ERROR); ``policies`` maps each policy to its row (``response``,
    ``finish``, ``run``, ... for ``qaws_wcrt``; ``found`` and ``run`` for
    ``qaws_inversion``); ``problem`` says why an ERROR is one (the search and
    the simulator disagree: a bug of the kit).
    """

    search: str
    status: str
    code: int
    data: dict[str, Any] = field(repr=False)
    problem: str | None = None

    @property
    def policies(self) -> dict[str, dict[str, Any]]:
        """Each policy's row (``qaws_switches``: its one policy)."""
        rows = self.data.get("policies")
        return {r["policy"]: r for r in rows} if rows is not None else {self.data["policy"]: self.data}

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``warpcheck qaws SEARCH --json`` prints)."""
        return self.data

    def report(self) -> str:
        """The text report the verb prints."""
        return {"wcrt": wcrt_report, "inversion": inversion_report, "switches": switches_report}[self.search](self.data)


def pair(text: str) -> tuple[int, ...]:
    """``N1,N2``: the warps of K1 and K2, each from 1 to MAX_KERNEL_WARPS (an argparse type)."""
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not two comma-separated integers") from None
    if len(counts) != 2 or not all(1 <= n <= MAX_KERNEL_WARPS for n in counts):
        raise argparse.ArgumentTypeError(f"{text!r} is not two warp counts N1,N2, each from 1 to {MAX_KERNEL_WARPS}")
    return counts


def _search_options(policy: str | Sequence[str], programs: Any, warps: Any, budgets: Any, launches: Any,
                    latency: Any, misses: bool, deps: bool, branches: bool, timeout: float | None,
                    sm: Mapping[str, Any]) -> dict[str, Any]:
    """The options ``qaws wcrt`` and ``qaws inversion`` share, from keywords."""
    stray = sorted(set(sm) - set(SMALL))
    if stray:
        raise ConfigError(f"{stray[0]} = {sm[stray[0]]!r} is not an SM setting of the QAWS searches; "
                          f"give {', '.join(SMALL)}")
    timing = {k: checked("--" + k.replace("_", "-"), sm.get(k), at_least(1)) for k in SMALL}
    return dict(policy=joined(policy), program=assignments(programs), warps=checked("--warps", joined(warps), pair),
                budget=assignments(budgets), launch=assignments(launches), latency=assignments(latency),
                no_misses=not misses, no_deps=not deps, no_branches=not branches,
                timeout=checked("--timeout", 300.0 if timeout is None else timeout, positive_seconds), **timing)


def qaws_wcrt(policy: str | Sequence[str] = "lrr,gto,qaws", *, programs: Mapping[str, Any] | None = None,
              warps: Sequence[int] | str | None = None, budgets: Mapping[str, int] | None = None,
              launches: Mapping[str, int] | None = None, latency: Mapping[str, int] | None = None,
              misses: bool = True, deps: bool = True, branches: bool = True, horizon: int = 400,
              timeout: float | None = 300.0, exhaustive: bool = False, progress: Progress | None = None,
              **sm: int) -> QawsResult:
    """K2's worst-case response time under each policy, over every stall pattern, proved maximal and replayed.

    ``policy``: some of ``lrr``, ``gto``, ``qaws`` (a list or a comma
    string); ``programs`` each kernel's program (``{"K2": "mem,int"}`` or a
    list of classes); ``warps`` the warps of K1 and K2 (default ``(1, 2)``);
    ``budgets`` and ``launches`` per kernel (default K1 1, K2 2; launch K1 0,
    K2 1); ``latency`` per class; ``t_fetch``, ``t_decode``, ``ibuffer``,
    ``miss_latency`` the small SM of the verb (all 1 or 2 by default).
    A policy's row has ``response`` and ``finish`` (K2's), ``status`` (PASS:
    proved maximal; UNKNOWN: ``horizon`` reached, a lower bound), the run
    that reaches it (``run``) and ``replayed``; ``exhaustive=True`` also
    enumerates every stall pattern (small instances only).
    """
    opts = _search_options(policy, programs, warps, budgets, launches, latency, misses, deps, branches, timeout, sm)
    a = namespace(**opts, horizon=checked("--horizon", horizon, at_least(1)), exhaustive=exhaustive,
                  json=True, quiet=True)
    return wcrt_of(a, progress)


def qaws_inversion(policy: str | Sequence[str] = "lrr,gto,qaws", *, programs: Mapping[str, Any] | None = None,
                   warps: Sequence[int] | str | None = None, budgets: Mapping[str, int] | None = None,
                   launches: Mapping[str, int] | None = None, latency: Mapping[str, int] | None = None,
                   misses: bool = True, deps: bool = True, branches: bool = True, depth: int = 40,
                   timeout: float | None = 300.0, **sm: int) -> QawsResult:
    """A run, per policy, in which K2 (the kernel of higher QoS) finishes after K1, searched up to ``depth`` cycles.

    The keywords are :func:`qaws_wcrt`'s.  A policy's row has ``found``
    (an inversion: status FAIL, with the ``run``, replayed on the simulator)
    or not (a PASS bounded by ``depth``); ``code`` is 1 when one is found.
    """
    opts = _search_options(policy, programs, warps, budgets, launches, latency, misses, deps, branches, timeout, sm)
    return inversion_of(namespace(**opts, depth=checked("--depth", depth, at_least(1)), json=True))


def qaws_switches(policy: str = "qaws", *, warps: Sequence[int] | str | None = None,
                  budgets: Mapping[str, int] | None = None, depth: int = 24,
                  timeout: float | None = 600.0) -> QawsResult:
    """Prove that while a K2 warp is eligible, K1 switches warps at most b(K1) times before K2 issues again.

    k-induction on the full SWaS front end, for every program and stall
    pattern; ``warps`` default ``(2, 2)``, ``budgets`` default K1 1, K2 4
    (K2's must be the larger).  Under ``gto`` (it ignores the budgets) the
    bound FAILs and the row's ``schedule`` shows the run.
    """
    a = namespace(policy=choice("--policy", policy, SWITCH_POLICIES), warps=checked("--warps", joined(warps), pair),
                  budget=assignments(budgets), depth=checked("--depth", depth, at_least(1)),
                  timeout=checked("--timeout", 600.0 if timeout is None else timeout, positive_seconds), json=True)
    return switches_of(a)


def stall_space(a: argparse.Namespace, policy: str) -> StallSpace:
    """The two kernels' stall space under ``policy``, from the search options."""
    programs = {"K1": ("int", "mem", "int"), "K2": ("mem", "int", "int"), **_programs(a.program)}
    budgets = {"K1": 1, "K2": 2, **_assignments(a.budget, NAMES, "--budget", 1)}
    launches = {"K1": 0, "K2": 1, **_assignments(a.launch, NAMES, "--launch", 0)}
    warps = a.warps or (1, 2)
    if len(warps) != 2 or min(warps) < 1:
        raise ConfigError(f"--warps {','.join(map(str, warps))} is not two counts >= 1 (K1's, K2's); write e.g. --warps 1,2")
    latency = {**DEFAULT_LATENCY, **SMALL_LATENCY, **_latencies(a.latency)}
    timing = {k: getattr(a, k) if getattr(a, k) is not None else v for k, v in SMALL.items()}
    kow = (0,) * warps[0] + (1,) * warps[1]
    config = SMConfig(warps=len(kow), design="swas", issue_policy=POLICY_OF[policy], latency=latency,
                      unpipelined=(), kernel_of_warp=kow, budgets=(budgets["K1"], budgets["K2"]),
                      launches=(launches["K1"], launches["K2"]), **timing)
    return StallSpace(config, [programs[n] for n in NAMES], misses=not a.no_misses, deps=not a.no_deps,
                      branches=not a.no_branches)


def _programs(items: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        if name not in NAMES or not sep or not text.strip():
            raise ConfigError(f"--program {item!r} is not Kn=CLASS,CLASS,... for K1 or K2; write e.g. --program K2=mem,int")
        out[name] = tuple(c.strip() for c in text.split(","))
    return out


def _latencies(items: Sequence[str]) -> dict[str, int]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in DEFAULT_LATENCY or not value.isdigit() or int(value) < 1:
            raise ConfigError(f"--latency {item!r} is not CLASS=N with N >= 1 and CLASS one of {', '.join(DEFAULT_LATENCY)}")
        out[name] = int(value)
    return out


def policies(text: str | None) -> list[str]:
    """The policies of a comma list (each one of lrr, gto, qaws)."""
    names = [x.strip() for x in (text or "").split(",") if x.strip()]
    if not names:
        raise ConfigError(f"--policy {text!r} names no policy; give one or more of {', '.join(POLICY_OF)}")
    for n in names:
        if n not in POLICY_OF:
            raise ConfigError(f"--policy {n!r} is not one of {', '.join(POLICY_OF)}")
    return names


def _wcrt_one(a: argparse.Namespace, policy: str, progress: Progress | None) -> dict[str, Any]:
    ts = stall_space(a, policy)
    r = worst_response(ts, 1, a.horizon, a.timeout, progress=progress)
    run = replay(ts, r.params, r.inputs)
    out = {"policy": policy, **r.to_json(), "replayed": run.finish[1] == r.finish, "run": run.to_json(ts)}
    if a.exhaustive:
        ex = exhaustive_worst(ts, 1)
        out["exhaustive"] = {"finish": ex.finish[1], "response": ex.response(ts, 1), "agrees": ex.finish[1] == r.finish}
    return out


def wcrt_of(a: argparse.Namespace, progress: Progress | None = None) -> QawsResult:
    """``qaws wcrt`` on parsed options: every policy's row, the worst status and the exit code."""
    rows = [_wcrt_one(a, p, progress) for p in policies(a.policy)]
    worst = max((Status(r["status"]) for r in rows), key=lambda s: EXIT_CODES[s])
    bad = [r["policy"] for r in rows if not r["replayed"] or not r.get("exhaustive", {}).get("agrees", True)]
    data = {"kernel": "K2", "policies": rows}
    if bad:
        return QawsResult("wcrt", Status.ERROR.value, EXIT_CODES[Status.ERROR], data,
                          f"the search and the simulator disagree for {', '.join(bad)}")
    return QawsResult("wcrt", worst.value, EXIT_CODES[worst], data)


def inversion_of(a: argparse.Namespace) -> QawsResult:
    """``qaws inversion`` on parsed options: a priority inversion per policy, replayed, or none up to the depth."""
    rows, statuses = [], []
    for p in policies(a.policy):
        ts = stall_space(a, p)
        r = inversion(ts, a.depth, a.timeout)
        row: dict[str, Any] = {"policy": p, "status": r.status.value, "label": r.label, "depth": r.depth,
                               "seconds": round(r.seconds, 3), "found": r.status is Status.FAIL}
        if r.trace is not None:
            run = replay(ts, r.trace.params, r.trace.inputs)
            row.update(run=run.to_json(ts), replayed=run.finish[0] < run.finish[1])
            statuses.append(Status.FAIL if row["replayed"] else Status.ERROR)
        else:
            statuses.append(r.status)
        rows.append(row)
    # an inversion found (FAIL) outranks a search stopped elsewhere: it answers the question
    code = next((c for c in (5, 1, 4, 3) if c in [EXIT_CODES[s] for s in statuses]), 0)
    status = next((s for s in statuses if EXIT_CODES[s] == code), Status.PASS)
    problem = "an inversion found does not replay on the simulator" if status is Status.ERROR else None
    return QawsResult("inversion", status.value, code, {"property": INVERSION_PROPERTY, "policies": rows}, problem)


def switches_of(a: argparse.Namespace) -> QawsResult:
    """``qaws switches`` on parsed options: the switch bound proved (or refuted with its schedule)."""
    budgets = {"K1": 1, "K2": 4, **_assignments(a.budget, NAMES, "--budget", 1)}
    warps = a.warps or (2, 2)
    if len(warps) != 2 or min(warps) < 1:
        raise ConfigError(f"--warps {','.join(map(str, warps))} is not two counts >= 1 (K1's, K2's); write e.g. --warps 2,2")
    if budgets["K1"] >= budgets["K2"]:
        raise ConfigError(f"--budget K1={budgets['K1']} K2={budgets['K2']}: the bound is about K2 having the larger budget; "
                          "give K2 the larger one")
    kow = (0,) * warps[0] + (1,) * warps[1]
    config = SMConfig(warps=len(kow), design="swas", issue_policy=POLICY_OF[a.policy], kernel_of_warp=kow,
                      budgets=(budgets["K1"], budgets["K2"]))
    r = prove_switch_bound(FrontEnd(config), timeout=a.timeout, depth=a.depth)
    order = [s["o.w"] for s in r.trace.states[1:]] if r.trace else None
    data = {"property": SWITCH_PROPERTY.format(b=budgets["K1"]), "policy": a.policy, **r.to_json(),
            "label": r.label, "schedule": order}
    return QawsResult("switches", r.status.value, EXIT_CODES[r.status], data)


def schedule_text(order: Sequence[int]) -> str:
    """A schedule, one character per cycle: the warp issued, ``.`` for none."""
    return "".join("." if w < 0 else str(w) if w < 10 else f"({w})" for w in order)


def wcrt_report(data: dict[str, Any]) -> str:
    """``qaws wcrt``'s table and, per policy, the run that reaches the worst case."""
    from tabulate import tabulate
    rows = data["policies"]
    table = [[r["policy"], r["response"], r["finish"], "proved" if r["status"] == "PASS" else r["status"],
              r["run"]["finish"][0], r.get("exhaustive", {}).get("response", "-"), f"{r['seconds']:.1f}"] for r in rows]
    lines = [tabulate(table, headers=["policy", "K2 worst response", "K2 finish", "maximal?", "K1 finish (same run)",
                                      "exhaustive", "seconds"], tablefmt="github")]
    for r in rows:
        lines.append(f"\n{r['policy']}: {r['message']}\n  schedule (warp issued per cycle, . = none): "
                     f"{schedule_text(r['run']['order'])}")
        lines.append("  stalls: " + ("; ".join(r["run"]["stalls"]) or "none"))
    return "\n".join(lines)


def inversion_report(data: dict[str, Any]) -> str:
    """``qaws inversion``'s lines: the inversion found per policy, with its schedule, or none."""
    lines = []
    for r in data["policies"]:
        if r["found"]:
            run = r["run"]
            lines.append(f"{r['policy']}: priority inversion found (FAIL of 'K2 never finishes after K1'): K1 finishes "
                         f"at cycle {run['finish'][0]}, K2 at {run['finish'][1]}; replayed on the simulator: "
                         f"{r['replayed']}")
            lines.append(f"  schedule: {schedule_text(run['order'])}\n  stalls: " + ("; ".join(run["stalls"]) or "none"))
        else:
            lines.append(f"{r['policy']}: no priority inversion found: {r['label']}")
    return "\n".join(lines)


def switches_report(data: dict[str, Any]) -> str:
    """``qaws switches``'s verdict line and, on a FAIL, the schedule."""
    lines = [f"{data['policy']}: {data['property']}: {data['label']} ({data['message']})"]
    if data["schedule"] is not None:
        lines.append(f"  schedule (warp issued per cycle, . = none): {schedule_text(data['schedule'])}")
    return "\n".join(lines)
