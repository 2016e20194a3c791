"""Build a corpus directory from TaxoBench instance files and ReportBench reference lists.

TaxoBench gives each instance's expert papers with abstracts (`pdfs[{title, abs}]`). ReportBench's
ground-truth files (`ReportBench_v1.1_GT/<arxiv_id>.jsonl`, one cited work per line:
`{bib_id, title, author, meta_info: {year, ...}}`) give distractor titles without abstracts.
Records with the same normalised title are merged into one paper: the longest abstract wins
(with its title spelling and source; the first record read wins ties), and `sources` lists every
source that had it.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from scholarbench.corpus.bm25 import BM25Index
from scholarbench.corpus.store import (INDEX_DIRS, MANIFEST, PAPERS, index_text, paper_id_for,
                                       sha256_file)
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.taxobench import load_instances
from scholarbench.errors import DataError
from scholarbench.text.normalize import normalize_title

FORMAT_VERSION = 1
SCHEMA = pa.schema([
    ("paper_id", pa.string()), ("title", pa.string()), ("abstract", pa.string()),
    ("norm_title", pa.string()), ("source", pa.string()), ("sources", pa.list_(pa.string())),
    ("year", pa.int32()),
])
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")


@dataclass(frozen=True)
class CorpusInfo:
    path: Path
    n_papers: int
    counts: dict[str, int]          # distinct papers that each source contributed
    input_records: dict[str, int]   # records read per source (before merging)
    merged_duplicates: int          # records read - papers kept
    cross_source: int               # papers found in more than one source
    skipped_empty_titles: int
    sha256: str                     # of papers.parquet


@dataclass
class _Record:
    title: str
    abstract: str
    source: str
    year: int | None


@dataclass
class _Merged:
    best: _Record
    sources: set[str] = field(default_factory=set)
    year: int | None = None


def parse_year(value: object) -> int | None:
    """A four-digit year from bibliography text ("2019b", "Aug. 2021", "2021-04-21"), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1800 <= value <= 2099 else None
    if isinstance(value, str):
        match = _YEAR.search(value)
        return int(match.group(1)) if match else None
    return None


def _taxobench_records(files: list[Path]) -> Iterator[_Record]:
    for path in files:
        for task in load_instances(path):
            for paper in task.papers:
                yield _Record(paper.title.strip(), paper.abstract.strip(), "taxobench", None)


def _extra_records(path: Path) -> Iterator[_Record]:
    for line, obj in iter_jsonl(path):
        title, abstract = obj.get("title"), obj.get("abstract", "") or ""
        if not isinstance(title, str) or not isinstance(abstract, str):
            raise DataError("need a string 'title' (and optional string 'abstract')",
                            file=str(path), line=line, field="title")
        yield _Record(" ".join(title.split()), abstract.strip(), "extra", parse_year(obj.get("year")))


def reportbench_gt_dir(reportbench_dir: Path) -> Path:
    """Accept the ReportBench data folder (holding `*_GT/`) or the GT folder itself."""
    gt_dirs = sorted(p for p in reportbench_dir.glob("*_GT") if p.is_dir())
    if len(gt_dirs) > 1:
        raise DataError(f"several GT folders: {[p.name for p in gt_dirs]}",
                        file=str(reportbench_dir))
    return gt_dirs[0] if gt_dirs else reportbench_dir


def _reportbench_records(reportbench_dir: Path) -> Iterator[_Record]:
    gt = reportbench_gt_dir(reportbench_dir)
    files = sorted(gt.glob("*.jsonl"))
    if not files:
        raise DataError("no ReportBench ground-truth *.jsonl files", file=str(gt))
    for path in files:
        for line, obj in iter_jsonl(path):
            title = obj.get("title")
            if not isinstance(title, str):
                raise DataError("reference needs a string 'title'", file=str(path), line=line,
                                field="title")
            meta = obj.get("meta_info")
            year = parse_year(meta.get("year")) if isinstance(meta, dict) else None
            # LaTeX-extracted titles can carry line breaks; TaxoBench titles stay verbatim
            yield _Record(" ".join(title.split()), "", "reportbench", year)


