"""The papers' figures, drawn from a results store with matplotlib (no display: the Agg canvas).

Each figure function takes the store and an output folder and returns (the files written, the values
plotted); the files of a figure are written together or not at all, PNG and SVG side by side.
"""
from __future__ import annotations

import io
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable

from warpcheck._sweep import queries
from warpcheck.models.errors import InputFileError
from warpcheck.models.files import write_files

Drawn = tuple[list[str], list[dict[str, Any]]]
PAPER_BASELINE, PAPER_SWAS = "lrr-gtlrr", "gtlrr"  # Table II compares SWaS GTLRR with the baseline's LRR-GTLRR


def _figure(width: float, height: float, panels: int = 1) -> tuple[Any, list[Any]]:
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, [fig.add_subplot(1, panels, k + 1) for k in range(panels)]


def _save(fig: Any, out: str, name: str) -> list[str]:
    import matplotlib
    drawn: dict[str, bytes] = {}
    for fmt in ("png", "svg"):
        buf = io.BytesIO()
        with matplotlib.rc_context({"svg.hashsalt": "warpcheck"}):  # the same store draws the same SVG
            fig.savefig(buf, format=fmt, dpi=120, metadata={"Date": None} if fmt == "svg" else None)
        drawn[str(Path(out) / f"{name}.{fmt}")] = buf.getvalue()
    write_files(drawn, "figure")  # both or neither
    return list(drawn)


def _log(ax: Any, which: str, base: int = 10) -> None:
    """Log scales, without minor ticks (they would double the drawing time and add no reading)."""
    if "x" in which:
        ax.set_xscale("log", base=base)
        if base != 10:  # 2, 4, 8 rather than 2^1, 2^2, 2^3
            from matplotlib.ticker import ScalarFormatter
            ax.xaxis.set_major_formatter(ScalarFormatter())
    if "y" in which:
        ax.set_yscale("log", base=base)
    ax.minorticks_off()


