"""Benchmark: the leakage audit's abstract spans (verbatim and fuzzy) on real papers
(docs/leakage.md, "Copied abstracts").

    python bench/bench_leakage_spans.py [--data ../shared/data]

The 49 papers of the shipped unarXive sample: each paper's body text against every *other*
paper's abstract (49 × 48 pairs: no copy, so every flag is a false positive), and against its
own abstract (authors often repeat their abstract in the introduction: flags there are real
copies). Printed per pairing: pairs flagged and words counted by the verbatim n-gram rule alone
and by the audit (verbatim + fuzzy), and the time.
"""
from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

from scholarbench.leakage.audit import SPAN, abstract_spans
from scholarbench.text.normalize import normalize_title

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def papers(data: Path) -> list[tuple[str, str]]:
    out = []
    with gzip.open(data / "unarxive_sample" / "arXiv_src_2212_086.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        for line in handle:
            d = json.loads(line)
            abstract = (d.get("abstract") or {}).get("text") or ""
            body = "\n".join(p.get("text", "") for p in d.get("body_text", []))
            out.append((abstract, body))
    return out


def verbatim_words(abstract: str, text: str) -> int:
    """Words in runs of SPAN words verbatim (the rule before fuzzy spans)."""
    source, words = normalize_title(abstract).split(), normalize_title(text).split()
    grams = {tuple(source[i:i + SPAN]) for i in range(len(source) - SPAN + 1)}
    covered = [False] * len(words)
    for i in range(len(words) - SPAN + 1):
        if tuple(words[i:i + SPAN]) in grams:
            covered[i:i + SPAN] = [True] * SPAN
    return sum(covered)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    items = papers(args.data)
    print(f"{'pairing':<22} {'pairs':>6} {'verbatim':>16} {'audit':>16} {'seconds':>8}")
    for name, pairs in (("other paper's abstract", [(i, j) for i in range(len(items))
                                                     for j in range(len(items)) if i != j]),
                        ("own abstract", [(i, i) for i in range(len(items))])):
        start = time.perf_counter()
        v_pairs = v_words = a_pairs = a_words = 0
        for i, j in pairs:
            abstract, body = items[j][0], items[i][1]
            v = verbatim_words(abstract, body)
            a = sum(len(s.split()) for s in abstract_spans(abstract, body))
            v_pairs, v_words = v_pairs + bool(v), v_words + v
            a_pairs, a_words = a_pairs + bool(a), a_words + a
        seconds = time.perf_counter() - start
        print(f"{name:<22} {len(pairs):>6} {v_pairs:>5} ({v_words:>5} w) "
              f"{a_pairs:>5} ({a_words:>5} w) {seconds:>8.1f}")


if __name__ == "__main__":
    main()
