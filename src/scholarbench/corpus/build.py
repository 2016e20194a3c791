"""Build a corpus directory from raw sources: read -> merge -> link -> write.

`build_default_corpus(out_dir, data_root)` reads every source present under a data root laid out
like the shared data folder (`taxobench/`, `reportbench/`, `arxiv2023_citation_graph/`,
`unarxive_sample/`, `s2ag_samples/`, `openalex_samples/`, `survey_source_deep_review/`) or like
the user's data directory (`taxobench/`, `reportbench/`, `arxiv2023/`, `unarxive/`, `s2ag/`,
`openalex/`, `deep-review/`); the manifest lists the sources it did not find.

`build_corpus(out_dir, taxobench_files, reportbench_dir=None, extra_papers_file=None)` is the
original entry point: TaxoBench expert papers, ReportBench ground-truth references (not the
task file), and an optional plain paper list.

Merging (`merge.py`), linking edges and paragraphs (`link.py`) and the survey flag
(`survey.py`) are documented in their modules; the layout in `schema.py`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from scholarbench.corpus.link import LinkStats, Resolver, link_edges, link_paragraphs, make_stubs
from scholarbench.corpus.merge import merge_records
from scholarbench.corpus.schema import FORMAT_VERSION, PAPERS
from scholarbench.corpus.survey import is_survey_text
from scholarbench.corpus.write import write_manifest, write_tables
from scholarbench.errors import ScholarbenchError
from scholarbench.data.sources import SOURCES
from scholarbench.data.sources.extra import read_extra
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, ParagraphRecord, Record
from scholarbench.data.sources.reportbench import read_references
from scholarbench.data.sources.taxobench import read_taxobench
from scholarbench.files import sha256_file


@dataclass(frozen=True)
class CorpusInfo:
    path: Path
    n_papers: int                   # stubs included
    counts: dict[str, int]          # distinct (non-stub) papers that each source contributed
    input_records: dict[str, int]   # paper records read per source (before merging)
    merged_duplicates: int          # paper records read - untitled unmatched - papers
    cross_source: int               # papers found in more than one source
    skipped_empty_titles: int       # records with no usable title and no id shared with a paper
    sha256: str                     # of papers.parquet
    n_edges: int = 0
    n_paragraphs: int = 0
    manifest: dict = field(default_factory=dict, repr=False)


def _count(table: dict[str, dict[str, int]], source: str, what: str) -> None:
    row = table.setdefault(source, {})
    row[what] = row.get(what, 0) + 1


def build(out_dir: str | Path, streams: Iterable[tuple[str, Iterable[Record]]],
          inputs: dict, absent: list[str] | None = None) -> CorpusInfo:
    """Build from named record streams (read in the given order, which fixes tie-breaks)."""
    started = time.perf_counter()
    out = Path(out_dir)
    papers_in: list[PaperRecord] = []
    edges_in: list[EdgeRecord] = []
    paras_in: list[ParagraphRecord] = []
    read: dict[str, dict[str, int]] = {}
    for name, stream in streams:
        read.setdefault(name, {})
        for rec in stream:
            if isinstance(rec, PaperRecord):
                papers_in.append(rec)
                _count(read, rec.source, "papers")
            elif isinstance(rec, EdgeRecord):
                edges_in.append(rec)
                _count(read, rec.source, "edges")
            else:
                paras_in.append(rec)
                _count(read, rec.source, "paragraphs")
    papers, merge, assigned = merge_records(papers_in)
    if not papers:
        raise ValueError("no papers to build a corpus from")
    resolver = Resolver(papers, papers_in, assigned)
    stubs, stub_records = make_stubs(edges_in, resolver)
    resolver.add(stubs)
    stats = LinkStats(stubs=len(stubs), stub_records=stub_records)
    edges = link_edges(edges_in, resolver, stats)
    paragraphs = link_paragraphs(paras_in, resolver, stats)
    flagged_by_source = flagged_by_text = 0
    for paper in papers + stubs:
        if paper.is_survey:
            flagged_by_source += 1
        else:
            paper.is_survey = is_survey_text(paper.title, paper.abstract)
            flagged_by_text += paper.is_survey
    all_papers = papers + stubs
    ids = [p.paper_id for p in all_papers]
    if len(set(ids)) != len(ids):  # a 64-bit sha1 prefix collision: never silently merge
        raise ValueError("paper_id collision; lengthen the id")
    files = write_tables(out, all_papers, edges, paragraphs)

    counts: dict[str, int] = {}
    for paper in papers:
        for source in paper.sources:
            counts[source] = counts.get(source, 0) + 1
    input_records = {s: row["papers"] for s, row in sorted(read.items()) if row.get("papers")}
    skipped = sum(merge.untitled_unmatched.values())
    info = dict(
        n_papers=len(all_papers), counts=dict(sorted(counts.items())),
        input_records=input_records, merged_duplicates=merge.merged,
        cross_source=sum(1 for p in papers if len(p.sources) > 1),
        skipped_empty_titles=skipped, sha256=files[PAPERS]["sha256"],
        n_edges=len(edges), n_paragraphs=len(paragraphs))

    def totals(table: dict[str, dict[str, int]]) -> dict[str, int]:
        out_: dict[str, int] = {}
        for row in table.values():
            for k, v in row.items():
                out_[k] = out_.get(k, 0) + v
        return dict(sorted(out_.items()))

    def by_source(table: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
        return {s: dict(sorted(r.items())) for s, r in sorted(table.items())}

    manifest = {
        "format_version": FORMAT_VERSION, **info,
        "files": files,
        "read": {s: dict(sorted(r.items())) for s, r in sorted(read.items())},
        "absent_sources": sorted(absent or []),
        "merge": {"paper_records": merge.records, "papers": merge.papers,
                  "merged": merge.merged, "title_merges_refused": merge.title_merges_refused,
                  "id_merges_unrelated_titles": merge.id_merges_unrelated_titles,
                  "unrelated_examples": merge.unrelated_examples,
                  "untitled_unmatched": merge.untitled_unmatched},
        "stubs": {"papers": len(stubs), "records": stub_records},
        "edges": {"total": totals(stats.edges), "by_source": by_source(stats.edges)},
        "paragraphs": {"total": totals(stats.paragraphs),
                       "by_source": by_source(stats.paragraphs)},
        "citations": by_source(stats.citations),
        "surveys": {"flagged_by_source": flagged_by_source, "flagged_by_text": flagged_by_text},
        "inputs": inputs,
        "build_seconds": round(time.perf_counter() - started, 2),
    }
    write_manifest(out, manifest)
    return CorpusInfo(path=out, manifest=manifest, **info)


def build_corpus(out_dir: str | Path, taxobench_files: list[Path],
                 reportbench_dir: Path | None = None,
                 extra_papers_file: Path | None = None) -> CorpusInfo:
    """Write the corpus (papers, edges, paragraphs, ids, manifest, BM25 indices) into
    `out_dir`, overwriting it, from TaxoBench instance files, a ReportBench GT folder (or the
    folder holding it; only the reference lists are read) and `extra_papers_file`, JSON lines
    of {"title", "abstract"?, "year"?} (source "extra"), e.g. the demo set's distractors."""
    files = [Path(f) for f in taxobench_files]
    streams: list[tuple[str, Iterable[Record]]] = [("taxobench", read_taxobench(files))]
    if reportbench_dir is not None:
        streams.append(("reportbench", read_references(Path(reportbench_dir))))
    if extra_papers_file is not None:
        streams.append(("extra", read_extra(Path(extra_papers_file))))
    inputs = {"taxobench": [{"path": str(f.resolve()), "sha256": sha256_file(f)} for f in files],
              "reportbench": str(Path(reportbench_dir).resolve()) if reportbench_dir else None,
              "extra": str(Path(extra_papers_file).resolve()) if extra_papers_file else None}
    return build(out_dir, streams, inputs)


