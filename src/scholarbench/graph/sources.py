"""Citation graphs from the project's source readers: the arxiv-2023 graph (venue = arXiv primary
category, year from the arXiv id; ogbn-arxiv nodes have no year) and ingested OpenAlex tables."""
from __future__ import annotations

from pathlib import Path

from scholarbench.data.sources.arxiv2023 import read_arxiv2023
from scholarbench.data.sources.records import EdgeRecord, PaperRecord
from scholarbench.graph.build import build_graph
from scholarbench.graph.records import CitationGraph


def arxiv2023_graph(folder: str | Path) -> CitationGraph:
    """Paper ids are the corpus keys (`arxiv:2301.00001`, `ogbn:123`)."""
    return arxiv2023_graph_and_titles(folder)[0]


def arxiv2023_graph_and_titles(folder: str | Path) -> tuple[CitationGraph, dict[str, str]]:
    """The graph and each paper's title, from ONE read of the folder's files (reading them is
    most of the time a SciNet run or `build scinet` spends opening the graph)."""
    ids: list[str] = []
    years: list[int | None] = []
    venues: list[str | None] = []
    citing: list[str] = []
    cited: list[str] = []
    titles: dict[str, str] = {}
    for record in read_arxiv2023(Path(folder)):
        if isinstance(record, PaperRecord):
            ids.append(record.ids[0])
            years.append(record.year)
            venues.append(record.category)
            titles[record.ids[0]] = record.title
        elif isinstance(record, EdgeRecord):
            citing.append(record.citing.keys[0])
            cited.append(record.cited.keys[0])
    return build_graph(ids, years, venues, citing, cited, name="arxiv-2023"), titles
