"""The arxiv-2023 citation graph (TRAIS-Lab/LLM-Structured-Data, `dataset/arxiv_2023/raw`).

Files (gzipped CSV with a header row; row i of each node file is node i):
`ids.csv.gz` (`ids`), `titles.csv.gz` (`titles`), `labels.csv.gz` (`labels`, the arXiv CS
primary category), `edges.csv.gz` (`source,target` node indices; `source` cites `target`).

A node id is an arXiv id (key `arxiv:<id>`, year from the id) or a plain integer, an
ogbn-arxiv node index (key `ogbn:<n>`; these older papers' titles are lower-cased and have no
year). Ids are read as strings: read as numbers, "2010.10000" would become 2010.1.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from scholarbench.data.sources._io import clean_title, read_csv
from scholarbench.data.sources.dates import arxiv_year_month
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, Record
from scholarbench.errors import DataError

SOURCE = "arxiv2023"
FILES = {"ids": "ids.csv.gz", "titles": "titles.csv.gz", "labels": "labels.csv.gz",
         "edges": "edges.csv.gz"}
_INT = re.compile(r"^\d+$")


def _column(folder: Path, name: str) -> tuple[Path, list[str]]:
    path = folder / FILES[name]
    _, rows = read_csv(path, [name])
    return path, [row[0] for row in rows]


def read_arxiv2023(folder: Path) -> Iterator[Record]:
    ids_path, ids = _column(folder, "ids")
    titles_path, titles = _column(folder, "titles")
    labels_path = folder / FILES["labels"]
    labels = _column(folder, "labels")[1] if labels_path.exists() else [""] * len(ids)
    for path, column in ((titles_path, titles), (labels_path, labels)):
        if len(column) != len(ids):
            raise DataError(f"{len(column)} rows but {ids_path.name} has {len(ids)}",
                            file=str(path))
    refs = []
    for row, (raw, title, label) in enumerate(zip(ids, titles, labels)):
        line = row + 2
        raw = raw.strip()
        if _INT.match(raw):
            key, year = id_key("ogbn", raw), None
        else:
            key = id_key("arxiv", raw)
            if key is None or key != f"arxiv:{raw}":
                raise DataError(f"neither an arXiv id nor an integer: {raw!r}",
                                file=str(ids_path), line=line, field="ids")
            month = arxiv_year_month(raw)
            year = month[0] if month else None
        title = clean_title(title)
        if not title:
            raise DataError("empty title", file=str(titles_path), line=line, field="titles")
        record = PaperRecord(SOURCE, (key,), title, "", year, None, None, label.strip() or None)
        refs.append(record.ref())
        yield record
    edges_path = folder / FILES["edges"]
    first, rows = read_csv(edges_path, ["source", "target"])
    n = len(refs)
    for i, (src, dst) in enumerate(rows):
        line = first + i
        for name, value in (("source", src), ("target", dst)):
            if not _INT.match(value.strip()) or int(value) >= n:
                raise DataError(f"not a node index in 0..{n - 1}: {value!r}",
                                file=str(edges_path), line=line, field=name)
        yield EdgeRecord(SOURCE, refs[int(src)], refs[int(dst)])