class NoCorpusSource(ScholarbenchError, FileNotFoundError):
    """A data directory with nothing to build the default corpus from (one line, exit 2)."""


def has_corpus(data_root: str | Path) -> bool:
    """Whether `data_root` has a default corpus, or a source to build it from."""
    root = Path(data_root)
    return ((root / "corpus" / "default" / "manifest.json").exists()
            or any(source.locate(root) is not None for source in SOURCES))


def build_default_corpus(out_dir: str | Path, data_root: str | Path) -> CorpusInfo:
    """Build from every source found under `data_root` (see the module docstring)."""
    root = Path(data_root)
    streams: list[tuple[str, Iterable[Record]]] = []
    inputs: dict[str, str] = {}
    absent = []
    for source in SOURCES:
        folder = source.locate(root)
        if folder is None:
            absent.append(source.name)
            continue
        streams.append((source.name, source.read(folder)))
        inputs[source.name] = str(folder.resolve())
    if not streams:
        raise NoCorpusSource(f"no corpus source under {root} (looked for "
                             f"{', '.join(s.folders[0] for s in SOURCES)}): import data "
                             "first (scholarbench data import NAME PATH) or run "
                             "scholarbench demo")
    return build(out_dir, streams, inputs, absent)


def default_corpus(data_root: str | Path, rebuild: bool = False) -> Path:
    """The default corpus of a data directory (`<data>/corpus/default`), built from the imported
    data the first time it is asked for (or again with `rebuild`)."""
    target = Path(data_root) / "corpus" / "default"
    if rebuild or not (target / "manifest.json").exists():
        info = build_default_corpus(target, data_root)
        print(f"built corpus {target}: {info.n_papers} papers; per source {info.counts}")
    return target


CORPUS_INFO_KEYS = ("format_version", "sha256", "files", "counts", "n_papers", "n_edges")


def corpus_info(corpus_dir: str | Path | None) -> dict | None:
    """What a run's manifest records of its corpus: the path and the corpus manifest's checksum,
    format and counts (None without a corpus)."""
    import json
    if corpus_dir is None:
        return None
    corpus_dir = Path(corpus_dir)
    manifest = corpus_dir / "manifest.json"
    info = json.loads(manifest.read_text(encoding="utf-8")) if manifest.exists() else {}
    return {"path": str(corpus_dir.resolve()), **{k: info[k] for k in CORPUS_INFO_KEYS if k in info}}
