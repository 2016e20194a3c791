"""Benchmark: search at scale — BM25 over a synthetic 1M-paper corpus, dense and hybrid search
over the real default corpus, exact dense search over 1M synthetic vectors.

    python bench/bench_search_scale.py [--papers 1000000] [--vocab 50000] [--queries 1000]
        [--seed 0] [--data ../shared/data] [--dense-queries 200] [--dense-vectors 1000000]
        [--abstracts] [--skip-real] [--full-only] [--corpus DIR] [--full-papers 1000000]
        [--full-passes 3]

1. Synthetic corpus (generated in memory, never stored): `--papers` titles of 8-14 words drawn
   from a seeded Zipfian vocabulary (P(rank r) proportional to 1/r^`--zipf`, s=1.0) of
   `--vocab` words. Its head is real: ranks 1-14 are title words that are bm25s English
   stopwords (of, for, the, and, in, on, with, to, by, an, at, as, is, into), ranks 15-20 are
   frequent title words that are not (from, via, using, towards, through, based); the rest are
   unique random lower-case words with an English-like length distribution (2-15 letters,
   mean ~7.3). The project's `BM25Index` (corpus/bm25.py) is built over the titles and saved;
   the table gives build time, peak memory (ru_maxrss of this process), index size on disk,
   and top-k (k=100) query latency over `--queries` seeded queries of 3-8 words drawn from the
   same distribution, for `BM25Index.top` (what `Corpus.search_bm25` calls) and for the
   previous path (all scores, then a stable argsort). The issue's targets: query p50 < 5 ms,
   build < 10 min within 4 GB, at 1M papers.
2. Real corpus: `build_default_corpus(--data)` into a temporary directory, then the dense
   MiniLM index over titles (and, with --abstracts, title + abstract: much slower) built through
   a CachedEmbedder without disk cache, its size, the time to reopen it, and search_bm25 /
   search_dense / search_hybrid latency (k=100, hybrid depth 100) over `--dense-queries`
   seeded paper titles. Each timed pass uses a fresh query cache, so every query is embedded;
   the query embedding and the index search are also timed apart.
3. Exact dense search at scale: a faiss IndexFlatIP over `--dense-vectors` random unit vectors
   of 384 dims (MiniLM's size), search latency k=100 (0 skips).
4. Full search against its ranker (`--full-only` runs only this): `Corpus.search_bm25` over
   titles (what the `search` tool calls) against `BM25Index.top` alone (the ranker it calls)
   and against the previous path (the ranker, then the papers table in DuckDB scanned for the
   hits' paper_ids: `SELECT * FROM papers WHERE paper_id = ANY(?)`), on the default corpus
   (`--corpus DIR`, else built from `--data`) and on a synthetic corpus of `--full-papers`
   titles (bench_tools' writer, no edges; 0 skips). Queries: `--dense-queries` seeded paper
   titles; the ranker and search_bm25 are timed one after the other on each query, so load
   hits them alike, over `--full-passes` passes (3; the first touches of a large table are
   slow on this VM), then the previous path over the same queries once;
   k = 100 and k = 11 (the tool's default page of 10, plus one). Ratios are of p50s. Memory:
   the papers as the Arrow table the lookups take rows from, against the previous in-memory
   DuckDB table (`duckdb_memory()`), and the process's RSS growth at open.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import ms, timed, peak_mib, dir_mb  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
STOP_HEAD = ["of", "for", "the", "and", "in", "on", "with", "to", "by", "an", "at", "as", "is",
             "into"]
COMMON_HEAD = ["from", "via", "using", "towards", "through", "based"]
# word length -> weight (English running text, roughly; title words run a little longer)
LENGTHS = {2: 2, 3: 5, 4: 9, 5: 11, 6: 12, 7: 13, 8: 12, 9: 10, 10: 8, 11: 6, 12: 4, 13: 3,
           14: 2, 15: 1}


def vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    head = STOP_HEAD + COMMON_HEAD
    words: list[str] = list(head)
    seen = set(words)
    lengths, weights = zip(*LENGTHS.items())
    p = np.asarray(weights, dtype=float) / sum(weights)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    while len(words) < size:
        n = size - len(words)
        for length in rng.choice(lengths, size=n, p=p):
            word = "".join(rng.choice(letters, size=int(length)))
            if word not in seen:
                seen.add(word)
                words.append(word)
    return np.array(words[:size], dtype=object)


def zipf_sampler(vocab: np.ndarray, s: float, rng: np.random.Generator):
    p = 1.0 / np.arange(1, len(vocab) + 1) ** s
    cdf = np.cumsum(p / p.sum())
    cdf[-1] = 1.0

    def draw(n: int) -> np.ndarray:
        return np.searchsorted(cdf, rng.random(n), side="right")
    return draw


def synthetic_titles(n: int, vocab: np.ndarray, draw, rng: np.random.Generator,
                     lo: int = 8, hi: int = 14) -> list[str]:
    lengths = rng.integers(lo, hi + 1, size=n)
    ids = draw(int(lengths.sum()))
    words = vocab[ids]
    ends = np.cumsum(lengths)
    starts = ends - lengths
    return [" ".join(words[a:b]) for a, b in zip(starts.tolist(), ends.tolist())]


def bench_synthetic(args, rows: list[tuple[str, str]]) -> None:
    from scholarbench.corpus.bm25 import BM25Index

    rng = np.random.default_rng(args.seed)
    t = time.perf_counter()
    vocab = vocabulary(args.vocab, rng)
    draw = zipf_sampler(vocab, args.zipf, rng)
    titles = synthetic_titles(args.papers, vocab, draw, rng)
    n_tokens = sum(t.count(" ") + 1 for t in titles)
    rows.append((f"synthetic corpus: {args.papers:,} titles, {n_tokens:,} words, vocabulary "
                 f"{args.vocab:,}, Zipf s={args.zipf}",
                 f"generated in {time.perf_counter() - t:.1f} s"))
    rss_before = peak_mib()
    t = time.perf_counter()
    index = BM25Index.build(titles)
    build_s = time.perf_counter() - t
    rows.append(("BM25 build (BM25Index.build: tokenise + index)", f"{build_s:.1f} s"))
    rows.append(("peak RSS after the BM25 build (ru_maxrss)",
                 f"{peak_mib():.0f} MiB (after generating the titles: {rss_before:.0f} MiB)"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bm25"
        t = time.perf_counter()
        index.save(out, "synthetic")
        rows.append(("BM25 index size on disk (save time)",
                     f"{dir_mb(out):.0f} MB ({time.perf_counter() - t:.1f} s)"))
        t = time.perf_counter()
        index = BM25Index.load(out, "synthetic", len(titles))
        rows.append(("BM25 index load", f"{time.perf_counter() - t:.2f} s"))
    del titles

    qrng = np.random.default_rng(args.seed + 1)
    queries = [(" ".join(vocab[draw(int(qrng.integers(3, 9)))]),) for _ in range(args.queries)]
    index.top("warm up", 1)
    times = timed(lambda q: index.top(q, args.k), queries)
    rows.append((f"BM25 query, BM25Index.top k={args.k} ({args.queries:,} queries of 3-8 words): "
                 "p50 / p95", f"{ms(times)} ms"))
    hits = [len(index.top(q, args.k)[0]) for (q,) in queries[:100]]
    rows.append(("  queries (of the first 100) returning k results", f"{sum(h == args.k for h in hits)}"))
    keep = np.random.default_rng(args.seed + 2).random(index.n_docs) < 0.5
    times = timed(lambda q: index.top(q, args.k, keep), queries)
    rows.append(("BM25 query with a filter mask (half the rows), k=100: p50 / p95",
                 f"{ms(times)} ms"))
    times = timed(lambda q: index.scores(q), queries)
    rows.append(("  of which BM25Index.scores (every document's score): p50 / p95",
                 f"{ms(times)} ms"))

    def old(q: str) -> list[int]:
        scores = index.scores(q)
        order = np.argsort(-scores, kind="stable")
        return [int(r) for r in order[:args.k] if scores[r] > 0]
    few = queries[:200]
    times = timed(old, few)
    rows.append(("previous path (scores, then stable argsort of all rows), 200 queries: "
                 "p50 / p95", f"{ms(times)} ms"))
    same = all(old(q) == index.top(q, args.k)[0].tolist() for (q,) in few)
    rows.append(("  same rows as BM25Index.top on those 200 queries", str(same)))


def bench_real(args, rows: list[tuple[str, str]]) -> None:
    from scholarbench.corpus.build import build_default_corpus
    from scholarbench.corpus.dense import DENSE_DIRS
    from scholarbench.corpus.store import Corpus
    from scholarbench.embed import CachedEmbedder, MiniLMEncoder

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "corpus"
        t = time.perf_counter()
        info = build_default_corpus(out, args.data)
        rows.append((f"default corpus build ({args.data})",
                     f"{time.perf_counter() - t:.1f} s, {info.n_papers:,} papers"))
        corpus = Corpus.open(out)
        encoder = MiniLMEncoder()
        encoder.encode(["warm up"])  # load the model outside the timings
        field_list = ["title", "title+abstract"] if args.abstracts else ["title"]
        for fields in field_list:
            t = time.perf_counter()
            index = corpus.dense_index(fields, CachedEmbedder(encoder))
            rows.append((f"dense build, {fields} (MiniLM, {index.count:,} papers, batches of "
                         "1,024)", f"{time.perf_counter() - t:.1f} s (rebuilt: {index.rebuilt})"))
            rows.append((f"dense index size on disk, {fields}",
                         f"{dir_mb(out / DENSE_DIRS[fields]):.1f} MB"))
        rows.append(("peak RSS after the dense build(s)", f"{peak_mib():.0f} MiB"))
        t = time.perf_counter()
        corpus = Corpus.open(out)
        index = corpus.dense_index("title", CachedEmbedder(encoder))
        rows.append(("reopen corpus + load dense index (title)",
                     f"{(time.perf_counter() - t) * 1e3:.0f} ms (rebuilt: {index.rebuilt})"))

        rng = random.Random(args.seed)
        ids = corpus._ids
        sample = [ids[i] for i in rng.sample(range(len(ids)), args.dense_queries)]
        titles = [(r["title"],) for r in corpus.get_rows(sample)]
        n = f"{len(titles)} seeded titles, k={args.k}"
        corpus.search_bm25("warm up", 1, fields="title")
        times = timed(lambda q: corpus.search_bm25(q, args.k, fields="title"), titles)
        rows.append((f"search_bm25, title ({n}): p50 / p95", f"{ms(times)} ms"))
        for fields in field_list:
            emb = CachedEmbedder(encoder)
            times = timed(lambda q, f=fields, e=emb: corpus.search_dense(q, args.k, e, fields=f),
                           titles)
            rows.append((f"search_dense, {fields} ({n}; query embedded): p50 / p95",
                         f"{ms(times)} ms"))
        emb = CachedEmbedder(encoder)
        times = timed(lambda q: emb.embed([q]), titles)
        rows.append(("  of which: embedding the query (MiniLM, CPU): p50 / p95", f"{ms(times)} ms"))
        vectors = [(index.query_vector(q, emb),) for (q,) in titles]
        times = timed(lambda v: index.search(v, args.k), vectors)
        rows.append(("  of which: exact index search (DenseIndex.search): p50 / p95", f"{ms(times)} ms"))
        emb = CachedEmbedder(encoder)
        times = timed(lambda q: corpus.search_hybrid(q, args.k, emb), titles)
        rows.append((f"search_hybrid, title, depth 100, RRF k=60 ({n}; query embedded): "
                     "p50 / p95", f"{ms(times)} ms"))
        emb = CachedEmbedder(encoder)
        times = timed(lambda q: corpus.search_hybrid(q, args.k, emb, before="2020-01-01",
                                                      exclude_surveys=True), titles)
        rows.append(("search_hybrid + before + exclude_surveys: p50 / p95", f"{ms(times)} ms"))
        corpus.close()


def bench_dense_vectors(args, rows: list[tuple[str, str]]) -> None:
    from scholarbench.corpus.dense import DenseIndex, normalize
    import faiss

    rng = np.random.default_rng(args.seed)
    n, dim = args.dense_vectors, 384
    index = faiss.IndexFlatIP(dim)
    for start in range(0, n, 100_000):
        index.add(normalize(rng.standard_normal((min(100_000, n - start), dim),
                                                dtype=np.float32)))
    dense = DenseIndex(index, {})
    queries = [(normalize(rng.standard_normal((1, dim), dtype=np.float32)),) for _ in range(100)]
    times = timed(lambda v: dense.search(v, args.k), queries)
    rows.append((f"exact dense search (DenseIndex.search) over {n:,} random 384-d vectors "
                 f"({n * dim * 4 / 2**20:.0f} MiB), k={args.k}, 100 queries: p50 / p95",
                 f"{ms(times)} ms"))
    keep = rng.random(n) < 0.5
    times = timed(lambda v: dense.search(v, args.k, keep), queries)
    rows.append(("  the same with a filter mask (half the rows): p50 / p95", f"{ms(times)} ms"))
    times = timed(lambda v: index.search(v, args.k), queries[:30])
    rows.append((f"  faiss IndexFlatIP.search, one query at a time ({faiss.omp_get_max_threads()}"
                 " threads), 30 queries: p50 / p95", f"{ms(times)} ms"))
    rows.append(("peak RSS at the end", f"{peak_mib():.0f} MiB"))


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def previous_search(corpus):
    """search_bm25's previous path (before issue 24): the same ranker, then a scan of the papers
    table in DuckDB for the hits' paper_ids. Returns (search function, table MiB)."""
    import duckdb
    from scholarbench.records import Paper
    con = duckdb.connect()
    con.execute("CREATE TABLE papers AS SELECT * FROM read_parquet(?) ORDER BY paper_id",
                [str(corpus.directory / "papers.parquet")])
    mib = con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0] / 2**20

    def search(query: str, k: int) -> list:
        rows, scores = corpus._index("title").top(query, k)
        wanted = [corpus._ids[int(row)] for row in rows]
        if not wanted:
            return []
        cur = con.execute("SELECT * FROM papers WHERE paper_id = ANY(?::VARCHAR[])", [wanted])
        names = [d[0] for d in cur.description]
        found = {row[0]: dict(zip(names, row)) for row in cur.fetchall()}
        return [(Paper(title=r["title"], abstract=r["abstract"] or "", paper_id=r["paper_id"],
                       year=r["year"], source=r["source"]), float(s))
                for r, s in zip((found[i] for i in wanted), scores)]
    return search, mib


