"""A plain paper list (JSON lines of {"title", "abstract"?, "year"?}), e.g. the demo distractors."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from scholarbench.data.sources._io import clean_title, need_str, read_jsonl
from scholarbench.data.sources.dates import parse_year
from scholarbench.data.sources.records import PaperRecord

SOURCE = "extra"


def read_extra(path: Path) -> Iterator[PaperRecord]:
    for line, obj in read_jsonl(path):
        title = need_str(obj, "title", file=path, line=line)
        abstract = need_str(obj, "abstract", file=path, line=line, optional=True)
        yield PaperRecord(SOURCE, (), clean_title(title), abstract, parse_year(obj.get("year")))