def _one_setting(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The rows of the (W, t_F) setting with the most runs (a store may hold several), and its caption."""
    common = Counter((r["warps"], r["t_fetch"]) for r in rows).most_common(1)[0][0]
    return [r for r in rows if (r["warps"], r["t_fetch"]) == common], f"W = {common[0]}, t_F = {common[1]}"


ORDER = ("lrr", "gtlrr", "gtlo")  # the SWaS paper's order of policies


def _rank(policy: str) -> tuple[int, str]:
    return (ORDER.index(policy) if policy in ORDER else len(ORDER), policy)


def _configs(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The (design, policies) of the rows: the baseline's fetch-issue pairs, then SWaS's, in the paper's order."""
    seen = {(r["design"], r["policies"]) for r in rows}
    return sorted(seen, key=lambda c: (c[0] != "baseline", [_rank(p) for p in c[1].split("-")]))


def _colours(configs: list[tuple[str, str]]) -> list[Any]:
    """One hue per fetch policy (SWaS: its own), one shade per issue policy (tab20c's groups of four)."""
    from matplotlib import colormaps
    cmap = colormaps["tab20c"]
    hues: dict[str, int] = {}
    out = []
    for design, pol in configs:
        group = "swas" if design == "swas" else pol.split("-")[0]
        hue = hues.setdefault(group, len(hues) % 5)
        out.append(cmap(4 * hue + min(_rank(pol.split("-")[-1])[0], 3)))
    return out


def _bars(rows: list[dict[str, Any]], field: str, ylabel: str, title: str, out: str, name: str) -> Drawn:
    rows, setting = _one_setting(rows)
    workloads = sorted({r["workload"] for r in rows})
    configs = _configs(rows)
    value = {(r["workload"], r["design"], r["policies"]): r[field] for r in rows}
    fig, (ax,) = _figure(max(8.0, 1.6 * len(workloads) + 2), 4.2)
    width = 0.85 / len(configs)
    cmap = _colours(configs)
    for k, (design, pol) in enumerate(configs):
        xs = [i + (k - (len(configs) - 1) / 2) * width for i in range(len(workloads))]
        ys = [value.get((w, design, pol), float("nan")) for w in workloads]
        ax.bar(xs, ys, width, label=f"{'SWaS' if design == 'swas' else 'baseline'} {pol.upper()}",
               color=cmap[k], hatch="//" if design == "swas" else None, edgecolor="black", linewidth=0.3)
        for x, y in zip(xs, ys):
            if y == 0:  # a bar of height 0 is invisible: say it
                ax.annotate("0", (x, 0), ha="center", va="bottom", fontsize=6)
    ax.set_xticks(range(len(workloads)), workloads)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title} ({setting})")
    ax.legend(fontsize=7, ncols=2 if len(configs) > 6 else 1, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    values = [{"workload": w, "design": d, "policies": p, field: value.get((w, d, p))}
              for w in workloads for d, p in configs]
    return _save(fig, out, name), values


def swas_ipc(store: Any, out: str) -> Drawn:
    """IPC per fetch x issue configuration of the baseline, and per policy of SWaS, per benchmark (SWaS Fig. 4)."""
    return _bars(queries.frontend(store), "ipc", "IPC (committed thread instructions / cycle)",
                 "IPC per configuration", out, "swas-ipc")


def error_rate(store: Any, out: str) -> Drawn:
    """Scheduling error rate (cycles that leave osched2's choice) per benchmark: baseline vs SWaS (Fig. 5)."""
    return _bars(queries.frontend(store), "error_rate", "error rate (errors / cycles)",
                 "Scheduling error rate, baseline vs SWaS", out, "error-rate")


def table2(store: Any, out: str) -> Drawn:
    """Table II: IPC of SWaS GTLRR over the baseline's LRR-GTLRR, and each design's errors, per benchmark."""
    rows, setting = _one_setting(queries.frontend(store))
    by = {(r["workload"], r["design"], r["policies"]): r for r in rows}
    table = []
    for w in sorted({r["workload"] for r in rows}):
        base, swas = by.get((w, "baseline", PAPER_BASELINE)), by.get((w, "swas", PAPER_SWAS))
        if base and swas:
            table.append({"benchmark": w, "ipc_baseline": round(base["ipc"], 3), "ipc_swas": round(swas["ipc"], 3),
                          "ipc_ratio": round(swas["ipc"] / base["ipc"], 3), "errors_baseline": int(base["errors"]),
                          "errors_swas": int(swas["errors"])})
    if not table:
        raise InputFileError(f"store {store.path!r} has no benchmark run on both the baseline {PAPER_BASELINE} and "
                             f"SWaS {PAPER_SWAS} ({setting}); run examples/sweeps/swas-table2.toml into it")
    heads = list(table[0])
    csv_text = "\n".join([",".join(heads), *(",".join(str(r[h]) for h in heads) for r in table)]) + "\n"
    md = [f"Table II: SWaS {PAPER_SWAS.upper()} vs baseline {PAPER_BASELINE.upper()} ({setting})", "",
          "| benchmark | IPC baseline | IPC SWaS | IPC SWaS/baseline | # errors baseline | # errors SWaS |",
          "|---|---:|---:|---:|---:|---:|", *(f"| {' | '.join(str(r[h]) for h in heads)} |" for r in table)]
    files = [str(Path(out) / "table2.csv"), str(Path(out) / "table2.md")]
    write_files({files[0]: csv_text, files[1]: "\n".join(md) + "\n"}, "table")
    return files, table


def ipc_ratio(store: Any, out: str) -> Drawn:
    """SWaS/baseline IPC ratio per benchmark over W (at one t_F) and over t_F (at one W) (SWaS Fig. 6-8)."""
    ratios = _ratios(queries.frontend(store, "swas-ratio.toml"))
    if not ratios:
        raise InputFileError(f"store {store.path!r} has no benchmark run on SWaS and on a baseline with the same "
                             "issue policy at the same W and t_F; run examples/sweeps/swas-ratio.toml into it")
    pair = Counter(r["pair"] for r in ratios).most_common(1)[0][0]
    ratios = [r for r in ratios if r["pair"] == pair]
    fig, axes = _figure(11, 4.2, 2)
    at_tf = Counter(r["t_fetch"] for r in ratios).most_common(1)[0][0]
    at_w = Counter(r["warps"] for r in ratios).most_common(1)[0][0]
    _lines(axes[0], [r for r in ratios if r["t_fetch"] == at_tf], "warps", f"W (t_F = {at_tf})")
    _lines(axes[1], [r for r in ratios if r["warps"] == at_w], "t_fetch", f"t_F (W = {at_w})")
    _log(axes[0], "x", base=2)
    fig.suptitle(f"IPC of SWaS / IPC of the baseline ({pair})")
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, out, "ipc-ratio"), ratios


def _ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    swas = {(r["workload"], r["warps"], r["t_fetch"], r["policies"]): r["ipc"] for r in rows if r["design"] == "swas"}
    out = []
    for r in rows:
        issue = r["policies"].split("-")[-1]
        s = swas.get((r["workload"], r["warps"], r["t_fetch"], issue))
        if r["design"] == "baseline" and s is not None and r["ipc"]:
            out.append({"workload": r["workload"], "warps": r["warps"], "t_fetch": r["t_fetch"],
                        "pair": f"SWaS {issue.upper()} / baseline {r['policies'].upper()}", "ratio": s / r["ipc"]})
    return out


def _lines(ax: Any, rows: list[dict[str, Any]], x: str, xlabel: str) -> None:
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for r in rows:
        series[r["workload"]].append((r[x], r["ratio"]))
    for w, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=w)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("IPC ratio SWaS / baseline")


def makespan_vs_w(store: Any, out: str) -> Drawn:
    """The makespan paper's bounds against W: pessimistic (Eq. 5-7), T^(W,x), and the exact worst case."""
    rows = queries.makespan(store)
    kernels = sorted({(r["kernel"], r["sigma"]) for r in rows})
    fig, axes = _figure(11, 4.2 * len(kernels), 2 * len(kernels))
    for k, (kernel, sigma) in enumerate(kernels):
        mine = [r for r in rows if (r["kernel"], r["sigma"]) == (kernel, sigma)]
        _makespan_panel(axes[2 * k], axes[2 * k + 1], mine, f"{kernel}, sigma {_sigma_text(sigma)}")
    return _save(fig, out, "makespan-vs-w"), rows


