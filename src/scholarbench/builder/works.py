"""A survey's cited works: citation keys merged into distinct works, resolved in the corpus.

A work is one group of `SurveyGT.distinct_works()` (keys sharing an id are one work). Its
corpus paper: the first of its ids, then its bibliography title, that `corpus.resolve.resolve_ref`
resolves (the project's one resolver; a title two corpus papers share stays unresolved). Its
title and abstract: the corpus paper's when resolved, else the bibliography entry's (CSL-JSON
items often carry an `abstract`), else empty.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scholarbench.benchmarks.reportbench.survey_gt import SurveyGT


@dataclass
class Work:
    index: int
    keys: tuple[str, ...]            # every citation key naming it
    ids: tuple[str, ...]
    title: str
    abstract: str = ""
    paper_id: str | None = None      # the corpus paper, when resolved

    @property
    def label(self) -> str:
        return self.title or self.keys[0]


def _corpus_paper(corpus: Any, ids: tuple[str, ...], title: str) -> str | None:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.corpus.resolve import resolve_ref
    for ref in [*ids, title]:
        if ref and not ref.startswith("url:"):
            pid = resolve_ref(corpus, ref)
            if pid:
                return pid
    return None


def cited_works(gt: SurveyGT, corpus: Any = None) -> tuple[list[Work], dict[str, Work]]:
    """The distinct works in first-citation order, and citation key -> work."""
    works: list[Work] = []
    by_key: dict[str, Work] = {}
    for i, group in enumerate(gt.distinct_works()):
        ids = tuple(dict.fromkeys(k for w in group for k in w.ids))
        title = next((w.title for w in group if w.title), "")
        abstract = next((w.fields.get("abstract", "") for w in group if w.fields.get("abstract")),
                        "")
        work = Work(i, tuple(w.key for w in group), ids, title, " ".join(abstract.split()))
        if corpus is not None:
            work.paper_id = _corpus_paper(corpus, ids, title)
            if work.paper_id:
                paper = corpus.get_by_ids([work.paper_id])[0]
                work.title = paper.title or work.title
                work.abstract = paper.abstract or work.abstract
        works.append(work)
        by_key.update((k, work) for k in work.keys)
    return works, by_key
