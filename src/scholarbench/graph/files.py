"""Read a graph from user files: edges `citing,cited` and papers `id,year[,venue]`, each a CSV
(plain or .gz, with a header row) or a Parquet file. Bad input raises DataError naming the file,
the line (CSV; the header is line 1) or record (Parquet, 1-based), and the column.

An empty `year` (CSV) or a null one (Parquet) means the year is unknown; an empty venue means none.
"""
from __future__ import annotations

import csv
from pathlib import Path

from scholarbench.data.jsonl import open_text
from scholarbench.files import require_regular
from scholarbench.errors import DataError
from scholarbench.graph.build import build_graph
from scholarbench.graph.records import CitationGraph

EDGE_COLUMNS = ("citing", "cited")
PAPER_COLUMNS = ("id", "year")
OPTIONAL_PAPER_COLUMNS = ("venue",)


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in (".parquet", ".pq")


def _read_csv(path: Path, required: tuple[str, ...], optional: tuple[str, ...]
              ) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    with open_text(path) as handle:
        try:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None:
                raise DataError("empty file (no header row)", file=str(path), line=1)
            header = [h.strip() for h in header]
            missing = [c for c in required if c not in header]
            if missing:
                raise DataError(f"no column {missing[0]!r}; header is {header}", file=str(path),
                                line=1, field=missing[0])
            wanted = [c for c in required + optional if c in header]
            index = [header.index(c) for c in wanted]
            cols: list[list[str]] = [[] for _ in wanted]
            for lineno, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    raise DataError(f"expected {len(header)} fields, got {len(row)}",
                                    file=str(path), line=lineno)
                for col, i in zip(cols, index):
                    col.append(row[i])
            out = dict(zip(wanted, cols))
        except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
            raise DataError(f"cannot read: {exc}", file=str(path)) from exc
    return out


def _read_parquet(path: Path, required: tuple[str, ...], optional: tuple[str, ...]
                  ) -> dict[str, list]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        raise DataError(f"not a readable Parquet file: {exc}", file=str(path)) from exc
    missing = [c for c in required if c not in schema.names]
    if missing:
        raise DataError(f"no column {missing[0]!r}; columns are {schema.names}", file=str(path),
                        field=missing[0])
    wanted = [c for c in required + optional if c in schema.names]
    table = pq.read_table(path, columns=wanted)
    return {c: table.column(c).combine_chunks() for c in wanted}


def _bad(path: Path, i: int, csv_file: bool, field: str, message: str) -> DataError:
    """Value i of a column: CSV line i + 2 (the header is line 1), else Parquet record i + 1."""
    if csv_file:
        return DataError(message, file=str(path), line=i + 2, field=field)
    return DataError(f"record {i + 1}: {message}", file=str(path), field=field)


def _arrow_ids(path: Path, name: str, values, csv_file: bool):
    """Ids from an Arrow column (Parquet) without a Python object per value: strings trimmed,
    integers as their decimal text; the first null, empty or other-typed value is the error."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if pa.types.is_integer(values.type):
        text = values.cast(pa.large_string())
    elif pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        text = pc.utf8_trim_whitespace(values.cast(pa.large_string()))
    else:
        return _ids(path, name, values.to_pylist(), csv_file)
    bad = pc.or_kleene(pc.is_null(text), pc.equal(pc.utf8_length(text), 0)).fill_null(True)
    if pc.any(bad).as_py():
        i = pc.index(bad, True).as_py()
        raise _bad(path, i, csv_file, name, f"need a non-empty id, got {values[i].as_py()!r}")
    return text


def _ids(path: Path, name: str, values, csv_file: bool):
    if not isinstance(values, list):
        return _arrow_ids(path, name, values, csv_file)
    out = []
    for i, value in enumerate(values):
        text = value.strip() if isinstance(value, str) else (
            str(value) if isinstance(value, int) and not isinstance(value, bool) else None)
        if not text:
            raise _bad(path, i, csv_file, name, f"need a non-empty id, got {value!r}")
        out.append(text)
    return out


def _year(value: object) -> int | None:
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _years(path: Path, values: list, csv_file: bool) -> list[int | None]:
    out: list[int | None] = []
    for i, value in enumerate(values):
        if value is None or (isinstance(value, str) and not value.strip()):
            out.append(None)
            continue
        year = _year(value)
        if year is None or not 0 <= year <= 9999:
            raise _bad(path, i, csv_file, "year", f"need an integer year or nothing, got {value!r}")
        out.append(year)
    return out


def read_table(path: str | Path, required: tuple[str, ...], optional: tuple[str, ...] = ()
               ) -> tuple[dict[str, list], bool]:
    """({column: values}, is_csv)."""
    path = Path(path)
    require_regular(path)
    if not path.is_file():
        raise DataError("no such file", file=str(path))
    if _is_parquet(path):
        return _read_parquet(path, required, optional), False
    return _read_csv(path, required, optional), True


def read_graph(edges: str | Path, papers: str | Path) -> CitationGraph:
    """The citation graph of an edge file and a paper file."""
    edges, papers = Path(edges), Path(papers)
    pcols, p_csv = read_table(papers, PAPER_COLUMNS, OPTIONAL_PAPER_COLUMNS)
    pcols = {c: v if isinstance(v, list) else v.to_pylist() for c, v in pcols.items()}
    ids = _ids(papers, "id", pcols["id"], p_csv)
    seen: dict[str, int] = {}
    for i, pid in enumerate(ids):
        if pid in seen:
            first = f"line {seen[pid] + 2}" if p_csv else f"record {seen[pid] + 1}"
            raise _bad(papers, i, p_csv, "id", f"duplicate id {pid!r} (first on {first})")
        seen[pid] = i
    years = _years(papers, pcols["year"], p_csv)
    venues = None
    if "venue" in pcols:
        venues = [v.strip() if isinstance(v, str) else (None if v is None else str(v))
                  for v in pcols["venue"]]
    ecols, e_csv = read_table(edges, EDGE_COLUMNS)
    citing = _ids(edges, "citing", ecols.pop("citing"), e_csv)
    cited = _ids(edges, "cited", ecols.pop("cited"), e_csv)
    return build_graph(ids, years, venues, citing, cited, name=papers.stem)