def _sigma_text(sigma: str) -> str:
    import json
    return ", ".join(f"{u} = {v}" for u, v in json.loads(sigma).items())


def _makespan_panel(ax: Any, rel: Any, rows: list[dict[str, Any]], title: str) -> None:
    ws = [r["warps"] for r in rows]
    exact = [r for r in rows if r["exact"]]
    ax.plot(ws, [r["pessimistic"] for r in rows], "--", color="tab:red", label="pessimistic bound (Eq. 5-7)")
    ax.plot(ws, [r["approximation"] for r in rows], ":", marker=".", color="tab:orange",
            label=r"approximation $T^{(W,x)}$, x = min(W, 4)")
    ax.plot([r["warps"] for r in exact], [r["makespan"] for r in exact], "-", marker="o", markersize=3,
            color="tab:blue", label="exact worst case (proved)")
    for r in rows:
        if not r["exact"]:  # a search that timed out: what it proved, from the run found to the least upper bound
            ax.vlines(r["warps"], r["makespan"], r["upper"] or r["pessimistic"], color="tab:grey")
    _log(ax, "xy")
    ax.set_xlabel("W (warps)")
    ax.set_ylabel("makespan (cycles)")
    ax.set_title(title)
    ax.legend(fontsize=7)
    rel.plot([r["warps"] for r in exact], [r["pessimistic"] / r["makespan"] for r in exact], "--", color="tab:red",
             label="pessimistic / exact")
    rel.plot([r["warps"] for r in exact], [r["approximation"] / r["makespan"] for r in exact], ":", marker=".",
             color="tab:orange", label=r"$T^{(W,x)}$ / exact")
    rel.axhline(1.0, color="tab:blue", linewidth=0.8)
    _log(rel, "x")
    rel.set_xlabel("W (warps)")
    rel.set_ylabel("bound / exact worst case")
    rel.set_title(f"{title}: overestimate")
    rel.legend(fontsize=7)


def qaws_reduction(store: Any, out: str) -> Drawn:
    """K2's response-time reduction by QAWS against LRR and against GTO, per pair of kernels (QAWS Fig. 4)."""
    pairs = sorted(queries.kernel_pairs(store), key=lambda p: p["pair"])
    for p in pairs:
        p["vs_lrr"] = 100 * (1 - p["qaws"] / p["lrr"])
        p["vs_gto"] = 100 * (1 - p["qaws"] / p["gto"])
    fig, (ax,) = _figure(max(7.0, 1.1 * len(pairs) + 2), 4.2)
    xs = range(len(pairs))
    ax.bar([x - 0.2 for x in xs], [p["vs_lrr"] for p in pairs], 0.4, label="against LRR", color="tab:blue")
    ax.bar([x + 0.2 for x in xs], [p["vs_gto"] for p in pairs], 0.4, label="against GTO", color="tab:green")
    ax.set_xticks(list(xs), [f"{p['pair']}\n(K2 budget {p['budget']})" for p in pairs], fontsize=7, rotation=30,
                  ha="right")
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.set_ylabel("K2 response-time reduction by QAWS (%)")
    ax.set_title("QAWS: response time of the higher-QoS kernel K2 (K1 + K2 on one SM)")
    ax.legend(fontsize=8)
    return _save(fig, out, "qaws-reduction"), pairs


STATUS_MARKER = {"PASS": "o", "FAIL": "x", "UNKNOWN": "s", "TIMEOUT": "^", "ERROR": "D"}


def proof_time(store: Any, out: str) -> Drawn:
    """Seconds per proof against W, one line per design and policy; the marker says how the proof ended."""
    rows = queries.proofs(store)
    series: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        label = f"SWaS {r['issue'].upper()}" if r["design"] == "swas" else \
            f"baseline {r['fetch'].upper()}-{r['issue'].upper()}"
        series[label].append(r)
    fig, (ax,) = _figure(8, 4.5)
    for label, points in sorted(series.items()):
        points.sort(key=lambda r: r["warps"])
        line = ax.plot([r["warps"] for r in points], [r["seconds"] for r in points], "-", label=label)[0]
        for r in points:
            ax.plot(r["warps"], r["seconds"], STATUS_MARKER.get(r["status"], "."), color=line.get_color())
    ax.set_yscale("log")  # with its minor ticks: proof times often span less than a decade
    ax.set_xlabel("W (warps)")
    ax.set_ylabel("proof time (s)")
    ax.set_title("Proof time against W (o PASS, x FAIL, ^ TIMEOUT, s UNKNOWN)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, out, "proof-time"), rows


FIGURES: dict[str, Callable[[Any, str], Drawn]] = {
    "swas-ipc": swas_ipc, "error-rate": error_rate, "table2": table2, "ipc-ratio": ipc_ratio,
    "makespan-vs-w": makespan_vs_w, "qaws-reduction": qaws_reduction, "proof-time": proof_time,
}
