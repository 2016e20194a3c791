"""Benchmark: the default corpus — full build, file sizes, BM25 index builds, query latencies.

    python bench/bench_corpus.py [--data ../shared/data] [--queries 200] [--seed 0]

Builds the corpus from every source under --data into a temporary directory and prints a
Markdown table: build time and peak memory (resource.getrusage: ru_maxrss of this process),
Parquet sizes, the build time of each BM25 index (rebuilt from papers.parquet), search latency
p50 / p95 over N seeded title queries (titles of random corpus papers, k=100, with and without
filters), and the latency of each graph query over the same seeded papers.
"""
from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from pathlib import Path
from _timing import ms, timed, peak_mib  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from scholarbench.corpus.bm25 import BM25Index
    from scholarbench.corpus.build import build_default_corpus
    from scholarbench.corpus.schema import INDEX_DIRS, index_text
    from scholarbench.corpus.store import Corpus

    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "corpus"
        rss_before = peak_mib()
        t = time.perf_counter()
        info = build_default_corpus(out, args.data)
        rows.append(("full build (read, merge, link, write, both BM25 indices)",
                     f"{time.perf_counter() - t:.2f} s"))
        rows.append(("peak memory (max RSS of the process after the build)",
                     f"{peak_mib():.0f} MiB (before: {rss_before:.0f} MiB)"))
        rows.append(("papers / edges / paragraphs / ids",
                     f"{info.n_papers:,} / {info.n_edges:,} / {info.n_paragraphs:,} / "
                     f"{info.manifest['files']['ids.parquet']['rows']:,}"))
        for name, entry in info.manifest["files"].items():
            rows.append((f"size of {name}", f"{entry['bytes'] / 1e6:.2f} MB"))

        corpus = Corpus.open(out)
        rows_papers = corpus._con.execute(
            "SELECT title, abstract FROM papers ORDER BY paper_id").fetchall()
        for fields, dirname in INDEX_DIRS.items():
            texts = [title if fields == "title" else index_text(title, abstract or "")
                     for title, abstract in rows_papers]
            t = time.perf_counter()
            BM25Index.build(texts)
            rows.append((f"BM25 index build, {fields} ({len(texts):,} docs)",
                         f"{time.perf_counter() - t:.2f} s"))
            shutil.rmtree(out / dirname)
        t = time.perf_counter()
        corpus = Corpus.open(out)           # indices are loaded (or rebuilt) on first use:
        corpus.search_bm25("warm up", 1)    # rebuilds and saves the title+abstract index
        corpus.search_bm25("warm up", 1, fields="title")  # and the title index
        rows.append(("open, then a search on each index, both indices missing (rebuild + save)",
                     f"{time.perf_counter() - t:.2f} s"))
        t = time.perf_counter()
        corpus = Corpus.open(out)
        rows.append(("open (papers; the indices load on first search)",
                     f"{(time.perf_counter() - t) * 1e3:.0f} ms"))
        t = time.perf_counter()
        corpus.search_bm25("warm up", 1, fields="title")
        rows.append(("first search (loads the title index; bm25s imported before)",
                     f"{(time.perf_counter() - t) * 1e3:.0f} ms"))

        rng = random.Random(args.seed)
        ids = corpus._ids
        sample = [ids[i] for i in rng.sample(range(len(ids)), args.queries)]
        titles = [(r["title"],) for r in corpus.get_rows(sample)]
        for fields in ("title", "title+abstract"):
            corpus.search_bm25("warm up", 1, fields=fields)
            times = timed(lambda q, f=fields: corpus.search_bm25(q, 100, fields=f), titles)
            rows.append((f"search_bm25 k=100, {fields}: p50 / p95", f"{ms(times)} ms"))
        corpus.search_bm25("warm up", 1, fields="title", before="2020-01-01",
                           exclude_surveys=True)
        times = timed(lambda q: corpus.search_bm25(q, 100, fields="title", before="2020-01-01",
                                                    exclude_surveys=True), titles)
        rows.append(("search_bm25 k=100, title, before + exclude_surveys: p50 / p95",
                     f"{ms(times)} ms"))
        t = time.perf_counter()
        corpus.resolve(titles[0][0])
        rows.append(("first resolve (loads ids.parquet)",
                     f"{(time.perf_counter() - t) * 1e3:.0f} ms"))
        rows.append(("resolve(title): p50 / p95", f"{ms(timed(corpus.resolve, titles))} ms"))

        t = time.perf_counter()
        corpus.references(sample[0])
        rows.append(("first graph query (loads edges.parquet into memory)",
                     f"{(time.perf_counter() - t) * 1e3:.0f} ms"))
        per_pid = [(pid,) for pid in sample]
        for name, fn in (("references", corpus.references), ("citations", corpus.citations),
                         ("co_cited k=10", lambda p: corpus.co_cited(p, 10)),
                         ("coupled k=10", lambda p: corpus.coupled(p, 10)),
                         ("paragraphs", corpus.paragraphs)):
            rows.append((f"{name}: p50 / p95", f"{ms(timed(fn, per_pid))} ms"))
        hub = corpus.resolve("arXiv:1706.03762")
        if hub:  # "Attention Is All You Need": 766 citing papers
            for name, fn in (("co_cited", corpus.co_cited), ("coupled", corpus.coupled)):
                times = timed(lambda p, f=fn: f(p, 10), [(hub,)] * 20)
                rows.append((f"{name} k=10 of arXiv 1706.03762 (766 citers): p50 / p95",
                             f"{ms(times)} ms"))
        corpus.close()

    print(f"Corpus benchmark ({args.data}; {args.queries} seeded queries, seed {args.seed})\n")
    print("| measure | value |")
    print("| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
