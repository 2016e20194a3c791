"""`scholarbench aggregate` at the scale of a leaderboard (issue 37): synthetic runs of 1k / 10k
/ 100k rows for each of the five benchmarks (`_synthetic_runs.py`: the real row shapes, pooled
count columns, a judge panel's per-judge entries), and per size a table of

  time     wall time of `scholarbench aggregate RUN` in a fresh subprocess
  peak     its peak RSS (`getrusage(RUSAGE_CHILDREN).ru_maxrss`, read by a fresh parent)
  floor    the same 2,000 seeded resamples of a plain mean, vectorised numpy (in batches of
           `CI_BATCH_BYTES` of indices), once per measure the summary gives an interval
  ratio    time / floor

    /work/venv/bin/python bench/bench_aggregate_scale.py [--sizes 1000,10000]
        [--benchmarks taxobench,reportbench] [--src /work/main/src] [--check-max 10000]
        [--out /tmp/bench-aggregate-scale]

`--src` runs aggregate with another checkout's package (a before/after comparison); the runs
are written once per size and benchmark and reused. `--check-max`: up to that size, the written
summary is then checked with `aggregate --check` (with this checkout's package).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from _synthetic_runs import BENCHMARKS, write_run
from scholarbench.core.measure import CI_RESAMPLES, CI_SEED, batch_size

SRC = Path(__file__).resolve().parents[1] / "src"
# a fresh parent per measurement, so RUSAGE_CHILDREN's maximum is this run's alone
MEASURE = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
           "code = subprocess.call([sys.executable, '-m', 'scholarbench', 'aggregate', "
           "sys.argv[1]], stdout=subprocess.DEVNULL); "
           "print(code, time.perf_counter() - t, "
           "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def aggregate(run_dir: Path, src: Path) -> tuple[float, float]:
    """(seconds, peak MiB) of `scholarbench aggregate run_dir` with the package at `src`."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", MEASURE, str(run_dir)], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    if out[0] != "0":
        raise SystemExit(f"aggregate {run_dir} exited {out[0]}")
    return float(out[1]), int(out[2]) / 1024


def check(run_dir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    subprocess.run([sys.executable, "-m", "scholarbench", "aggregate", "--check", str(run_dir)],
                   env=env, check=True, stdout=subprocess.DEVNULL)


def floor(n: int, n_measures: int) -> float:
    """Seconds of the same resamples of a plain mean over n values, vectorised, × measures."""
    values = np.random.default_rng(0).random(n)
    rng, left, t = np.random.default_rng(CI_SEED), CI_RESAMPLES, time.perf_counter()
    means = []
    while left:
        size = min(left, batch_size(n, 1))
        means.append(values[rng.integers(0, n, (size, n))].mean(axis=-1))
        left -= size
    np.percentile(np.concatenate(means), [2.5, 97.5])
    return (time.perf_counter() - t) * n_measures


def intervals(run_dir: Path) -> int:
    """The measures the written summary gives an interval."""
    metrics = json.loads((run_dir / "summary.json").read_text()).get("metrics") or {}
    return sum(1 for e in metrics.values() if isinstance(e, dict) and e.get("ci95"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    ap.add_argument("--src", default=str(SRC), help="the package to time (a src directory)")
    ap.add_argument("--check-max", type=int, default=10000)
    ap.add_argument("--out", default="/tmp/bench-aggregate-scale")
    args = ap.parse_args()
    src, out = Path(args.src).resolve(), Path(args.out)
    print(f"package: {src}")
    for n in (int(s) for s in args.sizes.split(",")):
        print(f"\n{n:,} rows\n")
        print("| benchmark | intervals | aggregate | peak RSS | floor | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name in args.benchmarks.split(","):
            run_dir = out / f"{name}-{n}"
            if not (run_dir / "scores.jsonl").is_file():
                write_run(run_dir, name, n)
            seconds, peak = aggregate(run_dir, src)
            if n <= args.check_max:
                check(run_dir)
            k = intervals(run_dir)
            low = floor(n, k)
            print(f"| {name} | {k} | {seconds:.1f} s | {peak:,.0f} MiB | {low:.2f} s | "
                  f"{seconds / low:.1f}× |", flush=True)


if __name__ == "__main__":
    main()
