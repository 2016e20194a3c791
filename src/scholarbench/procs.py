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
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

GRACE = 5.0
POLL = 0.5


def watched(cmd: list[str]) -> list[str]:
    return [sys.executable, "-m", "scholarbench.procs", str(os.getpid()), "--", *cmd]


def exit_on_sigterm() -> None:
    """In the main thread: SIGTERM raises SystemExit(143) (128 + 15)."""
    def handler(signum, frame):
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
