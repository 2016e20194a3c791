"""`zero-shot`: ResearchArena's ZERO-SHOT baseline (§6.1, prompt in appendix C.2).

1. The agent model gets the paper's prompt, byte for byte upstream's
   (`retrieve_zeroshot_openai.py`; ``prompts/zero_shot_v1.txt``):
   "Create a search query that gathers supporting materials for writing a survey paper on the
   following topic: {topic}." — one user message; temperature, seed and model come from the
   run's agent role (upstream: gpt-3.5-turbo, temperature 0, seed 42, max_tokens 512).
2. The reply becomes the query (`llm_common.clean_query`: upstream sends the whole reply; we
   drop code fences, take the text after a ``Query:`` label if there is one, strip quotes).
3. One search with the leakage filters — non-surveys known to precede the survey, the survey
   itself excluded — returns the top k (100). ``search=bm25`` (default; titles, as
   `title-bm25`), ``dense`` or ``hybrid`` (RRF of both), ``fields=title|title+abstract``.

Fallback: when the call fails after the client's retries, or the cleaned reply is empty, the
query is the topic lower-cased — exactly the TITLE baseline — recorded in ``info["fallback"]``
and counted in ``info["llm"]``. ``info["query"]`` is the query searched.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, arena_agent,
                                                               search_filters)
from scholarbench.benchmarks.researcharena.agents.common import (LLMRankingAgent, LLMTrace,
                                                                 clean_query, load_prompt, user)

PROMPT = "zero_shot_v1"


def llm_query(topic: str, trace: LLMTrace) -> str:
    """ZERO-SHOT's query for `topic`, or the lower-cased topic (a recorded fallback)."""
    reply = trace.complete(user(load_prompt(PROMPT).fill(topic=topic)), step="query")
    query = clean_query(reply) if reply is not None else ""
    if not query:
        if reply is not None:
            trace.problems.append("query: the reply holds no query")
        trace.fallback("query: the topic")
        return topic.lower()
    return query


@arena_agent("zero-shot")
class ZeroShot(LLMRankingAgent):
    name = "zero-shot"

    def __init__(self, k: int = 100, search: str = "bm25", fields: str = "title",
                 max_tokens: int = 128) -> None:
        self._setup(k, search, fields, max_tokens)

    def config(self) -> dict[str, Any]:
        return self._base_config(PROMPT)

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus, trace = self._context(ctx)
        text = llm_query(query.topic, trace)
        hits = self.retrieval.run(corpus, text, self.k, search_filters(query), ctx.embedder)
        return ArenaOutput(ranking=hits, info={"query": text, **trace.info()})
