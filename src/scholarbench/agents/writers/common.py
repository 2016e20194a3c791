"""What both writers share: versioned prompts, counted model calls within a token budget, the
numbered source pool (oracle references or corpus search hits), citation markers and the
References section.

Sources and citation ids
    With an oracle context the sources are its references, cited by their oracle ids ``[n]``
    (stable: the oracle fixes them). Without one, sources come from BM25 search in the corpus
    with the request's filters (``before=cutoff``, ``exclude_ids`` — each id also resolved
    through the corpus so any spelling of the excluded survey is dropped — and optionally
    ``exclude_surveys``); a paper gets the next free ``n`` the first time a search returns it
    and keeps it for the rest of the report.

    The initial no-oracle retrieval (`find_sources`) is ``search="bm25"`` (default: the top k
    BM25 hits for the query) or ``search="deep-research"``: the generic deep-research loop
    (`agents/deep_research.py`) with the topic as its first query, over the literature tools
    (`tools/`: a session under the request's cut-off and exclusions, `ToolEnv`) that apply the
    same filters to every search it runs (BM25 over title + abstract, as the
    "bm25" mode; reading titles, years and abstracts cut to 300 characters — what the writer
    shows of its sources anyway — and no full text). Its answer, cut to k, becomes the
    sources in ranking order. Its model calls are the writer's and are counted with them
    (`Calls.absorb`); a decide call that fails ends the loop with what its searches found
    (the loop's rule), recorded in ``fallback``. Its prompts are bounded by the loop's own
    budgets (``read_per_step`` readings of at most ~150 tokens each, plus the notes so far),
    not sized by the writer's `TokenBudget`. Later searches (agentic-writer's per-section
    candidates) stay BM25.

The report
    The model is asked to cite as ``[n]`` / ``[n, m]`` and not to write a reference list. A
    bibliography section it writes anyway (found with ReportBench's own rule,
    ``text.bibliography.bibliography_section``) is cut. Markers are read with :data:`MARKER`
    (``[3]``, ``[2, 5]``, ``[2-4]``, ``[1; 7]``; not ``[text](url)``); numbers that name no
    source are left in the text and counted (``n_invalid_citations``). Then
    ``## References`` lists every cited source in ascending ``n``, one line each::

        [3] "Graph attention networks." doi:10.1/a
        [7] "Attention is all you need." arXiv:1706.03762
        [9] "A title known only by title."

    (a quoted title — ReportBench's ``entry_title`` rule 1 — then the corpus id written so its
    parser finds it: ``arXiv:…`` for arxiv ids, ``doi:…`` for DOIs, ``(corpus id: …)`` for
    other kinds, nothing for title-only references). ``WrittenReport.cited`` lists the corpus
    paper ids of the cited sources in that order.

Model calls
    `Calls` wraps the agent's client: a call that fails after the client's retries
    (`LLMCallError`) or a JSON reply still unusable after `ask_json`'s repair turn returns None
    and is counted; the writer then takes its stated fallback. Every request is checked against
    the budget before it is sent; one that would not fit (the prompt builders make this
    impossible; the check is the last line of defence) has its last message cut to fit and is
    counted in ``hard_cuts``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Sequence

from scholarbench.llm.prompts import Prompt, load_package_prompt
from scholarbench.agents.writers.base import OracleReference, WriterContext, WritingRequest
from scholarbench.agents.writers.budget import (MESSAGE_OVERHEAD, TokenBudget, pack,
                                                truncate_tokens)
from scholarbench.llm.tokens import count_message_tokens, count_tokens
from scholarbench.llm.trace import LLMTrace
from scholarbench.text.bibliography import SETEXT_UNDERLINE, bibliography_section
from scholarbench.tools.rules import AccessRules, named_papers

HEADER_TOKENS = 48          # a source's "[n] Title (year)" line is cut to this


# ---- prompts ---------------------------------------------------------------------------------

def load_prompt(name: str, package: str = "scholarbench.agents.writers") -> Prompt:
    """``prompts/<name>.txt`` of ``package`` (package data; the name carries the version; one
    final newline dropped)."""
    return load_package_prompt(package, name, strip_final_newline=True)


def fill_within(prompt: Prompt, budget: int, fixed: dict[str, str],
                flexible: Callable[[int], dict[str, str]]) -> str:
    """``prompt`` filled with ``fixed`` values and ``flexible(room)`` ones, where ``room`` is
    what the template and fixed values leave of ``budget`` tokens; the room shrinks by the
    overflow until the filled text fits (rendering rounds can add a few tokens), and as a last
    resort the whole text is cut."""
    empty = {name: "" for name in prompt.fields - set(fixed)}
    room = budget - count_tokens(prompt.fill(**fixed, **empty))
    text = ""
    for _ in range(8):
        text = prompt.fill(**fixed, **flexible(max(0, room)))
        over = count_tokens(text) - budget
        if over <= 0:
            return text
        room -= over + 8
    return truncate_tokens(text, budget)


# ---- model calls -----------------------------------------------------------------------------

@dataclass
class Calls(LLMTrace):
    """One report's model calls against the agent client, each prompt cut to fit ``budget``
    (the counting is LLMTrace's; a forced cut is counted in ``hard_cuts``)."""
    budget: TokenBudget | None = None
    hard_cuts: int = 0

    def _fit(self, messages: list[dict[str, Any]], max_tokens: int, repair: bool
             ) -> list[dict[str, Any]]:
        limit = self.budget.prompt_tokens(max_tokens, repair=repair)
        over = count_message_tokens(messages) - MESSAGE_OVERHEAD - limit
        if over <= 0:
            return messages
        self.hard_cuts += 1
        last = dict(messages[-1])
        last["content"] = truncate_tokens(last["content"],
                                          max(1, count_tokens(last["content"]) - over))
        return messages[:-1] + [last]

    def text(self, prompt: str, *, step: str, max_tokens: int) -> str | None:
        """The reply text, or None (counted) when the call failed after the client's retries."""
        messages = self._fit([{"role": "user", "content": prompt}], max_tokens, False)
        return self.complete(messages, step=step, max_tokens=max_tokens)

    def json(self, prompt: str, *, step: str, max_tokens: int, validate: Callable[[Any], Any],
             schema: dict | None = None) -> Any:
        """A validated JSON value (one repair turn), or None (counted)."""
        messages = self._fit([{"role": "user", "content": prompt}], max_tokens, True)
        return self.ask(messages, step=step, validate=validate, schema=schema,
                        max_tokens=max_tokens)

    def absorb(self, trace: LLMTrace) -> None:
        """Count another component's calls (e.g. the deep-research loop's) as this report's."""
        self.calls += trace.calls
        self.failed += trace.failed
        self.unscored += trace.unscored
        self.problems.extend(trace.problems)
        self.fallbacks.extend(trace.fallbacks)

    def info(self) -> dict[str, Any]:
        return {**super().info(), "hard_cuts": self.hard_cuts}


# ---- sources ---------------------------------------------------------------------------------

@dataclass
class Source:
    n: int
    title: str
    paper_id: str | None = None
    text: str = ""               # oracle summary / abstract: what a writer shows by default
    year: int | None = None

    def header(self) -> str:
        head = " ".join(self.title.split()) or "(untitled)"
        return truncate_tokens(f"[{self.n}] {head}" + (f" ({self.year})" if self.year else ""),
                               HEADER_TOKENS)


class SourcePool:
    """The report's numbered sources (see the module docstring for how ``n`` is assigned)."""

    def __init__(self, sources: Iterable[Source] = ()) -> None:
        self.by_n: dict[int, Source] = {}
        self._by_pid: dict[str, int] = {}
        for source in sources:
            self._put(source)

    def _put(self, source: Source) -> None:
        if source.n in self.by_n:
            raise ValueError(f"two sources share the citation id [{source.n}]")
        self.by_n[source.n] = source
        if source.paper_id:
            self._by_pid.setdefault(source.paper_id, source.n)

    @classmethod
    def from_oracle(cls, refs: Sequence[OracleReference]) -> "SourcePool":
        return cls(Source(r.n, r.title, r.paper_id, r.text) for r in refs)

    def add_paper(self, paper: Any) -> int:
        """The ``n`` of a corpus paper (a `Paper`), added with the next free id if new."""
        pid = paper.paper_id
        if pid in self._by_pid:
            return self._by_pid[pid]
        n = max(self.by_n, default=0) + 1
        self._put(Source(n, paper.title, pid, paper.abstract or "", paper.year))
        return n

    def __len__(self) -> int:
        return len(self.by_n)

    def __contains__(self, n: object) -> bool:
        return n in self.by_n

    def get(self, n: int) -> Source:
        return self.by_n[n]

    def numbers(self) -> list[int]:
        return sorted(self.by_n)


def render_sources(sources: Sequence[Source], budget: int, *, body_tokens: int,
                   bodies: dict[int, str] | None = None) -> tuple[str, list[int]]:
    """Sources as ``[n] Title (year)`` lines, each followed by its text, within ``budget``
    tokens: headers first (sources past the budget are left out, from the end), then the texts
    packed into what is left (water-filling, each at most ``body_tokens``). ``bodies``
    replaces a source's text (e.g. its full text for deep reading). Returns the text and the
    ``n`` shown."""
    headers = [s.header() for s in sources]
    used, shown = 0, 0
    for header in headers:
        cost = count_tokens(header) + 2
        if used + cost > budget:
            break
        used += cost
        shown += 1
    texts = [(bodies or {}).get(s.n, s.text) for s in sources[:shown]]
    texts = [truncate_tokens(t, body_tokens) if t else "" for t in texts]
    packed = pack(texts, budget - used - 2 * shown)
    blocks = [h + ("\n" + b if b else "") for h, b in zip(headers[:shown], packed)]
    return "\n\n".join(blocks), [s.n for s in sources[:shown]]


# ---- citations and the References section ------------------------------------------------------

MARKER = re.compile(r"(?<![\w\]\\!])\[(\d{1,4}(?:\s*[-–,;]\s*\d{1,4})*)\](?![(:])")


def marker_numbers(spec: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", spec.strip()):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            a, b = int(bounds[0]), int(bounds[1])
            if a <= b <= a + 50:
                out.extend(range(a, b + 1))
                continue
        out.extend(int(b) for b in bounds if b.isdigit())
    return out


def cited_numbers(text: str) -> list[int]:
    """Every number cited with a marker, in order of first mention."""
    seen: dict[int, None] = {}
    for match in MARKER.finditer(text):
        for n in marker_numbers(match.group(1)):
            seen.setdefault(n, None)
    return list(seen)


def strip_bibliography(markdown: str) -> tuple[str, bool]:
    """The report without the bibliography section the model wrote (ReportBench's rule)."""
    lines = markdown.split("\n")
    section = bibliography_section(lines)
    if section is None:
        return markdown, False
    first, end = section
    # the heading line (and a setext underline) sits just above `first`
    head = first - 2 if first >= 2 and SETEXT_UNDERLINE.fullmatch(lines[first - 1]) \
        else first - 1
    kept = lines[:head] + lines[end:]
    return "\n".join(kept).rstrip() + "\n", True


def _id_text(paper_id: str | None) -> str:
    if not paper_id or paper_id.startswith("title:"):
        return ""
    kind, _, value = paper_id.partition(":")
    if kind == "arxiv":
        return f" arXiv:{value}"
    if kind == "doi":
        return f" doi:{value}"
    return f" (corpus id: {paper_id})"


def reference_line(source: Source) -> str:
    title = " ".join(source.title.replace('"', "'").split()).rstrip(".") or "(untitled)"
    return f'[{source.n}] "{title}."{_id_text(source.paper_id)}'


def finish_report(body: str, pool: SourcePool) -> tuple[str, list[str], dict[str, int]]:
    """The report with its References section, the cited corpus ids, and citation counts."""
    body, stripped = strip_bibliography(body.strip() + "\n")
    numbers = cited_numbers(body)
    valid = sorted(n for n in numbers if n in pool)
    invalid = [n for n in numbers if n not in pool]
    text = body.rstrip() + "\n"
    if valid:
        text += "\n## References\n\n" + "\n".join(reference_line(pool.get(n))
                                                    for n in valid) + "\n"
    cited = [pool.get(n).paper_id for n in valid if pool.get(n).paper_id]
    return text, list(dict.fromkeys(cited)), {
        "n_cited": len(valid), "n_invalid_citations": len(invalid),
        "dropped_model_bibliography": int(stripped)}


# ---- corpus access ---------------------------------------------------------------------------

def open_corpus(ctx: WriterContext) -> Any:
    """The context's corpus (opened from ``corpus_dir`` once, then kept on the context)."""
    if ctx.corpus is None and ctx.corpus_dir is not None:
        # deferred: pulls in duckdb, pyarrow
        from scholarbench.corpus.store import Corpus
        ctx.corpus = Corpus.open(ctx.corpus_dir)
    return ctx.corpus


def excluded_ids(corpus: Any, request: WritingRequest) -> set[str]:
    """The request's excluded ids plus every corpus paper any of them names (the tools'
    `named_papers`, so the writers' searches hide what the tools hide)."""
    return set(request.exclude_ids) | named_papers(corpus, request.exclude_ids)


def search(corpus: Any, request: WritingRequest, query: str, k: int, *,
           exclude_surveys: bool = False) -> list[Any]:
    """Papers for ``query`` with the request's filters (module docstring)."""
    query = " ".join(query.split())[:1000]
    if corpus is None or k <= 0 or not query:
        return []
    hits = corpus.search_bm25(query, k, exclude_ids=excluded_ids(corpus, request),
                              before=request.cutoff, exclude_surveys=exclude_surveys)
    return [paper for paper, _ in hits]


SEARCH_MODES = ("bm25", "deep-research")
RESEARCH_ABSTRACT_CHARS = 300


def check_search(search: Any, research_steps: Any = 4) -> tuple[str, Any]:
    """A writer's ``search`` option and the loop's settings (k is set per call)."""
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.agents.deep_research import DeepResearchSettings
    if search not in SEARCH_MODES:
        raise ValueError(f"search must be one of {', '.join(SEARCH_MODES)}, got {search!r}")
    return search, DeepResearchSettings(max_steps=research_steps)


def search_config(search: str, settings: Any, k: int) -> dict[str, Any]:
    """What of the no-oracle retrieval changes a writer's output (for its ``config()``); {} for
    "bm25", the default, so configs (and run directories) from before the option still match."""
    if search == "bm25":
        return {}
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.agents.deep_research import DECIDE_PROMPT
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.agents.llm_common import load_prompt as load_arena_prompt
    return {"search": search, "research": {
        **replace(settings, k=max(1, k)).config(), "search": "bm25", "fields": "title+abstract",
        "abstract_chars": RESEARCH_ABSTRACT_CHARS, "paragraph_chars": 0,
        "prompt": load_arena_prompt(DECIDE_PROMPT).identity()}}


def find_sources(corpus: Any, request: WritingRequest, query: str, k: int, *,
                 exclude_surveys: bool = False, search_mode: str = "bm25",
                 settings: Any = None, calls: Calls | None = None
                 ) -> tuple[list[Any], dict[str, Any]]:
    """The initial sources without an oracle: papers for ``query`` with the request's filters,
    by BM25 or by the deep-research loop (module docstring); and what the loop did ({} for
    BM25)."""
    if search_mode == "bm25":
        return search(corpus, request, query, k, exclude_surveys=exclude_surveys), {}
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.agents.deep_research import DeepResearchSettings, ToolEnv, deep_research
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.tools.session import ToolSession
    if search_mode not in SEARCH_MODES:
        raise ValueError(f"search must be one of {', '.join(SEARCH_MODES)}, got {search_mode!r}")
    settings = settings or DeepResearchSettings()
    query = " ".join(query.split())[:1000]
    if corpus is None or k <= 0 or not query or calls is None:
        return [], {}
    rules = AccessRules(before=request.cutoff, exclude_ids=tuple(request.exclude_ids))
    env = ToolEnv(ToolSession(corpus, rules), "bm25", "title+abstract",
                  abstract_chars=RESEARCH_ABSTRACT_CHARS, paragraph_chars=0,
                  exclude_surveys=exclude_surveys)
    result = deep_research(request.topic or query, env, calls.client,
                           replace(settings, k=k), first_query=query)
    if result.trace is not None:
        calls.absorb(result.trace)
    info = {key: v for key, v in result.info().items() if key not in ("llm", "fallback")}
    return corpus.get_by_ids([pid for pid, _ in result.ranking]), info


def full_text(corpus: Any, paper_id: str | None) -> str:
    """A paper's full-text paragraphs (section names as they change), or "" when the corpus
    has none."""
    if corpus is None or not paper_id or paper_id not in corpus:
        return ""
    parts, section = [], None
    for para in corpus.paragraphs(paper_id):
        if para.section and para.section != section:
            parts.append(f"[{para.section}]")
            section = para.section
        parts.append(para.text)
    return "\n".join(parts)


def clean_section(text: str, heading: str) -> str:
    """A model-written section without code fences or a repeated heading line."""
    lines = [ln for ln in text.strip().splitlines() if not ln.strip().startswith("```")]
    while lines and (lines[0].lstrip().startswith("#") or not lines[0].strip()
                     or lines[0].strip().strip("*").strip().lower() == heading.lower()):
        lines.pop(0)
    return "\n".join(lines).strip()


__all__ = ["Calls", "HEADER_TOKENS", "MARKER", "Prompt", "Source", "SourcePool",
           "SEARCH_MODES", "check_search", "cited_numbers", "clean_section", "excluded_ids",
           "find_sources", "search_config", "fill_within", "finish_report",
           "full_text", "load_prompt", "marker_numbers", "open_corpus", "reference_line",
           "render_sources", "search", "strip_bibliography"]
