"""Benchmark: the literature tools — latency per tool, over MCP, and under 8 concurrent sessions.

    python bench/bench_tools.py [--data ../shared/data] [--papers 1000000] [--refs 5]
        [--calls 300] [--sessions 8] [--seed 0] [--skip-real] [--skip-synthetic]

1. The default corpus (`build_default_corpus(--data)` into a temporary directory). A session
   under a ResearchArena-style rule (non-surveys before 2023-01-01, one paper hidden); `--calls`
   seeded calls per tool, latency p50 / p95 of `ToolSession.call` (validation, rule, recording
   included): search (BM25 over titles, k=10), get_paper by id and by exact title, references,
   citations, co_cited, coupled, citation_contexts (k=10, of seeded papers that have edges).
   Then search and get_paper through the MCP SDK's client over streamable HTTP on loopback
   (one server, one client session: the protocol's own cost on top).
2. A synthetic corpus of `--papers` papers (titles as bench_search_scale's Zipfian generator;
   years 1990-2024; 1 % flagged surveys) with `--refs` references per paper to earlier papers
   (preferential attachment: a heavy-tailed citation count), written as a corpus directory
   (papers, ids, edges Parquet; the BM25 index is built on first open, time given). The same
   per-tool latencies, in process.
3. Throughput: `--sessions` concurrent sessions (one thread each, each its own rule), every
   session making the same seeded mix of search / get_paper / references / citations calls;
   calls/s in all against one session alone, in process and over MCP HTTP (one server per
   session, all clients in one event loop).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

import numpy as np
from _timing import ms, peak_mib  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RULE_DAY = date(2023, 1, 1)


def call_latencies(session, calls) -> list[float]:
    from scholarbench.tools.session import ToolError
    out = []
    for name, args in calls:
        t = time.perf_counter()
        try:
            session.call(name, args)
        except ToolError:
            pass
        out.append(time.perf_counter() - t)
    return out


def workload(corpus, visible: np.ndarray, n: int, seed: int) -> dict[str, list]:
    """Seeded calls per tool on visible papers (graph tools: papers with references)."""
    rng = random.Random(seed)
    rows = np.flatnonzero(visible)
    picked = [corpus._ids[int(r)] for r in rng.sample(list(rows), min(n * 4, len(rows)))]
    papers = corpus.get_rows(picked)
    with_refs = [p["paper_id"] for p in papers if corpus.references(p["paper_id"])][:n] or \
        [p["paper_id"] for p in papers[:n]]
    titles = [p["title"] for p in papers[:n]]
    words = [w for t in titles for w in t.split() if len(w) > 3]
    queries = [" ".join(rng.sample(words, 3)) for _ in range(n)]
    graph = lambda tool: [(tool, {"paper": pid, "k": 10}) for pid in with_refs]  # noqa: E731
    return {
        "search (BM25, titles, k=10)": [("search", {"query": q, "k": 10}) for q in queries],
        "get_paper by id": [("get_paper", {"paper": p["paper_id"]}) for p in papers[:n]],
        "get_paper by exact title": [("get_paper", {"paper": t}) for t in titles],
        "references": graph("references"), "citations": graph("citations"),
        "co_cited (k=10)": graph("co_cited"), "coupled (k=10)": graph("coupled"),
        "citation_contexts (k=10)": [("citation_contexts", {"paper": pid, "k": 10})
                                     for pid in with_refs],
    }


def bench_corpus(label: str, corpus, rules, args, rows) -> dict[str, list]:
    from scholarbench.tools.session import ToolSession
    t = time.perf_counter()
    ToolSession(corpus, rules)
    first = time.perf_counter() - t
    later = []
    for i in range(5):
        t = time.perf_counter()
        ToolSession(corpus, rules.model_copy(update={"exclude_ids": (f"another {i}",)}))
        later.append(time.perf_counter() - t)
    session = ToolSession(corpus, rules)
    rows.append((f"{label}: session set-up, the first (reads every paper's date and the id "
                 f"table once) / later ones, p50 (a rule mask over {corpus.count():,} papers)",
                 f"{first * 1e3:.0f} / {sorted(later)[2] * 1e3:.1f} ms; "
                 f"{session.visible.count():,} visible"))
    calls = workload(corpus, session.visible.mask, args.calls, args.seed)
    for tool, batch in calls.items():
        call_latencies(session, batch[:5])                                # warm up
        rows.append((f"{label}: {tool}, {len(batch)} calls: p50 / p95",
                     f"{ms(call_latencies(session, batch))} ms"))
    return calls


def bench_mcp(corpus, rules, calls, rows) -> None:
    from mcp import Client
    from scholarbench.tools.mcp_server import HttpServer
    from scholarbench.tools.session import ToolSession
    session = ToolSession(corpus, rules)
    with HttpServer(session) as url:
        async def run(batch) -> list[float]:
            out = []
            async with Client(url) as client:
                for name, args in batch:
                    t = time.perf_counter()
                    await client.call_tool(name, args)
                    out.append(time.perf_counter() - t)
            return out
        for tool in ("search (BM25, titles, k=10)", "get_paper by id"):
            batch = calls[tool]
            rows.append((f"default corpus over MCP (streamable HTTP, loopback): {tool}: "
                         "p50 / p95", f"{ms(asyncio.run(run(batch)))} ms"))


def mixed(calls: dict[str, list], n: int, seed: int) -> list:
    keys = ["search (BM25, titles, k=10)", "get_paper by id", "references", "citations"]
    rng = random.Random(seed)
    return [rng.choice(calls[rng.choice(keys)]) for _ in range(n)]


def bench_concurrency(label: str, corpus, rules, calls, args, rows) -> None:
    from scholarbench.tools.session import ToolSession
    per = max(50, args.calls // 2)

    def in_process(n_sessions: int) -> float:
        sessions = [ToolSession(corpus, rules.model_copy(update={
            "exclude_ids": (f"x{i}",)})) for i in range(n_sessions)]
        batches = [mixed(calls, per, args.seed + i) for i in range(n_sessions)]
        threads = [threading.Thread(target=call_latencies, args=(s, b))
                   for s, b in zip(sessions, batches)]
        t = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        return n_sessions * per / (time.perf_counter() - t)

    def over_http(n_sessions: int) -> float:
        from mcp import Client
        from scholarbench.tools.mcp_server import HttpServer
        servers = [HttpServer(ToolSession(corpus, rules)) for _ in range(n_sessions)]
        urls = [s.start() for s in servers]
        batches = [mixed(calls, per, args.seed + i) for i in range(n_sessions)]

        async def one(url, batch):
            async with Client(url) as client:
                for name, a in batch:
                    await client.call_tool(name, a)

        async def main():
            await asyncio.gather(*(one(u, b) for u, b in zip(urls, batches)))
        try:
            t = time.perf_counter()
            asyncio.run(main())
            return n_sessions * per / (time.perf_counter() - t)
        finally:
            for s in servers:
                s.stop()
    for how, fn in (("in process", in_process), ("over MCP HTTP", over_http)):
        one, many = fn(1), fn(args.sessions)
        rows.append((f"{label}: mixed calls/s {how}, 1 session / {args.sessions} concurrent "
                     "sessions", f"{one:.0f} / {many:.0f} ({many / one:.2f}x)"))


def synthetic_corpus(out: Path, args) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from scholarbench.corpus.schema import EDGES_SCHEMA, IDS_SCHEMA, PAPERS_SCHEMA
    from scholarbench.text.normalize import normalize_title
    from bench_search_scale import synthetic_titles, vocabulary, zipf_sampler
    rng = np.random.default_rng(args.seed)
    vocab = vocabulary(50_000, rng)
    titles = synthetic_titles(args.papers, vocab, zipf_sampler(vocab, 1.0, rng), rng)
    n = args.papers
    ids = [f"syn:{i:08d}" for i in range(n)]
    years = np.sort(rng.integers(1990, 2025, size=n))          # paper i is no older than i-1
    norm = [normalize_title(t) for t in titles]
    survey = rng.random(n) < 0.01
    out.mkdir(parents=True)
    pq.write_table(pa.table({
        "paper_id": ids, "title": titles, "abstract": [""] * n, "norm_title": norm,
        "year": years.astype(np.int32), "published": pa.nulls(n, pa.date32()),
        "ids": [[i] for i in ids], "sources": [["synthetic"]] * n, "source": ["synthetic"] * n,
        "is_survey": survey, "category": pa.nulls(n, pa.string()), "stub": [False] * n},
        schema=PAPERS_SCHEMA), out / "papers.parquet")
    pq.write_table(pa.table({"key": ids + [f"title:{t}" for t in norm],
                             "paper_id": ids + ids}, schema=IDS_SCHEMA), out / "ids.parquet")
    # preferential attachment: each paper cites `refs` earlier papers, an earlier paper chosen
    # by uniform draw over the list of past edge endpoints (Price's model)
    targets: list[int] = []
    citing, cited = [], []
    for i in range(1, n):
        k = min(args.refs, i)
        chosen: set[int] = set()
        while len(chosen) < k:
            if targets and rng.random() < 0.8:
                chosen.add(targets[int(rng.integers(len(targets)))])
            else:
                chosen.add(int(rng.integers(i)))
        for j in chosen:
            citing.append(i)
            cited.append(j)
        targets.extend(chosen)
    order = np.lexsort((np.array(cited), np.array(citing)))
    c1, c2 = np.array(citing)[order], np.array(cited)[order]
    pq.write_table(pa.table({"citing": [ids[i] for i in c1], "cited": [ids[j] for j in c2],
                             "source": ["synthetic"] * len(c1)}, schema=EDGES_SCHEMA),
                   out / "edges.parquet")
    (out / "manifest.json").write_text(json.dumps({"format_version": 2, "n_papers": n,
                                                   "n_edges": int(len(c1))}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--refs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    from scholarbench.corpus.build import build_default_corpus
    from scholarbench.corpus.store import Corpus
    from scholarbench.tools.rules import AccessRules
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_real:
            build_default_corpus(Path(tmp) / "default", Path(args.data))
            corpus = Corpus.open(Path(tmp) / "default")
            rules = AccessRules(before=RULE_DAY, exclude_surveys=True,
                                exclude_ids=(corpus._ids[0],))
            calls = bench_corpus("default corpus", corpus, rules, args, rows)
            bench_mcp(corpus, rules, calls, rows)
            bench_concurrency("default corpus", corpus, rules, calls, args, rows)
            corpus.close()
        if not args.skip_synthetic:
            t = time.perf_counter()
            synthetic_corpus(Path(tmp) / "synthetic", args)
            rows.append((f"synthetic corpus: {args.papers:,} papers, {args.refs} references "
                         "each, written", f"{time.perf_counter() - t:.0f} s"))
            t = time.perf_counter()
            corpus = Corpus.open(Path(tmp) / "synthetic")
            rows.append(("synthetic corpus: first open (BM25 index built)",
                         f"{time.perf_counter() - t:.0f} s"))
            rules = AccessRules(before=date(2020, 1, 1), exclude_surveys=True,
                                exclude_ids=("syn:00000000",))
            calls = bench_corpus("synthetic 1M", corpus, rules, args, rows)
            bench_concurrency("synthetic 1M", corpus, rules, calls, args, rows)
    rows.append(("peak RSS of this process (ru_maxrss)", f"{peak_mib():.0f} MiB"))
    print("| measure | value |\n| --- | --- |")
    for key, value in rows:
        print(f"| {key} | {value} |")


if __name__ == "__main__":
    main()
