"""Benchmark: the injection detector's recall on disguised orders and its false positives on
real academic text (docs/injection.md, "Disguises").

    python bench/bench_injection_detect.py [--data ../shared/data]

1. Recall per family of `injection.variants.VARIANTS` and of the held-out `HELD_OUT`, each
   variant read as an answer's labels (`scan_record`), and what the rules catch on the raw
   strings without the normalising views or decoding; then the same for issue 34's 35 plain
   orders and encodings (`injection.plain.PLAIN`: plain English, tx_inject id 28, verdict
   JSON, tag characters, HTML entities, hex, rot13, reversed, small caps, `|`/`()` leet).
2. False positives and time on real text: the 5,967 paragraphs of the shipped unarXive
   sample, the 4 shipped DeepSynth reports, the 15 deep-review source files.
"""
from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

from scholarbench.injection import HELD_OUT, RULES, VARIANTS, family_recall, find_injection
from scholarbench.injection.plain import PLAIN

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def raw_recall(variants: tuple = VARIANTS) -> dict[str, tuple[int, int]]:
    """The rules alone on each variant's strings joined, no views, no decoding."""
    def scan(record: dict) -> list[str]:
        parts = [c["name"] for c in record["hierarchy_tree"]["subtopics"]]
        return [n for n, r in RULES.items() if r.search(" ".join(parts))]
    return family_recall(scan, variants)


def real_texts(data: Path) -> dict[str, list[str]]:
    paragraphs = []
    with gzip.open(data / "unarxive_sample" / "arXiv_src_2212_086.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        for line in handle:
            paragraphs.extend(p.get("text", "") for p in json.loads(line).get("body_text", []))
    reports = [json.loads(x)["survey_result"] for x in
               (data / "deepsynth" / "example_gen_result.jsonl").read_text().splitlines()]
    review = data / "survey_source_deep_review"
    files = [f.read_text(encoding="utf-8") for d in ("content", "output")
             for f in sorted((review / d).iterdir()) if f.is_file()]
    return {"unarXive paragraphs": paragraphs, "DeepSynth reports": reports,
            "deep-review source files": files}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    now, held, raw = family_recall(), family_recall(variants=HELD_OUT), raw_recall()
    print(f"{'family':<16} {'raw rules':>10} {'detector':>10} {'held out':>10}")
    for family in dict.fromkeys([*now, *held]):
        (hit, n), h = now.get(family, (0, 0)), held.get(family, (0, 0))
        r = raw.get(family, (0, 0))[0]
        print(f"{family:<16} {r:>4} / {n:<3} {hit:>4} / {n:<3} {h[0]:>4} / {h[1]:<3}")
    total = [sum(x[i] for x in now.values()) for i in (0, 1)]
    print(f"{'all':<16} {sum(x[0] for x in raw.values()):>4} / {total[1]:<3} "
          f"{total[0]:>4} / {total[1]:<3} {sum(x[0] for x in held.values()):>4} / "
          f"{sum(x[1] for x in held.values()):<3}")
    print()
    plain, plain_raw = family_recall(variants=PLAIN), raw_recall(PLAIN)
    print(f"{'plain family':<16} {'raw rules':>10} {'detector':>10}")
    for family, (hit, n) in plain.items():
        print(f"{family:<16} {plain_raw[family][0]:>4} / {n:<3} {hit:>4} / {n:<3}")
    print(f"{'all':<16} {sum(x[0] for x in plain_raw.values()):>4} / {len(PLAIN):<3} "
          f"{sum(x[0] for x in plain.values()):>4} / {len(PLAIN):<3}")
    print()
    for name, texts in real_texts(args.data).items():
        start = time.perf_counter()
        flagged = [(hits, t[:160]) for t in texts if (hits := find_injection(t))]
        seconds = time.perf_counter() - start
        chars = sum(map(len, texts))
        print(f"{name}: {len(flagged)} of {len(texts):,} flagged; {chars:,} characters in "
              f"{seconds:.1f} s")
        for hits, head in flagged:
            print(f"   {hits}: {head!r}")


if __name__ == "__main__":
    main()
