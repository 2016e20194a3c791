"""Samples/s of the engine at --max-samples N against a scripted loopback endpoint with a fixed
latency (200 ms per reply by default), and the Ray path against the local one.

    python bench/bench_concurrency.py [--latency 0.2] [--levels 1,4,16,64] [--ray]

Each level runs the `endpoint` agent (one model call per sample, the reply parsed into a ranked
list, scored) on the toy benchmark of tests/plugins through `run_benchmark`, into a fresh run
directory: every sample's generate line is appended and fsync'ed, then all are scored. The
agent role's concurrency is set to N, so the endpoint (a thread per connection) is never the
limit; it runs in a process of its own. Efficiency = rate at N / (N × rate at 1); the target is ≥ 80 %.

`--ray` adds `eval --ray` on a Ray cluster this script starts on 127.0.0.1 (no dashboard, no
usage reporting) against the same endpoint, beside the same suite run locally (docs/scaling.md).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugins")]

from fake_openai import FakeOpenAI, Step  # noqa: E402


def reply(latency: float):
    def answer(body: dict) -> Step:
        topic = body["messages"][-1]["content"].removeprefix("Name papers on ").rstrip(".")
        i = topic.split()[-1]
        return Step(text=f"1. paper {i}-0\n2. paper {i}-2\n3. unrelated", delay=latency)
    return answer


def serve(latency: float, urls) -> None:
    """The scripted endpoint in a process of its own, so its work does not share this
    process's interpreter lock with the engine being measured."""
    fake = FakeOpenAI(default=reply(latency)).start()
    urls.put(fake.base_url)
    threading.Event().wait()


def items(path: Path, n: int) -> Path:
    path.write_text(json.dumps([{"id": f"t{i:05d}", "topic": f"topic {i}",
                                 "gold": [f"paper {i}-{j}" for j in range(3)]}
                                for i in range(n)]))
    return path


def client(base_url: str, concurrency: int):
    from scholarbench.llm.client import ChatClient
    from scholarbench.llm.config import ModelConfig
    return ChatClient(ModelConfig(role="agent", model="fake", base_url=base_url,
                                  api_key_env="BENCH_FAKE_KEY", concurrency=concurrency,
                                  timeout=30, max_retries=0))


def local_rate(base_url: str, tmp: Path, n_samples: int, level: int
               ) -> tuple[float, float, float, float]:
    """(seconds of the whole run, seconds of its generate stage, samples/s of that stage, CPU
    seconds of this process per sample) for one run of n_samples at `level` samples at once."""
    import toybench

    from scholarbench.core import engine
    tmp.mkdir(parents=True, exist_ok=True)
    bench = toybench.ToyBench({"items": str(items(tmp / f"items-{level}.json", n_samples))})
    stage: list[float] = []
    generate = engine.generate

    def timed_generate(*a, **k):
        t = time.perf_counter()
        try:
            return generate(*a, **k)
        finally:
            stage.append(time.perf_counter() - t)
    engine.generate = timed_generate
    try:
        start, cpu = time.perf_counter(), time.process_time()
        outcome = engine.run_benchmark(bench, "rank", "endpoint", tmp / f"run-{level}",
                                       progress=False, max_samples=level,
                                       models=engine.Models.given(agent=client(base_url, level)))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        engine.generate = generate
    assert outcome.exit_code == 0 and outcome.summary["n_samples"] == n_samples
    return wall, stage[0], n_samples / stage[0], cpu / n_samples


