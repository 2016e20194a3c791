"""TaxoBench instance files: each instance's expert papers (`pdfs[{title, abs}]`) as papers.

Titles and abstracts are kept verbatim (stripped); TaxoBench gives no ids or years.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from scholarbench.data.sources.records import PaperRecord
from scholarbench.data.taxobench import load_instances

SOURCE = "taxobench"


def read_taxobench(files: Iterable[Path]) -> Iterator[PaperRecord]:
    for path in files:
        for task in load_instances(path):   # raises DataError naming file, line and field
            for paper in task.papers:
                yield PaperRecord(SOURCE, (), paper.title.strip(), paper.abstract.strip())


def taxobench_files(folder: Path) -> list[Path]:
    """Instance files in a TaxoBench data folder: `*.jsonl` whose first record has an expert
    tree (`gt`), so prediction files are left out, and not the upstream scorer's synthetic
    `toy_*` fixtures (three made-up papers that would pollute a corpus)."""
    import json
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        if path.name.startswith("toy_"):
            continue
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        try:
            if "gt" in json.loads(first):
                out.append(path)
        except (json.JSONDecodeError, TypeError):
            out.append(path)  # let the loader report the exact line
    return out
