"""Write a built corpus to its directory: Parquet tables (atomically), BM25 indices, manifest."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from scholarbench.corpus.bm25 import BM25Index
from scholarbench.corpus.merge import MergedPaper
from scholarbench.corpus.schema import (EDGES, EDGES_SCHEMA, IDS, IDS_SCHEMA, INDEX_DIRS,
                                        MANIFEST, PAPERS, PAPERS_SCHEMA, PARAGRAPHS,
                                        PARAGRAPHS_SCHEMA, Paragraph, index_text)
from scholarbench.files import sha256_file


def _write(table: pa.Table, path: Path) -> dict:
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp, compression="zstd")
    tmp.replace(path)
    return {"rows": table.num_rows, "bytes": path.stat().st_size, "sha256": sha256_file(path)}


def papers_table(papers: Sequence[MergedPaper]) -> pa.Table:
    return pa.table({
        "paper_id": [p.paper_id for p in papers], "title": [p.title for p in papers],
        "abstract": [p.abstract for p in papers], "norm_title": [p.norm_title for p in papers],
        "year": [p.year for p in papers], "published": [p.published for p in papers],
        "ids": [p.ids for p in papers], "sources": [p.sources for p in papers],
        "source": [p.source for p in papers], "is_survey": [bool(p.is_survey) for p in papers],
        "category": [p.category for p in papers], "stub": [p.stub for p in papers],
    }, schema=PAPERS_SCHEMA)


def write_tables(out: Path, papers: Sequence[MergedPaper], edges: Sequence[tuple[str, str, str]],
                 paragraphs: Sequence[Paragraph]) -> dict[str, dict]:
    """papers sorted by paper_id (= BM25 row order), edges by (citing, cited), paragraphs by
    (paper_id, source, position), ids by (key, paper_id). Returns rows / bytes / sha256 per file."""
    out.mkdir(parents=True, exist_ok=True)
    papers = sorted(papers, key=lambda p: p.paper_id)
    edges = sorted(edges)
    paragraphs = sorted(paragraphs, key=lambda p: (p.paper_id, p.source, p.position))
    ids = sorted({(key, p.paper_id) for p in papers for key in p.keys})
    files = {PAPERS: _write(papers_table(papers), out / PAPERS)}
    files[EDGES] = _write(pa.table({"citing": [e[0] for e in edges],
                                    "cited": [e[1] for e in edges],
                                    "source": [e[2] for e in edges]}, schema=EDGES_SCHEMA),
                          out / EDGES)
    files[PARAGRAPHS] = _write(pa.table({
        "paper_id": [p.paper_id for p in paragraphs], "section": [p.section for p in paragraphs],
        "position": [p.position for p in paragraphs], "text": [p.text for p in paragraphs],
        "cited": [p.cited for p in paragraphs],
        "cited_unresolved": [p.cited_unresolved for p in paragraphs],
        "source": [p.source for p in paragraphs]}, schema=PARAGRAPHS_SCHEMA), out / PARAGRAPHS)
    files[IDS] = _write(pa.table({"key": [k for k, _ in ids], "paper_id": [p for _, p in ids]},
                                 schema=IDS_SCHEMA), out / IDS)
    for fields, dirname in INDEX_DIRS.items():
        texts = [p.title if fields == "title" else index_text(p.title, p.abstract)
                 for p in papers]
        BM25Index.build(texts).save(out / dirname, files[PAPERS]["sha256"])
    return files


def write_manifest(out: Path, manifest: dict) -> None:
    tmp = out / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(out / MANIFEST)
