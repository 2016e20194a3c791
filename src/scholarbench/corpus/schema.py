"""Files and Parquet schemas of a corpus directory (format 2).

    papers.parquet      one row per paper, sorted by paper_id:
                        paper_id, title, abstract, norm_title, year, published (date, null when
                        no source gives an exact day), ids list<string> (every id key), sources
                        list<string> (every source that had it), source (the source whose title
                        was kept), is_survey, category (arXiv primary category), stub (known only
                        as the titled end of a citation edge)
    edges.parquet       citing, cited (paper_ids; `citing` cites `cited`), source; one row per
                        pair, sorted by (citing, cited)
    paragraphs.parquet  paper_id, section, position, text, cited list<string> (paper_ids, in
                        order of first mention), cited_unresolved list<string> (best id key of
                        each cited reference that is not a corpus paper), source;
                        sorted by (paper_id, source, position)
    ids.parquet         key, paper_id: every id key and every title key (`title:<normalised>`)
                        of every paper; a title key can name several papers
    manifest.json       counts per source, merges, unresolved, sha256 of each Parquet file
    bm25/, bm25-title/  BM25 indices over title + abstract and over titles (rebuilt when
                        papers.parquet changes)
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

FORMAT_VERSION = 2
PAPERS = "papers.parquet"
EDGES = "edges.parquet"
PARAGRAPHS = "paragraphs.parquet"
IDS = "ids.parquet"
MANIFEST = "manifest.json"
INDEX_DIRS = {"title+abstract": "bm25", "title": "bm25-title"}

_STRINGS = pa.list_(pa.string())
PAPERS_SCHEMA = pa.schema([
    ("paper_id", pa.string()), ("title", pa.string()), ("abstract", pa.string()),
    ("norm_title", pa.string()), ("year", pa.int32()), ("published", pa.date32()),
    ("ids", _STRINGS), ("sources", _STRINGS), ("source", pa.string()),
    ("is_survey", pa.bool_()), ("category", pa.string()), ("stub", pa.bool_()),
])
EDGES_SCHEMA = pa.schema([("citing", pa.string()), ("cited", pa.string()),
                          ("source", pa.string())])
PARAGRAPHS_SCHEMA = pa.schema([
    ("paper_id", pa.string()), ("section", pa.string()), ("position", pa.int32()),
    ("text", pa.string()), ("cited", _STRINGS), ("cited_unresolved", _STRINGS),
    ("source", pa.string()),
])
IDS_SCHEMA = pa.schema([("key", pa.string()), ("paper_id", pa.string())])


@dataclass(frozen=True)
class Paragraph:
    paper_id: str
    section: str
    position: int
    text: str
    cited: list[str]              # paper_ids, in order of first mention
    cited_unresolved: list[str]   # best id key of each cited reference not in the corpus
    source: str


def index_text(title: str, abstract: str) -> str:
    return f"{title}\n{abstract}" if abstract else title
