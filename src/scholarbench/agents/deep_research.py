"""A generic deep-research loop over the offline corpus: search → read → decide → answer.

For any benchmark that gives a topic (ResearchArena discovery and selection through
`researcharena/deep-research`; a TaxoBench Deep Research agent or a report writer can call
`deep_research` with a topic and a `ToolEnv` — the literature tools of `tools/`, so the loop
searches exactly as any external agent does — or any object with the `ResearchEnv` methods).

The loop (one step = one search and at most one model call):

1. **search**: run the current query (the first is `first_query`, default the topic) through
   the environment, which applies its own filters (ResearchArena: the leakage rule), to depth
   `settings.depth` (50).
2. **read**: take the top `read_per_step` (5) hits not read before — while the total stays within
   `max_read` (20) — and read each: title, year, the abstract cut to `abstract_chars` (300) and,
   where the corpus has full text, its first paragraph cut to `paragraph_chars` (300).
3. **decide**: the model gets the topic, the queries run, its notes so far and the numbered
   readings (``prompts/deep_research_decide_v1.txt``) and replies JSON
   ``{"relevant": [numbers], "notes": "...", "action": "search"|"stop", "query": "..."}``.
   Relevant papers are kept in judgement order, the others marked read-and-irrelevant; the notes
   are appended. "stop", an empty query or a query already run ends the loop; so do
   `max_steps` (4) searches, and an exhausted read budget after a step that read nothing new.
4. **answer**: the ranking — papers judged relevant first (judgement order), then the reciprocal
   rank fusion (K = 60) of every search list, then papers judged irrelevant (demoted, not
   dropped); top `k` (100) — plus the notes, the queries and a per-step trace.

Budgets: `max_steps` bounds searches and model calls (one decide call per step, plus at most
one repair each); `max_read` bounds the papers put in front of the model; `max_tokens` bounds
each reply. A decide call that fails after the client's retries, or whose JSON stays malformed
after one repair, ends the loop with what was found so far (``stopped = "llm_failure"``, a
recorded fallback); nothing here raises on model output.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, Sequence

from scholarbench.agents.llm_common import (LLMTrace, fuse, indices, load_prompt,
                                            numbered, pinned_ranking, positive_int, user)
from scholarbench.text.clip import clip
from scholarbench.tools.session import ToolSession

DECIDE_PROMPT = "deep_research_decide_v1"
ACTIONS = ("search", "stop")
DECIDE_SCHEMA = {"type": "object", "additionalProperties": False,
                 "required": ["relevant", "notes", "action", "query"],
                 "properties": {"relevant": {"type": "array", "items": {"type": "integer"}},
                                "notes": {"type": "string"},
                                "action": {"type": "string", "enum": list(ACTIONS)},
                                "query": {"type": "string"}}}


@dataclass(frozen=True)
class Reading:
    """What the agent reads of one paper."""
    paper_id: str
    title: str
    year: int | None = None
    abstract: str = ""
    paragraph: str = ""

    def render(self) -> str:
        head = " ".join(self.title.split()) + (f" ({self.year})" if self.year else "")
        parts = [head]
        if self.abstract:
            parts.append(f"   abstract: {self.abstract}")
        if self.paragraph:
            parts.append(f"   text: {self.paragraph}")
        return "\n".join(parts)


class ResearchEnv(Protocol):
    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """[(paper_id, score)] best first, at most k, the environment's filters applied."""
        ...

    def read(self, paper_ids: Sequence[str]) -> list[Reading]: ...


class ToolEnv:
    """The literature tools (`tools.session`) as a research environment: every search and
    reading goes through `tools.call`, so the sample's leakage rules are the tools' and, under
    the engine, each call lands in the sample's trajectory (tools.jsonl). `tools` is the
    engine's `ctx.tools`, or a `ToolSession` made with `session_for` outside the engine."""

    def __init__(self, tools: Any, search: str = "bm25", fields: str = "title",
                 abstract_chars: int = 300, paragraph_chars: int = 300,
                 exclude_surveys: bool = False) -> None:
        self.tools = tools
        self.mode, self.fields = search, fields
        self.abstract_chars = abstract_chars
        self.paragraph_chars = paragraph_chars
        self.exclude_surveys = exclude_surveys

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        query = " ".join(query.split())[:1000]
        out: list[tuple[str, float]] = []
        offset: int | None = 0
        while query and offset is not None and len(out) < k:
            page = self.tools.call("search", {
                "query": query, "k": min(100, k - len(out)), "offset": offset,
                "mode": self.mode, "fields": self.fields, "abstract_chars": 0,
                "exclude_surveys": self.exclude_surveys})
            out.extend((hit["id"], float(hit["score"])) for hit in page["results"])
            offset = page["next_offset"]
            if offset is not None and offset > 900:       # the tool's deepest page
                offset = None
        return out

    def read(self, paper_ids: Sequence[str]) -> list[Reading]:
        out = []
        for pid in paper_ids:
            paper = self.tools.call("get_paper", {
                "paper": pid, "abstract_chars": min(self.abstract_chars, 5000),
                "paragraphs": 5 if self.paragraph_chars else 0,
                "paragraph_chars": min(max(self.paragraph_chars, 1), 5000)})
            texts = [p["text"] for p in paper.get("paragraphs", []) if p["text"]]
            out.append(Reading(paper["id"], paper["title"], paper["year"],
                               paper["abstract"] if self.abstract_chars else "",
                               clip(texts[0], self.paragraph_chars) if texts else ""))
        return out


