"""Merge paper records from every source into papers (union-find over canonical keys).

Keys: every id a record has (`arxiv:…`, `doi:…`, …) plus `title:<normalised title>`.

1. Records sharing an id key are one paper, always. Bibliographies carry wrong ids (a
   ReportBench entry citing "Designing Effective Sparse Expert Models" as arXiv 2202.07101, the
   id of "A Survey on Dynamic Neural Networks for NLP"); such merges cannot be told from a paper
   retitled between versions by the ids alone, so they are kept, counted
   (`id_merges_unrelated_titles`: a record whose title shares no content word with the first
   record holding the id) and sampled in the manifest.
2. Records sharing a title key are one paper unless that would join two papers holding
   different values of an exclusive id kind (`keys.EXCLUSIVE`: arXiv, DOI, OpenAlex, S2,
   ogbn). Same-title pairs are tried in a fixed order (title key, then record order), each
   record joining the first compatible paper with its title; every refusal is counted.
   Without this guard "Point Transformer" (arXiv 2011.00931, Engel et al.) and "Point
   Transformer" (arXiv 2012.09164, Zhao et al.) in the arxiv-2023 graph would become one paper.
3. Records with no title (or one that normalises to nothing) that share no key with a titled
   record are not papers (counted as `untitled_unmatched`).

Fields of a merged paper, chosen deterministically ("first" = first in read order, which
`build` fixes by reading the sources in a fixed order):
- title: the record ranked highest by (title is not all lower case, abstract length, first);
  `source` is that record's source;
- abstract: the longest (first on ties); year: the earliest found; published: the earliest
  exact date found; category: the first found; is_survey: True if any source says so;
- ids: every id key, sorted by `keys.priority`; sources: every source, sorted.
- paper_id: the paper's first id in that order (`arxiv:2304.07638`, else `doi:…`, …), or
  `paper_id_for(title)` (`title:<sha1 of the normalised title, 16 hex>`) for papers with no
  id. Titles alone are not unique (the two Point Transformers), so a paper with an id is named
  by it; papers with titles only keep the title-hash ids earlier corpora used.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from typing import Iterable, Sequence

from scholarbench.data.sources.keys import EXCLUSIVE, key_kind, priority, title_key
from scholarbench.data.sources.records import PaperRecord
from scholarbench.text.normalize import normalize_title


def paper_id_for(title: str) -> str:
    """Id of a paper known by its title only: stable across builds and spellings."""
    return "title:" + hashlib.sha1(normalize_title(title).encode("utf-8")).hexdigest()[:16]


@dataclass
class MergedPaper:
    paper_id: str
    title: str
    abstract: str
    norm_title: str
    year: int | None
    published: date | None
    ids: list[str]
    sources: list[str]
    source: str
    is_survey: bool | None
    category: str | None
    keys: list[str]                 # ids + the title key of every title the records had
    n_records: int
    stub: bool = False


@dataclass
class MergeStats:
    records: int = 0
    papers: int = 0
    merged: int = 0                         # records - papers - untitled dropped
    title_merges_refused: int = 0           # same title, conflicting ids: kept apart
    untitled_unmatched: dict[str, int] = field(default_factory=dict)  # per source
    # records merged through a shared id although their titles share no content word (kept
    # merged: ids win; counted and sampled so bibliography errors are visible)
    id_merges_unrelated_titles: int = 0
    unrelated_examples: list[dict] = field(default_factory=list)


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        root = i
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[i] != root:
            self.parent[i], i = root, self.parent[i]
        return root

    def union(self, a: int, b: int) -> int:
        """Join the sets; the smaller root index stays root (deterministic)."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if rb < ra:
            ra, rb = rb, ra
        self.parent[rb] = ra
        return ra


_STOP = frozenset({"the", "and", "for", "with", "from", "via", "using", "toward", "towards",
                   "into", "its", "are", "our", "new", "how", "what", "can", "not"})


def _words(title: str) -> set[str]:
    return {w for w in normalize_title(title).split() if len(w) > 2 and w not in _STOP}


def _unrelated(a: str, b: str) -> bool:
    """Two titles sharing no content word (both titled): a sign of a wrong id in a
    bibliography, which an id merge cannot tell from a paper retitled between versions."""
    wa, wb = _words(a), _words(b)
    return bool(wa) and bool(wb) and not (wa & wb)


