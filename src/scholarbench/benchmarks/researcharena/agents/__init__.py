"""ResearchArena agents, registered as ``researcharena/<name>``:

    title-bm25        TITLE baseline: BM25 over titles, survey title as query, top 100
    citation-expand   ours: title-bm25 seeds expanded along citation edges, rank fusion
    title-dense       TITLE with dense retrieval (Corpus.search_dense)
    title-hybrid      TITLE with BM25 + dense fusion (Corpus.search_hybrid)
    cluster           CLUSTERING baseline for organisation, references given (intermediate)
    replay            outputs produced elsewhere (TREC run / mind-map JSON lines)
    zero-shot         LLM writes one query (paper's ZERO-SHOT prompt), then BM25
    decomposer        LLM sub-questions -> one query each -> reciprocal rank fusion
    self-rag          iterative retrieval: LLM judges top hits and refines the query
    storm             multi-perspective questions -> queries -> rank fusion
    few-shot          FEW-SHOT typology: LLM builds the mind-map (organisation)
    deep-research     search -> read -> decide loop (agents/deep_research.py)
LLM agents and their designs: docs/researcharena-llm.md. Importing this package registers them
all (the registry imports it when agents are first looked up); `adapter.ArenaAgentAdapter` puts
each behind the core agent contract.
"""
import importlib

from scholarbench.benchmarks.researcharena.agents.base import (PREFIX, TASKS, ArenaAgent,
                                                               ArenaContext, ArenaOutput,
                                                               ArenaQuery, make_arena_agent,
                                                               search_filters)

__all__ = ["PREFIX", "TASKS", "ArenaAgent", "ArenaContext", "ArenaOutput", "ArenaQuery",
           "make_arena_agent", "search_filters"]

AGENT_MODULES = ("title_bm25", "citation_expand", "dense", "cluster", "replay", "zero_shot",
                 "decomposer", "self_rag", "storm", "few_shot", "deep_research_agent")
for _module in AGENT_MODULES:
    importlib.import_module(f"{__name__}.{_module}")
