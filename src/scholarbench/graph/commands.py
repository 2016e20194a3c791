"""`scholarbench graph metrics` and `scholarbench graph path` (wired in by cli.py)."""
from __future__ import annotations

import argparse
import json
import sys

from scholarbench.graph.files import read_graph
from scholarbench.graph.path import max_citation_path
from scholarbench.graph.table import paper_metrics, write_metrics_csv

# = scholarbench.graph.engine.ENGINES and graph.table's MEASURES / DEFAULT_MEASURES; not
# imported, so building the CLI parser stays light (a test checks they agree)
ENGINES = ("duckdb", "spark")
MEASURES = ("cd_index", "disruption_scinet", "disruption_scinet_upstream", "cd_index_approx",
            "novelty")
DEFAULT_MEASURES = ("cd_index", "disruption_scinet", "novelty")


def lean_arrow_memory() -> None:
    """Arrow's default allocator (mimalloc) keeps freed pages: reading arxiv-2023's edge file
    left the process 40-60 MB above what it held. The system allocator returns them."""
    import pyarrow as pa
    pa.set_memory_pool(pa.system_memory_pool())


def cmd_graph_metrics(args: argparse.Namespace) -> int:
    lean_arrow_memory()
    graph = read_graph(args.edges, args.papers)
    s = graph.stats
    notes = [f"{n} {what}" for n, what in ((s.self_citations, "self-citations dropped"),
                                          (s.duplicate_edges, "repeated edges dropped"),
                                          (s.stub_papers, "ids only in the edge file (no year)"))
             if n]
    if notes:
        print(f"note: {'; '.join(notes)}", file=sys.stderr)
    metrics = paper_metrics(graph, engine=args.engine, window=args.window, seed=args.seed,
                            randomisations=args.randomisations,
                            measures=tuple(m.strip() for m in args.measures.split(",") if m.strip()),
                            precision=args.sketch_precision)
    write_metrics_csv(metrics, args.out)
    details = [metrics.engine, f"window {args.window or 'none'}"]
    if "novelty" in metrics.measures:
        details.append(f"novelty: {args.randomisations} randomisations, seed {args.seed}")
    if metrics.precision is not None:
        details.append(f"sketch precision {metrics.precision}")
    print(f"wrote {len(metrics.ids)} papers to {args.out} ({'; '.join(details)})")
    return 0


def cmd_graph_path(args: argparse.Namespace) -> int:
    graph = read_graph(args.edges, args.papers)
    path = max_citation_path(graph, args.source, args.target, max_papers=args.max_papers)
    print(json.dumps(path.as_json()))
    return 0


def _inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--edges", required=True, metavar="E.csv|E.parquet",
                        help="citation edges, columns citing,cited (citing cites cited)")
    parser.add_argument("--papers", required=True, metavar="P.csv|P.parquet",
                        help="papers, columns id,year[,venue]; an empty year is unknown")


def add_graph_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add `graph {metrics,path}` to a CLI's sub-command set; returns the `graph` parser."""
    graph = subparsers.add_parser("graph", help="scientometrics on a citation graph: CD index, "
                                  "novelty, most influential citation path")
    gsub = graph.add_subparsers(dest="graph_cmd", required=True)

    metrics = gsub.add_parser("metrics", help="per-paper CD index, SciNet disruption, novelty, "
                              "citations and references, to CSV")
    _inputs(metrics)
    metrics.add_argument("--out", required=True, metavar="M.csv")
    metrics.add_argument("--engine", choices=ENGINES, default="duckdb")
    metrics.add_argument("--window", type=int, metavar="YEARS",
                         help="CD index: count only papers at most YEARS years after the focal one")
    metrics.add_argument("--measures", default=",".join(DEFAULT_MEASURES), metavar="M,M",
                         help=f"columns to compute, comma-separated, from {', '.join(MEASURES)} "
                         f"(default {','.join(DEFAULT_MEASURES)}); each runs only its own queries")
    metrics.add_argument("--sketch-precision", type=int, default=12, metavar="P",
                         help="cd_index_approx: 2^P HyperLogLog registers (4-16; default 12, "
                         "about 1.6%% standard error of the coupled-citer count)")
    metrics.add_argument("--seed", type=int, default=0, help="novelty randomisation seed")
    metrics.add_argument("--randomisations", type=int, default=10, metavar="N",
                         help="novelty: number of randomised networks (>= 2; default 10)")
    metrics.set_defaults(func=cmd_graph_metrics)

    path = gsub.add_parser("path", help="the maximum-cumulative-citation path from A to B, as JSON")
    _inputs(path)
    path.add_argument("--from", dest="source", required=True, metavar="A",
                      help="the earlier paper (B cites it, directly or through others)")
    path.add_argument("--to", dest="target", required=True, metavar="B")
    path.add_argument("--max-papers", type=int, metavar="L",
                      help="best path with at most L papers (default: no limit)")
    path.set_defaults(func=cmd_graph_path)
    return graph