def _exclusive(ids: Iterable[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for key in ids:
        kind = key_kind(key)
        if kind in EXCLUSIVE:
            out.setdefault(kind, set()).add(key)
    return out


def _conflict(a: dict[str, set[str]], b: dict[str, set[str]]) -> bool:
    return any(kind in b and not (values & b[kind]) for kind, values in a.items())


def _components(records: Sequence[PaperRecord], tkeys: Sequence[str | None],
                stats: MergeStats) -> list[list[int]]:
    uf = _UnionFind(len(records))
    first: dict[str, int] = {}
    titles: dict[str, list[int]] = {}
    for i, rec in enumerate(records):
        for key in rec.ids:
            if key in first:
                owner = first[key]
                if _unrelated(records[owner].title, rec.title):
                    stats.id_merges_unrelated_titles += 1
                    if len(stats.unrelated_examples) < 10:
                        stats.unrelated_examples.append(
                            {"key": key, "titles": [records[owner].title, rec.title]})
                uf.union(owner, i)
            else:
                first[key] = i
        if tkeys[i]:
            titles.setdefault(tkeys[i], []).append(i)
    ids: dict[int, dict[str, set[str]]] = {}
    for i, rec in enumerate(records):
        root = uf.find(i)
        for kind, values in _exclusive(rec.ids).items():
            ids.setdefault(root, {}).setdefault(kind, set()).update(values)
    for tkey in sorted(titles):
        clusters: list[int] = []
        for i in titles[tkey]:
            root = uf.find(i)
            clusters = [uf.find(c) for c in clusters]
            if root in clusters:
                continue
            for c in clusters:
                if not _conflict(ids.get(root, {}), ids.get(c, {})):
                    merged = {k: set(v) for k, v in ids.get(c, {}).items()}
                    for kind, values in ids.get(root, {}).items():
                        merged.setdefault(kind, set()).update(values)
                    new_root = uf.union(root, c)
                    ids.pop(root, None), ids.pop(c, None)
                    ids[new_root] = merged
                    break
            else:
                if clusters:
                    stats.title_merges_refused += 1
                clusters.append(root)
    groups: dict[int, list[int]] = {}
    for i in range(len(records)):
        groups.setdefault(uf.find(i), []).append(i)
    return [groups[root] for root in sorted(groups)]


def _choose(records: Sequence[PaperRecord], tkeys: Sequence[str | None], members: list[int],
            stub: bool) -> MergedPaper:
    recs = [(i, records[i]) for i in members]
    titled = [(i, r) for i, r in recs if tkeys[i]]
    best_i, best = max(titled, key=lambda p: (p[1].title != p[1].title.lower(),
                                              len(p[1].abstract), -p[0]))
    abstract = max((r.abstract for _, r in recs), key=len)  # max keeps the first of equals
    years = [r.year for _, r in recs if r.year is not None]
    dates = [r.published for _, r in recs if r.published is not None]
    ids = sorted({k for _, r in recs for k in r.ids}, key=priority)
    titles = sorted({tkeys[i] for i, _ in titled})
    norm = normalize_title(best.title)
    return MergedPaper(
        paper_id=ids[0] if ids else paper_id_for(best.title),
        title=best.title, abstract=abstract, norm_title=norm,
        year=min(years) if years else None, published=min(dates) if dates else None,
        ids=ids, sources=sorted({r.source for _, r in recs}), source=best.source,
        is_survey=True if any(r.is_survey for _, r in recs) else None,
        category=next((r.category for _, r in recs if r.category), None),
        keys=ids + titles, n_records=len(recs), stub=stub)


def merge_records(records: Sequence[PaperRecord], *, stub: bool = False
                  ) -> tuple[list[MergedPaper], MergeStats, list[str | None]]:
    """Merged papers in a deterministic order (by first record), the merge counts, and the
    paper_id each record went into (None for untitled unmatched records)."""
    stats = MergeStats(records=len(records))
    tkeys = [title_key(r.title) if r.title else None for r in records]
    papers = []
    assigned: list[str | None] = [None] * len(records)
    for members in _components(records, tkeys, stats):
        if not any(tkeys[i] for i in members):
            for i in members:
                src = records[i].source
                stats.untitled_unmatched[src] = stats.untitled_unmatched.get(src, 0) + 1
            continue
        paper = _choose(records, tkeys, members, stub)
        papers.append(paper)
        for i in members:
            assigned[i] = paper.paper_id
    stats.papers = len(papers)
    stats.merged = stats.records - stats.papers - sum(stats.untitled_unmatched.values())
    stats.untitled_unmatched = dict(sorted(stats.untitled_unmatched.items()))
    return papers, stats, assigned
