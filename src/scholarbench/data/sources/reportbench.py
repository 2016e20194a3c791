"""ReportBench v1.1: the 100 task surveys and their ground-truth reference lists.

- `ReportBench_v1.1.jsonl`: one arXiv metadata record per survey (`arxiv_id`, `title`,
  `abstract`, `doi`, `categories`, `versions[{version, created}]`, ...). Source
  `reportbench-surveys`; `is_survey` is True (these are the benchmark's surveys); `published`
  is the v1 date.
- `ReportBench_v1.1_GT/<arxiv_id>.jsonl`: one cited work per line, `{bib_id, title, author,
  meta_info: {year, journal, doi, eprint, archiveprefix, url, note, abstract, ...}}`. Source
  `reportbench`. Each line is a paper record (title, year, DOI from `doi` or a doi.org `url`,
  arXiv id wherever the entry names arXiv — "arXiv preprint arXiv:1812.10528", an arxiv.org
  `url`, an `eprint` whose `archiveprefix` is arXiv — and the BibTeX `abstract` when present)
  plus an edge survey -> reference.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from scholarbench.data.identifiers import arxiv_id_in_citation
from scholarbench.data.sources._io import clean_title, need_str, read_jsonl
from scholarbench.data.sources.dates import arxiv_year_month, parse_date, parse_year
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, Record, Ref
from scholarbench.errors import DataError

SURVEYS_SOURCE = "reportbench-surveys"
REFS_SOURCE = "reportbench"
TASKS_FILE = "ReportBench_v1.1.jsonl"
_ARXIV_FIELDS = ("journal", "booktitle", "note", "howpublished", "publisher", "volume",
                 "eprint", "archiveprefix")
_ARXIV_EPRINT = re.compile(r"\d{4}\.\d{4,5}(v\d+)?|[a-z][a-z\-]*(\.[A-Za-z]{2})?/\d{7}(v\d+)?")


# a survey not on arXiv, built by `scholarbench build` (`benchmarks.reportbench.tasks`): a
# paper known by its title (and DOI) only
LOCAL_KEY = re.compile(r"local-[a-z0-9]+(?:-[a-z0-9]+)*")


def reportbench_gt_dir(reportbench_dir: Path) -> Path:
    """Accept the ReportBench data folder (holding `*_GT/`, or `gt/` as `data import` writes
    it) or the GT folder itself."""
    gt_dirs = sorted(p for p in reportbench_dir.glob("*_GT") if p.is_dir())
    if not gt_dirs and (reportbench_dir / "gt").is_dir():
        gt_dirs = [reportbench_dir / "gt"]
    if len(gt_dirs) > 1:
        raise DataError(f"several GT folders: {[p.name for p in gt_dirs]}",
                        file=str(reportbench_dir))
    return gt_dirs[0] if gt_dirs else reportbench_dir


def read_surveys(path: Path) -> Iterator[PaperRecord]:
    for line, obj in read_jsonl(path):
        given = need_str(obj, "arxiv_id", file=path, line=line)
        arxiv = id_key("arxiv", given)
        if arxiv is None and not LOCAL_KEY.fullmatch(given):
            raise DataError(f"not an arXiv id (or a local-<slug> key): {given!r}",
                            file=str(path), line=line, field="arxiv_id")
        title = clean_title(need_str(obj, "title", file=path, line=line))
        abstract = need_str(obj, "abstract", file=path, line=line, optional=True)
        doi = id_key("doi", need_str(obj, "doi", file=path, line=line, optional=True))
        categories = need_str(obj, "categories", file=path, line=line, optional=True).split()
        versions = obj.get("versions") or []
        if not isinstance(versions, list) or not all(isinstance(v, dict) for v in versions):
            raise DataError("need a list of {version, created}", file=str(path), line=line,
                            field="versions")
        published = parse_date(versions[0].get("created")) if versions else None
        month = arxiv_year_month(arxiv.split(":", 1)[1]) if arxiv else None
        year = published.year if published else (month[0] if month else None)
        yield PaperRecord(SURVEYS_SOURCE, tuple(k for k in (arxiv, doi) if k), title, abstract,
                          year, published, True, categories[0] if categories else None)


def reference_ids(meta: dict) -> tuple[str, ...]:
    """Id keys of one GT reference's `meta_info`: at most one DOI and one arXiv id, each taken
    from the most reliable field that has one. A BibTeX entry can name two different arXiv ids
    (an `eprint` and a copy-pasted `journal = {arXiv:…}` of another paper); keeping both would
    merge two papers. DOI: `doi`, then a doi.org `url`. arXiv: `arxivid` / an `eprint` that is
    an arXiv id (with `archiveprefix` arXiv or none; "arXiv:" prefix allowed), then `url`, then
    DBLP's CoRR form (journal "CoRR" or "ArXiv", volume "abs/1807.01349"), then any field
    naming arXiv ("arXiv preprint arXiv:1812.10528" in `journal`, `volume`, `note`, ...)."""
    doi = id_key("doi", meta["doi"]) if isinstance(meta.get("doi"), str) else None
    url = meta.get("url")
    if doi is None and isinstance(url, str) and "doi.org/" in url.lower():
        doi = id_key("doi", url)
    candidates = []
    prefix = meta.get("archiveprefix")
    if prefix is None or (isinstance(prefix, str) and prefix.strip().lower() == "arxiv"):
        for name in ("arxivid", "eprint"):
            value = meta.get(name)
            if isinstance(value, str):
                value = re.sub(r"^arxiv:\s*", "", value.strip(), flags=re.IGNORECASE)
                if _ARXIV_EPRINT.fullmatch(value):
                    candidates.append(f"arXiv:{value}")
    candidates.append(meta.get("url"))
    volume, journal = meta.get("volume"), meta.get("journal")
    if isinstance(journal, str) and isinstance(volume, str) and (
            journal.strip().lower() == "corr" or "arxiv" in journal.lower()):
        candidates.append(f"arXiv {volume}")
    candidates += [meta.get(f) for f in _ARXIV_FIELDS]
    arxiv = None
    for text in candidates:
        found = arxiv_id_in_citation(text) if isinstance(text, str) else None
        if found and (arxiv := id_key("arxiv", found)):
            break
    return tuple(k for k in (arxiv, doi) if k)


def read_references(reportbench_dir: Path) -> Iterator[Record]:
    gt = reportbench_gt_dir(reportbench_dir)
    files = sorted(gt.glob("*.jsonl"))
    if not files:
        raise DataError("no ReportBench ground-truth *.jsonl files", file=str(gt))
    for path in files:
        survey = id_key("arxiv", path.stem)
        if survey is None:
            raise DataError("a GT file must be named <arxiv_id>.jsonl", file=str(path))
        for line, obj in read_jsonl(path):
            title = clean_title(need_str(obj, "title", file=path, line=line))
            meta = obj.get("meta_info", {})
            if meta is None:
                meta = {}
            if not isinstance(meta, dict):
                raise DataError("need an object", file=str(path), line=line, field="meta_info")
            abstract = meta.get("abstract") if isinstance(meta.get("abstract"), str) else ""
            paper = PaperRecord(REFS_SOURCE, reference_ids(meta), title, abstract.strip(),
                                parse_year(meta.get("year")))
            yield paper
            yield EdgeRecord(REFS_SOURCE, Ref((survey,)), paper.ref())