def bench_full(label: str, directory: Path, args, rows: list[tuple[str, str]]) -> None:
    import gc
    from scholarbench.corpus.store import Corpus
    corpus = Corpus.open(directory)
    t = time.perf_counter()
    rebuilt = corpus._index("title") and corpus._rebuilt["title"]
    built = time.perf_counter() - t
    corpus.close()
    del corpus
    gc.collect()
    before = rss_mib()                 # as a server finds it: the index saved beforehand
    t = time.perf_counter()
    corpus = Corpus.open(directory)
    opened = time.perf_counter() - t
    grown = rss_mib() - before
    t = time.perf_counter()
    index = corpus._index("title")
    loaded = time.perf_counter() - t
    rows.append((f"{label}: {corpus.count():,} papers; open / title index load (build)",
                 f"{opened * 1e3:.0f} ms (RSS +{grown:.0f} MiB) / {loaded:.2f} s "
                 f"({f'{built:.0f} s' if rebuilt else 'saved'})"))
    old, old_mib = previous_search(corpus)
    rows.append((f"{label}: papers in memory, Arrow table (row lookups) / previous DuckDB table",
                 f"{corpus._table.nbytes / 2**20:.0f} MiB / {old_mib:.0f} MiB"))
    rng = random.Random(args.seed)
    sample = rng.sample(range(corpus.count()), args.dense_queries)
    queries = [r["title"] for r in corpus.get_rows([corpus._ids[i] for i in sample])]
    for k in (100, 11):
        for q in queries[:5]:                                        # warm up
            corpus.search_bm25(q, k, fields="title")
            old(q, k)
        ranker, full = [], []
        for _ in range(args.full_passes):
            for q in queries:
                ranker += timed(lambda: index.top(q, k), [()])
                full += timed(lambda: corpus.search_bm25(q, k, fields="title"), [()])
        # apart: its DuckDB scans run on every core and leave the caches cold for the next call
        prev = timed(lambda q: old(q, k), [(q,) for q in queries])
        same = all(corpus.search_bm25(q, k, fields="title") == old(q, k) for q in queries)
        p50 = {name: statistics.median(v) for name, v in
               (("ranker", ranker), ("full", full), ("prev", prev))}
        rows.append((f"{label}, k={k} ({len(queries)} title queries, {args.full_passes} passes; "
                     "previous path: 1): ranker (BM25Index.top) / search_bm25 / previous path, "
                     "p50 ms",
                     f"{p50['ranker'] * 1e3:.2f} / {p50['full'] * 1e3:.2f} / "
                     f"{p50['prev'] * 1e3:.2f}"))
        rows.append((f"{label}, k={k}: full search / ranker (previous path / ranker); "
                     "same results as the previous path",
                     f"**{p50['full'] / p50['ranker']:.2f}x** "
                     f"({p50['prev'] / p50['ranker']:.2f}x); {same}"))
    corpus.close()


