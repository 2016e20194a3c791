"""The offline corpus store: Parquet files queried through DuckDB in memory, plus BM25 indices.

The layout (papers, edges, paragraphs, ids, manifest, indices) is in `schema.py`; how the files
are built in `build.py`. DuckDB runs in memory over the Parquet files rather than from a
`corpus.duckdb` file: the Parquet files stay the single source of truth (files to hash, copy
and record in a run manifest), with no second copy on disk to fall out of step. `papers` is
read at open into one Arrow table in paper_id order (~50 ms for 43k papers), registered in
DuckDB as the `papers` view for SQL; a paper's row is its position in that order, the BM25 and
dense row number, so search hits and lookups (`get_rows`, `get_by_ids`) take their rows by
position (`Table.take`: ~20 us for 100 papers at any corpus size) instead of a scan for their
paper_ids (~3 ms at 43k papers, ~180 ms at 1M; docs/performance.md). `edges` is loaded on
the first graph query (~25 ms for 300k edges; a co-citation join is then a few ms), and
`paragraphs` stays a view over the file. The BM25 indices (and the bm25s import) are loaded on
the first search that needs them.

Two BM25 indices, because sources differ in what they carry: most papers have no abstract
(the arxiv-2023 graph and the ReportBench references are titles), so an index over title +
abstract lets "has an abstract" leak which papers came from which source. Title-only search is
the fair choice where abstracts are uneven.

Dense search (`search_dense`, `dense.py`: a faiss IndexFlatIP of MiniLM vectors kept in
`dense-<fields>/`, built on first use for the embedder's model — the tools ask
`has_dense_index` first and never build it, `scholarbench corpus dense` does) and hybrid search
(`search_hybrid`, `hybrid.py`: reciprocal rank fusion, K=60, of the BM25 and dense top 100)
take the same filters with the same meaning: every search computes one mask of the rows that
pass (`_keep`) and ranks only those. Every search breaks equal scores by paper_id.

Filters in `search_bm25` (and the other searches) apply before the top k are taken:
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

import json
import threading
from datetime import date
from pathlib import Path
from typing import Iterable, Sequence

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from scholarbench.corpus import graph
from scholarbench.corpus.bm25 import BM25Index
from scholarbench.corpus.dense import DENSE_DIRS, DenseIndex
from scholarbench.corpus.hybrid import DEPTH, K as RRF_K, rrf
from scholarbench.corpus.schema import (EDGES, IDS, INDEX_DIRS, MANIFEST, PAPERS,  # noqa: F401
                                        PARAGRAPHS, Paragraph, index_text)
from scholarbench.data.sources.dates import latest_date
from scholarbench.data.sources.keys import canonical_key
from scholarbench.embed.base import Embedder
from scholarbench.files import sha256_file  # noqa: F401  (re-exported)
from scholarbench.records import Paper

_EPOCH = date(1970, 1, 1)
HIT_COLUMNS = ("title", "abstract", "paper_id", "year", "source")   # a `Paper`'s fields


class Corpus:
    """A read-only view of a corpus directory. Open with `Corpus.open(dir)`."""

    def __init__(self, directory: Path, con: duckdb.DuckDBPyConnection, table: pa.Table,
                 ids: list[str], papers_sha256: str) -> None:
        self.directory = directory
        self._con = con
        self._table = table                  # every column, paper_id order (row = position)
        self._ids = ids                      # row order of the BM25 index = paper_id order
        self._row = {pid: row for row, pid in enumerate(ids)}
        # what a search hit (`Paper`) carries
        self._hit_table = table.select([c for c in HIT_COLUMNS if c in table.column_names])
        self._indexes: dict[str, BM25Index] = {}
        self._rebuilt: dict[str, bool] = {}
        self._dense: dict[tuple[str, str], DenseIndex] = {}   # (fields, model_id) -> index
        self.papers_sha256 = papers_sha256
        self._columns = set(table.column_names)
        self._lock = threading.RLock()       # guards lazy set-up (tables, indices, filters)
        self._local = threading.local()      # per-thread cursors: reads run concurrently
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
        table = pq.read_table(papers)
        ids = table.column("paper_id").to_pylist()
        if any(a > b for a, b in zip(ids, ids[1:])):    # the builders write paper_id order
            order = pc.sort_indices(table, sort_keys=[("paper_id", "ascending")])
            table = table.take(order)
            ids = table.column("paper_id").to_pylist()
        table = table.combine_chunks()
        con = duckdb.connect()
        con.register("papers", table)
        paragraphs = directory / PARAGRAPHS
        if paragraphs.is_file():
            con.read_parquet(str(paragraphs)).create_view("paragraphs")
        return cls(directory, con, table, ids, sha256_file(papers))

    @property
    def index_rebuilt(self) -> bool:
        """False when the saved title + abstract BM25 index was reused (it is loaded, or built
        when missing or stale, on first use)."""
        self._index("title+abstract")
        return self._rebuilt["title+abstract"]

    # ---- papers -------------------------------------------------------------------------

    def manifest(self) -> dict:
        return json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))

    def count(self) -> int:
        return len(self._ids)

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self._row

    def get_by_ids(self, ids: Sequence[str]) -> list[Paper]:
        """Papers in the order of `ids`; KeyError naming any id not in the corpus."""
        return self._papers(self._rows_of(ids))

    def get_rows(self, ids: Sequence[str]) -> list[dict]:
        """Every column of each paper, as dicts in the order of `ids`; KeyError if missing."""
        rows = self._rows_of(ids)
        return self._table.take(rows).to_pylist() if rows.size else []

    def _rows_of(self, ids: Sequence[str]) -> np.ndarray:
        wanted = list(ids)
        try:
            return np.array([self._row[pid] for pid in wanted], dtype=np.int64)
        except (KeyError, TypeError):
            missing = [i for i in dict.fromkeys(wanted) if i not in self._row]
            raise KeyError(f"{len(missing)} id(s) not in the corpus, e.g. {missing[:3]}") from None

    def _papers(self, rows: np.ndarray) -> list[Paper]:
        """`Paper`s of rows (an int array), by position: one `take` of the hit columns."""
        if not rows.size:
            return []
        part = self._hit_table.take(rows)
        none = [None] * rows.size
        title, abstract, paper_id, year, source = (
            part.column(c).to_pylist() if c in self._columns else none for c in HIT_COLUMNS)
        # Paper's fields in order: title, abstract, paper_id, year, source
        return list(map(Paper, title, [a or "" for a in abstract], paper_id, year, source))

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

    def _index(self, fields: str) -> "BM25Index":
        if fields not in INDEX_DIRS:
            raise ValueError(f"unknown index fields {fields!r}; use one of {sorted(INDEX_DIRS)}")
        if fields not in self._indexes:
            with self._lock:
                if fields not in self._indexes:
                    index, self._rebuilt[fields] = BM25Index.load_or_build(
                        self.directory / INDEX_DIRS[fields], self.papers_sha256,
                        len(self._ids), lambda: _texts(self._table, fields))
                    self._indexes[fields] = index
        return self._indexes[fields]

    def _filters(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            if self._survey is None:
                n = len(self._ids)

                def column(name: str) -> list:
                    return (self._table.column(name).to_pylist() if name in self._columns
                            else [None] * n)
                never = np.iinfo(np.int64).max
                self._survey = np.array([bool(v) for v in column("is_survey")], dtype=bool)
                self._latest = np.array([
                    (d - _EPOCH).days if (d := latest_date(p, i, y)) else never
                    for p, i, y in zip(column("published"), column("ids"), column("year"))],
                    dtype=np.int64)
            return self._survey, self._latest

    def _keep(self, exclude_ids: Iterable[str] = (), before: date | str | None = None,
              exclude_surveys: bool = False) -> np.ndarray | None:
        """Rows (paper_id order) that pass the search filters as a bool array; None when no
        filter is given. Shared by every search so they filter alike."""
        exclude = [row for pid in set(exclude_ids) if (row := self._row.get(pid)) is not None]
        if not exclude and not exclude_surveys and before is None:
            return None
        keep = np.ones(len(self._ids), dtype=bool)
        keep[exclude] = False
        if exclude_surveys or before is not None:
            survey, latest = self._filters()
            if exclude_surveys:
                keep &= ~survey
            if before is not None:
                cut = date.fromisoformat(before) if isinstance(before, str) else before
                keep &= latest < (cut - _EPOCH).days
        return keep

    def visible_rows(self, exclude_ids: Iterable[str] = (), before: date | str | None = None,
                     exclude_surveys: bool = False) -> np.ndarray:
        """The search filters as a bool array over rows (paper_id order): True where a paper
        passes them (all True without filters). The tool layer's leakage rules use this, so a
        tool and a search hide exactly the same papers."""
        keep = self._keep(exclude_ids, before, exclude_surveys)
        return np.ones(len(self._ids), dtype=bool) if keep is None else keep

    def survey_rows(self) -> np.ndarray:
        """True where a paper is flagged as a survey (row order)."""
        return self._filters()[0]

    def row_of(self, pid: str) -> int | None:
        """The row of a paper_id (its position in paper_id order), None when absent."""
        return self._row.get(pid)

    def _hits(self, rows: np.ndarray, scores: np.ndarray) -> list[tuple[Paper, float]]:
        return list(zip(self._papers(rows), scores.tolist()))

    def _bm25_rows(self, query: str, k: int, fields: str, keep: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray]:
        return self._index(fields).top(query, k, keep)

    def search_bm25(self, query: str, k: int, exclude_ids: Iterable[str] = (),
                    fields: str = "title+abstract", before: date | str | None = None,
                    exclude_surveys: bool = False, rows: np.ndarray | None = None
                    ) -> list[tuple[Paper, float]]:
        """Top-k papers by BM25 over `fields` ("title+abstract" or "title"), best first; equal
        scores by paper_id. `exclude_ids`, `before` (a date or "YYYY-MM-DD") and
        `exclude_surveys` remove papers before the top k are taken; `rows`, a mask made once
        by `visible_rows` (the tools' per-task rule), replaces them.

        Only papers sharing at least one query term are returned (score > 0), so the list may be
        shorter than k.
        """
        if k <= 0:
            return []
        keep = rows if rows is not None else self._keep(exclude_ids, before,
                                                        exclude_surveys)
        return self._hits(*self._bm25_rows(query, k, fields, keep))

    def dense_index(self, fields: str, embedder: Embedder) -> DenseIndex:
        """The dense index of `fields` for this embedder's model: loaded from
        `dense-<fields>/` when it matches papers.parquet, the model, the fields and the paper
        count; otherwise built (every paper embedded, in batches) and saved there."""
        if fields not in DENSE_DIRS:
            raise ValueError(f"unknown index fields {fields!r}; use one of {sorted(DENSE_DIRS)}")
        key = (fields, embedder.model_id)
        with self._lock:
            if key not in self._dense:
                self._dense = {k: v for k, v in self._dense.items() if k[0] != fields}
                self._dense[key] = DenseIndex.load_or_build(
                    self.directory / DENSE_DIRS[fields], self.papers_sha256, fields,
                    len(self._ids), lambda: _texts(self._table, fields), embedder)
            return self._dense[key]

    def has_dense_index(self, fields: str, embedder: Embedder) -> bool:
        """Whether dense search over `fields` with this embedder's model is ready without
        embedding the corpus: held in memory, or saved in `dense-<fields>/` and matching (then
        loaded). The tools ask first, so no tool call builds an index (`corpus dense` does)."""
        if fields not in DENSE_DIRS:
            return False
        key = (fields, embedder.model_id)
        with self._lock:
            if key in self._dense:
                return True
            expected = DenseIndex.expected_meta(self.papers_sha256, embedder.model_id, fields,
                                                len(self._ids))
            index = DenseIndex.load(self.directory / DENSE_DIRS[fields], expected)
            if index is None:
                return False
            self._dense = {k: v for k, v in self._dense.items() if k[0] != fields}
            self._dense[key] = index
            return True

    def _dense_rows(self, query: str, k: int, embedder: Embedder, fields: str,
                    keep: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        index = self.dense_index(fields, embedder)
        return index.search(index.query_vector(query, embedder), k, keep)

    def search_dense(self, query: str, k: int, embedder: Embedder,
                     exclude_ids: Iterable[str] = (), fields: str = "title",
                     before: date | str | None = None, exclude_surveys: bool = False,
                     rows: np.ndarray | None = None) -> list[tuple[Paper, float]]:
        """Top-k papers by cosine similarity between the embedded query and each paper's
        `fields` ("title" or "title+abstract"), best first; equal scores by paper_id. Filters
        as in `search_bm25` (applied before the top k). Returns k papers whenever k pass the
        filters. The first call per (fields, model) loads or builds the index (`dense.py`)."""
        if k <= 0:
            return []
        keep = rows if rows is not None else self._keep(exclude_ids, before,
                                                        exclude_surveys)
        return self._hits(*self._dense_rows(query, k, embedder, fields, keep))

    def search_hybrid(self, query: str, k: int, embedder: Embedder, depth: int = DEPTH,
                      exclude_ids: Iterable[str] = (), fields: str = "title",
                      before: date | str | None = None, exclude_surveys: bool = False,
                      rrf_k: int = RRF_K, rows: np.ndarray | None = None
                      ) -> list[tuple[Paper, float]]:
        """Top-k papers by reciprocal rank fusion (`hybrid.py`; constant `rrf_k` = 60) of the
        top `depth` (100) of BM25 and of dense search over the same `fields`, with the same
        filters applied before either list is cut. Scores are the fused RRF scores; equal
        scores by paper_id."""
        if k <= 0 or depth <= 0:
            return []
        keep = rows if rows is not None else self._keep(exclude_ids, before,
                                                        exclude_surveys)
        lists = [self._bm25_rows(query, depth, fields, keep)[0],
                 self._dense_rows(query, depth, embedder, fields, keep)[0]]
        fused = rrf([[self._ids[int(row)] for row in rows] for rows in lists], k=rrf_k)[:k]
        papers = self.get_by_ids([pid for pid, _ in fused])
        return [(paper, score) for paper, (_, score) in zip(papers, fused)]

    # ---- citation graph and full text ---------------------------------------------------

    def _reader(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor on the one in-memory database (DuckDB runs queries of several
        cursors at once; one connection would serialise them)."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            with self._lock:
                cursor = self._local.cursor = self._con.cursor()
        return cursor

    def _graph(self, pid: str) -> duckdb.DuckDBPyConnection:
        if pid not in self._row:
            raise KeyError(f"{pid!r} is not a paper_id of this corpus (see Corpus.resolve)")
        if not self._edges_loaded:
            with self._lock:
                self._load_edges()
        return self._reader()

    def _load_edges(self) -> None:
        if not self._edges_loaded:
            path = self.directory / EDGES
            if path.is_file():
                self._con.execute("CREATE TABLE edges AS SELECT citing, cited FROM "
                                  "read_parquet(?)", [str(path)])
            else:
                self._con.execute("CREATE TABLE edges (citing VARCHAR, cited VARCHAR)")
            self._edges_loaded = True

    def references(self, pid: str) -> list[str]:
        """paper_ids that `pid` cites, sorted."""
        return graph.column(self._graph(pid), graph.REFERENCES, pid)

    def citations(self, pid: str) -> list[str]:
        """paper_ids citing `pid`, sorted."""
        return graph.column(self._graph(pid), graph.CITATIONS, pid)

    def co_cited(self, pid: str, k: int = 10) -> list[tuple[str, int]]:
        """(paper_id, number of papers citing both) for the k papers most often cited together
        with `pid`; ties by paper_id."""
        return graph.ranked(self._graph(pid), graph.CO_CITED, pid, k)

    def coupled(self, pid: str, k: int = 10) -> list[tuple[str, int]]:
        """(paper_id, shared references) for the k papers sharing most references with `pid`
        (bibliographic coupling); ties by paper_id."""
        return graph.ranked(self._graph(pid), graph.COUPLED, pid, k)

    def neighbour_counts(self, pids: Sequence[str], direction: str) -> list[tuple[str, int]]:
        """For `direction` "cited": (paper, how many of `pids` cite it); for "citing": (paper,
        how many of `pids` it cites). Sorted by paper_id. The tool layer counts co-citation and
        coupling with this over the papers a task may see, so hidden papers add nothing."""
        if direction not in ("cited", "citing"):
            raise ValueError(f"direction must be 'cited' or 'citing', got {direction!r}")
        wanted = [p for p in dict.fromkeys(pids) if p in self._row]
        if not wanted:
            return []
        other = "citing" if direction == "cited" else "cited"
        rows = self._graph(wanted[0]).execute(
            f"SELECT {direction}, count(*) FROM edges WHERE {other} = ANY(?::VARCHAR[]) "
            "GROUP BY 1 ORDER BY 1", [wanted]).fetchall()
        return [(row[0], int(row[1])) for row in rows]

    def citing_paragraphs(self, pid: str) -> list[Paragraph]:
        """Paragraphs of other papers whose `cited` list holds `pid` (its citation contexts),
        by (paper_id, source, position); [] when the corpus has no full text."""
        return self._paragraphs(pid, "list_contains(cited, $pid) AND paper_id <> $pid",
                                "paper_id, source, position")

    def paragraphs(self, pid: str) -> list[Paragraph]:
        """Full-text paragraphs of `pid` by (source, position); [] when it has none."""
        return self._paragraphs(pid, "paper_id = $pid", "source, position")

    def _paragraphs(self, pid: str, where: str, order: str) -> list[Paragraph]:
        if pid not in self._row:
            raise KeyError(f"{pid!r} is not a paper_id of this corpus (see Corpus.resolve)")
        if not (self.directory / PARAGRAPHS).is_file():
            return []
        rows = self._reader().execute(
            "SELECT paper_id, section, position, text, cited, cited_unresolved, source "
            f"FROM paragraphs WHERE {where} ORDER BY {order}", {"pid": pid}).fetchall()
        return [Paragraph(*row) for row in rows]

    def close(self) -> None:
        self._con.close()


def _texts(table: pa.Table, fields: str) -> list[str]:
    titles = table.column("title").to_pylist()
    if fields == "title":
        return titles
    return [index_text(title, abstract or "") for title, abstract in
            zip(titles, table.column("abstract").to_pylist())]
