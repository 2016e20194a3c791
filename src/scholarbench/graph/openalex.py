"""OpenAlex Works -> Parquet tables a citation graph is built from.

Inputs: bulk-snapshot part files (`data/works/updated_date=*/part_NNN.gz`: gzipped JSON lines,
one Work per line; also `.jsonl` / `.jsonl.gz`), API list pages (`{"meta", "results": [...]}`)
and single Works (`GET /works/W…`, `.json`). A folder is searched recursively.

Output (one Parquet part per input file, so parts can be ingested in parallel and appended):
    works/part-NNNNN.parquet       part, record, work (W-id), paper_id (corpus key
                                   `openalex:W…`), title, year, venue (S-id of
                                   primary_location.source, else of the legacy host_venue),
                                   venue_name, type, updated (updated_date)
    references/part-NNNNN.parquet  part, record, citing, cited (W-ids; one row per
                                   referenced_works entry, repeats kept as given)
    concepts/part-NNNNN.parquet    part, record, work, concept (C-id), name, level, score
`part` numbers the input files in sorted path order and `record` is the line (JSON lines) or the
position in `results` (0-based; 0 for a single Work), so every row points back to its source.
A Work found twice (a Work in an API page and in a snapshot) is resolved when the graph is
built: the copy with the latest `updated`, then the later part and record, wins.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from scholarbench.data.sources._io import clean_title
from scholarbench.data.sources.dates import parse_year
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.openalex import work_objects
from scholarbench.errors import DataError
from scholarbench.graph.build import build_graph
from scholarbench.graph.records import CitationGraph

SUFFIXES = (".json", ".jsonl", ".jsonl.gz", ".gz")

WORKS_SCHEMA = pa.schema([
    ("part", pa.int32()), ("record", pa.int64()), ("work", pa.string()), ("paper_id", pa.string()),
    ("title", pa.string()), ("year", pa.int32()), ("venue", pa.string()),
    ("venue_name", pa.string()), ("type", pa.string()), ("updated", pa.string())])
REFERENCES_SCHEMA = pa.schema([
    ("part", pa.int32()), ("record", pa.int64()), ("citing", pa.string()), ("cited", pa.string())])
CONCEPTS_SCHEMA = pa.schema([
    ("part", pa.int32()), ("record", pa.int64()), ("work", pa.string()), ("concept", pa.string()),
    ("name", pa.string()), ("level", pa.int8()), ("score", pa.float32())])
TABLES = {"works": WORKS_SCHEMA, "references": REFERENCES_SCHEMA, "concepts": CONCEPTS_SCHEMA}


@dataclass(frozen=True)
class Concept:
    id: str
    name: str
    level: int | None
    score: float | None


@dataclass(frozen=True)
class OpenAlexWork:
    work: str                     # short W-id
    title: str
    year: int | None
    venue: str | None             # short S-id
    venue_name: str | None
    type: str | None
    updated: str | None
    references: tuple[str, ...]   # short W-ids
    concepts: tuple[Concept, ...]


@dataclass(frozen=True)
class IngestStats:
    files: int
    works: int
    references: int
    concepts: int
    seconds: float


def _short(key: str | None) -> str | None:
    return key.split(":", 1)[1] if key else None


def _tail(value: object, prefix: str) -> str | None:
    """`https://openalex.org/S123` or `S123` -> `S123`; None when not such an id."""
    if not isinstance(value, str):
        return None
    tail = value.strip().rstrip("/").rsplit("/", 1)[-1]
    return tail if len(tail) > 1 and tail[0].upper() == prefix and tail[1:].isdigit() else None


def parse_work(work: object, *, file: Path, line: int | None, field: str = "") -> OpenAlexWork:
    """One Work object; DataError naming the file, line and field of anything unusable."""
    def bad(message: str, name: str) -> DataError:
        return DataError(message, file=str(file), line=line, field=f"{pre}{name}")

    pre = f"{field}." if field else ""
    if not isinstance(work, dict):
        raise DataError("a Work must be an object", file=str(file), line=line, field=field or None)
    wid = _short(id_key("openalex", work.get("id")))
    if wid is None:
        raise bad(f"not an OpenAlex Work id: {work.get('id')!r}", "id")
    title = work.get("title") or work.get("display_name") or ""
    if not isinstance(title, str):
        raise bad("need a string", "title")
    year = work.get("publication_year")
    if year is not None and parse_year(year) is None:
        raise bad(f"need a year, got {year!r}", "publication_year")
    source = (work.get("primary_location") or {}).get("source") if isinstance(
        work.get("primary_location"), dict) else None
    if not isinstance(source, dict):
        source = work.get("host_venue") if isinstance(work.get("host_venue"), dict) else {}
    venue = _tail(source.get("id"), "S")
    venue_name = source.get("display_name") if venue else None
    refs = work.get("referenced_works") or []
    if not isinstance(refs, list):
        raise bad("need a list", "referenced_works")
    references = []
    for i, ref in enumerate(refs):
        key = _short(id_key("openalex", ref))
        if key is None:
            raise bad(f"not an OpenAlex Work id: {ref!r}", f"referenced_works[{i}]")
        references.append(key)
    concepts = []
    for i, c in enumerate(work.get("concepts") or []):
        cid = _tail(c.get("id"), "C") if isinstance(c, dict) else None
        if cid is None:
            raise bad("need an object with a C-id", f"concepts[{i}]")
        level, score = c.get("level"), c.get("score")
        concepts.append(Concept(cid, str(c.get("display_name") or ""),
                                level if isinstance(level, int) else None,
                                float(score) if isinstance(score, (int, float)) else None))
    kind, updated = work.get("type"), work.get("updated_date")
    return OpenAlexWork(work=wid, title=clean_title(title), year=parse_year(year),
                        venue=venue, venue_name=venue_name if isinstance(venue_name, str) else None,
                        type=kind if isinstance(kind, str) else None,
                        updated=updated if isinstance(updated, str) else None,
                        references=tuple(references), concepts=tuple(concepts))


def input_files(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(f for f in p.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES))
        elif p.is_file():
            out.append(p)
        else:
            raise DataError("no such file or folder", file=str(p))
    return sorted(set(out))


def iter_works(path: Path) -> Iterator[tuple[int, OpenAlexWork]]:
    """(record, Work) for each Work of one input file (see the module docstring for `record`)."""
    for record, line, field, work in work_objects(path):
        yield record, parse_work(work, file=path, line=line, field=field)


class _PartWriter:
    """Writes one Parquet part in batches to `NAME.tmp`; `commit` renames it, `abort` deletes
    it, so a failed input file leaves no part behind."""

    def __init__(self, path: Path, schema: pa.Schema, batch: int) -> None:
        self.path, self.schema, self.batch = path, schema, batch
        self.tmp = path.with_name(path.name + ".tmp")
        self.rows: dict[str, list] = {name: [] for name in schema.names}
        self.writer: pq.ParquetWriter | None = None
        self.count = 0

    def add(self, *values: object) -> None:
        for name, value in zip(self.schema.names, values):
            self.rows[name].append(value)
        self.count += 1
        if len(self.rows["part"]) >= self.batch:
            self.flush()

    def flush(self) -> None:
        table = pa.table(self.rows, schema=self.schema)
        if self.writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.writer = pq.ParquetWriter(self.tmp, self.schema)
        self.writer.write_table(table)
        self.rows = {name: [] for name in self.schema.names}

    def commit(self) -> None:
        self.flush()            # an empty part still gets a file (with the schema)
        self.writer.close()
        self.tmp.replace(self.path)

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.tmp.unlink(missing_ok=True)


def ingest_openalex(inputs: Sequence[str | Path], out_dir: str | Path, *,
                    batch_rows: int = 100_000) -> IngestStats:
    """Stream every input file into Parquet parts under out_dir (memory: one batch per table)."""
    start = time.perf_counter()
    out_dir = Path(out_dir)
    for name in TABLES:
        if any((out_dir / name).glob("*.parquet")):
            raise DataError(f"already holds ingested {name}/ parts; ingest into an empty folder "
                            "(parts are numbered by input file)", file=str(out_dir))
    files = input_files(inputs)
    if not files:
        raise DataError(f"no OpenAlex file ({', '.join(SUFFIXES)})",
                        file=", ".join(map(str, inputs)))
    totals = {"works": 0, "references": 0, "concepts": 0}
    for part, path in enumerate(files):
        writers = {name: _PartWriter(out_dir / name / f"part-{part:05d}.parquet", schema,
                                     batch_rows) for name, schema in TABLES.items()}
        try:
            for record, w in iter_works(path):
                writers["works"].add(part, record, w.work, f"openalex:{w.work}", w.title, w.year,
                                     w.venue, w.venue_name, w.type, w.updated)
                for ref in w.references:
                    writers["references"].add(part, record, w.work, ref)
                for c in w.concepts:
                    writers["concepts"].add(part, record, w.work, c.id, c.name, c.level, c.score)
        except BaseException:
            for writer in writers.values():
                writer.abort()
            raise
        for name, writer in writers.items():
            writer.commit()
            totals[name] += writer.count
    return IngestStats(files=len(files), works=totals["works"], references=totals["references"],
                       concepts=totals["concepts"], seconds=time.perf_counter() - start)


LATEST_WORKS = """
SELECT part, record, work, year, venue FROM (
  SELECT part, record, work, year, venue,
         ROW_NUMBER() OVER (PARTITION BY work
                            ORDER BY updated DESC NULLS LAST, part DESC, record DESC) AS rn
  FROM all_works)
WHERE rn = 1
"""


def openalex_graph(tables_dir: str | Path) -> CitationGraph:
    """The citation graph of ingested tables: papers are the Works (latest copy of each; venue =
    source S-id), edges their referenced_works; a referenced Work outside the tables is a stub."""
    import duckdb
    d = Path(tables_dir)
    for name in ("works", "references"):
        if not any((d / name).glob("*.parquet")):
            raise DataError(f"no {name}/*.parquet (run the ingestion first)", file=str(d))
    con = duckdb.connect()
    try:
        con.read_parquet(str(d / "works" / "*.parquet")).create_view("all_works")
        con.read_parquet(str(d / "references" / "*.parquet")).create_view("all_references")
        con.execute("CREATE TEMP TABLE latest AS " + LATEST_WORKS)
        works = con.sql("SELECT work, year, venue FROM latest ORDER BY work").fetchall()
        edges = con.sql("SELECT r.citing, r.cited FROM all_references r "
                        "JOIN latest l ON l.part = r.part AND l.record = r.record").fetchall()
    finally:
        con.close()
    return build_graph([w[0] for w in works], [w[1] for w in works], [w[2] for w in works],
                       [e[0] for e in edges], [e[1] for e in edges], name=d.name)