def full_search(args, rows: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(args.corpus) if args.corpus else Path(tmp) / "default"
        if not args.corpus:
            from scholarbench.corpus.build import build_default_corpus
            build_default_corpus(directory, args.data)
        bench_full("default corpus", directory, args, rows)
        if args.full_papers > 0:
            from bench_tools import synthetic_corpus
            t = time.perf_counter()
            synthetic_corpus(Path(tmp) / "synthetic", argparse.Namespace(
                papers=args.full_papers, refs=0, seed=args.seed))
            rows.append((f"synthetic corpus for full search: {args.full_papers:,} titles, "
                         "written", f"{time.perf_counter() - t:.0f} s"))
            bench_full(f"synthetic {args.full_papers:,}", Path(tmp) / "synthetic", args, rows)
    rows.append(("peak RSS at the end (ru_maxrss)", f"{peak_mib():.0f} MiB"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--vocab", type=int, default=50_000)
    parser.add_argument("--zipf", type=float, default=1.0)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--dense-queries", type=int, default=200)
    parser.add_argument("--dense-vectors", type=int, default=1_000_000)
    parser.add_argument("--abstracts", action="store_true",
                        help="also build and time the title+abstract dense index")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--full-only", action="store_true",
                        help="only section 4: full search against its ranker")
    parser.add_argument("--corpus", help="a built default corpus for section 4")
    parser.add_argument("--full-papers", type=int, default=1_000_000)
    parser.add_argument("--full-passes", type=int, default=3)
    args = parser.parse_args()

    rows: list[tuple[str, str]] = []
    if not args.full_only:
        bench_synthetic(args, rows)
        if not args.skip_real:
            bench_real(args, rows)
        if args.dense_vectors > 0:
            bench_dense_vectors(args, rows)
    full_search(args, rows)
    import bm25s
    import faiss
    print(f"Search scale benchmark (seed {args.seed}; bm25s {bm25s.__version__}, faiss "
          f"{faiss.__version__}, numpy {np.__version__})\n")
    print("| measure | value |")
    print("| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
