"""Benchmark: the cost of scoring one agent output at the default output limits (docs/limits.md).

    python bench/bench_limits.py [--data ../shared/data]

Each case runs `scholarbench score …` on one hostile prediction in a fresh process and reports
wall time and peak memory (the child's max RSS), beside the same command on a small prediction:

- TaxoBench (`score taxobench`, the 5 shipped instances, MiniLM embeddings):
  a tree of exactly 1,000 nodes (a root with 999 children) with distinct 500-character
  labels; a tree placing 10,000 papers of 500-character titles; the issue's case — one node
  with 10,000 children — refused as oversized;
- ReportBench (`score reportbench`, the shipped ground truth, no corpus): a 1,000,000-byte
  report citing 10,000 references of 500 characters; the same report at 50 MB (refused).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def label(rng: random.Random, n: int) -> str:
    words = ["graph", "neural", "retrieval", "survey", "model", "learning", "agent", "data",
             "language", "vision", "causal", "robust", "sparse", "memory", "search", "plan"]
    out = []
    while sum(len(w) + 1 for w in out) < n:
        out.append(rng.choice(words))
    return " ".join(out)[:n]


def taxo_cases(gold: Path, tmp: Path) -> list[tuple[str, list[str]]]:
    rng = random.Random(0)
    first = json.loads(gold.read_text().splitlines()[0])["id"]
    preds = {
        "small (11 nodes)": {"name": "root", "children": [
            {"name": label(rng, 30), "papers": [label(rng, 80)]} for _ in range(10)]},
        "1,000 nodes × 500-char labels": {"name": label(rng, 500), "children": [
            {"name": f"{i} " + label(rng, 490)} for i in range(999)]},
        "10,000 papers × 500-char titles": {"name": "root", "children": [
            {"name": f"c{j}", "papers": [f"{j}.{i} " + label(rng, 490) for i in range(100)]}
            for j in range(100)]},
        "10,000 children (refused)": {"name": "root", "children": [
            {"name": f"c{i}"} for i in range(10_000)]},
    }
    cases = []
    for i, (name, tree) in enumerate(preds.items()):
        path = tmp / f"taxo{i}.jsonl"
        path.write_text(json.dumps({"id": first, "hierarchy_tree": tree}) + "\n")
        cases.append((f"TaxoBench: {name}", ["score", "taxobench", "--gold", str(gold),
                                              "--pred", str(path), "--out",
                                              str(tmp / f"taxo{i}.out"), "--no-llm-cache"]))
    return cases


def report_cases(gt_dir: Path, tmp: Path) -> list[tuple[str, list[str]]]:
    rng = random.Random(1)
    survey = sorted(gt_dir.glob("*.jsonl"))[0].stem
    paragraph = " ".join(label(rng, 200) + f" [{i}]." for i in range(5))
    reports = {
        "small (10 KB, 20 cited)": ("\n\n".join([paragraph] * 10),
                                    [label(rng, 80) for _ in range(20)]),
        "1 MB report, 10,000 cited × 500 chars": (
            ("\n\n".join([paragraph] * 2000))[:1_000_000],
            [f"{i} " + label(rng, 490) for i in range(10_000)]),
        "50 MB report (refused)": ("x" * 50_000_000, []),
    }
    cases = []
    for i, (name, (report, cited)) in enumerate(reports.items()):
        path = tmp / f"rb{i}.jsonl"
        path.write_text(json.dumps({"id": survey, "report": report, "cited": cited}) + "\n")
        cases.append((f"ReportBench: {name}", ["score", "reportbench", "--gt-dir", str(gt_dir),
                                                "--pred", str(path), "--out",
                                                str(tmp / f"rb{i}.out")]))
    return cases


CHILD = ("import resource, sys\n"
         "from scholarbench.cli import main\n"
         "code = main(sys.argv[1:])\n"
         "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
         "sys.exit(code)\n")


def measure(argv: list[str], cache: Path) -> tuple[float, float, str]:
    """Wall seconds, the child's own peak RSS in MiB (Linux: KiB), and what it reported; each
    case with an empty cache directory (no embedding computed earlier is reused)."""
    cache.mkdir()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True,
                          env={**os.environ, "SCHOLARBENCH_CACHE": str(cache)})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    peak = int(done.stderr.rsplit("MAXRSS", 1)[1].split()[0]) / 1024
    status = "oversized" if "oversized" in done.stdout else "scored"
    return seconds, peak, status


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cases = (taxo_cases(args.data / "taxobench" / "taxobench_5_instances.jsonl", tmp)
                 + report_cases(args.data / "reportbench" / "ReportBench_v1.1_GT", tmp))
        print(f"{'case':<52} {'seconds':>8} {'peak MiB':>9}  status")
        for i, (name, argv) in enumerate(cases):
            seconds, peak, status = measure(argv, tmp / f"cache{i}")
            print(f"{name:<52} {seconds:>8.2f} {peak:>9.0f}  {status}")


if __name__ == "__main__":
    main()
