"""``agentic-writer``: plan an outline → per section select papers, read them in full, write
with notes → polish (DeepSynth-Eval appendix A.2, "Agentic multi-turn"); usable by ReportBench
too, where there is no oracle and the writer searches the corpus.

1. **Plan** (``agentic_plan_v1``, JSON): the request and the source list (``[n] Title`` lines
   with the first ``listing_tokens`` (60) of each source's text) → a title and at most
   ``max_sections`` (5) sections, each ``{heading, focus, papers}``. The skeleton (title and
   ``k. heading — focus`` lines, cut to ``skeleton_tokens``, 600) goes into every later prompt.
   Fallback when planning fails: one section "Overview" whose focus is the topic (recorded).
2. **Per section**, in plan order:
   a. *Candidates*: the papers the plan gave the section, then — without an oracle — the
      top ``k_section`` (10) BM25 hits for "heading focus" (request filters; new papers join
      the source pool with the next free id; BM25 even with ``search="deep-research"``, which
      chooses only the initial ``k`` sources, ``common.find_sources``), then the rest of the
      pool ranked by word overlap with "heading focus" (idf-weighted over the pool, ties by
      id); the first ``select_candidates`` (25).
   b. *Relevance selection* (``agentic_select_v1``, JSON ``{"papers": [...]}``): at most
      ``papers_per_section`` (3) of the candidates. Fallback: the first candidates.
   c. *Selective deep reading* (``agentic_notes_v1``): each selected paper's full text where
      the corpus has paragraphs for it (``corpus.paragraphs``), else its oracle summary /
      abstract; each text cut to ``read_tokens`` (2000) and water-filled into the prompt
      budget. The reply (``notes_tokens``, 512) is the section's notes. Fallback: the selected
      sources' summaries serve as notes.
   d. *Context-aware writing* (``agentic_section_v1``): the request (cut to
      ``request_tokens``, 1200), the skeleton, the last ``history_tokens`` (600) of the draft
      so far, and the notes (given what is left of the budget) → the section body
      (``section_tokens``, 700). A failed or empty reply drops the section (counted).
3. **Polish** (``agentic_polish_v1``, when ``polish``): once every section is drafted, each one
   is rewritten by an editor prompt with the skeleton (reply cap ``section_tokens + 128``).
   The rewrite replaces the draft only if it keeps at least 60% of the draft's length (in
   tokens) and every citation marker of the draft, and adds no marker that names no source
   (the paper reports GPT-5.2 "polishing" sections into "[Content unchanged]" — this guards
   against that); otherwise the draft stays (``polish_rejected``).

The report is ``# title`` + ``## heading`` + body per written section + References
(``common.finish_report``). Calls: 1 + 4 per section at most (+ one repair per JSON call).
All prompts are sized by ``TokenBudget`` (``budget.py``). A report with no section written is
``WrittenReport(markdown="", error=...)``; model failures are never raised.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from scholarbench.agents.writers.base import WriterContext, WritingRequest, WrittenReport
from scholarbench.agents.writers.budget import tail_tokens, truncate_tokens
from scholarbench.agents.writers.common import (Calls, Source, SourcePool, check_search,
                                                cited_numbers, clean_section, fill_within,
                                                finish_report, full_text, load_prompt,
                                                open_corpus, render_sources, search,
                                                search_config)
from scholarbench.agents.writers.e2e import check_int, initial_sources, make_budget
from scholarbench.llm.tokens import count_tokens
from scholarbench.core.registry import register_agent

PROMPTS = ("agentic_plan_v1", "agentic_select_v1", "agentic_notes_v1", "agentic_section_v1",
           "agentic_polish_v1")
PLAN_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["title", "sections"],
               "properties": {"title": {"type": "string"},
                              "sections": {"type": "array", "items": {
                                  "type": "object", "additionalProperties": False,
                                  "required": ["heading", "focus", "papers"],
                                  "properties": {"heading": {"type": "string"},
                                                 "focus": {"type": "string"},
                                                 "papers": {"type": "array",
                                                            "items": {"type": "integer"}}}}}}}
SELECT_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["papers"],
                 "properties": {"papers": {"type": "array", "items": {"type": "integer"}}}}
POLISH_MIN_SHARE = 0.6
_WORD = re.compile(r"[a-z0-9]{3,}")
_STOP = frozenset("the and for with from that this are was were its into over under between "
                  "their which using based survey paper papers method methods approach "
                  "approaches".split())


@dataclass
class Section:
    heading: str
    focus: str = ""
    papers: list[int] = field(default_factory=list)
    draft: str = ""


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def rank_by_overlap(query: str, sources: list[Source]) -> list[int]:
    """Source ids by the idf-weighted overlap of their title + text with ``query`` (ties and
    zero scores by id)."""
    docs = {s.n: _words(f"{s.title} {s.text}") for s in sources}
    df = Counter(w for words in docs.values() for w in words)
    n = max(1, len(docs))
    wanted = _words(query)
    score = {k: sum(math.log(1 + n / df[w]) for w in words & wanted) for k, words in docs.items()}
    return sorted(docs, key=lambda k: (-score[k], k))


@register_agent("agentic-writer")
class AgenticWriter:
    name = "agentic-writer"
    uses_llm = True

    def __init__(self, k: int = 30, k_section: int = 10, max_sections: int = 5,
                 papers_per_section: int = 3, select_candidates: int = 25,
                 context_window: int = 8192, token_ratio: float = 1.3, plan_tokens: int = 512,
                 select_tokens: int = 96, notes_tokens: int = 512, section_tokens: int = 700,
                 polish: bool = True, request_tokens: int = 1200, history_tokens: int = 600,
                 skeleton_tokens: int = 600, listing_tokens: int = 60, read_tokens: int = 2000,
                 exclude_surveys: bool = False, search: str = "bm25",
                 research_steps: int = 4) -> None:
        self.k = check_int("k", k, 0)
        self.search, self.research = check_search(search, research_steps)
        self.k_section = check_int("k_section", k_section, 0)
        self.max_sections = check_int("max_sections", max_sections, 1)
        self.papers_per_section = check_int("papers_per_section", papers_per_section, 1)
        self.select_candidates = check_int("select_candidates", select_candidates, 1)
        self.plan_tokens = check_int("plan_tokens", plan_tokens, 32)
        self.select_tokens = check_int("select_tokens", select_tokens, 16)
        self.notes_tokens = check_int("notes_tokens", notes_tokens, 16)
        self.section_tokens = check_int("section_tokens", section_tokens, 16)
        self.request_tokens = check_int("request_tokens", request_tokens, 16)
        self.history_tokens = check_int("history_tokens", history_tokens, 0)
        self.skeleton_tokens = check_int("skeleton_tokens", skeleton_tokens, 16)
        self.listing_tokens = check_int("listing_tokens", listing_tokens, 0)
        self.read_tokens = check_int("read_tokens", read_tokens, 0)
        self.polish = bool(polish)
        self.exclude_surveys = bool(exclude_surveys)
        self.budget = make_budget(context_window, token_ratio,
                                  max(self.plan_tokens, self.section_tokens + 128))
        self.prompts = {name.split("_")[1]: load_prompt(name) for name in PROMPTS}
        for name, cap in (("history_tokens", self.history_tokens),
                          ("skeleton_tokens", self.skeleton_tokens),
                          ("request_tokens", self.request_tokens)):
            if cap >= self.budget.prompt_tokens(self.section_tokens) // 2:
                raise ValueError(f"{name}={cap} leaves too little of the "
                                 f"{self.budget.context_window}-token context for notes")

    def config(self) -> dict[str, Any]:
        keys = ("k", "k_section", "max_sections", "papers_per_section", "select_candidates",
                "plan_tokens", "select_tokens", "notes_tokens", "section_tokens", "polish",
                "request_tokens", "history_tokens", "skeleton_tokens", "listing_tokens",
                "read_tokens", "exclude_surveys")
        return {**{k: getattr(self, k) for k in keys}, **self.budget.config(),
                "prompts": [p.identity() for p in self.prompts.values()],
                **search_config(self.search, self.research, self.k)}

    # -- phases ---------------------------------------------------------------------------

    def _plan(self, calls: Calls, request: WritingRequest, pool: SourcePool
              ) -> tuple[str, list[Section]]:
        sources = [pool.get(n) for n in pool.numbers()]

        def validate(value: Any) -> tuple[str, list[Section]]:
            if not isinstance(value, dict) or not isinstance(value.get("sections"), list):
                raise ValueError("expected an object with a list of sections")
            sections = []
            for item in value["sections"]:
                if not isinstance(item, dict):
                    continue
                heading = item.get("heading")
                if not isinstance(heading, str) or not heading.strip():
                    continue
                focus = item.get("focus") if isinstance(item.get("focus"), str) else ""
                papers = [p for p in item.get("papers") or [] if isinstance(p, int)
                          and not isinstance(p, bool) and p in pool]
                sections.append(Section(" ".join(heading.split()), " ".join(focus.split()),
                                        list(dict.fromkeys(papers))))
            if not sections:
                raise ValueError("no section has a heading")
            title = value.get("title") if isinstance(value.get("title"), str) else ""
            return " ".join(title.split()), sections[:self.max_sections]

        prompt = fill_within(
            self.prompts["plan"], self.budget.prompt_tokens(self.plan_tokens, repair=True),
            {"request": truncate_tokens(request.prompt, self.request_tokens),
             "max_sections": str(self.max_sections)},
            lambda room: {"sources": render_sources(sources, room,
                                                    body_tokens=self.listing_tokens)[0]
                          or "(no sources)"})
        plan = calls.json(prompt, step="plan", max_tokens=self.plan_tokens, validate=validate,
                          schema=PLAN_SCHEMA)
        if plan is None:
            calls.fallback("plan: one Overview section")
            return "", [Section("Overview", request.topic or truncate_tokens(request.prompt, 60))]
        return plan

    def _candidates(self, section: Section, request: WritingRequest, pool: SourcePool,
                    corpus: Any, searching: bool) -> list[int]:
        query = f"{section.heading} {section.focus}"
        found = list(section.papers)
        if searching:
            for paper in search(corpus, request, query, self.k_section,
                                exclude_surveys=self.exclude_surveys):
                found.append(pool.add_paper(paper))
        found += rank_by_overlap(query, [pool.get(n) for n in pool.numbers()])
        return list(dict.fromkeys(found))[:self.select_candidates]

    def _select(self, calls: Calls, skeleton: str, section: Section, candidates: list[int],
                pool: SourcePool) -> list[int]:
        allowed = set(candidates)

        def validate(value: Any) -> list[int]:
            papers = value.get("papers") if isinstance(value, dict) else None
            if not isinstance(papers, list):
                raise ValueError('expected {"papers": [ids]}')
            chosen = [p for p in papers if isinstance(p, int) and not isinstance(p, bool)
                      and p in allowed]
            if not chosen:
                raise ValueError("no id of a candidate source was chosen")
            return list(dict.fromkeys(chosen))[:self.papers_per_section]

        prompt = fill_within(
            self.prompts["select"], self.budget.prompt_tokens(self.select_tokens, repair=True),
            {"skeleton": skeleton, "section": _describe(section),
             "max_papers": str(self.papers_per_section)},
            lambda room: {"sources": render_sources([pool.get(n) for n in candidates], room,
                                                    body_tokens=self.listing_tokens)[0]})
        chosen = calls.json(prompt, step=f"select '{section.heading}'",
                            max_tokens=self.select_tokens, validate=validate,
                            schema=SELECT_SCHEMA)
        if chosen is None:
            calls.fallback(f"select '{section.heading}': the first candidates")
            return candidates[:self.papers_per_section]
        return chosen

    def _notes(self, calls: Calls, section: Section, chosen: list[Source], corpus: Any,
               counts: Counter) -> str:
        bodies = {}
        for source in chosen:
            text = full_text(corpus, source.paper_id)
            counts["read_full_text" if text else "read_summary"] += 1
            bodies[source.n] = text or source.text
        prompt = fill_within(
            self.prompts["notes"], self.budget.prompt_tokens(self.notes_tokens),
            {"section": _describe(section)},
            lambda room: {"papers": render_sources(chosen, room, body_tokens=self.read_tokens,
                                                   bodies=bodies)[0]})
        notes = calls.text(prompt, step=f"notes '{section.heading}'",
                           max_tokens=self.notes_tokens)
        if notes is None or not notes.strip():
            if notes is not None:
                calls.problems.append(f"notes '{section.heading}': empty reply")
            calls.fallback(f"notes '{section.heading}': the sources' summaries")
            return "\n".join(f"- {s.text} [{s.n}]" if s.text else f"- {s.title} [{s.n}]"
                             for s in chosen)
        return notes.strip()

    def _write_section(self, calls: Calls, request: WritingRequest, skeleton: str,
                       section: Section, history: str, notes: str) -> str | None:
        prompt = fill_within(
            self.prompts["section"], self.budget.prompt_tokens(self.section_tokens),
            {"request": truncate_tokens(request.prompt, self.request_tokens),
             "skeleton": skeleton, "heading": section.heading,
             "focus": section.focus or section.heading,
             "history": tail_tokens(history, self.history_tokens) or "(this is the first "
                                                                     "section)"},
            lambda room: {"notes": truncate_tokens(notes, room) or "(no notes)"})
        reply = calls.text(prompt, step=f"write '{section.heading}'",
                           max_tokens=self.section_tokens)
        text = clean_section(reply or "", section.heading)
        if reply is not None and not text:
            calls.problems.append(f"write '{section.heading}': empty reply")
        return text or None

    def _polish(self, calls: Calls, skeleton: str, section: Section, pool: SourcePool,
                counts: Counter) -> str:
        cap = self.section_tokens + 128
        prompt = fill_within(self.prompts["polish"], self.budget.prompt_tokens(cap),
                             {"skeleton": skeleton, "heading": section.heading},
                             lambda room: {"draft": truncate_tokens(section.draft, room)})
        reply = calls.text(prompt, step=f"polish '{section.heading}'", max_tokens=cap)
        polished = clean_section(reply or "", section.heading)
        if reply is None:
            counts["polish_failed"] += 1
            return section.draft
        before, after = set(cited_numbers(section.draft)), set(cited_numbers(polished))
        if (count_tokens(polished) < POLISH_MIN_SHARE * count_tokens(section.draft)
                or not before <= after or any(n not in pool for n in after - before)):
            counts["polish_rejected"] += 1
            return section.draft
        counts["polish_applied"] += 1
        return polished

    # -- the whole report -----------------------------------------------------------------

    def write(self, request: WritingRequest, ctx: WriterContext) -> WrittenReport:
        if ctx.llm is None:
            return WrittenReport("", error="agentic-writer needs the agent role's chat model")
        calls = Calls(ctx.llm, budget=self.budget)
        pool, origin, research = initial_sources(request, ctx, self.k, self.exclude_surveys,
                                                 self.search, self.research, calls)
        corpus = open_corpus(ctx)
        searching = origin == "search"
        title, sections = self._plan(calls, request, pool)
        skeleton = truncate_tokens(_skeleton(title or request.topic, sections),
                                   self.skeleton_tokens)
        counts: Counter = Counter()
        history = ""
        for section in sections:
            candidates = self._candidates(section, request, pool, corpus, searching)
            chosen = (self._select(calls, skeleton, section, candidates, pool)
                      if candidates else [])
            notes = (self._notes(calls, section, [pool.get(n) for n in chosen], corpus, counts)
                     if chosen else "")
            text = self._write_section(calls, request, skeleton, section, history, notes)
            if text is None:
                counts["sections_failed"] += 1
                continue
            section.draft = text
            history += f"\n\n## {section.heading}\n\n{text}"
        written = [s for s in sections if s.draft]
        if self.polish:
            for section in written:
                section.draft = self._polish(calls, skeleton, section, pool, counts)
        info: dict[str, Any] = {
            "sources": origin, "n_sources": len(pool), "sections_planned": len(sections),
            "sections_written": len(written), **{k: counts[k] for k in (
                "sections_failed", "read_full_text", "read_summary", "polish_applied",
                "polish_rejected", "polish_failed")}, **calls.info()}
        if research:
            info["research"] = research
        if not written:
            reason = calls.problems[-1] if calls.problems else "no section was written"
            return WrittenReport("", error=f"every section failed; last: {reason}", info=info)
        body = f"# {title or request.topic or 'Survey'}\n\n" + "\n\n".join(
            f"## {s.heading}\n\n{s.draft}" for s in written)
        markdown, cited, citation_counts = finish_report(body, pool)
        info.update(citation_counts)
        return WrittenReport(markdown, cited, None, info)


def _describe(section: Section) -> str:
    return f"{section.heading}: {section.focus}" if section.focus else section.heading


def _skeleton(title: str, sections: list[Section]) -> str:
    lines = [f"Title: {title}"] if title else []
    lines += [f"{i}. {s.heading}" + (f" — {s.focus}" if s.focus else "")
              for i, s in enumerate(sections, start=1)]
    return "\n".join(lines)


__all__ = ["AgenticWriter", "PLAN_SCHEMA", "SELECT_SCHEMA", "Section", "rank_by_overlap"]
