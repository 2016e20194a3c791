"""Benchmark: scientometrics engine — CD index and novelty on the arxiv-2023 graph (DuckDB and
Spark local), a synthetic 10M-edge graph (DuckDB), and OpenAlex ingestion.

    python bench/bench_graph.py [--data ../shared/data] [--skip-spark] [--skip-synthetic]
                                [--synthetic-edges 10000000] [--randomisations 10]

Every case runs in a fresh child process, so "peak MiB" is that process's peak resident memory
(ru_maxrss; it includes loading the graph) plus, for Spark, the JVM's peak (VmHWM). Times are
wall-clock seconds: "load" registers the graph's tables in the engine (and builds the clean edge
table), "run" is the measure's query (novelty: + the numpy randomisation). Prints a Markdown table
and the extrapolation to an OpenAlex-size graph.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic_graph import coupled_rows, synthetic_graph  # noqa: E402  (the scale bench's model)
OPENALEX_WORKS = 270e6      # OpenAlex works (SciNet: 269,091,010 in the 2025-07-07 snapshot)
OPENALEX_EDGES = 2.5e9      # ASSUMED referenced_works links (S2AG: 2.4e9 for 214M papers)


def peak_mib(java_pid: int | None = None) -> float:
    mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if java_pid:
        for line in Path(f"/proc/{java_pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                mib += int(line.split()[1]) / 1024
    return mib


def child(case: dict) -> dict:
    """Run one case in this process and return its figures."""
    import numpy as np
    from scholarbench.graph import arxiv2023_graph, cd_sql, disruption, randomise
    from scholarbench.graph import sql
    from scholarbench.graph.engine import DuckDBEngine, SparkEngine, load_graph
    from scholarbench.graph.randomise import nets_table
    t = time.perf_counter()
    if case["graph"] == "arxiv-2023":
        g = arxiv2023_graph(Path(case["data"]) / "arxiv2023_citation_graph")
    else:
        g = synthetic_graph(case["edges"])
    t_graph = time.perf_counter() - t
    java = None
    if case["engine"] == "spark":
        engine = SparkEngine()
        java = engine.spark.sparkContext._gateway.proc.pid
    else:
        engine = DuckDBEngine()
    t = time.perf_counter()
    load_graph(engine, g)
    t_load = time.perf_counter() - t
    out = {"papers": g.n_papers, "edges": g.n_edges, "graph_s": t_graph, "load_s": t_load}
    runs = []
    for _ in range(case.get("repeat", 1)):
        t = time.perf_counter()
        if case["measure"] in ("cd", "scinet", "cd_approx", "scinet_upstream"):
            d = disruption(g, variant=case["measure"], window=case.get("window"), engine=engine)
            defined = np.isfinite(d.values).sum()
        elif case["measure"] in ("scan", "floor"):
            query = cd_sql.scan() if case["measure"] == "scan" else cd_sql.floor(None)
            defined = engine.query(query).num_rows
        else:
            n = case["randomisations"]
            rand = randomise(g, n, seed=0)
            out["randomise_s"] = time.perf_counter() - t
            engine.register("nets", nets_table(g, rand))
            defined = engine.query(sql.novelty(n, True, 10)).num_rows
        runs.append(time.perf_counter() - t)
    out["defined"] = int(defined)
    out["runs"] = runs
    out["run_s"] = min(runs)
    out["peak_mib"] = peak_mib(java)
    out["W"] = coupled_rows(g)[0]
    engine.close()
    return out


def ingest_rate(data: Path, copies: int = 40) -> dict:
    """OpenAlex ingestion: the sample Works written `copies` times into one gzipped JSON-lines
    part (ids renumbered), then ingested; works/s and input MB/s."""
    import gzip
    from scholarbench.graph import ingest_openalex
    page = json.loads((data / "openalex_samples" / "api_page_50works.json").read_text())
    works = page["results"]
    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / "part_000.gz"
        with gzip.open(part, "wt", encoding="utf-8") as fh:
            for k in range(copies):
                for i, w in enumerate(works):
                    fh.write(json.dumps(dict(w, id=f"W{k * 1000 + i + 1}")) + "\n")
        raw = sum(len(json.dumps(w)) for w in works) * copies
        t = time.perf_counter()
        stats = ingest_openalex([part], Path(tmp) / "out")
        s = time.perf_counter() - t
    return {"works": stats.works, "seconds": s, "works_per_s": stats.works / s,
            "mb_per_s": raw / 1e6 / s, "bytes_per_work": raw / stats.works,
            "refs_per_work": stats.references / stats.works}


def run_child(case: dict) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(case)],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--skip-spark", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--synthetic-edges", type=int, default=10_000_000)
    parser.add_argument("--synthetic-randomisations", type=int, default=2)
    parser.add_argument("--randomisations", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per DuckDB arxiv-2023 case (the table shows the fastest)")
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return

    cases = []
    for engine in ("duckdb",) + (() if args.skip_spark else ("spark",)):
        rep = args.repeat if engine == "duckdb" else 1
        for measure in ("scan", "floor", "cd", "scinet", "cd_approx", "scinet_upstream"):
            cases.append({"graph": "arxiv-2023", "engine": engine, "measure": measure,
                          "repeat": rep})
        cases.append({"graph": "arxiv-2023", "engine": engine, "measure": "cd", "window": 5,
                      "repeat": rep})
        cases.append({"graph": "arxiv-2023", "engine": engine, "measure": "novelty",
                      "randomisations": args.randomisations, "repeat": rep})
    if not args.skip_synthetic:
        cases.append({"graph": "synthetic", "edges": args.synthetic_edges, "engine": "duckdb",
                      "measure": "cd"})
        cases.append({"graph": "synthetic", "edges": args.synthetic_edges, "engine": "duckdb",
                      "measure": "novelty", "randomisations": args.synthetic_randomisations})
    print("| graph | edges | engine | measure | load s | run s (best; all) | total s | edges/s | "
          "peak MiB | defined |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    results = []
    for case in cases:
        case["data"] = args.data
        r = run_child(case)
        results.append((case, r))
        name = case["measure"] + (f" (window {case['window']})" if case.get("window") else "")
        if case["measure"] == "novelty":
            name += f" (N={case['randomisations']})"
        if "error" in r:
            print(f"| {case['graph']} | | {case['engine']} | {name} | error: {r['error']} |")
            continue
        total = r["load_s"] + r["run_s"]
        runs = ", ".join(f"{x:.2f}" for x in r["runs"])
        print(f"| {case['graph']} | {r['edges']:,} | {case['engine']} | {name} | "
              f"{r['load_s']:.2f} | {r['run_s']:.2f}"
              f"{'' if len(r['runs']) == 1 else ' (' + runs + ')'}"
              f" | {total:.2f} | {r['edges'] / total:,.0f} | "
              f"{r['peak_mib']:,.0f} | {r['defined']:,} |", flush=True)

    ing = ingest_rate(Path(args.data))
    print(f"\nOpenAlex ingestion (Python, one process): {ing['works']:,} works in "
          f"{ing['seconds']:.2f} s = {ing['works_per_s']:,.0f} works/s, "
          f"{ing['mb_per_s']:.1f} MB/s of JSON ({ing['bytes_per_work']:,.0f} B/work, "
          f"{ing['refs_per_work']:.1f} references/work)")
    hours = OPENALEX_WORKS / ing["works_per_s"] / 3600
    print(f"  -> {OPENALEX_WORKS / 1e6:.0f}M works: {hours:,.1f} "
          "core-hours (parts ingest in parallel, one process each)")

    print(f"\nExtrapolation to OpenAlex (DuckDB, 2 cores; E = {OPENALEX_EDGES:.1e} edges ASSUMED):")
    w_over_e = {}
    for case, r in results:
        if case["measure"] == "cd" and not case.get("window") and "error" not in r:
            w_over_e[case["graph"]] = r["W"] / r["edges"]
    for case, r in results:
        if case["engine"] != "duckdb" or "error" in r or case["graph"] != "synthetic":
            continue
        total = r["load_s"] + r["run_s"]
        if case["measure"] == "cd":
            w_rate = r["W"] / total
            print(f"  CD: {r['edges'] / total:,.0f} edges/s, {w_rate:,.0f} W-rows/s "
                  f"(W = sum of squared citation counts; peak {r['peak_mib']:,.0f} MiB)")
            print(f"    linear in E: {OPENALEX_EDGES / (r['edges'] / total) / 3600:,.1f} h")
            for name, ratio in sorted(w_over_e.items()):
                print(f"    by W with W/E = {ratio:.0f} ({name}): "
                      f"{ratio * OPENALEX_EDGES / w_rate / 3600:,.1f} h")
        else:
            n = case["randomisations"]
            rows = (n + 1) * r["edges"] / total
            print(f"  novelty: {rows:,.0f} (N+1)*E rows/s -> N = 10: "
                  f"{11 * OPENALEX_EDGES / rows / 3600:,.1f} h (peak {r['peak_mib']:,.0f} MiB "
                  f"at N = {n})")


if __name__ == "__main__":
    main()