def compare_ray(base_url: str, tmp: Path, latency: float, n: int, per_task: int) -> None:
    """The same `eval` (toy benchmark, endpoint agent, --max-samples per_task) as one local
    process and on a private loopback Ray cluster (one task slot per CPU), timed as whole
    commands; then one cluster start alone."""
    import subprocess
    site = tmp / "site" / "toybench-0.1.dist-info"
    site.mkdir(parents=True, exist_ok=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n")
    (site / "entry_points.txt").write_text("[scholarbench.benchmarks]\n"
                                           "toybench = toybench:ToyBench\n")
    (tmp / "models.toml").write_text(f"[agent]\nconcurrency = {per_task}\n")
    items(tmp / "ray-items.json", n)
    env = dict(os.environ, BENCH_FAKE_KEY="sk-bench-not-a-key", SCHOLARBENCH_DATA=str(tmp / "d"),
               PYTHONPATH=os.pathsep.join([str(tmp / "site"), str(ROOT / "tests" / "plugins"),
                                           os.environ.get("PYTHONPATH", "")]))
    base = [sys.executable, "-m", "scholarbench", "eval", "--agent", "endpoint", "--model",
            "fake", "--base-url", base_url, "--api-key-env", "BENCH_FAKE_KEY",
            "--llm-config", "models.toml", "--no-llm-cache", "--benchmarks", "toybench",
            "--option", "toybench.items=ray-items.json", "--max-samples", str(per_task),
            "--quiet"]
    rows = []
    for label, extra in (("local", []), ("ray (private cluster)", ["--ray"])):
        start = time.perf_counter()
        done = subprocess.run(base + ["--out", f"runs-{len(rows)}", *extra], cwd=tmp, env=env,
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        assert done.returncode == 0, done.stderr[-2000:]
        rows.append((label, wall))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from scholarbench.core.distributed import connect; "
                    "r = connect(); r.get(r.remote(lambda: 1).remote())"], cwd=tmp, env=env,
                   capture_output=True, check=True)
    startup = time.perf_counter() - start
    print(f"\n{n} samples, --max-samples {per_task} (per task on Ray), {latency * 1e3:.0f} ms "
          f"endpoint; whole `eval` commands")
    print(f"{'path':<24} {'wall s':>7} {'samples/s':>10}")
    for label, wall in rows:
        print(f"{label:<24} {wall:>7.2f} {n / wall:>10.2f}")
    print(f"{'ray: start + 1 task':<24} {startup:>7.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--levels", default="1,4,16,64")
    ap.add_argument("--seconds", type=float, default=4.0,
                    help="ideal wall time per level (sets the sample count)")
    ap.add_argument("--ray", action="store_true", help="also time eval --ray vs local")
    ap.add_argument("--ray-samples", type=int, default=640)
    ap.add_argument("--ray-max-samples", type=int, default=16)
    args = ap.parse_args()
    os.environ["BENCH_FAKE_KEY"] = "sk-bench-not-a-key"
    levels = [int(x) for x in args.levels.split(",")]
    urls: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(args.latency, urls), daemon=True)
    server.start()
    fake = SimpleNamespace(base_url=urls.get(timeout=60))
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            local_rate(fake.base_url, Path(tmp) / "warm-up", 2, 1)   # imports, first connect
            base = None
            for level in levels:
                n = max(8, round(args.seconds * level / args.latency))
                wall, gen, rate, cpu = local_rate(fake.base_url, Path(tmp), n, level)
                base = base or rate / level
                rows.append((level, n, wall, gen, rate, rate / (level * base), n / wall, cpu))
            print(f"endpoint latency {args.latency * 1e3:.0f} ms; toy benchmark, endpoint agent; "
                  f"{os.cpu_count()} CPUs; generate = the stage that runs the agent")
            print(f"{'N':>4} {'samples':>8} {'run s':>7} {'generate s':>11} "
                  f"{'samples/s':>10} {'vs N×seq':>9} {'whole run/s':>12} {'CPU ms/sample':>14}")
            for level, n, wall, gen, rate, eff, whole, cpu in rows:
                print(f"{level:>4} {n:>8} {wall:>7.2f} {gen:>11.2f} {rate:>10.2f} {eff:>8.0%} "
                      f"{whole:>12.2f} {cpu * 1e3:>14.2f}")
            if args.ray:
                compare_ray(fake.base_url, Path(tmp), args.latency, args.ray_samples,
                            args.ray_max_samples)
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
