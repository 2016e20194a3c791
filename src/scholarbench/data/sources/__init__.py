"""Readers for every raw source the corpus is built from, one small module each.

Each reader takes the source's folder and yields typed records (`records.py`): papers, citation
edges and full-text paragraphs, with canonical id keys (`keys.py`). Malformed input raises
`DataError` naming the file, the line and the field. `SOURCES` says where each source sits in a
data root: the shared layout (`arxiv2023_citation_graph/`, ...) or the user's data directory
(`arxiv2023/`, ... as `scholarbench data import` writes it).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from scholarbench.data.sources.arxiv2023 import read_arxiv2023
from scholarbench.data.sources.deep_review import read_deep_review
from scholarbench.data.sources.extra import read_extra
from scholarbench.data.sources.openalex import read_openalex
from scholarbench.data.sources.records import (EdgeRecord, PaperRecord, ParagraphRecord, Record,
                                               Ref)
from scholarbench.data.sources.reportbench import (TASKS_FILE, read_references, read_surveys,
                                                   reportbench_gt_dir)
from scholarbench.data.sources.s2ag import read_s2ag
from scholarbench.data.sources.taxobench import read_taxobench, taxobench_files
from scholarbench.data.sources.unarxive import read_unarxive


def _taxobench(folder: Path) -> Iterator[Record]:
    return read_taxobench(taxobench_files(folder))


def _reportbench(folder: Path) -> Iterator[Record]:
    tasks = folder / TASKS_FILE
    if tasks.is_file():
        yield from read_surveys(tasks)
    yield from read_references(folder)


def _present_taxobench(folder: Path) -> bool:
    return bool(taxobench_files(folder))


def _present_reportbench(folder: Path) -> bool:
    return (folder / TASKS_FILE).is_file() or any(reportbench_gt_dir(folder).glob("*.jsonl"))


@dataclass(frozen=True)
class Source:
    name: str
    folders: tuple[str, ...]                 # folder names tried under a data root, in order
    read: Callable[[Path], Iterable[Record]]
    present: Callable[[Path], bool] = lambda folder: any(folder.iterdir())

    def locate(self, root: Path) -> Path | None:
        for name in self.folders:
            folder = root / name
            if folder.is_dir() and self.present(folder):
                return folder
        return None


# Build order: it fixes "first read" tie-breaks when records merge.
SOURCES: tuple[Source, ...] = (
    Source("taxobench", ("taxobench",), _taxobench, _present_taxobench),
    Source("reportbench", ("reportbench",), _reportbench, _present_reportbench),
    Source("arxiv2023", ("arxiv2023", "arxiv2023_citation_graph"), read_arxiv2023,
           lambda f: (f / "ids.csv.gz").is_file()),
    Source("unarxive", ("unarxive", "unarxive_sample"), read_unarxive),
    Source("s2ag", ("s2ag", "s2ag_samples"), read_s2ag),
    Source("openalex", ("openalex", "openalex_samples"), read_openalex),
    Source("deep-review", ("deep-review", "survey_source_deep_review"), read_deep_review,
           lambda f: (f / "output" / "references.json").is_file()),
)

__all__ = ["EdgeRecord", "PaperRecord", "ParagraphRecord", "Record", "Ref", "SOURCES", "Source",
           "read_arxiv2023", "read_deep_review", "read_extra", "read_openalex",
           "read_references", "read_s2ag", "read_surveys", "read_taxobench", "read_unarxive",
           "reportbench_gt_dir", "taxobench_files"]
