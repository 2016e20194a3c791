"""The LLM title extractor for `resolve.resolve_references`'s hook (where nothing resolves).

`LLMTitleExtractor(client)` is a `TitleExtractor`: the resolver calls it once per report, only
when some references stayed unresolved or the parser found none. Two prompts:

- Unresolved references (``title_unresolved_v1``): the unresolved works are listed, numbered
  from 1, each with what the report says about it — its bibliography entry, URL(s), ids, the
  marker or author-year text, and the report line where it is first cited (each cut to 300
  characters) — and, only when the user enabled the network, the cited page's title and
  opening text fetched with `fetch.fetch_url` (public addresses only). The report itself
  follows (cut at `report_chars`, 12,000 by default, as upstream's ``--no-url`` mode reads
  ``response[:12000]``). The reply ``{"titles": [{"ref": n, "title": "…"}]}`` becomes
  `ExtractedTitle(title, n - 1)`; the model is told to leave out works whose title is not
  stated (no guessing).
- No reference found at all (``title_extraction_v1``, the paper's A.2.6 prompt with the report
  quoted): each chunk of the report (`split_report`, 12,000 characters) gives
  ``{"papers": [{"title", "authors", "is_academic_paper"}]}``; academic papers become
  `ExtractedTitle(title, None)` (new works). Items with ``is_academic_paper: false`` are left
  out (upstream's filter) and counted.

Replies are validated (`ask_json`: one repair turn): ``ref`` an integer, titles strings;
titles shorter than 2 characters or longer than 400, "unknown"/"n/a"-style placeholders and
``ref`` numbers outside the list are dropped (the resolver counts out-of-range ones in
`ResolveStats.extractor_rejected`; we drop them here and count them in `stats`). A reply still
unusable after the repair is *unscored*: nothing is extracted for that report (or chunk), and
the reason is recorded in `stats.unscored` and `last` — never silently an empty answer.

`last` holds the latest call's record (prompt version, calls, unscored reasons, titles, the
count of dropped items) for the caller to store beside the report's scores.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Sequence

from scholarbench.llm.structured import ask_json
from scholarbench.benchmarks.reportbench.llm_common import (as_bool, load_prompt, need_object,
                                                            one_line, quote, split_report)
from scholarbench.references.report_refs import Reference
from scholarbench.references.resolve import ExtractedTitle
from scholarbench.errors import ScholarbenchError
from scholarbench.text.normalize import normalize_title
from scholarbench.benchmarks.reportbench.fetch import fetch_url
from scholarbench.benchmarks.reportbench.sources import page_text

UNRESOLVED_PROMPT = "title_unresolved_v1"
REPORT_PROMPT = "title_extraction_v1"
_PLACEHOLDERS = {"unknown", "n a", "na", "none", "not stated", "not available", "title",
                 "no title", "untitled"}

TITLES_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["titles"],
                 "properties": {"titles": {"type": "array", "items": {
                     "type": "object", "additionalProperties": False,
                     "required": ["ref", "title"],
                     "properties": {"ref": {"type": "integer"}, "title": {"type": "string"}}}}}}
PAPERS_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["papers"],
                 "properties": {"papers": {"type": "array", "items": {
                     "type": "object", "additionalProperties": False,
                     "required": ["title", "authors", "is_academic_paper"],
                     "properties": {"title": {"type": "string"},
                                    "authors": {"type": "array", "items": {"type": "string"}},
                                    "is_academic_paper": {"type": "boolean"}}}}}}


def _usable_title(title: str) -> bool:
    norm = normalize_title(title)
    return 2 <= len(title.strip()) <= 400 and bool(norm) and norm not in _PLACEHOLDERS


def parse_titles(value: Any) -> tuple[list[tuple[int, str]], int]:
    """((ref number, title) pairs, items dropped)."""
    items = need_object(value, ("titles",))["titles"]
    if not isinstance(items, list):
        raise ValueError("'titles' must be a list")
    out, dropped = [], 0
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "ref" not in item or "title" not in item:
            raise ValueError(f"titles[{i}] must be an object with 'ref' and 'title'")
        ref, title = item["ref"], item["title"]
        if isinstance(ref, str) and ref.strip().lstrip("[").rstrip("]").isdigit():
            ref = int(ref.strip().lstrip("[").rstrip("]"))
        if isinstance(ref, bool) or not isinstance(ref, int):
            raise ValueError(f"titles[{i}].ref must be the work's number")
        if not isinstance(title, str):
            raise ValueError(f"titles[{i}].title must be a string")
        if _usable_title(title):
            out.append((ref, title.strip()))
        else:
            dropped += 1
    return out, dropped


def parse_papers(value: Any) -> tuple[list[str], int, int]:
    """(titles of academic papers, not-academic items, items dropped)."""
    items = need_object(value, ("papers",))["papers"]
    if not isinstance(items, list):
        raise ValueError("'papers' must be a list")
    titles, not_academic, dropped = [], 0, 0
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("title"), str):
            raise ValueError(f"papers[{i}] must be an object with a 'title' string")
        if "is_academic_paper" in item and not as_bool(item["is_academic_paper"],
                                                       "is_academic_paper"):
            not_academic += 1
            continue
        if _usable_title(item["title"]):
            titles.append(item["title"].strip())
        else:
            dropped += 1
    return titles, not_academic, dropped


@dataclass
class ExtractorStats:
    reports: int = 0
    calls: int = 0
    titles: int = 0
    dropped: int = 0
    not_academic: int = 0
    unscored: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"reports": self.reports, "calls": self.calls, "titles": self.titles,
                "dropped": self.dropped, "not_academic": self.not_academic,
                "n_unscored": len(self.unscored), "unscored": self.unscored[:20]}


class LLMTitleExtractor:
    """A `TitleExtractor` over a chat client (the judge role in a run)."""

    def __init__(self, client: Any, *, report_chars: int = 12_000, chunk_chars: int = 12_000,
                 max_tokens: int = 1024, allow_network: bool = False, fetch: Any = None,
                 context_chars: int = 300) -> None:
        self.client = client
        self.report_chars = report_chars
        self.chunk_chars = chunk_chars
        self.max_tokens = max_tokens
        self.allow_network = allow_network
        self.fetch = fetch
        self.context_chars = context_chars
        self.stats = ExtractorStats()
        self.last: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        return {"model_id": getattr(self.client, "model_id", None),
                "prompts": [load_prompt(UNRESOLVED_PROMPT).identity(),
                            load_prompt(REPORT_PROMPT).identity()],
                "report_chars": self.report_chars, "chunk_chars": self.chunk_chars,
                "allow_network": self.allow_network}

    # -- describing an unresolved reference --
    def _page_hint(self, url: str) -> str:
        try:
            result = (self.fetch or fetch_url)(url, allow_network=True, max_bytes=1_000_000,
                                               timeout=10.0)
        except ScholarbenchError as exc:
            return f"(page not fetched: {one_line(str(exc), 120)})"
        title, text = page_text(result.text(), result.content_type)
        return f"page title: {one_line(title, 200)}; page text: {one_line(text, 400)}"

    def describe(self, ref: Reference, lines: Sequence[str], *, pages: bool | None = None
                 ) -> str:
        """What the report says of one work (`pages`: with its cited page's hint, fetched;
        default: when the user enabled the network)."""
        cut = self.context_chars
        pages = self.allow_network if pages is None else pages
        parts = []
        for m in ref.mentions[:3]:
            parts.append(f"{m.kind}: {one_line(m.text, cut)}")
            if m.kind != "bib_entry" and 1 <= m.line <= len(lines):
                parts.append(f"cited in: {one_line(lines[m.line - 1], cut)}")
        if ref.ids:
            parts.append("ids: " + ", ".join(ref.ids[:3]))
        if ref.urls and pages:
            parts.append(self._page_hint(ref.urls[0]))
        return "; ".join(parts)

    # -- the hook --
    def __call__(self, report: str, unresolved: Sequence[Reference]) -> list[ExtractedTitle]:
        record: dict[str, Any] = {"mode": "unresolved" if unresolved else "report", "calls": 0,
                                  "unscored": [], "titles": [], "dropped": 0, "not_academic": 0}
        out = self._unresolved(report, unresolved, record) if unresolved else \
            self._whole_report(report, record)
        with self._lock:
            self.stats.reports += 1
            self.stats.calls += record["calls"]
            self.stats.titles += len(out)
            self.stats.dropped += record["dropped"]
            self.stats.not_academic += record["not_academic"]
            self.stats.unscored += record["unscored"]
            self.last = record
        return out

    def _ask(self, content: str, record: dict[str, Any], *, validate: Any, schema: dict,
             name: str) -> Any:
        """The validated reply to one prompt, None when it stays unscored (attempts and the
        unscored reason are counted in `record`)."""
        outcome = ask_json(self.client, [{"role": "user", "content": content}],
                           validate=validate, schema=schema, name=name,
                           max_tokens=self.max_tokens)
        record["calls"] += outcome.attempts
        if not outcome.ok:
            record["unscored"].append(outcome.unscored)
            return None
        return outcome.value

    # -- the prompts, and what a reply gives (also the engine's `title_item`) --
    def unresolved_prompt(self, report: str, unresolved: Sequence[Reference], *,
                          network: bool | None = None) -> str:
        """The prompt about the unresolved works (`network`: fetch the cited pages' hints;
        default: when the user enabled the network)."""
        lines = report.split("\n")
        listing = "\n".join(f"{i}. {quote(self.describe(ref, lines, pages=network))}"
                            for i, ref in enumerate(unresolved, start=1))
        body = report[:self.report_chars] + ("\n[… report cut]" if len(report) >
                                              self.report_chars else "")
        return load_prompt(UNRESOLVED_PROMPT).fill(references=listing, report=quote(body))

    def report_prompts(self, report: str) -> list[str]:
        """One prompt per chunk of a report whose references the parser did not find."""
        return [load_prompt(REPORT_PROMPT).fill(response=quote(chunk))
                for chunk in split_report(report, self.chunk_chars)]

    def _unresolved(self, report: str, unresolved: Sequence[Reference],
                    record: dict[str, Any]) -> list[ExtractedTitle]:
        reply = self._ask(self.unresolved_prompt(report, unresolved), record,
                          validate=parse_titles, schema=TITLES_SCHEMA, name="titles")
        if reply is None:
            return []
        return keep_numbered(reply, len(unresolved), record)

    def _whole_report(self, report: str, record: dict[str, Any]) -> list[ExtractedTitle]:
        out: list[ExtractedTitle] = []
        seen: set[str] = set()
        for content in self.report_prompts(report):
            reply = self._ask(content, record, validate=parse_papers, schema=PAPERS_SCHEMA,
                              name="papers")
            if reply is not None:
                keep_papers(reply, record, seen, out)
        return out


def keep_numbered(reply: tuple[list[tuple[int, str]], int], n: int, record: dict[str, Any]
                  ) -> list[ExtractedTitle]:
    """The titles of a reply about `n` numbered works (numbers outside 1..n dropped), into
    `record` (its `titles`, `dropped`)."""
    pairs, dropped = reply
    out = []
    for number, title in pairs:
        if 1 <= number <= n:
            out.append(ExtractedTitle(title, number - 1))
            record["titles"].append({"ref": number - 1, "title": title})
        else:
            dropped += 1
    record["dropped"] += dropped
    return out


def keep_papers(reply: tuple[list[str], int, int], record: dict[str, Any], seen: set[str],
                out: list[ExtractedTitle]) -> None:
    """The academic papers of one chunk's reply, each title once per report (`seen`)."""
    titles, not_academic, dropped = reply
    record["not_academic"] += not_academic
    record["dropped"] += dropped
    for title in titles:
        if title.lower() not in seen:
            seen.add(title.lower())
            out.append(ExtractedTitle(title, None))
            record["titles"].append({"ref": None, "title": title})
