"""One task's references: every form a task's own prompt or fields offer, resolved per task, and
the run's count of references that resolve to nothing.

A task whose prompt lists papers (TaxoBench Bottom-Up's "Paper List", ResearchArena
organisation's numbered references) gives `TaskRefs`: an answer item naming one of those papers
resolves to its position whether it is

- the paper's number in the prompt's list: `3`, `"3"`, `"[3]"`, `"#3"`, `"Paper 3"`, `"(3)"`;
- the paper's id as the task's fields give it (a corpus id, an OpenAlex W…, an arXiv id, a DOI —
  compared in canonical form, so `arXiv:2301.12345v2` names `2301.12345`);
- its title: the normalised title, else the one listed title it aligns with (TaxoBench A.5's
  title alignment, `text.align`).

Anything else is *unresolved*. Benchmarks resolve their answers when recording them and write
the counts into the sample's `info` (`refs`: references read, `unresolved`); `attach` copies
them into each score row (`unresolved`, `n_refs`) and `summarise` sums them into the summary
(`n_unresolved`, `n_refs`) and warns once when most of a run's references did not resolve.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from scholarbench.data.identifiers import parse_id
from scholarbench.text.align import align_titles, dedupe
from scholarbench.text.normalize import normalize_title

# The forms an answer may use, for messages and docs.
FORMS = ("the paper numbers of the task's list", "its ids (corpus id, DOI, arXiv id)",
         "titles")
# Spellings of the two counts in the benchmarks' `info` (the first is the standard one).
INFO_KEYS = (("refs", "unresolved"), ("refs", "refs_unresolved"),
             ("n_cited_refs", "n_cited_unresolved"))

_NUMBER = re.compile(r"^\s*[\[(#]?\s*(?:(?:paper|ref|reference|no\.?)\s*#?\s*)?(\d{1,6})\s*"
                     r"[\])]?\s*[.:]?\s*$", re.I)


@dataclass(frozen=True)
class Listed:
    """One paper of a task's list: its id (None when the task gives none) and its title."""
    id: str | None
    title: str


def number_of(ref: Any) -> int | None:
    """The paper number an answer item is (`3`, `"[3]"`, `"Paper 3"`), else None."""
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int):
        return ref
    if isinstance(ref, float) and ref.is_integer():
        return int(ref)
    if isinstance(ref, str) and (m := _NUMBER.match(ref)):
        return int(m.group(1))
    return None


def _key(ref: str) -> str | None:
    parsed = parse_id(ref)
    return None if parsed.kind == "title" else str(parsed)


class TaskRefs:
    """The papers one task's prompt lists, numbered from 1 as the prompt numbers them."""

    def __init__(self, papers: Sequence[Listed]) -> None:
        self.papers = list(papers)
        self._ids: dict[str, int] = {}
        self._titles: dict[str, int] = {}
        for i, p in enumerate(self.papers):
            if p.id:
                self._ids.setdefault(p.id.strip(), i)
                if (key := _key(p.id)) is not None:
                    self._ids.setdefault(key, i)
            if norm := normalize_title(p.title or ""):
                self._titles.setdefault(norm, i)

    def __len__(self) -> int:
        return len(self.papers)

    def resolve_all(self, refs: Sequence[Any]) -> list[int | None]:
        """Each answer item's position in the list (0-based), or None (unresolved)."""
        out: list[int | None] = []
        fuzzy: dict[int, str] = {}
        for i, ref in enumerate(refs):
            found = self._exact(ref)
            if found is None and isinstance(ref, str) and normalize_title(ref):
                fuzzy[i] = ref
            out.append(found)
        if fuzzy:
            listed, _ = dedupe([p.title for p in self.papers])
            asked, _ = dedupe(list(fuzzy.values()))
            pairs = {normalize_title(asked[m]): listed[e]
                     for e, m, _ in align_titles(listed, asked).pairs}
            for i, ref in fuzzy.items():
                title = pairs.get(normalize_title(ref))
                if title is not None:
                    out[i] = self._titles[normalize_title(title)]
        return out

    def _exact(self, ref: Any) -> int | None:
        n = number_of(ref)
        if n is not None:
            return n - 1 if 1 <= n <= len(self.papers) else None
        if not isinstance(ref, str) or not ref.strip():
            return None
        text = ref.strip()
        if text in self._ids:
            return self._ids[text]
        if (key := _key(text)) is not None and key in self._ids:
            return self._ids[key]
        return self._titles.get(normalize_title(text))


def task_refs(fields: dict[str, Any]) -> TaskRefs | None:
    """The list a task's fields give (`papers`: [{id, title}] or `references`: [{id, title}]),
    in the prompt's numbering; None for a task without one."""
    for key in ("papers", "references"):
        items = fields.get(key)
        if isinstance(items, list) and items and all(isinstance(p, dict) for p in items):
            return TaskRefs([Listed(str(p["id"]) if p.get("id") is not None else None,
                                    str(p.get("title") or p.get("id") or "")) for p in items])
    return None


def looks_like_id(ref: str) -> bool:
    """An id form (DOI, arXiv id, corpus id, …) or a bare number, not a title."""
    return number_of(ref) is not None or _key(ref) is not None


# -- the run's counts ------------------------------------------------------------------------
def counts_of(info: Any) -> tuple[int, int]:
    """(references read, unresolved) from a generate record's `info` (0, 0 without them)."""
    if not isinstance(info, dict):
        return 0, 0
    for refs_key, bad_key in INFO_KEYS:
        bad = info.get(bad_key)
        if isinstance(bad, int) and not isinstance(bad, bool):
            refs = info.get(refs_key)
            return (refs if isinstance(refs, int) and not isinstance(refs, bool) else bad), bad
    return 0, 0


def attach(rows: Iterable[dict[str, Any]], generated: dict[str, dict[str, Any]],
           id_key: str) -> None:
    """Each score row's `unresolved` and `n_refs` (rows a benchmark filled itself are kept)."""
    for row in rows:
        if isinstance(row.get("unresolved"), int) and isinstance(row.get("n_refs"), int):
            continue
        record = generated.get(str(row.get(id_key))) or {}
        n, bad = counts_of(record.get("info"))
        row.setdefault("n_refs", n)
        row.setdefault("unresolved", bad)


def summarise(rows: Sequence[dict[str, Any]], name: str, stream: Any = None,
              effect: str = "scored as misses") -> dict[str, int]:
    """{"n_unresolved", "n_refs"} over the rows; one warning line when more than half of the
    run's references resolved to nothing, saying what the benchmark does with them."""
    counted = [r for r in rows if r.get("status") not in ("error", "unscorable")]
    n_refs = sum(int(r.get("n_refs") or 0) for r in counted)
    bad = sum(int(r.get("unresolved") or 0) for r in counted)
    if n_refs and 2 * bad > n_refs:
        print(f"warning: {name}: {bad} of {n_refs} answer references resolve to no paper of "
              f"the task ({effect}); accepted: {', '.join(FORMS)}",
              file=stream or sys.stderr)
    return {"n_unresolved": bad, "n_refs": n_refs}
