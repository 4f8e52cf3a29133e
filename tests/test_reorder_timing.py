"""Timing simulation with and without the unit: the unit keeps the static L1 order whatever the latencies."""
from __future__ import annotations

import json

from warpcheck.cli.main import main

from kernel_fixtures import ROOT

REORDER = ROOT / "examples" / "reorder"
CONFLICTS = [REORDER / "set_conflicts.ptx", "--grid", 1, "--block", 128, "--param", "data=0", "--param", "rows=3"]
LOOP = [REORDER / "loop_rows.ptx", "--grid", 2, "--block", 64, "--param", "base=0", "--param", "rows=3"]
DEADLOCK = [REORDER / "barrier_deadlock.ptx", "--grid", 1, "--block", 64, "--param", "data=0"]


def simulate(capsys, *argv):
    code = main(["reorder", "simulate", *map(str, argv), "--json"])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def test_the_unit_keeps_the_static_order_and_misses_under_jitter(capsys):
    for args in (CONFLICTS, LOOP):
        code, out = simulate(capsys, *args, "--jitter", 150, "--seeds", 4, "--cache", "32K:8")
        unit = out["configs"]["unit"]
        assert code == 0 and unit["static_order_kept"] and not unit["deadlock"]
        assert unit["load_misses"] == [out["static_load_misses"]]
        assert len(unit["cycles"]) == 4 and min(unit["cycles"]) > 0


def test_lrr_without_the_unit_leaves_the_static_order_under_jitter(capsys):
    _, out = simulate(capsys, *CONFLICTS, "--jitter", 100, "--seeds", 3)
    assert not out["configs"]["default"]["static_order_kept"]


def test_the_barrier_deadlock_shows_in_the_timing_simulation(capsys):
    code, out = simulate(capsys, *DEADLOCK)
    assert code == 1 and out["configs"]["unit"]["deadlock"] and not out["configs"]["default"]["deadlock"]
    code, out = simulate(capsys, *DEADLOCK, "--order", "barrier")
    assert code == 0 and out["configs"]["unit"]["static_order_kept"]


def test_bad_latencies_are_refused(capsys):
    code = main(["reorder", "simulate", *map(str, CONFLICTS), "--hit", "50", "--miss", "10"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "--miss 10: not allowed; it must be >= 50" in err


def _analysis(args):
    from warpcheck._reorder.launch import run_analysis
    from warpcheck._reorder.options import LaunchOptions

    params = [str(args[i + 1]) for i, a in enumerate(args) if a == "--param"]
    return run_analysis(LaunchOptions(kernel=str(args[0]), grid=str(args[2]), block=str(args[4]), param=params))


def test_the_front_end_drives_the_run_compiled_equals_the_model_step():
    from warpcheck._reorder.launch import workload
    from warpcheck.models.reorder.l1 import L1Spec
    from warpcheck.sim.reorder.timing import Timing, simulate_kernel

    an = _analysis(LOOP)
    work, lines = workload(an, limit=False)
    traces = [w.trace for w in an.warps]
    for design in ("baseline", "swas"):
        runs = [simulate_kernel(an.kernel, traces, work, lines, L1Spec(16 * 1024, 4), True, "lrr",
                                Timing(jitter=30, seed=1), design=design, engine=e) for e in ("compiled", "reference")]
        assert runs[0] == runs[1] and runs[0].misaligned == 0 and not runs[0].deadlock


def test_memory_latency_comes_from_the_l1_side():
    from warpcheck._reorder.launch import workload
    from warpcheck.models.reorder.l1 import L1Spec
    from warpcheck.sim.reorder.timing import Timing, simulate_kernel

    an = _analysis(CONFLICTS)
    work, lines = workload(an, limit=False)
    traces = [w.trace for w in an.warps]
    fast, slow = (simulate_kernel(an.kernel, traces, work, lines, L1Spec(16 * 1024, 4), True, "lrr", Timing(20, m))
                  for m in (200, 400))
    # every load misses at least once on the path to the end: a slower memory makes the kernel slower
    assert slow.cycles > fast.cycles and fast.order == slow.order
