"""Resolve a report's references to corpus papers offline; the LLM hook for the rest.

`resolve_references(refs, corpus=None, report="", title_extractor=None)`:
1. A reference with paper ids (DOI, arXiv, PubMed, …) is looked up with `Corpus.resolve` (the
   project's one resolver; the first id that names exactly one paper wins). It gets that
   paper's `paper_id` and title (`corpus_title`).
2. Otherwise a reference with a stated title is looked up by its normalised title (exact
   `title:` key; a title two corpus papers share resolves to neither).
3. Status: `resolved` (a corpus paper), `titled` (no corpus paper, but a stated title to match
   on), `unresolved` (nothing to match on) with a reason:
   - `no corpus` / `not in corpus: <id>`: it names a paper id but no corpus says its title;
   - `web page without a paper id`: a URL that names no paper id and has no stated title;
   - `marker [n] has no bibliography item`, `numbered marker without a bibliography`,
     `author-year citation without a matching bibliography item`;
   - `bibliography item without a title or id`.
4. The hook: when `title_extractor` is given and some references are unresolved, or the parser
   found no reference at all, it is called ONCE per report as
   `title_extractor(report, unresolved)` with the report's Markdown and the unresolved
   `Reference`s (in order), and returns an iterable of `ExtractedTitle(title, ref)`: `ref` is
   the index in `unresolved` the title belongs to, or None for a work the parser missed (a
   plain-text citation: upstream's `--no-url` mode, the paper's A.2.6 prompt). Extracted
   titles are looked up in the corpus like stated ones; a reference given a title becomes
   `titled` (or `resolved`), its title kept in `extracted_title`. The hook is where the LLM
   layer plugs in (fetching a URL with `fetch.fetch_url` and asking a model for the title of
   the page, or running the A.2.6 prompt over the report); nothing here calls a model.
   Titles returned for an index out of range, or empty, are ignored and counted in
   `ResolveStats.extractor_rejected`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol, Sequence

from scholarbench.references.report_refs import Mention, Reference
from scholarbench.text.normalize import normalize_title


@dataclass(frozen=True)
class ExtractedTitle:
    title: str
    ref: int | None = None     # index into the `unresolved` list passed in; None = a new work


TitleExtractor = Callable[[str, Sequence[Reference]], Iterable[ExtractedTitle]]


class CorpusLike(Protocol):
    def resolve(self, identifier: str) -> str | None: ...
    def get_by_ids(self, ids: Sequence[str]) -> list: ...


@dataclass
class ResolveStats:
    extractor_called: bool = False
    extractor_titles: int = 0
    extractor_new: int = 0
    extractor_rejected: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


def _reason_kind(reason: str) -> str:
    """The reason without its variable part, for counting ("not in corpus: doi:…" -> "not in
    corpus", "marker [3] has…" -> "marker without bibliography item")."""
    if reason.startswith("not in corpus"):
        return "not in corpus"
    if reason.startswith("marker ["):
        return "marker without bibliography item"
    return reason


def _lookup_titles(refs: Sequence[Reference], corpus: CorpusLike | None) -> None:
    if corpus is None:
        return
    wanted: dict[str, list[Reference]] = {}
    for ref in refs:
        if ref.paper_id is None:
            for key in ref.ids:
                pid = corpus.resolve(key)
                if pid:
                    ref.paper_id = pid
                    wanted.setdefault(pid, []).append(ref)
                    break
        if ref.paper_id is None:
            for title in ref.stated_titles + ([ref.extracted_title] if ref.extracted_title
                                              else []):
                if normalize_title(title):
                    pid = corpus.resolve("title:" + title)
                    if pid:
                        ref.paper_id = pid
                        break
    if wanted:
        for paper in corpus.get_by_ids(list(wanted)):
            for ref in wanted[paper.paper_id]:
                ref.corpus_title = paper.title


def _status(ref: Reference, corpus: CorpusLike | None) -> None:
    if ref.paper_id is not None:
        ref.status, ref.reason = "resolved", None
    elif ref.titles():
        ref.status, ref.reason = "titled", None
    else:
        ref.status = "unresolved"
        if ref.ids:
            ref.reason = "no corpus" if corpus is None else f"not in corpus: {ref.ids[0]}"
        elif ref.reason:
            pass
        elif ref.urls:
            ref.reason = "web page without a paper id"
        else:
            ref.reason = "bibliography item without a title or id"


def resolve_references(refs: list[Reference], corpus: CorpusLike | None = None, report: str = "",
                       title_extractor: TitleExtractor | None = None
                       ) -> tuple[list[Reference], ResolveStats]:
    """Resolve `refs` in place (see the module docstring); returns (refs + works the extractor
    added, stats)."""
    stats = ResolveStats()
    _lookup_titles(refs, corpus)
    for ref in refs:
        _status(ref, corpus)
    unresolved = [r for r in refs if r.status == "unresolved"]
    if title_extractor is not None and (unresolved or not refs):
        stats.extractor_called = True
        added: list[Reference] = []
        for item in title_extractor(report, list(unresolved)):
            title = item.title.strip() if isinstance(item.title, str) else ""
            if not normalize_title(title):
                stats.extractor_rejected += 1
                continue
            if item.ref is None:
                added.append(Reference(mentions=[Mention("extracted", title, 0)],
                                       extracted_title=title))
                stats.extractor_new += 1
            elif 0 <= item.ref < len(unresolved):
                unresolved[item.ref].extracted_title = title
            else:
                stats.extractor_rejected += 1
                continue
            stats.extractor_titles += 1
        touched = [r for r in unresolved if r.extracted_title] + added
        _lookup_titles(touched, corpus)
        for ref in touched:
            _status(ref, corpus)
        refs = refs + added
    for ref in refs:
        if ref.status == "unresolved":
            kind = _reason_kind(ref.reason or "unknown")
            stats.reasons[kind] = stats.reasons.get(kind, 0) + 1
    return refs, stats
