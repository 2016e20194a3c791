"""Benchmark: TaxoBench scoring speed, cold and warm, with embedding-cache hit rates.

    python bench/bench_taxobench_scoring.py [--cases ../shared/golden-inputs/taxobench/cases.json]

Cold: a fresh process state — MiniLM loaded from the package, empty caches — scoring all 24
golden cases. Warm: the 24 cases scored again in the same process (model loaded, labels
cached; per case, median of --repeats passes), and one 50-paper instance (TaxoBench id 34,
model_prediction) scored repeatedly. Prints a Markdown table.

    python bench/bench_taxobench_scoring.py --cold-only

scores the 24 cases once with empty caches and exits: time that whole process from outside
(e.g. /usr/bin/time -v) for the cold figure a user sees, interpreter start-up included. With
`--cold-only --cache FILE` it uses that embedding cache and loads MiniLM only if a label is
missing (a re-score: run it once to fill FILE, then time the second process).
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared" / "golden-inputs" / "taxobench" / "cases.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default=str(DEFAULT_CASES))
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--cold-only", action="store_true",
                        help="score the 24 cases once with empty caches, print the seconds, exit")
    parser.add_argument("--cache", help="with --cold-only: this embedding cache file, MiniLM loaded "
                        "only for labels it lacks")
    args = parser.parse_args()

    t0 = time.perf_counter()
    from scholarbench.data.taxobench import parse_prediction
    from scholarbench.data.trees import parse_tree
    from scholarbench.embed import CachedEmbedder, MiniLMEncoder
    from scholarbench.benchmarks.taxobench.measures import score_instance
    t_import = time.perf_counter() - t0

    cases = json.loads(Path(args.cases).read_text())
    inputs = [(parse_tree(c["reference"]["gt"], "gt"),
               parse_prediction({"id": c["id"], "hierarchy_tree": c["prediction_tree"]})) for c in cases]

    if args.cold_only and args.cache:
        embedder = CachedEmbedder(MiniLMEncoder(), Path(args.cache))
        t2 = time.perf_counter()
        for gold, pred in inputs:
            score_instance(gold, pred, embedder)
        print(f"import {t_import:.2f} s, 24 cases {time.perf_counter() - t2:.2f} s "
              f"({embedder.stats.as_dict()})")
        return

    with tempfile.TemporaryDirectory() as tmp:
        encoder = MiniLMEncoder()
        t1 = time.perf_counter()
        encoder._load()
        t_load = time.perf_counter() - t1
        embedder = CachedEmbedder(encoder, Path(tmp) / "cache.sqlite")
        t2 = time.perf_counter()
        for gold, pred in inputs:
            score_instance(gold, pred, embedder)
        t_cold_score = time.perf_counter() - t2
        cold_stats = embedder.stats.as_dict()
        if args.cold_only:
            print(f"import {t_import:.2f} s, model load {t_load:.2f} s, 24 cases {t_cold_score:.2f} s")
            return

        # warm: the 24 cases again, model loaded and labels in the memory cache
        per_case = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            for gold, pred in inputs:
                score_instance(gold, pred, embedder)
            per_case.append((time.perf_counter() - t) / len(inputs))

        # warm: a 50-paper instance, in-memory cache populated
        gold, pred = next((g, p) for (g, p), c in zip(inputs, cases)
                          if c["id"] == 34 and c["perturbation"] == "model_prediction")
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            score_instance(gold, pred, embedder)
            times.append(time.perf_counter() - t)
        warm_stats = embedder.stats.as_dict()

        # disk cache: a new embedder over the same file (a second run of the tool)
        disk = CachedEmbedder(encoder, Path(tmp) / "cache.sqlite")
        t3 = time.perf_counter()
        for g, p in inputs:
            score_instance(g, p, disk)
        t_disk = time.perf_counter() - t3
        disk_stats = disk.stats.as_dict()

    n_papers = len(set(gold.all_papers()))
    print("| measurement | value |")
    print("| --- | --- |")
    print(f"| import scholarbench + deps | {t_import:.2f} s |")
    print(f"| load MiniLM from the package | {t_load:.2f} s |")
    print(f"| score 24 golden cases, empty caches (after model load) | {t_cold_score:.2f} s |")
    print(f"| **cold total: import + model load + 24 cases** | **{t_import + t_load + t_cold_score:.2f} s** |")
    print(f"| embedding cache after cold pass | {cold_stats['computed']} embedded, hit rate {cold_stats['hit_rate']:.1%} |")
    print(f"| **warm: the 24 golden cases again, per case (median of {args.repeats} passes)** | "
          f"**{statistics.median(per_case) * 1000:.2f} ms** (min {min(per_case) * 1000:.2f}, "
          f"max {max(per_case) * 1000:.2f}) |")
    print(f"| **warm: one {n_papers}-paper instance, all metrics (median of {args.repeats})** | "
          f"**{statistics.median(times) * 1000:.1f} ms** (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}) |")
    print(f"| embedding cache after warm passes | hit rate {warm_stats['hit_rate']:.1%} |")
    print(f"| 24 cases again from the disk cache (new process state) | {t_disk:.2f} s, "
          f"{disk_stats['disk_hits']} disk hits, {disk_stats['computed']} embedded |")


if __name__ == "__main__":
    main()