def build_corpus(out_dir: str | Path, taxobench_files: list[Path],
                 reportbench_dir: Path | None = None,
                 extra_papers_file: Path | None = None) -> CorpusInfo:
    """Write papers.parquet, manifest.json and the BM25 index into `out_dir` (overwriting them).

    `extra_papers_file` is JSON lines of {"title", "abstract"?, "year"?} (source "extra"), e.g.
    the demo set's distractors.
    """
    out = Path(out_dir)
    merged: dict[str, _Merged] = {}
    read: dict[str, int] = {}
    skipped = 0
    streams = [_taxobench_records([Path(f) for f in taxobench_files])]
    if reportbench_dir is not None:
        streams.append(_reportbench_records(Path(reportbench_dir)))
    if extra_papers_file is not None:
        streams.append(_extra_records(Path(extra_papers_file)))
    for stream in streams:
        for rec in stream:
            read[rec.source] = read.get(rec.source, 0) + 1
            norm = normalize_title(rec.title)
            if not norm:
                skipped += 1
                continue
            entry = merged.get(norm)
            if entry is None:
                merged[norm] = _Merged(rec, {rec.source}, rec.year)
                continue
            entry.sources.add(rec.source)
            if len(rec.abstract) > len(entry.best.abstract):
                entry.best = rec
            if entry.year is None:
                entry.year = rec.year
    if not merged:
        raise ValueError("no papers to build a corpus from")

    rows = sorted(((paper_id_for(e.best.title), norm, e) for norm, e in merged.items()),
                  key=lambda r: r[0])
    ids = [r[0] for r in rows]
    if len(set(ids)) != len(ids):  # a 64-bit sha1 prefix collision: never silently merge
        raise ValueError("paper_id collision; lengthen the id")
    table = pa.table({
        "paper_id": ids,
        "title": [e.best.title for _, _, e in rows],
        "abstract": [e.best.abstract for _, _, e in rows],
        "norm_title": [norm for _, norm, _ in rows],
        "source": [e.best.source for _, _, e in rows],
        "sources": [sorted(e.sources) for _, _, e in rows],
        "year": [e.best.year if e.best.year is not None else e.year for _, _, e in rows],
    }, schema=SCHEMA)
    out.mkdir(parents=True, exist_ok=True)
    papers = out / PAPERS
    tmp = papers.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    tmp.replace(papers)
    sha = sha256_file(papers)

    counts: dict[str, int] = {}
    for _, _, e in rows:
        for source in e.sources:
            counts[source] = counts.get(source, 0) + 1
    info = CorpusInfo(
        path=out, n_papers=len(rows), counts=dict(sorted(counts.items())),
        input_records=dict(sorted(read.items())),
        merged_duplicates=sum(read.values()) - skipped - len(rows),
        cross_source=sum(1 for _, _, e in rows if len(e.sources) > 1),
        skipped_empty_titles=skipped, sha256=sha)

    BM25Index.build([index_text(e.best.title, e.best.abstract) for _, _, e in rows]).save(
        out / INDEX_DIRS["title+abstract"], sha)
    BM25Index.build([e.best.title for _, _, e in rows]).save(out / INDEX_DIRS["title"], sha)
    manifest = {"format_version": FORMAT_VERSION,
                **{k: v for k, v in asdict(info).items() if k != "path"},
                "inputs": {"taxobench": [{"path": str(Path(f).resolve()),
                                          "sha256": sha256_file(Path(f))} for f in taxobench_files],
                           "reportbench": str(Path(reportbench_dir).resolve())
                           if reportbench_dir is not None else None,
                           "extra": str(Path(extra_papers_file).resolve())
                           if extra_papers_file is not None else None}}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return info
