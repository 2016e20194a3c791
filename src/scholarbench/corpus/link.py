"""Point edges and paragraphs at merged papers: resolve each end, make stubs, count the rest.

An edge end (or a paragraph's paper, or a cited reference) is a `Ref`: id keys and maybe a
title. It resolves to the paper holding one of its id keys (tried in `keys.PRIORITY` order),
else to the one paper holding its title key — unless that paper has a different id of an
exclusive kind than the ref (the merge guard again), or several papers share the title
(`ambiguous`). An end that resolves to nothing becomes a *stub* paper when it has a title
(stubs merge among themselves like papers; `stub` is True, sources are the edge sources);
otherwise it stays unresolved. Nothing is dropped without a count:

    edges: read, kept, self_loops (after rewriting), duplicates, unresolved, ambiguous
    paragraphs: read, kept, unresolved (their paper is not in the corpus)
    citations (paragraph -> cited reference): resolved, unresolved, no_id

per source. Duplicate edges keep the first source in source order; the dropped ones are
counted under their own source.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from scholarbench.corpus.merge import MergedPaper, merge_records
from scholarbench.corpus.schema import Paragraph
from scholarbench.data.sources.keys import EXCLUSIVE, key_kind, priority, title_key
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, ParagraphRecord, Ref

AMBIGUOUS = "ambiguous"


@dataclass
class LinkStats:
    edges: dict[str, dict[str, int]] = field(default_factory=dict)
    paragraphs: dict[str, dict[str, int]] = field(default_factory=dict)
    citations: dict[str, dict[str, int]] = field(default_factory=dict)
    stubs: int = 0
    stub_records: int = 0

    @staticmethod
    def bump(table: dict[str, dict[str, int]], source: str, what: str, n: int = 1) -> None:
        row = table.setdefault(source, {})
        row[what] = row.get(what, 0) + n


class Resolver:
    """Key -> paper lookups over merged papers (id keys are unique; title keys may not be).

    A ref equal to a paper record's own ref (a ReportBench reference line is both a paper
    record and the cited end of an edge) resolves to the paper that record was merged into,
    so the edge follows the merge even where the ref's title alone would be ambiguous."""

    def __init__(self, papers: Sequence[MergedPaper],
                 records: Sequence[PaperRecord] = (),
                 assigned: Sequence[str | None] = ()) -> None:
        self.by_id: dict[str, str] = {}
        self.by_title: dict[str, list[str]] = {}
        self.exclusive: dict[str, dict[str, set[str]]] = {}
        self.by_ref: dict[Ref, str] = {}
        for rec, pid in zip(records, assigned):
            if pid is not None:
                self.by_ref[rec.ref()] = pid
        self.add(papers)

    def add(self, papers: Sequence[MergedPaper]) -> None:
        for paper in papers:
            for key in paper.ids:
                self.by_id[key] = paper.paper_id
                if key_kind(key) in EXCLUSIVE:
                    self.exclusive.setdefault(paper.paper_id, {}).setdefault(
                        key_kind(key), set()).add(key)
            for key in paper.keys:
                if key.startswith("title:"):
                    self.by_title.setdefault(key, []).append(paper.paper_id)

    def resolve(self, ref: Ref) -> str | None:
        """paper_id, None (no paper) or AMBIGUOUS (several papers share the ref's title)."""
        pid = self.by_ref.get(ref)
        if pid is not None:
            return pid
        for key in sorted(ref.keys, key=priority):
            pid = self.by_id.get(key)
            if pid is not None:
                return pid
        tkey = title_key(ref.title) if ref.title else None
        if not tkey or tkey not in self.by_title:
            return None
        mine: dict[str, set[str]] = {}
        for key in ref.keys:
            if key_kind(key) in EXCLUSIVE:
                mine.setdefault(key_kind(key), set()).add(key)
        fits = [pid for pid in self.by_title[tkey]
                if not any(kind in mine and not (values & mine[kind])
                           for kind, values in self.exclusive.get(pid, {}).items())]
        if len(fits) > 1:
            return AMBIGUOUS
        return fits[0] if fits else None


def make_stubs(edges: Sequence[EdgeRecord], resolver: Resolver
               ) -> tuple[list[MergedPaper], int]:
    """Stub papers for titled edge ends that resolve to no paper, and how many records."""
    records = []
    for edge in edges:
        for ref in (edge.citing, edge.cited):
            if ref.title and resolver.resolve(ref) is None:
                records.append(PaperRecord(edge.source, ref.keys, ref.title, "", ref.year))
    stubs, _, _ = merge_records(records, stub=True)
    return stubs, len(records)


def link_edges(edges: Sequence[EdgeRecord], resolver: Resolver, stats: LinkStats
               ) -> list[tuple[str, str, str]]:
    """(citing, cited, source) rows: rewritten to paper_ids, deduplicated, no self-loops."""
    seen: set[tuple[str, str]] = set()
    rows = []
    for edge in edges:
        src = edge.source
        LinkStats.bump(stats.edges, src, "read")
        citing, cited = resolver.resolve(edge.citing), resolver.resolve(edge.cited)
        if citing == AMBIGUOUS or cited == AMBIGUOUS:
            LinkStats.bump(stats.edges, src, "ambiguous")
            continue
        if citing is None or cited is None:
            LinkStats.bump(stats.edges, src, "unresolved")
            LinkStats.bump(stats.edges, src, "unresolved_citing" if citing is None
                           else "unresolved_cited")
            continue
        if citing == cited:
            LinkStats.bump(stats.edges, src, "self_loops")
            continue
        if (citing, cited) in seen:
            LinkStats.bump(stats.edges, src, "duplicates")
            continue
        seen.add((citing, cited))
        rows.append((citing, cited, src))
        LinkStats.bump(stats.edges, src, "kept")
    return rows


def _best_key(ref: Ref) -> str | None:
    if ref.keys:
        return sorted(ref.keys, key=priority)[0]
    return title_key(ref.title) if ref.title else None


def link_paragraphs(paragraphs: Sequence[ParagraphRecord], resolver: Resolver,
                    stats: LinkStats) -> list[Paragraph]:
    out = []
    for para in paragraphs:
        src = para.source
        LinkStats.bump(stats.paragraphs, src, "read")
        pid = resolver.resolve(para.paper)
        if pid is None or pid == AMBIGUOUS:
            LinkStats.bump(stats.paragraphs, src, "unresolved")
            continue
        cited, missing = [], []
        for ref in para.cited:
            target = resolver.resolve(ref)
            if target is not None and target != AMBIGUOUS:
                LinkStats.bump(stats.citations, src, "resolved")
                if target not in cited:
                    cited.append(target)
                continue
            key = _best_key(ref)
            LinkStats.bump(stats.citations, src, "unresolved" if key else "no_id")
            if key and key not in missing:
                missing.append(key)
        out.append(Paragraph(pid, para.section, para.position, para.text, cited, missing, src))
        LinkStats.bump(stats.paragraphs, src, "kept")
    return out
