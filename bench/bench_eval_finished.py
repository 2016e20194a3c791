"""`eval` again on a finished suite: the table must come from the runs' summaries, not a scoring.

    python bench/bench_eval_finished.py [--sizes 1000,10000] [--repeats 3]

For each size n, a suite of the toy benchmark (tests/plugins) with n samples is run once with the
`endpoint` agent against a scripted loopback endpoint (no latency), then `eval` is invoked again
on the same `--out` with the same flags — the case the issue measured (34 s first, 9.9 s again at
10k before the change). Both are whole commands in a fresh interpreter, timed wall-clock; the
second is the median of `--repeats`. The table says whether the run was kept (`kept`: its
scores.jsonl untouched, checked by its modification time).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugins"), str(ROOT / "bench")]

from bench_concurrency import items, serve  # noqa: E402


def command(base_url: str, n: int) -> list[str]:
    return [sys.executable, "-m", "scholarbench", "eval", "--agent", "endpoint", "--model",
            "fake", "--base-url", base_url, "--api-key-env", "BENCH_FAKE_KEY",
            "--llm-config", "models.toml", "--no-llm-cache", "--benchmarks", "toybench",
            "--option", f"toybench.items=items-{n}.json", "--max-samples", "64",
            "--out", f"suite-{n}", "--quiet"]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", help="keep the suites in this folder (default: a temporary one)")
    args = parser.parse_args()
    urls: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(0.0, urls), daemon=True)
    server.start()
    base_url = urls.get(timeout=30)
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(args.out or tmp_name)
        site = tmp / "site" / "toybench-0.1.dist-info"
        site.mkdir(parents=True, exist_ok=True)
        (site / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n")
        (site / "entry_points.txt").write_text("[scholarbench.benchmarks]\n"
                                               "toybench = toybench:ToyBench\n")
        (tmp / "models.toml").write_text("[agent]\nconcurrency = 64\n")
        env = dict(os.environ, BENCH_FAKE_KEY="sk-bench-not-a-key",
                   SCHOLARBENCH_DATA=str(tmp / "d"),
                   PYTHONPATH=os.pathsep.join([str(tmp / "site"), str(ROOT / "tests" / "plugins"),
                                               str(ROOT / "src"),
                                               os.environ.get("PYTHONPATH", "")]))
        for n in (int(s) for s in args.sizes.split(",")):
            items(tmp / f"items-{n}.json", n)
            cmd = command(base_url, n)
            first = timed(cmd, tmp, env)
            scores = next((tmp / f"suite-{n}").rglob("scores.jsonl"))
            before = scores.stat().st_mtime_ns
            again = [timed(cmd, tmp, env) for _ in range(args.repeats)]
            kept = scores.stat().st_mtime_ns == before
            rows.append((n, first, statistics.median(again), kept))
    server.terminate()
    print("\n| samples | first `eval` (solve + score) | `eval` again (median) | run kept |")
    print("| ---: | ---: | ---: | --- |")
    for n, first, again, kept in rows:
        print(f"| {n:,} | {first:.1f} s | {again:.2f} s | {'yes' if kept else 'NO'} |")


if __name__ == "__main__":
    main()
