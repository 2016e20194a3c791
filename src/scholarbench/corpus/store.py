"""The offline corpus store: Parquet files queried through DuckDB in memory, plus BM25 indices.

The layout (papers, edges, paragraphs, ids, manifest, indices) is in `schema.py`; how the files
are built in `build.py`. DuckDB runs in memory over the Parquet files rather than from a
`corpus.duckdb` file: the Parquet files stay the single source of truth (files to hash, copy
and record in a run manifest), with no second copy on disk to fall out of step. `papers` is
loaded into an in-memory table at open (~60 ms for 43k papers; fetching 100 papers is then
~5 ms instead of ~24 ms from the file), `edges` on the first graph query (~25 ms for 300k
edges; a co-citation join is then a few ms), and `paragraphs` stays a view over the file.

Two BM25 indices, because sources differ in what they carry: most papers have no abstract
(the arxiv-2023 graph and the ReportBench references are titles), so an index over title +
abstract lets "has an abstract" leak which papers came from which source. Title-only search is
the fair choice where abstracts are uneven.

Filters in `search_bm25` apply before the top k are taken:
- `exclude_surveys`: drop papers whose `is_survey` is True (see `survey.py`);
- `before=d`: keep papers known to exist before day d. A paper's latest possible date is its
  `published` day; else the last day of the month in its arXiv id (2303.xxxxx -> 2023-03-31);
  else 31 December of its `year`. Papers with none of these are dropped, and so is a paper
  whose latest possible date is d or later (a paper known only as "2023" is not before
  2023-06-01).

Corpora written by the first builder (papers.parquet only) still open: they have no edges,
paragraphs or survey flags, and `resolve` falls back to titles.
"""
from __future__ import annotations

import calendar
import json
import threading
from datetime import date
from pathlib import Path
from typing import Iterable, Sequence

import duckdb
import numpy as np

from scholarbench.corpus import graph
from scholarbench.corpus.bm25 import BM25Index
from scholarbench.corpus.schema import (EDGES, IDS, INDEX_DIRS, MANIFEST, PAPERS,  # noqa: F401
                                        PARAGRAPHS, Paragraph, index_text)
from scholarbench.data.sources.dates import arxiv_year_month
from scholarbench.data.sources.keys import canonical_key
from scholarbench.files import sha256_file  # noqa: F401  (re-exported)
from scholarbench.records import Paper

_EPOCH = date(1970, 1, 1)


def latest_date(published: date | None, ids: Sequence[str] | None, year: int | None
                ) -> date | None:
    """The last day a paper may have appeared (see the module docstring)."""
    if published is not None:
        return published
    for key in ids or ():
        if key.startswith("arxiv:"):
            month = arxiv_year_month(key[6:])
            if month:
                return date(month[0], month[1], calendar.monthrange(*month)[1])
    return date(year, 12, 31) if year else None


