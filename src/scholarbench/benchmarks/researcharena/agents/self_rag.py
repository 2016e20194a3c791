"""`self-rag`: iterative retrieval in the manner of SELF-RAG (paper §6.1; Asai et al. 2023).

SELF-RAG trains one model to emit reflection tokens while it generates: [Retrieve] (fetch
passages now?), ISREL (is this passage relevant?), ISSUP / ISUSE (is the output supported /
useful?). ResearchArena uses it as "an enhanced version of ZERO-SHOT": the model writes a query
from the topic (the ZERO-SHOT prompt, appendix C.2), then refines its final query from what the
intermediate retrievals found. The paper gives no more detail and upstream publishes no code
for it, so this is our design, with a prompted chat model in place of a reflection-token model:

1. Round 1 query: ZERO-SHOT's (same prompt, same clean-up, same fallback to the topic).
2. Each round: search the query with the leakage filters (depth `depth`, 100); show the model
   the top `judge_top` (5) hits it has not judged before, as numbered titles, with the queries
   run so far (``prompts/self_rag_judge_v1.txt``). It replies JSON
   ``{"relevant": [numbers], "next_query": "..."}`` — "relevant" plays ISREL, a non-empty
   "next_query" plays [Retrieve] (search again with this query), "" stops. A repeated query
   stops too. At most `rounds` (3) searches.
3. Ranking (``ranking=judged``, default): papers judged relevant (in the order judged), then
   the RRF fusion (K = 60) of every round's list, then papers judged irrelevant (demoted, not
   dropped); top k. ``ranking=last-query`` is the paper's description: the last query's list.

Not reproduced: SELF-RAG's trained critic and generator, segment-level beam search over
reflection-token probabilities, and ISSUP / ISUSE (there is no generated text to support).

Fallbacks: the first query as in `zero-shot`; a judge call that fails after retries or whose
JSON stays malformed after one repair ends the iteration with what was retrieved so far
(``info["fallback"]``: "stop: keep rounds so far"), counted in ``info["llm"]``.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, arena_agent,
                                                               search_filters)
from scholarbench.benchmarks.researcharena.agents.common import (LLMRankingAgent, fuse, indices,
                                                                 load_prompt, numbered,
                                                                 pinned_ranking, positive_int, user)
from scholarbench.benchmarks.researcharena.agents.zero_shot import PROMPT as QUERY_PROMPT, llm_query

JUDGE_PROMPT = "self_rag_judge_v1"
RANKINGS = ("judged", "last-query")
JUDGE_SCHEMA = {"type": "object", "additionalProperties": False,
                "required": ["relevant", "next_query"],
                "properties": {"relevant": {"type": "array", "items": {"type": "integer"}},
                               "next_query": {"type": "string"}}}


@arena_agent("self-rag")
class SelfRAG(LLMRankingAgent):
    name = "self-rag"

    def __init__(self, k: int = 100, depth: int = 100, rounds: int = 3, judge_top: int = 5,
                 ranking: str = "judged", search: str = "bm25", fields: str = "title",
                 max_tokens: int = 256) -> None:
        self._setup(k, search, fields, max_tokens)
        self.depth = positive_int(self.name, "depth", depth)
        self.rounds = positive_int(self.name, "rounds", rounds)
        self.judge_top = positive_int(self.name, "judge_top", judge_top)
        self.ranking = self._choice("ranking", ranking, RANKINGS)

    def config(self) -> dict[str, Any]:
        return {**self._base_config(QUERY_PROMPT, JUDGE_PROMPT), "depth": self.depth,
                "rounds": self.rounds, "judge_top": self.judge_top, "ranking": self.ranking}

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus, trace = self._context(ctx)
        filters = search_filters(query)
        queries = [llm_query(query.topic, trace)]
        lists: list[list[tuple[str, float]]] = []
        relevant: list[str] = []
        irrelevant: list[str] = []
        judged: set[str] = set()
        titles: dict[str, str] = {}
        stopped = "rounds"
        while True:
            hits = self.retrieval.run(corpus, queries[-1], self.depth, filters, ctx.embedder)
            lists.append(hits)
            if len(lists) >= self.rounds and self.ranking == "last-query":
                break   # the last list is the output: no judgement needed
            shown = [pid for pid, _ in hits if pid not in judged][:self.judge_top]
            if shown:
                for paper in corpus.get_by_ids(shown):
                    titles[paper.paper_id] = paper.title
            reply = trace.ask(
                user(load_prompt(JUDGE_PROMPT).fill(
                    topic=query.topic, queries=numbered(queries),
                    hits=numbered(titles[pid] for pid in shown))),
                step="judge", schema=JUDGE_SCHEMA,
                validate=lambda v, n=len(shown): _judgement(v, n))
            if reply is None:
                trace.fallback("stop: keep rounds so far")
                stopped = "llm_failure"
                break
            picked, next_query = reply
            judged.update(shown)
            relevant.extend(shown[i] for i in picked)
            irrelevant.extend(pid for i, pid in enumerate(shown) if i not in picked)
            if len(lists) >= self.rounds:
                break
            if not next_query:
                stopped = "model"
                break
            if next_query in queries:
                stopped = "repeated_query"
                break
            queries.append(next_query)
        if self.ranking == "last-query":
            ranking = [(pid, s) for pid, s in lists[-1][:self.k]]
        else:
            demoted = set(irrelevant)
            fused = [pid for pid, _ in fuse(lists, self.depth * len(lists))]
            rest = [pid for pid in fused if pid not in demoted]
            ranking = pinned_ranking(relevant, rest, irrelevant, self.k)
        return ArenaOutput(ranking=ranking,
                           info={"queries": queries, "rounds": len(lists), "stopped": stopped,
                                 "judged_relevant": len(relevant),
                                 "judged_irrelevant": len(irrelevant), **trace.info()})


def _judgement(value: Any, n: int) -> tuple[list[int], str]:
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    picked = indices(value.get("relevant"), n, "relevant")
    next_query = value.get("next_query")
    if not isinstance(next_query, str):
        raise ValueError("'next_query' must be a string (\"\" to stop)")
    return picked, " ".join(next_query.split())
