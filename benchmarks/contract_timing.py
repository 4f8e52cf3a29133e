"""The command-line contract's wall-clock goals, measured (the tests check the same runs by outcome only).

Goals (README, exit codes): Ctrl-C stops every long verb within 2 s; ``--timeout S`` ends a run at
most max(2 s, 10 %) past S, model construction included.  A loaded machine misses them by its load,
which is why no test asserts them.

    python benchmarks/contract_timing.py [--repeat 3]

Prints one row per case: the goal, the median and the largest measured time, and whether every
run met the goal.  Run it on a quiet machine; it takes about a minute.
"""
from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ENDLESS = ".kernel endless\nL:  IADD R0, R0, 1 ;\n    BRA L ;\n    EXIT ;\n"
JOB = ('[defaults]\nwarps = 32\n\n[[task]]\nname = "a"\ndesign = "swas"\npolicy = "gtlrr"\nexpect = "pass"\n'
       '\n[[task]]\nname = "b"\ndesign = "swas"\npolicy = "lrr"\nexpect = "pass"\n')
SIGINT_RUNS = {
    "prove": ["prove", "--design", "swas", "--policy", "gtlrr", "--warps", "32"],
    "demo": ["demo", "--out", "out"],
    "run": ["run", "job.toml", "--out", "out"],
    "simulate": ["simulate", "psort", "--warps", "64"],
    "makespan": ["makespan", "LCLCL", "--warps", "24", "--sigma", "L=1/2", "--sigma", "C=1", "--method", "smt"],
    "simt": ["simt", "endless.sass"],
}
TIMEOUT_RUNS = {  # (argv, --timeout given)
    "simt endless loop": (["simt", "endless.sass", "--timeout", "1"], 1.0),
    "prove W = 400 (model construction)": (["prove", "--warps", "400", "--timeout", "1", "--quiet"], 1.0),
    "prove --all-warps": (["prove", "--design", "swas", "--policy", "gtlrr", "--all-warps", "--timeout", "1"], 1.0),
}


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "warpcheck.cli", *argv], cwd=cwd, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def stop_latency(argv: list[str], cwd: Path) -> float:
    """Seconds from SIGINT (sent 2.5 s after the start) to the process's exit."""
    p = _start(argv, cwd)
    time.sleep(2.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait()
    return time.monotonic() - sent


def overrun(argv: list[str], timeout: float, cwd: Path) -> float:
    """Seconds past ``timeout`` at which the run ended (process start included)."""
    start = time.monotonic()
    _start(argv, cwd).wait()
    return time.monotonic() - start - timeout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "endless.sass").write_text(ENDLESS)
        (cwd / "job.toml").write_text(JOB)
        for name, argv in SIGINT_RUNS.items():
            got = [stop_latency(argv, cwd) for _ in range(a.repeat)]
            rows.append([f"Ctrl-C: {name}", "< 2 s", f"{statistics.median(got):.2f}", f"{max(got):.2f}",
                         "yes" if max(got) < 2 else "NO"])
        for name, (argv, timeout) in TIMEOUT_RUNS.items():
            allowed = max(2.0, 0.1 * timeout)
            got = [overrun(argv, timeout, cwd) for _ in range(a.repeat)]
            rows.append([f"--timeout {timeout:g}: {name}", f"overrun < {allowed:g} s", f"{statistics.median(got):.2f}",
                         f"{max(got):.2f}", "yes" if max(got) < allowed else "NO"])
    print(tabulate(rows, headers=["case", "goal", "median s", "largest s", "met"]))


if __name__ == "__main__":
    main()
