"""Which of a report's references a citation string names (the cited-statement extractor
returns the citation as written: a URL, a DOI or arXiv id, a marker such as `[3]`, `[2-4]` or
`[^n]`, an author-year mention, a title, a bare number). Used by `statements`."""
from __future__ import annotations

import re
from typing import Sequence

from scholarbench.data.sources.keys import id_key
from scholarbench.references.identifiers_in_text import (find_arxiv, find_dois,
                                                                     find_urls, ids_in_url,
                                                                     url_key)
from scholarbench.references.report_refs import Reference, _labels
from scholarbench.text.normalize import normalize_title

_MARKER_TEXT = re.compile(r"\[\s*(\^[^\]\s]+|\d{1,4}(?:\s*[-–,;]\s*\d{1,4})*)\s*\]")


class CitationIndex:
    """Finds the references a citation string (as the extractor returned it) names."""

    def __init__(self, refs: Sequence[Reference]) -> None:
        self.refs = list(refs)
        self.by_key: dict[str, set[int]] = {}
        for i, ref in enumerate(self.refs):
            keys = [f"url:{url_key(u)}" for u in ref.urls] + [f"id:{k}" for k in ref.ids]
            if ref.label:
                keys.append(f"label:{ref.label}")
            keys += [f"title:{n}" for t in ref.titles() if (n := normalize_title(t))]
            keys += [f"ay:{n}" for m in ref.mentions if m.kind == "author_year"
                     if (n := normalize_title(m.text))]
            for key in keys:
                self.by_key.setdefault(key, set()).add(i)

    def _get(self, key: str) -> list[int]:
        return sorted(self.by_key.get(key, ()))

    def link(self, citation: str) -> list[int]:
        found: list[int] = []

        def add(indexes: list[int]) -> None:
            found.extend(i for i in indexes if i not in found)

        for _, _, url in find_urls(citation):
            add(self._get(f"url:{url_key(url)}"))
            for key in ids_in_url(url):
                add(self._get(f"id:{key}"))
        for finder in (find_dois, find_arxiv):
            for _, _, key in finder(citation):
                add(self._get(f"id:{key}"))
        for match in _MARKER_TEXT.finditer(citation):
            spec = match.group(1)
            labels = [spec] if spec.startswith("^") else _labels(spec.replace(";", ","))
            for label in labels:
                add(self._get(f"label:{label}"))
        bare = citation.strip().strip("[]()").strip()
        if not found and re.fullmatch(r"\^?\d{1,4}", bare):
            add(self._get(f"label:{bare}"))
        if not found:
            norm = normalize_title(citation)
            if norm:
                add(self._get(f"ay:{norm}") + self._get(f"title:{norm}"))
            if not found:
                key = id_key("arxiv", bare) or id_key("doi", bare)
                if key:
                    add(self._get(f"id:{key}"))
        return found
