"""ReportBench ground truth: `ReportBench_v1.1_GT/<arxiv_id>.jsonl`, one cited work per line.

Each line is `{bib_id, title, author, meta_info: {year, journal, doi, eprint, url, ...}}`.
A `GTReference` keeps the title (line breaks collapsed), the BibTeX key, the author string and
the id keys the corpus importer reads from `meta_info` (`data.sources.reportbench.
reference_ids`: at most one DOI and one arXiv id). Titles are what the metrics match on; the ids
are kept for inspection and for resolving GT entries to corpus papers.

Bad input raises DataError naming the file, the line and the field: a line without a string
`title`, a non-object `meta_info`, a file not named `<arxiv_id>.jsonl`. Upstream reads these
files with `data.get('title', '')` and drops nothing either; an empty title there is dropped
from the title set silently, here it is an error (none of the 16,204 shipped lines has one).
"""
from __future__ import annotations

import re

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.reportbench.tasks import LOCAL_KEY
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.source_tree import check_source
from scholarbench.data.sources._io import clean_title, need_str
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.reportbench import (TASKS_FILE, read_surveys, reference_ids,
                                                   reportbench_gt_dir)
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.files import sha256_file


@dataclass(frozen=True)
class GTReference:
    title: str
    bib_id: str = ""
    author: str = ""
    ids: tuple[str, ...] = ()    # canonical id keys (`arxiv:…`, `doi:…`)


def survey_id_from_path(path: Path) -> str:
    key = id_key("arxiv", path.stem)
    if (key is None or key.split(":", 1)[1] != path.stem) and \
            re.fullmatch(LOCAL_KEY, path.stem) is None:
        raise DataError("a GT file must be named <arxiv_id>.jsonl (no version) or "
                        "local-<slug>.jsonl", file=str(path))
    return path.stem


def read_gt_file(path: str | Path) -> list[GTReference]:
    path = Path(path)
    survey_id_from_path(path)
    out = []
    for line, obj in iter_jsonl(path):
        title = clean_title(need_str(obj, "title", file=path, line=line))
        if not title:
            raise DataError("empty title", file=str(path), line=line, field="title")
        meta = obj.get("meta_info")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise DataError("need an object", file=str(path), line=line, field="meta_info")
        bib_id = obj.get("bib_id")
        author = obj.get("author")
        out.append(GTReference(title, bib_id if isinstance(bib_id, str) else "",
                               author if isinstance(author, str) else "", reference_ids(meta)))
    return out


def gt_files(gt_dir: str | Path) -> dict[str, Path]:
    """arxiv_id -> GT file, for a GT folder or a ReportBench folder holding `*_GT/` (or `gt/`
    as `data import` writes it)."""
    gt = reportbench_gt_dir(Path(gt_dir))
    if not gt.is_dir():
        raise DataError("not a folder", file=str(gt))
    files = sorted(gt.glob("*.jsonl"))
    if not files:
        raise DataError("no ReportBench ground-truth <arxiv_id>.jsonl files", file=str(gt))
    return {survey_id_from_path(p): p for p in files}


def load_ground_truth(gt_dir: str | Path) -> dict[str, list[GTReference]]:
    """arxiv_id -> its GT references (file order), for every GT file in the folder."""
    return {survey: read_gt_file(path) for survey, path in gt_files(gt_dir).items()}


def import_dataset(source: Path, target: Path) -> dict[str, Any]:
    """`data import reportbench PATH` (the registry's "dataset" entry): validate every
    ground-truth file, then copy them to `target`/gt, and the task surveys when `source` has
    them; {what: counts}."""
    gt = source / "ReportBench_v1.1_GT" if (source / "ReportBench_v1.1_GT").is_dir() else source
    files = sorted(gt.glob("*.json*"))
    if not files:
        raise ScholarbenchError(f"{source}: no ReportBench ground-truth files found")
    for survey, refs in load_ground_truth(gt).items():    # validates every line first
        if not refs:
            raise DataError("no references in the file (it is empty)",
                            file=str(gt / f"{survey}.jsonl"))
    check_source(gt, target.parent)                  # target is <data>/reportbench
    shutil.copytree(gt, target / "gt", dirs_exist_ok=True)
    entry: dict[str, Any] = {"gt": {"files": len(files)}}
    tasks = source / TASKS_FILE
    if tasks.is_file():
        surveys = sum(1 for _ in read_surveys(tasks))   # validates
        shutil.copyfile(tasks, target / TASKS_FILE)
        entry["tasks"] = {"surveys": surveys, "sha256": sha256_file(tasks)}
    return entry