def session_for(ctx_tools: Any, corpus: Any, rules: Any, embedder: Any = None) -> Any:
    """The engine's per-sample tools when it gave some, else a session of our own over
    `corpus` under `rules` (an agent called directly, outside the engine)."""
    if ctx_tools is not None:
        return ctx_tools
    return ToolSession(corpus, rules, embedder=embedder)


@dataclass(frozen=True)
class DeepResearchSettings:
    max_steps: int = 4          # searches (and decide calls)
    depth: int = 50             # hits per search
    read_per_step: int = 5      # papers read per step
    max_read: int = 20          # papers read in all
    k: int = 100                # papers in the answer
    max_tokens: int = 384       # per model reply

    def __post_init__(self) -> None:
        for name in ("max_steps", "depth", "read_per_step", "max_read", "k", "max_tokens"):
            positive_int("deep-research", name, getattr(self, name))

    def config(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DeepResearchResult:
    ranking: list[tuple[str, float]]
    notes: list[str]
    queries: list[str]
    relevant: list[str]
    irrelevant: list[str]
    stopped: str                # model / max_steps / repeated_query / read_budget / llm_failure
    steps: list[dict[str, Any]] = field(default_factory=list)
    trace: LLMTrace | None = None

    def info(self) -> dict[str, Any]:
        out = {"queries": self.queries, "notes": self.notes, "stopped": self.stopped,
               "judged_relevant": len(self.relevant), "judged_irrelevant": len(self.irrelevant),
               "steps": self.steps}
        if self.trace is not None:
            out.update(self.trace.info())
        return out


def deep_research(topic: str, env: ResearchEnv, llm: Any,
                  settings: DeepResearchSettings = DeepResearchSettings(), *,
                  first_query: str | None = None) -> DeepResearchResult:
    """Run the loop for `topic` in `env` with the chat client `llm` (see the module doc)."""
    trace = LLMTrace(llm, settings.max_tokens)
    prompt = load_prompt(DECIDE_PROMPT)
    queries = [" ".join((first_query or topic).split())]
    lists: list[list[tuple[str, float]]] = []
    read: set[str] = set()
    relevant: list[str] = []
    irrelevant: list[str] = []
    notes: list[str] = []
    steps: list[dict[str, Any]] = []
    stopped = "max_steps"
    for step in range(1, settings.max_steps + 1):
        hits = env.search(queries[-1], settings.depth)
        lists.append(hits)
        room = max(0, settings.max_read - len(read))
        unread = [pid for pid, _ in hits if pid not in read][:min(settings.read_per_step, room)]
        record: dict[str, Any] = {"query": queries[-1], "hits": len(hits), "read": len(unread)}
        steps.append(record)
        if not unread and room == 0:
            stopped = "read_budget"
            break
        readings = env.read(unread) if unread else []
        read.update(unread)
        reply = trace.ask(
            user(prompt.fill(topic=topic, step=step, max_steps=settings.max_steps,
                             queries=numbered(queries), notes=numbered(notes),
                             readings=numbered(r.render() for r in readings))),
            step="decide", schema=DECIDE_SCHEMA,
            validate=lambda v, n=len(readings): _decision(v, n))
        if reply is None:
            trace.fallback("stop: answer with what was found so far")
            stopped = "llm_failure"
            break
        picked, note, action, next_query = reply
        relevant.extend(readings[i].paper_id for i in picked)
        irrelevant.extend(r.paper_id for i, r in enumerate(readings) if i not in picked)
        if note:
            notes.append(note)
        record.update(relevant=len(picked), action=action)
        if action == "stop" or not next_query:
            stopped = "model"
            break
        if next_query in queries:
            stopped = "repeated_query"
            break
        if step == settings.max_steps:
            break
        queries.append(next_query)
    demoted = set(irrelevant)
    fused = [pid for pid, _ in fuse(lists, settings.depth * len(lists))]
    ranking = pinned_ranking(relevant, (pid for pid in fused if pid not in demoted), irrelevant,
                             settings.k)
    return DeepResearchResult(ranking, notes, queries, relevant, irrelevant, stopped, steps,
                              trace)


def _decision(value: Any, n: int) -> tuple[list[int], str, str, str]:
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    picked = indices(value.get("relevant"), n, "relevant")
    note, action, query = value.get("notes", ""), value.get("action"), value.get("query", "")
    if not isinstance(note, str):
        raise ValueError("'notes' must be a string")
    if action not in ACTIONS:
        raise ValueError("'action' must be \"search\" or \"stop\"")
    if not isinstance(query, str):
        raise ValueError("'query' must be a string")
    return picked, " ".join(note.split()), action, " ".join(query.split())
