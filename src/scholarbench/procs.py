"""Child processes that end with their parent (the local llama.cpp server, …).

`watched(cmd)` is the command line that runs `cmd` under a small watchdog (this module run as
a script): the watchdog starts `cmd`, forwards SIGTERM and SIGINT to it, and when its own parent
is gone — killed with SIGKILL included, when no handler of ours can run — it stops the child:
SIGTERM, then SIGKILL after `GRACE` seconds (llama.cpp's server has been seen to ignore SIGTERM).
Stopping the watchdog stops the child the same way.

Hand-written because the one kernel feature that does this (prctl PR_SET_PDEATHSIG) fires when
the *thread* that started the child exits, and our servers are started from worker threads.

`exit_on_sigterm()` turns SIGTERM into a normal exit of the CLI, so `finally` blocks and atexit
handlers (which stop the servers) run on SIGTERM as they do on Ctrl-C.

`stop_requested()` tells a stop the user asked for (SIGINT, SIGTERM) from a `KeyboardInterrupt`
or `SystemExit` an agent raised itself: the engine lets the first end the run and records the
second as that sample's `error`. `watch_stops()` marks SIGINT for the time it is held.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

GRACE = 5.0
POLL = 0.5


def watched(cmd: list[str]) -> list[str]:
    return [sys.executable, "-m", "scholarbench.procs", str(os.getpid()), "--", *cmd]


_STOP = threading.Event()


def stop_requested() -> bool:
    """True once SIGINT (while `watch_stops` is held) or SIGTERM reached this process."""
    return _STOP.is_set()


@contextmanager
def watch_stops() -> Iterator[None]:
    """While held (in the main thread; elsewhere a no-op, no signal lands there), SIGINT marks
    `stop_requested()` before raising KeyboardInterrupt as Python's own handler does."""
    _STOP.clear()
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        _STOP.set()
        if callable(previous):
            previous(signum, frame)       # Python's own raises KeyboardInterrupt
        else:
            raise KeyboardInterrupt
    try:
        if previous == signal.SIG_IGN:
            raise ValueError
        signal.signal(signal.SIGINT, handler)
    except ValueError:        # not the main thread, or SIGINT ignored
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def exit_on_sigterm() -> None:
    """In the main thread: SIGTERM raises SystemExit(143) (128 + 15)."""
    def handler(signum, frame):
        _STOP.set()
        raise SystemExit(128 + signum)
    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:        # not the main thread
        pass


def _stop(child: subprocess.Popen) -> None:
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _watch(parent: int, cmd: list[str]) -> int:
    child = subprocess.Popen(cmd)
    stopping = []

    def forward(signum, frame):
        stopping.append(signum)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while child.poll() is None:
        if stopping or os.getppid() != parent:
            _stop(child)
            break
        time.sleep(POLL)
    return child.returncode if child.returncode is not None else 0


if __name__ == "__main__":          # python -m scholarbench.procs PARENT_PID -- CMD …
    parent_pid, sep, *command = sys.argv[1:]
    raise SystemExit(_watch(int(parent_pid), command))
