"""`--ray`: shards of samples as Ray tasks on a real Ray cluster that the command starts on this
machine, bound to 127.0.0.1 (no dashboard, no usage reporting). Same scores as the local run;
a worker killed mid-task (Ray re-runs the task; each sample is written once); the resume after
the whole driver is killed; a shard whose worker keeps dying is `error`, never dropped. The
cluster's two worker processes (two CPUs) run shards side by side."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import kill_after_lines

pytestmark = pytest.mark.slow
PLUGINS = Path(__file__).parent / "plugins"

AGENT = r'''
import hashlib, os, signal, time
from pathlib import Path


def solve(task):
    """Sample-specific answers; optional delay; kills its own worker process at the first
    sight of the sample named in $KILL_AT (once, or always with $KILL_ALWAYS)."""
    i = task["topic"].split()[-1]
    mark = Path(os.environ.get("KILL_MARK", "/nonexistent")) / f"killed-{task['id']}"
    if task["id"] == os.environ.get("KILL_AT") and (os.environ.get("KILL_ALWAYS")
                                                     or not mark.exists()):
        mark.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(float(os.environ.get("AGENT_DELAY", "0")))
    h = int(hashlib.sha256(task["id"].encode()).hexdigest(), 16)
    picked = [f"paper {i}-{j}" for j in range(3) if (h >> j) & 1]
    with open(Path(os.environ["KILL_MARK"]) / "pids", "a") as out:
        out.write(f"{os.getpid()}\n")
    return {"papers": picked + [f"noise {h % 97}"]}
'''


@pytest.fixture()
def env(tmp_path):
    if os.environ.get("CI") != "true":           # CI installs the extra: there it must run
        pytest.importorskip("ray", reason="Ray is the optional extra scholarbench[ray]")
    user = tmp_path / "user"
    user.mkdir()
    (user / "ray_agent.py").write_text(AGENT)
    items = [{"id": f"t{i:02d}", "topic": f"topic {i}",
              "gold": [f"paper {i}-{j}" for j in range(3)]} for i in range(24)]
    (tmp_path / "items.json").write_text(json.dumps(items))
    site = tmp_path / "site" / "toybench-0.1.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n")
    (site / "entry_points.txt").write_text("[scholarbench.benchmarks]\n"
                                           "toybench = toybench:ToyBench\n")
    variables = dict(os.environ, SCHOLARBENCH_DATA=str(tmp_path / "data"),
                     KILL_MARK=str(tmp_path), RAY_USAGE_STATS_ENABLED="0",
                     PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(PLUGINS),
                                                 str(user), os.environ.get("PYTHONPATH", "")]))
    for key in ("KILL_AT", "KILL_ALWAYS", "AGENT_DELAY"):
        variables.pop(key, None)
    return tmp_path, variables


def _cmd(out: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "scholarbench", "eval", "--agent", "ray_agent:solve",
            "--benchmarks", "toybench", "--option", "toybench.items=items.json", "--out", out,
            "--quiet", *extra]


def _run(cmd: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_ray_gives_the_local_scores_and_survives_a_killed_worker(env):
    tmp, variables = env
    local = _run(_cmd("runs/local"), tmp, variables)
    assert local.returncode == 0, local.stderr[-2000:]
    local_pids = set((tmp / "pids").read_text().split())
    (tmp / "pids").unlink()
    assert len(local_pids) == 1                          # the command's own process
    killing = dict(variables, KILL_AT="t05")
    on_ray = _run(_cmd("runs/ray", "--ray", "--ray-shard-size", "3"), tmp, killing)
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert (tmp / "killed-t05").exists()                 # a worker really died mid-task
    local_run, ray_run = tmp / "runs/local/toybench-rank", tmp / "runs/ray/toybench-rank"
    assert (ray_run / "scores.jsonl").read_text() == (local_run / "scores.jsonl").read_text()
    generated = _lines(ray_run / "generate.jsonl")
    assert sorted(r["id"] for r in generated) == [f"t{i:02d}" for i in range(24)]  # once each
    ray_pids = set((tmp / "pids").read_text().split())
    assert len(ray_pids) >= 2 and not ray_pids & local_pids    # worker processes, not the driver
    manifest = json.loads((ray_run / "manifest.json").read_text())
    assert manifest["ray"]["address"] == "local" and manifest["ray"]["retries"] == 3


def test_a_shard_whose_worker_always_dies_is_error_then_resumes(env):
    tmp, variables = env
    dying = dict(variables, KILL_AT="t07", KILL_ALWAYS="1")
    first = _run(_cmd("runs/die", "--ray", "--ray-shard-size", "4", "--ray-retries", "1"),
                 tmp, dying)
    assert first.returncode == 3, first.stderr[-2000:]
    rows = {r["id"]: r for r in _lines(tmp / "runs/die/toybench-rank/scores.jsonl")}
    errored = sorted(k for k, r in rows.items() if r["status"] == "error")
    assert errored == ["t04", "t05", "t06", "t07"]       # t07's shard, none dropped
    assert "ray:" in rows["t07"]["error"]
    again = _run(_cmd("runs/die", "--ray"), tmp, variables)
    assert again.returncode == 0, again.stderr[-2000:]
    generated = _lines(tmp / "runs/die/toybench-rank/generate.jsonl")
    done = [r["id"] for r in generated if r.get("status", "ok") != "error"]
    assert sorted(done) == [f"t{i:02d}" for i in range(24)]


def test_the_resume_after_the_driver_is_killed(env):
    tmp, variables = env
    slow = dict(variables, AGENT_DELAY="0.4")
    proc = subprocess.Popen(_cmd("runs/driver", "--ray", "--ray-shard-size", "2"), cwd=tmp,
                            env=slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    gen = tmp / "runs/driver/toybench-rank/generate.jsonl"
    held = kill_after_lines(proc, gen, n=4, timeout=300)
    assert 4 <= held < 24
    time.sleep(1)
    again = _run(_cmd("runs/driver", "--ray"), tmp, variables)
    assert again.returncode == 0, again.stderr[-2000:]
    ids = [r["id"] for r in _lines(gen)]
    assert sorted(ids) == [f"t{i:02d}" for i in range(24)]          # none lost, none twice
    local = _run(_cmd("runs/local2"), tmp, variables)
    assert local.returncode == 0
    assert (tmp / "runs/driver/toybench-rank/scores.jsonl").read_text() == \
        (tmp / "runs/local2/toybench-rank/scores.jsonl").read_text()


LISTENERS = r'''
import json, os, subprocess, sys
from scholarbench.core.distributed import connect
ray = connect()
ray.get(ray.remote(lambda: 1).remote())          # a worker process is up too


def family(root):
    pids, changed = {root}, True
    while changed:
        changed = False
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in pids:
                try:
                    stat = open(f"/proc/{entry}/stat").read()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) in pids:
                    pids.add(int(entry))
                    changed = True
    return pids


mine = family(os.getpid())
out = subprocess.run(["ss", "-Htlnp"], capture_output=True, text=True).stdout.splitlines()
print(json.dumps([line.split()[3] for line in out
                  if any(f"pid={p}," in line for p in mine)]))
'''


def test_the_private_cluster_listens_on_loopback_only(tmp_path):
    import shutil
    if os.environ.get("CI") != "true":
        pytest.importorskip("ray", reason="Ray is the optional extra scholarbench[ray]")
    if shutil.which("ss") is None:
        pytest.skip("needs ss (iproute2) to list listening sockets")
    (tmp_path / "listeners.py").write_text(LISTENERS)
    env = dict(os.environ)
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
    done = subprocess.run([sys.executable, "listeners.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    addresses = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(addresses) >= 3                          # GCS, raylet, workers: seen
    hosts = {a.rsplit(":", 1)[0] for a in addresses}
    assert hosts <= {"127.0.0.1", "[::ffff:127.0.0.1]"}, addresses
