"""What every verb promises whatever happens: a run bounded by ``--timeout``, a clean Ctrl-C, a crash report.

The verbs themselves only return exit codes; ``main`` runs them inside
:func:`guarded`.  A SIGINT or the end of the budget reaches Python only between
bytecodes, so a watchdog thread woken by the signal (``signal.set_wakeup_fd``)
interrupts the Z3 call the main thread may be blocked in.  Worker processes
run in their own process group, so that stopping them stops their children too.
"""
from __future__ import annotations

import contextlib
import ctypes
import datetime
import math
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from types import FrameType
from typing import Any, Callable, Iterator

from warpcheck.encodings import solver_signals
from warpcheck.models.errors import OutOfMemoryError, RunTimeoutError, WarpcheckError
from warpcheck.models.files import atomic_write_text

EXIT_BAD_INPUT, EXIT_ERROR, EXIT_TIMEOUT, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE, EXIT_TERMINATED = 2, 5, 4, 130, 141, 143


class RunTimeout(BaseException):
    """The whole run went past ``--timeout`` (a BaseException: no ``except Exception`` may swallow it)."""


def budget_end(timeout: float) -> float:
    """Seconds after the start at which a run of budget ``timeout`` is stopped from outside.

    The engines stop themselves at ``timeout`` and report what they reached; this
    backstop (a quarter of the allowed overrun, max(2 s, 10 %), leaving the rest for
    start-up and exit) catches what they do not see: model construction, a long
    Python loop, a call with no timeout.
    """
    return timeout + 0.25 * max(2.0, 0.1 * timeout)


