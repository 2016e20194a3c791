"""Child processes end with their parent: a command under `procs.watched` stops when its parent
is killed with SIGKILL (no handler of the parent runs) — one that ignores SIGTERM too, after the
grace period — and the packaged llama.cpp server started by a process ends when that process is
sent SIGTERM."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
IGNORES_TERM = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                "time.sleep(600)")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return env


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _wait_gone(pids: list[int], timeout: float) -> float:
    start = time.monotonic()
    while any(_alive(p) for p in pids):
        assert time.monotonic() - start < timeout, [p for p in pids if _alive(p)]
        time.sleep(0.1)
    return time.monotonic() - start


@pytest.mark.parametrize("child", ["import time; time.sleep(600)", IGNORES_TERM],
                         ids=["plain", "ignores-sigterm"])
def test_a_watched_child_ends_when_its_parent_is_killed(child):
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import subprocess, sys, time
        from scholarbench.procs import watched
        p = subprocess.Popen(watched([sys.executable, "-c", {child!r}]))
        print(p.pid, flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True, env=_env())
    watchdog = int(parent.stdout.readline())
    deadline = time.monotonic() + 20
    while not _children(watchdog):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    [worker] = _children(watchdog)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    took = _wait_gone([watchdog, worker], 15)
    assert took < 8


@pytest.mark.slow
def test_the_local_model_server_ends_with_the_process_that_started_it():
    pytest.importorskip("llama_cpp")
    from scholarbench.llm.local import model_path
    try:
        model_path("qwen2.5-coder-0.5b")
    except Exception as exc:                                   # the [local] extra is absent
        pytest.skip(f"no packaged local model: {exc}")
    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time
        from scholarbench.llm.local import _shared, shared_server_url
        url = shared_server_url("qwen2.5-coder-0.5b")
        print(_shared["qwen2.5-coder-0.5b"].process.pid, flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True, env=_env())
    watchdog = int(owner.stdout.readline())
    server = _children(watchdog)
    assert server and _alive(server[0])
    owner.send_signal(signal.SIGTERM)                           # no handler: atexit never runs
    owner.wait()
    assert _wait_gone([watchdog, *server], 30) < 15


SPARK_PARENT = textwrap.dedent("""
    import sys, time
    from scholarbench.graph.engine import spark_session
    spark = spark_session(partitions=1, driver_memory="512m")
    assert spark.range(3).count() == 3
    print("ready", flush=True)
    time.sleep(600)
""")


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
def test_the_spark_jvm_ends_with_the_process_that_started_it(how):
    """PySpark's gateway JVM watches its stdin, a pipe from the Python process: when that
    process dies — even by SIGKILL, no handler run — the JVM exits on end of file."""
    pytest.importorskip("pyspark")
    parent = subprocess.Popen([sys.executable, "-c", SPARK_PARENT], env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert parent.stdout.readline().strip() == "ready"
        jvms = [p for p in _descendants(parent.pid)
                if "java" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")]
        assert jvms, "no JVM under the Spark parent"
        parent.send_signal(how)
        parent.wait(timeout=30)
        _wait_gone(jvms, timeout=60)
    finally:
        if parent.poll() is None:
            parent.kill()
