"""From a report (Markdown) or a list of already extracted references to scorable references.

`extract_references(markdown, corpus, title_extractor)` = `parse_report` + `resolve_references`.
`references_from_items(items, corpus, title_extractor)` reads the `{"title": …}` items of a
prediction line (upstream's LLM output format: `title`, `authors`, `is_academic_paper`; plus
optional `url`, `doi`, `arxiv_id`), resolving ids and titles the same way. Items with
`is_academic_paper: false` are left out and counted (upstream scores only academic papers).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from scholarbench.references.identifiers_in_text import ids_in_url
from scholarbench.references.report_refs import Mention, Reference, parse_report
from scholarbench.references.resolve import (CorpusLike, ResolveStats, TitleExtractor,
                                                         resolve_references)
from scholarbench.data.sources.keys import id_key

ITEM_KEYS = frozenset({"title", "authors", "url", "doi", "arxiv_id", "is_academic_paper"})


@dataclass
class ExtractedReferences:
    references: list[Reference]
    stats: ResolveStats = field(default_factory=ResolveStats)
    not_academic: int = 0

    def titled(self) -> list[Reference]:
        return [r for r in self.references if r.status != "unresolved"]

    def unresolved(self) -> list[Reference]:
        return [r for r in self.references if r.status == "unresolved"]

    def scored_titles(self) -> list[list[str]]:
        return [r.titles() for r in self.titled()]

    def unresolved_with_id(self) -> int:
        return sum(1 for r in self.unresolved() if r.ids)

    def counts(self) -> dict:
        statuses = [r.status for r in self.references]
        return {"n_found": len(self.references), "n_resolved": statuses.count("resolved"),
                "n_titled": statuses.count("titled"),
                "n_unresolved": statuses.count("unresolved"),
                "n_unresolved_with_id": self.unresolved_with_id(),
                "unresolved_reasons": dict(sorted(self.stats.reasons.items())),
                "n_not_academic": self.not_academic}


def extract_references(markdown: str, corpus: CorpusLike | None = None,
                       title_extractor: TitleExtractor | None = None) -> ExtractedReferences:
    refs, stats = resolve_references(parse_report(markdown), corpus, markdown, title_extractor)
    return ExtractedReferences(refs, stats)


def item_error(item: object) -> str | None:
    """Why a `references` item is malformed, or None."""
    if not isinstance(item, dict):
        return f"expected an object, got {type(item).__name__}"
    extra = sorted(set(item) - ITEM_KEYS)
    if extra:
        return f"unknown key(s) {extra} (allowed: {sorted(ITEM_KEYS)})"
    for key in ("title", "url", "doi", "arxiv_id"):
        if key in item and item[key] is not None and not isinstance(item[key], str):
            return f"'{key}' must be a string"
    if "is_academic_paper" in item and not isinstance(item["is_academic_paper"], bool):
        return "'is_academic_paper' must be true or false"
    if not any(isinstance(item.get(k), str) and item[k].strip()
               for k in ("title", "url", "doi", "arxiv_id")):
        return "needs a non-empty 'title' (or a url, doi or arxiv_id)"
    return None


def references_from_items(items: Sequence[dict], corpus: CorpusLike | None = None,
                          title_extractor: TitleExtractor | None = None
                          ) -> ExtractedReferences:
    """Scorable references from validated items (see `item_error`)."""
    refs, not_academic = [], 0
    owner: dict[str, Reference] = {}
    for i, item in enumerate(items):
        if item.get("is_academic_paper") is False:
            not_academic += 1
            continue
        title = (item.get("title") or "").strip()
        ids: list[str] = []
        url = (item.get("url") or "").strip()
        if url:
            ids += ids_in_url(url)
        for kind, key in (("doi", "doi"), ("arxiv", "arxiv_id")):
            if item.get(key) and (found := id_key(kind, item[key])):
                ids.append(found)
        ref = Reference(mentions=[Mention("item", title or url or (ids[0] if ids else ""),
                                          i + 1)],
                        ids=list(dict.fromkeys(ids)), urls=[url] if url else [],
                        stated_titles=[title] if title else [])
        same = next((owner[k] for k in ref.ids if k in owner), None)
        if same is not None:                       # the same paper listed twice by id
            same.mentions += ref.mentions
            same.stated_titles += [t for t in ref.stated_titles if t not in same.stated_titles]
            continue
        owner.update({k: ref for k in ref.ids})
        refs.append(ref)
    resolved, stats = resolve_references(refs, corpus, "", title_extractor)
    return ExtractedReferences(resolved, stats, not_academic)
