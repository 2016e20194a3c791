"""`decomposer`: ResearchArena's DECOMPOSER baseline (§6.1, prompt in appendix C.1).

1. The agent model gets the paper's prompt (adopted from Researchy Questions), byte for byte
   upstream's (`retrieve_decomposer_openai.py`; ``prompts/decomposer_v1.txt``): a worked
   example, then the topic as the Question, asking for sub-questions in a ``<Decomposition>``
   tag and search queries in a ``<Queries>`` tag.
2. Queries are parsed as upstream does: the text after ``<Queries>`` up to ``</Queries>`` (or
   the end), one query per non-empty line, bullets removed (upstream strips ``-`` and spaces; we
   also strip ``*``, ``•``, ``1.``, ``2)``); repeated queries are dropped; at most `max_queries`
   (32) are kept (``info["queries_dropped"]`` counts the rest). The sub-questions of
   ``<Decomposition>`` are recorded in ``info["sub_questions"]`` but not searched (as upstream).
3. Each query is searched with the leakage filters to depth `depth` (100, upstream's ES size);
   the lists are fused by reciprocal rank fusion (``fusion=rrf``, the paper's; K = 60,
   `corpus.hybrid.rrf`) or by upstream's code, which pools every hit and sorts by raw retrieval
   score (``fusion=max-score``); the top k (100) is the output.

Fallback: when the call fails after retries, or the reply has no ``<Queries>`` tag or no query
in it, the topic lower-cased is the single query (= TITLE), recorded in ``info["fallback"]``.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, arena_agent,
                                                               search_filters)
from scholarbench.benchmarks.researcharena.agents.common import (FUSIONS, LLMRankingAgent, LLMTrace,
                                                                 bullet_lines, fuse, load_prompt,
                                                                 positive_int, tagged_block, user)

PROMPT = "decomposer_v1"


def decompose(topic: str, trace: LLMTrace) -> tuple[list[str], list[str]]:
    """(queries, sub-questions) from the model's reply; ([], []) when there is none to parse."""
    reply = trace.complete(user(load_prompt(PROMPT).fill(topic=topic)), step="decompose")
    if reply is None:
        return [], []
    block = tagged_block(reply, "Queries")
    queries = bullet_lines(block) if block is not None else []
    sub = tagged_block(reply, "Decomposition")
    if not queries:
        trace.problems.append("decompose: no <Queries> tag" if block is None
                              else "decompose: the <Queries> tag holds no query")
    return queries, bullet_lines(sub) if sub is not None else []


@arena_agent("decomposer")
class Decomposer(LLMRankingAgent):
    name = "decomposer"

    def __init__(self, k: int = 100, depth: int = 100, search: str = "bm25",
                 fields: str = "title", fusion: str = "rrf", max_queries: int = 32,
                 max_tokens: int = 1024) -> None:
        self._setup(k, search, fields, max_tokens)
        self.depth = positive_int(self.name, "depth", depth)
        self.max_queries = positive_int(self.name, "max_queries", max_queries)
        self.fusion = self._choice("fusion", fusion, FUSIONS)

    def config(self) -> dict[str, Any]:
        return {**self._base_config(PROMPT), "depth": self.depth, "fusion": self.fusion,
                "max_queries": self.max_queries}

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus, trace = self._context(ctx)
        queries, sub_questions = decompose(query.topic, trace)
        dropped = max(0, len(queries) - self.max_queries)
        queries = queries[:self.max_queries]
        if not queries:
            trace.fallback("queries: the topic")
            queries = [query.topic.lower()]
        filters = search_filters(query)
        lists = [self.retrieval.run(corpus, q, self.depth, filters, ctx.embedder)
                 for q in queries]
        info: dict[str, Any] = {"queries": queries, "sub_questions": sub_questions,
                                **trace.info()}
        if dropped:
            info["queries_dropped"] = dropped
        return ArenaOutput(ranking=fuse(lists, self.k, self.fusion), info=info)
