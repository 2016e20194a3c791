"""TaxoBench instances drafted from a survey's own structure (TaxoBench paper §3).

The paper's expert trees were made by annotators from each survey's taxonomy; this draft is a
starting point for that review, not a replacement. The draft:
- `gt`: the survey's section tree (`builder.source`), root named after the survey, each heading a
  node (`name`, `subtopics`, `papers`); each cited work placed under the heading that cites it.
  A work cited under several headings is placed once (TaxoBench maps a paper to one category):
  under the leaf heading (one without subheadings) citing it most, else, when only headings
  with subheadings cite it, under the one citing it most (ties: the first in reading order);
  it is listed as multiply placed. Upstream trees keep papers at leaves only (no node of the
  shipped instances has both), so the works placed under a heading that has subheadings go to
  a first child leaf `<heading> (general)` (listed). Headings with no placed work in their
  subtree are dropped (listed).
- `pdfs`: one `{title, abs}` per placed work, title and abstract from the corpus paper when the
  work resolves there (`builder.works`), else from the bibliography.
- Unplaced works (listed with the reason): no title anywhere (a tree paper is a title), or cited
  only outside the tree (before the first heading, or under front/back matter).
- `id`: the caller's, else a slug of the survey title; `survey` and `survey_topic`: the title;
  `gt_paper_count`: the number of placed works (as upstream's instances carry it).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from scholarbench.builder.source import Section, SurveyDoc
from scholarbench.builder.works import Work, cited_works


@dataclass
class TaxoDraft:
    instance: dict[str, Any]
    works: list[Work]
    placed: dict[int, tuple[str, ...]]                     # work index -> heading path
    multiply: dict[int, list[tuple[tuple[str, ...], int]]] = field(default_factory=dict)
    unplaced: list[tuple[Work, str]] = field(default_factory=list)
    dropped_headings: list[tuple[str, ...]] = field(default_factory=list)
    general_leaves: list[tuple[str, ...]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        placed = [self.works[i] for i in self.placed]
        return {"cited_works": len(self.works), "placed": len(placed),
                "multiply_cited_headings": len(self.multiply), "unplaced": len(self.unplaced),
                "resolved_in_corpus": sum(1 for w in placed if w.paper_id),
                "without_abstract": sum(1 for w in placed if not w.abstract)}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "survey"


GENERAL = " (general)"


def _placements(doc: SurveyDoc, by_key: dict[str, Work]
                ) -> tuple[dict[int, list[tuple[tuple[str, ...], int]]], set[tuple[str, ...]]]:
    """work index -> [(heading path, citations there)] in reading order; the leaf headings."""
    out: dict[int, Counter] = {}
    leaves: set[tuple[str, ...]] = set()
    for top in doc.sections:
        for path, section in top.walk():
            if not section.children:
                leaves.add(path)
            for key in section.keys:
                work = by_key.get(key)
                if work is not None:
                    out.setdefault(work.index, Counter())[path] += 1
    return {i: list(c.items()) for i, c in out.items()}, leaves


def _best(spots: list[tuple[tuple[str, ...], int]], leaves: set[tuple[str, ...]]
          ) -> tuple[str, ...]:
    at_leaves = [s for s in spots if s[0] in leaves]
    return max(at_leaves or spots, key=lambda s: s[1])[0]   # max keeps the first of ties


def _node(section: Section, path: tuple[str, ...], papers: dict[tuple[str, ...], list[str]],
          draft: TaxoDraft) -> dict | None:
    here = path + (section.title,)
    children = [n for c in section.children if (n := _node(c, here, papers, draft))]
    mine = papers.get(here, [])
    if not children and not mine:
        draft.dropped_headings.append(here)
        return None
    node: dict[str, Any] = {"name": section.title}
    if children and mine:
        children.insert(0, {"name": section.title + GENERAL, "papers": mine})
        draft.general_leaves.append(here)
    if children:
        node["subtopics"] = children
    else:
        node["papers"] = mine
    return node


def draft_taxonomy(doc: SurveyDoc, corpus: Any = None, instance_id: str | None = None
                   ) -> TaxoDraft:
    works, by_key = cited_works(doc.gt, corpus)
    where, leaves = _placements(doc, by_key)
    draft = TaxoDraft({}, works, {})
    papers: dict[tuple[str, ...], list[str]] = {}
    seen_titles: set[str] = set()
    for work in works:
        spots = where.get(work.index)
        if not spots:
            outside = any(k in doc.unsectioned for k in work.keys)
            draft.unplaced.append((work, "cited before the first heading" if outside
                                   else "cited only under front/back matter"))
            continue
        if not work.title:
            draft.unplaced.append((work, "no title (not in the corpus, no bibliography title)"))
            continue
        if work.title.lower() in seen_titles:
            draft.unplaced.append((work, "same title as another placed work"))
            continue
        seen_titles.add(work.title.lower())
        best = _best(spots, leaves)
        draft.placed[work.index] = best
        papers.setdefault(best, []).append(work.title)
        if len(spots) > 1:
            draft.multiply[work.index] = spots
    root = doc.title or "survey"
    children = [n for s in doc.sections if (n := _node(s, (), papers, draft))]
    pdfs = [{"title": works[i].title, "abs": works[i].abstract} for i in draft.placed]
    draft.instance = {"id": instance_id or slug(root), "survey": root, "survey_topic": root,
                      "pdfs": pdfs, "gt_paper_count": len(pdfs),
                      "gt": {"name": root, "subtopics": children}}
    return draft


def _path(path: tuple[str, ...]) -> str:
    return " > ".join(path)


def review_section(draft: TaxoDraft, source: str) -> str:
    """The draft's part of the review file (Markdown a person edits while fixing `gt`)."""
    inst, c = draft.instance, draft.counts()
    lines = [f"## TaxoBench `{inst['id']}`: {inst['survey']}", "",
             f"Source: `{source}`. The expert tree (`gt`) is a DRAFT from the survey's section "
             "hierarchy: TaxoBench's trees were made by expert annotators; review the tree, "
             "move papers, merge or rename headings in the JSONL before using the task.", "",
             f"- cited works: {c['cited_works']}; placed in the tree: {c['placed']}; "
             f"unplaced: {c['unplaced']}; cited under several headings: "
             f"{c['multiply_cited_headings']}",
             f"- placed works resolved in the corpus: {c['resolved_in_corpus']}; "
             f"placed works without an abstract: {c['without_abstract']}", ""]
    lines += ["### Cited under several headings (placed where cited most)", ""]
    for i, spots in draft.multiply.items():
        also = "; ".join(f"{_path(p)} ({n})" for p, n in spots if p != draft.placed[i])
        lines.append(f"- [ ] \"{draft.works[i].title}\" — placed under "
                     f"{_path(draft.placed[i])}; also cited under: {also}")
    lines += ["" if draft.multiply else "(none)", "", "### Unplaced works", ""]
    lines += [f"- [ ] `{w.keys[0]}` {w.title or '(no title)'} — {why}"
              for w, why in draft.unplaced]
    lines += ["" if draft.unplaced else "(none)", "",
              "### Placed works without an abstract (`abs` is empty)", ""]
    missing = [draft.works[i] for i in draft.placed if not draft.works[i].abstract]
    lines += [f"- [ ] \"{w.title}\" ({', '.join(w.ids) or 'no id'})" for w in missing]
    lines += ["" if missing else "(none)", "", "### Headings left out (no cited work under them)",
              ""]
    lines += [f"- {_path(p)}" for p in draft.dropped_headings]
    lines += ["" if draft.dropped_headings else "(none)", "",
              f"### Headings with subheadings that cite works (those works moved to a first "
              f"leaf `<heading>{GENERAL}`)", ""]
    lines += [f"- [ ] {_path(p)}" for p in draft.general_leaves]
    lines += ["" if draft.general_leaves else "(none)", ""]
    return "\n".join(lines)
