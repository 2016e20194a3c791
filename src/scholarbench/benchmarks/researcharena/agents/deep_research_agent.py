"""`deep-research` (ResearchArena): the generic deep-research loop (`agents/deep_research.py`)
on discovery and selection.

The environment is the literature tools (`tools/`; under the engine, the sample's own session,
its calls in tools.jsonl) with the leakage rule (`access_rules`: non-surveys known to precede
the survey, the survey excluded) and the chosen retrieval (``search=bm25|dense|hybrid``,
``fields``); the first query is the topic (the survey title, as TITLE). The answer's ranking is
the output; its notes, queries and per-step trace go to ``info``.

Reading is titles (and years) only by default (``abstract_chars=0``, ``paragraph_chars=0``): on
the shared data abstracts are uneven across sources — 6.3 % of the 101 tasks' gold papers have
one against 1.4 % of the other papers — so showing them would let "has an abstract" steer the
model's relevance judgements towards the sources the gold comes from (the reason `title-bm25`
indexes titles only). Pass ``abstract_chars=300 paragraph_chars=300`` on corpora whose papers
all carry abstracts.
"""
from __future__ import annotations

from typing import Any

from scholarbench.agents.deep_research import (DeepResearchSettings, ToolEnv, deep_research,
                                               session_for)
from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, access_rules,
                                                               arena_agent)
from scholarbench.benchmarks.researcharena.agents.common import LLMRankingAgent, positive_int
from scholarbench.agents.deep_research import DECIDE_PROMPT


@arena_agent("deep-research")
class DeepResearch(LLMRankingAgent):
    name = "deep-research"
    uses_tools = True          # searches and reads through the literature tools

    def __init__(self, k: int = 100, max_steps: int = 4, depth: int = 50,
                 read_per_step: int = 5, max_read: int = 20, abstract_chars: int = 0,
                 paragraph_chars: int = 0, search: str = "bm25", fields: str = "title",
                 max_tokens: int = 384) -> None:
        self._setup(k, search, fields, max_tokens)
        self.settings = DeepResearchSettings(max_steps=max_steps, depth=depth,
                                             read_per_step=read_per_step, max_read=max_read,
                                             k=self.k, max_tokens=self.max_tokens)
        self.abstract_chars = positive_int(self.name, "abstract_chars", abstract_chars, 0)
        self.paragraph_chars = positive_int(self.name, "paragraph_chars", paragraph_chars, 0)

    def config(self) -> dict[str, Any]:
        return {**self._base_config(DECIDE_PROMPT), **self.settings.config(),
                "abstract_chars": self.abstract_chars, "paragraph_chars": self.paragraph_chars,
                "first_query": "the topic"}

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus, _ = self._context(ctx)
        tools = session_for(ctx.tools, corpus, access_rules(query), ctx.embedder)
        env = ToolEnv(tools, self.retrieval.search, self.retrieval.fields, self.abstract_chars,
                      self.paragraph_chars)
        result = deep_research(query.topic, env, ctx.llm, self.settings)
        return ArenaOutput(ranking=result.ranking, info=result.info())
