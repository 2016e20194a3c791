"""Benchmark: ReportBench report parsing throughput on 100 long synthetic reports.

    python bench/bench_reportbench_parsing.py [--reports 100] [--refs 150] [--seed 0]

Each report is generated (nothing stored): 20 sections of prose, every sentence citing by a
numbered marker, an author-year citation, an inline URL, a DOI or an arXiv id, then a
bibliography of `--refs` entries in mixed styles (APA, ACL, IEEE, Vancouver, Markdown link,
bare URL), with titles drawn from the real ReportBench GT when ../shared is present (else
synthetic). Stages timed per report: `parse_report` (extraction only); `extract_references`
without a corpus (parse + resolve); and `score_reportbench_files` over all reports against
the real GT (read, parse, resolve, match, write). Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import ms, peak_mib, timed  # noqa: E402

SHARED_RB = Path(__file__).resolve().parents[2] / "shared" / "data" / "reportbench"
WORDS = ("graph neural network attention model learning representation robust adversarial "
         "training data method benchmark evaluation results transformer retrieval survey "
         "approach framework task performance").split()
SURNAMES = ["Smith", "Lee", "Kim", "Garcia", "Müller", "Chen", "Wang", "Okafor", "Rossi", "Novak"]


def _sentence(rng: random.Random, n: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return words[0].capitalize() + " " + " ".join(words[1:])


def _entry(rng: random.Random, i: int, title: str) -> str:
    a, b = rng.sample(SURNAMES, 2)
    year = rng.randint(2005, 2024)
    arxiv = f"{rng.randint(15, 24):02d}{rng.randint(1, 12):02d}.{rng.randint(0, 99999):05d}"
    style = i % 6
    if style == 0:
        return (f"[{i}] {a}, J., & {b}, K. ({year}). {title}. In Proc. Venue. "
                f"https://arxiv.org/abs/{arxiv}.")
    if style == 1:
        return f"[{i}] John {a} and Kim {b}. {year}. {title}. In Proceedings of Venue, pages 1–9."
    if style == 2:
        return (f'[{i}] J. {a} and K. {b}, "{title}," in Proc. Venue, {year}, '
                f"doi:10.{1000 + i}/v{i}.")
    if style == 3:
        return f"[{i}] {a} J, {b} K. {title}. J Venue. {year};{i}:1-9."
    if style == 4:
        return f"[{i}] [{title} - arXiv](https://arxiv.org/abs/{arxiv}v2)"
    return f"[{i}] https://example.org/papers/{i}?ref=survey&utm_source=bench"


def make_report(rng: random.Random, titles: list[str], n_refs: int) -> str:
    chosen = [rng.choice(titles) for _ in range(n_refs)]
    parts = ["# A synthetic survey\n"]
    for s in range(20):
        parts.append(f"\n## {s + 1}. Section {s + 1}\n")
        for _ in range(12):
            k = rng.randint(1, n_refs)
            kind = rng.randrange(6)
            cite = {0: f"[{k}]", 1: f"[{k}, {min(n_refs, k + 2)}]",
                    2: f"({rng.choice(SURNAMES)} et al., {rng.randint(2005, 2024)})",
                    3: f"(https://arxiv.org/abs/{rng.randint(15, 24)}01."
                       f"{rng.randint(0, 99999):05d}).",
                    4: f"doi:10.{rng.randint(1000, 9999)}/x{rng.randint(0, 999)}.",
                    5: f"[{k}-{min(n_refs, k + 3)}]"}[kind]
            parts.append(f"{_sentence(rng)} {cite} {_sentence(rng, 10)}.")
    parts.append("\n## References\n")
    parts += [_entry(rng, i + 1, t) for i, t in enumerate(chosen)]
    return "\n".join(parts) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reports", type=int, default=100)
    parser.add_argument("--refs", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from scholarbench.benchmarks.reportbench import (extract_references, load_ground_truth,
                                                     parse_report, score_reportbench_files)

    rng = random.Random(args.seed)
    gt = load_ground_truth(SHARED_RB) if SHARED_RB.is_dir() else {}
    surveys = sorted(gt)
    titles = [r.title for refs in gt.values() for r in refs] or [
        _sentence(rng, 8) for _ in range(5000)]
    t0 = time.perf_counter()
    reports = [make_report(random.Random(args.seed * 1000 + i),
                           [r.title for r in gt[surveys[i % len(surveys)]]] if gt else titles,
                           args.refs) for i in range(args.reports)]
    t_gen = time.perf_counter() - t0
    total_mb = sum(len(r.encode()) for r in reports) / 1e6

    parse_report(reports[0])                              # warm regex caches
    t_parse = timed(parse_report, [(r,) for r in reports])
    n_refs = sum(len(parse_report(r)) for r in reports)
    t_extract = timed(extract_references, [(r,) for r in reports])

    rows = [("parse_report", t_parse), ("extract_references (no corpus)", t_extract)]
    score_line = None
    if gt:
        with tempfile.TemporaryDirectory() as tmp:
            pred = Path(tmp) / "pred.jsonl"
            pred.write_text("".join(json.dumps({"arxiv_id": surveys[i % len(surveys)],
                                                "report": r}) + "\n"
                                    for i, r in enumerate(reports)), encoding="utf-8")
            t = time.perf_counter()
            summary = score_reportbench_files(SHARED_RB, pred, Path(tmp) / "scores.jsonl")
            score_line = (time.perf_counter() - t, summary)

    print(f"{args.reports} synthetic reports, {total_mb:.1f} MB in all "
          f"({total_mb * 1e3 / args.reports:.0f} kB each, {args.refs}-entry bibliographies); "
          f"generated in {t_gen:.2f} s; {n_refs} references found in all\n")
    print("| stage | total s | per report p50 / p95 ms | MB/s | reports/s |")
    print("|---|---:|---:|---:|---:|")
    for name, times in rows:
        total = sum(times)
        print(f"| {name} | {total:.2f} | {ms(times)} | {total_mb / total:.1f} | "
              f"{len(times) / total:.1f} |")
    if score_line:
        seconds, summary = score_line
        print(f"| score_reportbench_files (100 GT surveys, real GT) | {seconds:.2f} | — | "
              f"{total_mb / seconds:.1f} | {args.reports / seconds:.1f} |")
        print(f"\nscoring check: mean ref_precision {summary['means']['ref_precision']:.3f}, "
              f"ref_recall {summary['means']['ref_recall']:.3f}, "
              f"ref_count {summary['means']['ref_count']:.1f}")
    print(f"peak RSS {peak_mib():.0f} MiB")


if __name__ == "__main__":
    main()
