"""SciNet on the arxiv-2023 graph: build the tasks, run every agent on every family, print the
table (Markdown) and the time each stage took.

    /work/venv/bin/python bench/bench_scinet.py [--out runs/bench-scinet] [--agents a,b]

Needs ../shared/data (arxiv2023_citation_graph, unarxive_sample) and, for `embedding`, the
MiniLM package (embeddings cached in the user cache dir after the first run).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from scholarbench.benchmarks.scinet.run import SciNetRunConfig, run_scinet
from scholarbench.benchmarks.scinet.env import SciNetEnv
from scholarbench.benchmarks.scinet.metrics import EGO_METRICS, PAIR_METRICS, PATH_METRICS
from scholarbench.benchmarks.scinet.records import write_tasks
from scholarbench.benchmarks.scinet.tasks import build_tasks

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="runs/bench-scinet")
    ap.add_argument("--agents", default="embedding,bm25,relation-aware")
    args = ap.parse_args()
    out = Path(args.out)
    t0 = time.perf_counter()
    env = SciNetEnv.from_arxiv2023(SHARED / "arxiv2023_citation_graph", SHARED / "unarxive_sample")
    t_env = time.perf_counter() - t0
    t0 = time.perf_counter()
    tasks = build_tasks(env)
    _ = env.populations
    t_tasks = time.perf_counter() - t0
    write_tasks(tasks, out / "tasks.jsonl")
    print(f"environment {t_env:.1f} s; tasks {t_tasks:.1f} s (incl. CD index + novelty): "
          f"{len(tasks)} tasks, {env.describe()}")
    results: dict[str, dict] = {}
    for agent in args.agents.split(","):
        for family in ("ego", "pair", "path"):
            t0 = time.perf_counter()
            summary = run_scinet(SciNetRunConfig(family=family, agent=agent,
                                                 out=out / f"{family}-{agent}",
                                                 tasks=out / "tasks.jsonl", env=env))
            dt = time.perf_counter() - t0
            results.setdefault(agent, {})[family] = summary["families"].get(family, {})
            print(f"{agent:15s} {family:5s} {dt:7.1f} s", flush=True)
    cols = EGO_METRICS + PAIR_METRICS + PATH_METRICS
    print("\n| agent | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for agent, fams in results.items():
        cells = []
        for m in cols:
            fam = "ego" if m in EGO_METRICS else "pair" if m in PAIR_METRICS else "path"
            e = fams.get(fam, {}).get(m)
            if not e or e["macro"] is None:
                cells.append("— (n=0)")
            else:
                cells.append(f"{e['macro']:.3f} (n={e['n']})")
        print(f"| {agent} | " + " | ".join(cells) + " |")
    (out / "table.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