class Corpus:
    """A read-only view of a corpus directory. Open with `Corpus.open(dir)`."""

    def __init__(self, directory: Path, con: duckdb.DuckDBPyConnection, ids: list[str],
                 index: BM25Index, index_rebuilt: bool, papers_sha256: str,
                 columns: set[str]) -> None:
        self.directory = directory
        self._con = con
        self._ids = ids                      # row order of the BM25 index = paper_id order
        self._row = {pid: row for row, pid in enumerate(ids)}
        self._indexes = {"title+abstract": index}
        self.index_rebuilt = index_rebuilt   # False when the saved index was reused
        self.papers_sha256 = papers_sha256
        self._columns = columns
        self._lock = threading.RLock()       # one DuckDB connection is not safe across threads
        self._keys: dict[str, list[str]] | None = None
        self._survey: np.ndarray | None = None
        self._latest: np.ndarray | None = None   # days since 1970 (int64; max when unknown)
        self._edges_loaded = False

    @classmethod
    def open(cls, directory: str | Path) -> "Corpus":
        directory = Path(directory)
        papers = directory / PAPERS
        if not papers.is_file():
            raise FileNotFoundError(f"{papers} not found: build the corpus first "
                                    "(scholarbench.corpus.build.build_default_corpus)")
        con = duckdb.connect()
        con.execute("CREATE TABLE papers AS SELECT * FROM read_parquet(?) ORDER BY paper_id",
                    [str(papers)])
        columns = {row[0] for row in con.execute("DESCRIBE papers").fetchall()}
        paragraphs = directory / PARAGRAPHS
        if paragraphs.is_file():
            con.read_parquet(str(paragraphs)).create_view("paragraphs")
        ids = [row[0] for row in con.execute("SELECT paper_id FROM papers ORDER BY paper_id")
               .fetchall()]
        sha = sha256_file(papers)
        index, rebuilt = BM25Index.load_or_build(directory / INDEX_DIRS["title+abstract"], sha,
                                                 len(ids), lambda: _texts(con, "title+abstract"))
        return cls(directory, con, ids, index, rebuilt, sha, columns)

    # ---- papers -------------------------------------------------------------------------

    def manifest(self) -> dict:
        return json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))

    def count(self) -> int:
        return len(self._ids)

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self._row

    def get_by_ids(self, ids: Sequence[str]) -> list[Paper]:
        """Papers in the order of `ids`; KeyError naming any id not in the corpus."""
        rows = self.get_rows(ids)
        return [Paper(title=r["title"], abstract=r["abstract"] or "", paper_id=r["paper_id"],
                      year=r["year"], source=r["source"]) for r in rows]

    def get_rows(self, ids: Sequence[str]) -> list[dict]:
        """Every column of each paper, as dicts in the order of `ids`; KeyError if missing."""
        wanted = list(ids)
        if not wanted:
            return []
        with self._lock:
            cur = self._con.execute("SELECT * FROM papers WHERE paper_id = ANY(?::VARCHAR[])",
                                    [wanted])
            names = [d[0] for d in cur.description]
            found = {row[0]: dict(zip(names, row)) for row in cur.fetchall()}
        missing = [i for i in dict.fromkeys(wanted) if i not in found]
        if missing:
            raise KeyError(f"{len(missing)} id(s) not in the corpus, e.g. {missing[:3]}")
        return [found[i] for i in wanted]

    # ---- identifiers --------------------------------------------------------------------

    def _key_table(self) -> dict[str, list[str]]:
        with self._lock:
            if self._keys is None:
                keys: dict[str, list[str]] = {}
                if (self.directory / IDS).is_file():
                    rows = self._con.execute("SELECT key, paper_id FROM read_parquet(?) "
                                             "ORDER BY key, paper_id",
                                             [str(self.directory / IDS)]).fetchall()
                else:  # a first-format corpus: titles only
                    rows = self._con.execute("SELECT 'title:' || norm_title, paper_id "
                                             "FROM papers ORDER BY 1, 2").fetchall()
                for key, pid in rows:
                    keys.setdefault(key, []).append(pid)
                self._keys = keys
            return self._keys

    def resolve_all(self, identifier: str) -> list[str]:
        """Every paper the identifier names (a title can name several), sorted by paper_id."""
        if identifier in self._row:
            return [identifier]
        return list(self._key_table().get(canonical_key(identifier), []))

    def resolve(self, identifier: str) -> str | None:
        """The paper_id for any spelling `parse_id` accepts (DOI, arXiv id or URL, OpenAlex
        W-id, S2 sha / CorpusId, a title, or a paper_id), plus `ogbn:`, `pmid:`, `pmcid:`,
        `mag:`; None when no paper or several papers (a title two papers share) match."""
        found = self.resolve_all(identifier)
        return found[0] if len(found) == 1 else None

    # ---- search -------------------------------------------------------------------------

    def _index(self, fields: str) -> BM25Index:
        if fields not in INDEX_DIRS:
            raise ValueError(f"unknown index fields {fields!r}; use one of {sorted(INDEX_DIRS)}")
        if fields not in self._indexes:
            with self._lock:
                self._indexes[fields], _ = BM25Index.load_or_build(
                    self.directory / INDEX_DIRS[fields], self.papers_sha256, len(self._ids),
                    lambda: _texts(self._con, fields))
        return self._indexes[fields]

    def _filters(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            if self._survey is None:
                has = self._columns.__contains__
                sql = ("SELECT {s}, {p}, {i}, year FROM papers ORDER BY paper_id").format(
                    s="is_survey" if has("is_survey") else "false",
                    p="published" if has("published") else "NULL::DATE",
                    i="ids" if has("ids") else "NULL::VARCHAR[]")
                rows = self._con.execute(sql).fetchall()
                never = np.iinfo(np.int64).max
                self._survey = np.array([bool(r[0]) for r in rows], dtype=bool)
                self._latest = np.array([
                    (d - _EPOCH).days if (d := latest_date(r[1], r[2], r[3])) else never
                    for r in rows], dtype=np.int64)
            return self._survey, self._latest

    def search_bm25(self, query: str, k: int, exclude_ids: Iterable[str] = (),
                    fields: str = "title+abstract", before: date | str | None = None,
                    exclude_surveys: bool = False) -> list[tuple[Paper, float]]:
        """Top-k papers by BM25 over `fields` ("title+abstract" or "title"), best first; equal
        scores by paper_id. `exclude_ids`, `before` (a date or "YYYY-MM-DD") and
        `exclude_surveys` remove papers before the top k are taken.

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
        if exclude_surveys or before is not None:
            survey, latest = self._filters()
            if exclude_surveys:
                scores[survey] = 0.0
            if before is not None:
                cut = date.fromisoformat(before) if isinstance(before, str) else before
                scores[latest >= (cut - _EPOCH).days] = 0.0
        # rows are in paper_id order, so a stable sort on -score breaks ties by paper_id
        order = np.argsort(-scores, kind="stable")
        top = [int(row) for row in order[:k] if scores[row] > 0]
        papers = self.get_by_ids([self._ids[row] for row in top])
        return [(paper, float(scores[row])) for paper, row in zip(papers, top)]

    # ---- citation graph and full text ---------------------------------------------------

    def _graph(self, pid: str) -> duckdb.DuckDBPyConnection:
        if pid not in self._row:
            raise KeyError(f"{pid!r} is not a paper_id of this corpus (see Corpus.resolve)")
        if not self._edges_loaded:
            path = self.directory / EDGES
            if path.is_file():
                self._con.execute("CREATE TABLE edges AS SELECT citing, cited FROM "
                                  "read_parquet(?)", [str(path)])
            else:
                self._con.execute("CREATE TABLE edges (citing VARCHAR, cited VARCHAR)")
            self._edges_loaded = True
        return self._con

    def references(self, pid: str) -> list[str]:
        """paper_ids that `pid` cites, sorted."""
        with self._lock:
            return graph.column(self._graph(pid), graph.REFERENCES, pid)

    def citations(self, pid: str) -> list[str]:
        """paper_ids citing `pid`, sorted."""
        with self._lock:
            return graph.column(self._graph(pid), graph.CITATIONS, pid)

    def co_cited(self, pid: str, k: int = 10) -> list[tuple[str, int]]:
        """(paper_id, number of papers citing both) for the k papers most often cited together
        with `pid`; ties by paper_id."""
        with self._lock:
            return graph.ranked(self._graph(pid), graph.CO_CITED, pid, k)

    def coupled(self, pid: str, k: int = 10) -> list[tuple[str, int]]:
        """(paper_id, shared references) for the k papers sharing most references with `pid`
        (bibliographic coupling); ties by paper_id."""
        with self._lock:
            return graph.ranked(self._graph(pid), graph.COUPLED, pid, k)

    def paragraphs(self, pid: str) -> list[Paragraph]:
        """Full-text paragraphs of `pid` by (source, position); [] when it has none."""
        if pid not in self._row:
            raise KeyError(f"{pid!r} is not a paper_id of this corpus (see Corpus.resolve)")
        if not (self.directory / PARAGRAPHS).is_file():
            return []
        with self._lock:
            rows = self._con.execute(
                "SELECT paper_id, section, position, text, cited, cited_unresolved, source "
                "FROM paragraphs WHERE paper_id = ? ORDER BY source, position", [pid]).fetchall()
        return [Paragraph(*row) for row in rows]

    def close(self) -> None:
        self._con.close()


def _texts(con: duckdb.DuckDBPyConnection, fields: str) -> list[str]:
    rows = con.execute("SELECT title, abstract FROM papers ORDER BY paper_id").fetchall()
    if fields == "title":
        return [title for title, _ in rows]
    return [index_text(title, abstract or "") for title, abstract in rows]