MAX_ALARM = 1e8  # seconds (three years); setitimer refuses values past what the platform's time_t holds
STOPPED: dict[str, int] = {}  # "signal": the signal that ended the run, once one has
GUARDING: list[object] = []  # while guarded() has its handlers installed: a token of that guard


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Raise KeyboardInterrupt (SIGINT, SIGTERM) or RunTimeout (SIGALRM), but never inside a finaliser.

    SIGTERM takes the path of Ctrl-C, so that workers and solvers are stopped the same way.

    Python ignores an exception raised in ``__del__`` (Z3's objects free
    themselves there), which would lose the signal: deliver it again shortly.
    """
    STOPPED["signal"] = signum
    if _in_finaliser(frame):
        _deliver_again(signum)
        return
    raise RunTimeout if signum == signal.SIGALRM else KeyboardInterrupt


def _deliver_again(signum: int) -> None:
    """Send the signal once more in 20 ms, if the same guard is still there to catch it (not a later call's)."""
    mine = GUARDING[-1] if GUARDING else None

    def send() -> None:
        if mine is not None and GUARDING and GUARDING[-1] is mine:
            os.kill(os.getpid(), signum)
    threading.Timer(0.02, send).start()


def _in_finaliser(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _quiet_after_stop(unraisable: Any) -> None:
    """Catch a stop Python swallowed; after a stop, stay quiet about half-built objects.

    A weakref or garbage-collector callback (a process pool's, say) that the
    signal interrupts cannot pass the exception on: Python hands it here, and
    the signal is sent again so that the run still stops.
    """
    if isinstance(unraisable.exc_value, (RunTimeout, KeyboardInterrupt)) and "signal" in STOPPED:
        _deliver_again(STOPPED["signal"])
    elif not STOPPED:
        sys.__unraisablehook__(unraisable)


def stopped_by() -> int | None:
    """The signal (SIGINT, SIGTERM or SIGALRM) that ended the run, if one did."""
    return STOPPED.get("signal")


def _watch(fd: int) -> None:
    """Interrupt the solver whenever a signal arrives (the main thread may be inside Z3)."""
    while True:
        try:
            if not os.read(fd, 64):
                break
        except OSError:
            break
        solver = sys.modules.get("warpcheck.encodings.z3_algebra")
        if solver is not None:
            solver.interrupt_solvers()
        solver_signals.interrupt_all()
    os.close(fd)


def tree_rss(pid: int | None = None) -> int:
    """Resident bytes of a process and of all its descendants (workers, solver children), from /proc."""
    pid = os.getpid() if pid is None else pid
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
            tasks = os.listdir(f"/proc/{p}/task")
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
        for t in tasks:  # a child is listed under the thread that started it
            with contextlib.suppress(OSError, ValueError):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
    return total


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MEMORY_POLL = 0.2  # seconds between two looks at the run's memory


def _watch_memory(limit: int, done: threading.Event) -> None:
    """Stop the run (as the timeout does) once it and its workers hold more than ``limit`` bytes."""
    if not os.path.exists("/proc/self/statm"):  # no /proc: the budget is not watched (said by --help)
        return
    while not done.wait(MEMORY_POLL):
        used = tree_rss()
        if used > limit:
            STOPPED["memory"] = used
            os.kill(os.getpid(), signal.SIGALRM)
            return


def stopped_by_memory() -> int | None:
    """The bytes held when the memory budget stopped the run, if it did."""
    return STOPPED.get("memory")


def stop_cause() -> str:
    """What ended the search, for a verb that reports what it had when stopped by its budget."""
    return "--memory was reached" if "memory" in STOPPED else "--timeout ran out"


@contextlib.contextmanager
def guarded(timeout: float | None, started: float, memory: float | None = None) -> Iterator[None]:
    """Run the body with the watchdog, and with an alarm at :func:`budget_end` after ``started`` (monotonic).

    ``memory`` (bytes) bounds what the run and its workers hold: past it the run
    stops as at the end of its time, and :func:`stopped_by_memory` says so.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are the main thread's: called from elsewhere (tests), guard nothing
        return
    STOPPED.clear()
    solver_signals.clear_stop()
    old_hook, sys.unraisablehook = sys.unraisablehook, _quiet_after_stop
    r, w = os.pipe()
    os.set_blocking(w, False)
    old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM)
           if signal.getsignal(s) is not signal.SIG_IGN}  # SIGINT ignored (nohup, `cmd &`) stays ignored
    watchdog = threading.Thread(target=_watch, args=(r,), daemon=True, name="warpcheck-watchdog")
    watchdog.start()
    GUARDING.append(object())
    solver_signals.leave_ctrl_c_to_python()  # also for a solver the verb imports after this point
    if timeout is not None and budget_end(timeout) < MAX_ALARM:  # a longer budget is no bound: no alarm
        signal.setitimer(signal.ITIMER_REAL, max(0.01, budget_end(timeout) - (time.monotonic() - started)))
    done = threading.Event()
    if memory is not None:
        threading.Thread(target=_watch_memory, args=(int(memory), done), daemon=True,
                         name="warpcheck-memory").start()
    try:
        yield
        if STOPPED.get("signal") in (signal.SIGINT, signal.SIGTERM):  # swallowed on the way (in C, a callback):
            raise KeyboardInterrupt  # a run stopped by Ctrl-C never returns its result
    finally:
        done.set()
        signal.setitimer(signal.ITIMER_REAL, 0)
        GUARDING.clear()
        for s, handler in old.items():
            signal.signal(s, handler)
        signal.set_wakeup_fd(old_fd)
        os.close(w)  # the watchdog reads end-of-file, closes its end and stops
        watchdog.join(1.0)
        solver_signals.clear_stop()  # after the watchdog: a stop of this run never reaches a later, unguarded one
        if not STOPPED:  # after a stop, half-built objects are collected later, until exit: stay quiet
            sys.unraisablehook = old_hook


def finite_numbers(values: dict[str, object]) -> str | None:
    """The first option whose value is a NaN or an infinity, as '--name value', or None."""
    for name, v in values.items():
        if isinstance(v, float) and not math.isfinite(v):
            return f"--{name.replace('_', '-')} {v}"
    return None


def crash_report(verb: str, argv: list[str] | None) -> str:
    """Write the current exception's traceback to a file in the temp folder; return its path."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = os.path.join(tempfile.gettempdir(), f"warpcheck-crash-{stamp}-{os.getpid()}.txt")
    text = (f"warpcheck {verb} crashed; please report this file.\nargv: {argv if argv is not None else sys.argv[1:]}\n\n"
            + traceback.format_exc())
    try:
        atomic_write_text(path, text, "crash report")
    except BaseException:  # noqa: BLE001 - the report is a courtesy; never fail while failing
        return "(could not be written)"
    return path


def _own_group() -> None:
    os.setpgid(0, 0)  # Ctrl-C at the terminal reaches the parent only; it stops the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the parent's guard handlers come along with the fork: a worker the pool ends with SIGTERM must
    # just end (not raise KeyboardInterrupt and print a traceback), and the parent's alarm is not its own
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):  # Linux: die with the parent, whatever killed it
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


PR_SET_PDEATHSIG = 1


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    for pid in list(getattr(pool, "_processes", None) or {}):  # no public API lists the workers
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def abandon(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now, whatever they are doing (a portfolio whose answer came from another worker).

    A signal that lands inside ``submit`` (while it starts workers) leaves the
    pool's shutdown lock held by this very thread: ``shutdown`` would then wait
    for it forever.  The workers are killed either way; ``shutdown`` runs only
    when the lock is free.
    """
    _kill_workers(pool)
    lock = getattr(pool, "_shutdown_lock", None)
    if lock is None or lock.acquire(blocking=False):
        if lock is not None:
            lock.release()
        pool.shutdown(wait=False, cancel_futures=True)
    _kill_workers(pool)


def in_child(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a forked child, so that Ctrl-C, SIGTERM or the alarm stop it within a moment.

    For a solver that holds the interpreter inside C++ and never looks at signals
    (cvc5 through pySMT): the parent waits in short slices and kills the child's
    process group on any interruption.  The result comes back pickled.
    """
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child_main, args=(send, fn, args), daemon=True)
    child.start()
    send.close()
    try:
        while not receive.poll(0.05):
            if not child.is_alive() and not receive.poll(0):
                raise RuntimeError(f"the child process running {fn.__name__} ended with code {child.exitcode}")
        ok, value = receive.recv()
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if child.pid is not None:  # started above, so always set; the check is for the type checker
                os.killpg(child.pid, signal.SIGKILL)
        raise
    finally:
        child.join(timeout=5)
        receive.close()
    if not ok:
        raise RuntimeError(value)
    return value


def _child_main(send: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    _own_group()
    try:
        send.send((True, fn(*args)))
    except BaseException as e:  # noqa: BLE001 - said to the parent, which raises it there
        send.send((False, f"{type(e).__name__}: {e}"))


@contextlib.contextmanager
def worker_pool(workers: int = 2) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers (and their children) are killed at once if the body is interrupted."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_own_group)
    try:
        yield pool
    except BaseException:
        abandon(pool)  # kills twice: also a worker the pool started meanwhile
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def bounded(timeout: float | None, memory_gib: float | None = None) -> Iterator[None]:
    """A library call bounded as its verb is: ``timeout`` seconds and ``memory_gib`` GiB, set-up included.

    Inside a run that is already guarded (the command line's, or an outer
    call's) the outer bound holds and this adds none.  Past the bound the call
    raises :class:`RunTimeoutError` or :class:`OutOfMemoryError` (code 4);
    Ctrl-C raises ``KeyboardInterrupt`` with the workers stopped.
    """
    if GUARDING or threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        with guarded(timeout, time.monotonic(), None if memory_gib is None else memory_gib * 2**30):
            yield
    except (RunTimeout, KeyboardInterrupt) as e:
        _raise_stop(e, timeout, memory_gib)
    except Exception as e:  # the signal may surface as another exception (ctypes, a C callback): still a stop
        if stopped_by() is None or (stopped_by() == signal.SIGALRM and isinstance(e, WarpcheckError)):
            raise
        _raise_stop(e, timeout, memory_gib)


def _raise_stop(e: BaseException, timeout: float | None, memory_gib: float | None) -> None:
    """Raise what stopped a bounded call: KeyboardInterrupt (Ctrl-C, SIGTERM), or the budget's error."""
    if isinstance(e, KeyboardInterrupt) and stopped_by() != signal.SIGALRM:
        raise e
    if stopped_by() != signal.SIGALRM:
        raise KeyboardInterrupt from e
    held = stopped_by_memory()
    if held is not None:
        raise OutOfMemoryError(f"the run and its workers held {held / 2**30:.2f} GiB, above memory={memory_gib:g} "
                               "GiB (raise memory=, or give a smaller input)") from None
    raise RunTimeoutError(f"the run did not finish within timeout={timeout:g} s (set-up included)") from None


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Run the body (an import) with Ctrl-C and SIGTERM noted, then raise ``KeyboardInterrupt`` after it, if one came.

    An interrupted import of a C extension (numpy) leaves the process unable to import it again ("cannot load
    module more than once"), and one inside pydantic's schema building is swallowed: the import ends first (it
    takes a fraction of a second), then the stop is raised.  Inside a guarded run the guard's handlers stay.
    """
    if GUARDING or threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    old = {s: signal.signal(s, lambda signum, _: came.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)
           if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    if came:
        raise KeyboardInterrupt
