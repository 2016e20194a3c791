"""``e2e-writer``: the report in one model call over every source (DeepSynth-Eval appendix A.1,
"E2E single-turn").

Sources: the request's oracle context when it has one (every reference, cited by its oracle id);
otherwise the top ``k`` (30) BM25 hits for the request's topic (else its prompt) in the corpus,
with the request's cut-off and exclusions (``common.search``) — or, with
``search="deep-research"``, the deep-research loop's top ``k`` under the same filters
(``common.find_sources``; ``research_steps`` searches at most); no corpus and no oracle: no
sources (the model is told so, and the report cites nothing).

One prompt (``prompts/e2e_write_v1.txt``): the request (cut to ``request_tokens``, 1500), then
the sources as ``[n] Title (year)`` + text. Truncation rule: the request is cut first; the
sources get what the template and the request leave of the prompt budget
(``TokenBudget.prompt_tokens(max_tokens)``): every source's header line while they fit (those
past the budget are left out from the end, counted in ``n_sources_dropped``), then the texts,
each cut to ``source_tokens`` (400) and water-filled into the rest. The reply (``max_tokens``,
1024) is the report; the writer adds the References section (``common.finish_report``).

Failures: a call that fails after the client's retries, or an empty reply, gives
``WrittenReport(markdown="", error=...)`` (counted by the runner), never an exception.
"""
from __future__ import annotations

from typing import Any

from scholarbench.agents.writers.base import WriterContext, WritingRequest, WrittenReport
from scholarbench.agents.writers.budget import TokenBudget, truncate_tokens
from scholarbench.agents.writers.common import (Calls, Source, SourcePool, check_search,
                                                fill_within, find_sources, finish_report,
                                                load_prompt, open_corpus, render_sources,
                                                search_config)
from scholarbench.core.registry import register_agent

NO_SOURCES = "(no sources are available: write from what you know and cite nothing)"


def check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def make_budget(context_window: Any, token_ratio: Any, max_tokens: int) -> TokenBudget:
    if isinstance(token_ratio, bool) or not isinstance(token_ratio, (int, float)):
        raise ValueError(f"token_ratio must be a number, got {token_ratio!r}")
    budget = TokenBudget(check_int("context_window", context_window, 512), float(token_ratio))
    budget.prompt_tokens(max_tokens, repair=True)   # raises when the reply leaves no room
    return budget


def initial_sources(request: WritingRequest, ctx: WriterContext, k: int,
                    exclude_surveys: bool, search_mode: str = "bm25", settings: Any = None,
                    calls: Calls | None = None) -> tuple[SourcePool, str, dict[str, Any]]:
    """The oracle's references, else search hits for the topic (BM25 or the deep-research loop,
    `common.find_sources`); where they came from; and what the loop did ({} otherwise)."""
    if request.oracle is not None:
        return SourcePool.from_oracle(request.oracle), "oracle", {}
    corpus = open_corpus(ctx)
    if corpus is None:
        return SourcePool(), "none", {}
    pool = SourcePool()
    papers, research = find_sources(corpus, request, request.topic or request.prompt, k,
                                    exclude_surveys=exclude_surveys, search_mode=search_mode,
                                    settings=settings, calls=calls)
    for paper in papers:
        pool.add_paper(paper)
    return pool, "search", research


@register_agent("e2e-writer")
class E2EWriter:
    name = "e2e-writer"
    uses_llm = True

    def __init__(self, k: int = 30, context_window: int = 8192, token_ratio: float = 1.3,
                 max_tokens: int = 1024, source_tokens: int = 400, request_tokens: int = 1500,
                 exclude_surveys: bool = False, prompt: str = "e2e_write_v1",
                 search: str = "bm25", research_steps: int = 4) -> None:
        self.k = check_int("k", k, 0)
        self.search, self.research = check_search(search, research_steps)
        self.max_tokens = check_int("max_tokens", max_tokens, 16)
        self.source_tokens = check_int("source_tokens", source_tokens, 0)
        self.request_tokens = check_int("request_tokens", request_tokens, 16)
        self.exclude_surveys = bool(exclude_surveys)
        self.budget = make_budget(context_window, token_ratio, self.max_tokens)
        self.prompt = load_prompt(prompt)

    def config(self) -> dict[str, Any]:
        return {"k": self.k, "max_tokens": self.max_tokens, "source_tokens": self.source_tokens,
                "request_tokens": self.request_tokens, "exclude_surveys": self.exclude_surveys,
                **self.budget.config(), "prompt": self.prompt.identity(),
                **search_config(self.search, self.research, self.k)}

    def write(self, request: WritingRequest, ctx: WriterContext) -> WrittenReport:
        if ctx.llm is None:
            return WrittenReport("", error="e2e-writer needs the agent role's chat model")
        calls = Calls(ctx.llm, budget=self.budget)
        pool, origin, research = initial_sources(request, ctx, self.k, self.exclude_surveys,
                                                 self.search, self.research, calls)
        sources: list[Source] = [pool.get(n) for n in pool.numbers()]
        shown: list[int] = []

        def flexible(room: int) -> dict[str, str]:
            text, ns = render_sources(sources, room, body_tokens=self.source_tokens)
            shown[:] = ns
            return {"sources": text if sources else NO_SOURCES}

        prompt = fill_within(self.prompt, self.budget.prompt_tokens(self.max_tokens),
                             {"request": truncate_tokens(request.prompt, self.request_tokens)},
                             flexible)
        reply = calls.text(prompt, step="write", max_tokens=self.max_tokens)
        info: dict[str, Any] = {"sources": origin, "n_sources": len(sources),
                                "n_sources_shown": len(shown),
                                "n_sources_dropped": len(sources) - len(shown), **calls.info()}
        if research:
            info["research"] = research
        if reply is None:
            return WrittenReport("", error=calls.problems[-1], info=info)
        if not reply.strip():
            return WrittenReport("", error="write: the model returned an empty report",
                                 info=info)
        markdown, cited, counts = finish_report(reply, pool)
        info.update(counts)
        return WrittenReport(markdown, cited, None, info)


__all__ = ["E2EWriter", "NO_SOURCES", "check_int", "initial_sources", "make_budget"]
