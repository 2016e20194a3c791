"""Scientometrics on a citation graph: CD index (and SciNet's variant), Uzzi novelty, SoS
percentiles, the most influential citation path; SQL run on DuckDB (default) or Spark.
Definitions and every open choice: docs/scientometrics.md."""
from scholarbench.graph.build import build_graph
from scholarbench.graph.disruption import VARIANTS, Disruption, disruption
from scholarbench.graph.engine import ENGINES, DuckDBEngine, Engine, SparkEngine, open_engine
from scholarbench.graph.files import read_graph
from scholarbench.graph.novelty import Novelty, novelty
from scholarbench.graph.openalex import ingest_openalex, openalex_graph, parse_work
from scholarbench.graph.path import CitationPath, PathError, PathFinder, max_citation_path
from scholarbench.graph.randomise import Randomisation, randomise
from scholarbench.graph.records import CitationGraph, GraphStats
from scholarbench.graph.sos import ReferencePopulation, sos
from scholarbench.graph.sources import arxiv2023_graph
from scholarbench.graph.table import PaperMetrics, paper_metrics, write_metrics_csv

__all__ = [
    "CitationGraph", "CitationPath", "Disruption", "DuckDBEngine", "ENGINES", "Engine",
    "GraphStats", "Novelty", "PaperMetrics", "PathError", "PathFinder", "Randomisation",
    "ReferencePopulation", "SparkEngine", "VARIANTS", "arxiv2023_graph", "build_graph",
    "disruption", "ingest_openalex", "max_citation_path", "novelty", "open_engine",
    "openalex_graph", "paper_metrics", "parse_work", "randomise", "read_graph", "sos",
    "write_metrics_csv",
]
