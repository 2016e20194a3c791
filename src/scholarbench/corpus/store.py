"""The offline corpus store: one Parquet file of papers, queried through DuckDB, plus a BM25 index.

Layout of a corpus directory::

    papers.parquet   paper_id, title, abstract, norm_title, source, sources, year (sorted by paper_id)
    manifest.json    counts per source, merged duplicates, sha256 of papers.parquet
    bm25/            the bm25s index over title + abstract, with the sha256 of the papers.parquet
                     it was built from
    bm25-title/      the same over titles only (built on first use)

Two indices, because sources differ in what they carry: the default corpus has abstracts only
for TaxoBench's papers, so an index over title + abstract lets "has an abstract" leak which
papers are expert papers. Title-only search is the fair default where abstracts are uneven.

DuckDB runs in memory over `read_parquet` rather than from a `corpus.duckdb` file: the Parquet
file stays the single source of truth (one file to hash, copy and record in a run manifest),
there is no second copy of the data to fall out of step with it, and DuckDB scans a Parquet file
of this size (tens of thousands of rows) in milliseconds, so a database file would buy nothing.
"""
from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Iterable, Sequence

import duckdb
import numpy as np

from scholarbench.corpus.bm25 import BM25Index
from scholarbench.files import sha256_file  # noqa: F401  (re-exported)
from scholarbench.records import Paper
from scholarbench.text.normalize import normalize_title

PAPERS = "papers.parquet"
MANIFEST = "manifest.json"
INDEX_DIRS = {"title+abstract": "bm25", "title": "bm25-title"}


def paper_id_for(title: str) -> str:
    """Stable id from the normalised title, so the same paper gets the same id in every build."""
    return "title:" + hashlib.sha1(normalize_title(title).encode("utf-8")).hexdigest()[:16]


def index_text(title: str, abstract: str) -> str:
    return f"{title}\n{abstract}" if abstract else title


class Corpus:
    """A read-only view of a corpus directory. Open with `Corpus.open(dir)`."""

    def __init__(self, directory: Path, con: duckdb.DuckDBPyConnection, ids: list[str],
                 index: BM25Index, index_rebuilt: bool, papers_sha256: str) -> None:
        self.directory = directory
        self._con = con
        self._ids = ids                      # row order of the BM25 index = paper_id order
        self._row = {pid: row for row, pid in enumerate(ids)}
        self._indexes = {"title+abstract": index}
        self.index_rebuilt = index_rebuilt   # False when the saved index was reused
        self.papers_sha256 = papers_sha256
        self._lock = threading.Lock()        # one DuckDB connection is not safe across threads

    @classmethod
    def open(cls, directory: str | Path) -> "Corpus":
        directory = Path(directory)
        papers = directory / PAPERS
        if not papers.is_file():
            raise FileNotFoundError(f"{papers} not found: build the corpus first "
                                    "(scholarbench.corpus.build.build_corpus)")
        con = duckdb.connect()
        con.read_parquet(str(papers)).create_view("papers")
        ids = [row[0] for row in con.execute("SELECT paper_id FROM papers ORDER BY paper_id")
               .fetchall()]
        sha = sha256_file(papers)
        index, rebuilt = BM25Index.load_or_build(directory / INDEX_DIRS["title+abstract"], sha,
                                                 len(ids), lambda: _texts(con, "title+abstract"))
        return cls(directory, con, ids, index, rebuilt, sha)

    def _index(self, fields: str) -> BM25Index:
        if fields not in INDEX_DIRS:
            raise ValueError(f"unknown index fields {fields!r}; use one of {sorted(INDEX_DIRS)}")
        if fields not in self._indexes:
            with self._lock:
                self._indexes[fields], _ = BM25Index.load_or_build(
                    self.directory / INDEX_DIRS[fields], self.papers_sha256, len(self._ids),
                    lambda: _texts(self._con, fields))
        return self._indexes[fields]

    def manifest(self) -> dict:
        return json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))

    def count(self) -> int:
        return len(self._ids)

    def get_by_ids(self, ids: Sequence[str]) -> list[Paper]:
        """Papers in the order of `ids`; KeyError naming any id not in the corpus."""
        wanted = list(ids)
        if not wanted:
            return []
        with self._lock:
            rows = self._con.execute(
                "SELECT paper_id, title, abstract, source, year FROM papers "
                "WHERE paper_id IN (SELECT unnest(?::VARCHAR[]))", [wanted]).fetchall()
        found = {row[0]: Paper(title=row[1], abstract=row[2] or "", paper_id=row[0],
                               year=row[4], source=row[3]) for row in rows}
        missing = [i for i in dict.fromkeys(wanted) if i not in found]
        if missing:
            raise KeyError(f"{len(missing)} id(s) not in the corpus, e.g. {missing[:3]}")
        return [found[i] for i in wanted]

    def search_bm25(self, query: str, k: int, exclude_ids: Iterable[str] = (),
                    fields: str = "title+abstract") -> list[tuple[Paper, float]]:
        """Top-k papers by BM25 over `fields` ("title+abstract" or "title"), best first; equal
        scores by paper_id.

        Only papers sharing at least one query term are returned (score > 0), so the list may be
        shorter than k.
        """
        if k <= 0:
            return []
        scores = self._index(fields).scores(query)
        for pid in set(exclude_ids):
            row = self._row.get(pid)
            if row is not None:
                scores[row] = 0.0
        # rows are in paper_id order, so a stable sort on -score breaks ties by paper_id
        order = np.argsort(-scores, kind="stable")
        top = [int(row) for row in order[:k] if scores[row] > 0]
        papers = self.get_by_ids([self._ids[row] for row in top])
        return [(paper, float(scores[row])) for paper, row in zip(papers, top)]

    def close(self) -> None:
        self._con.close()


def _texts(con: duckdb.DuckDBPyConnection, fields: str) -> list[str]:
    rows = con.execute("SELECT title, abstract FROM papers ORDER BY paper_id").fetchall()
    if fields == "title":
        return [title for title, _ in rows]
    return [index_text(title, abstract or "") for title, abstract in rows]
