"""`title-dense` and `title-hybrid`: the TITLE baseline with a dense or a hybrid retriever.

The extension point for retrievers beyond BM25: the query is the survey title, the leakage
filters are the same (`search_filters`), and the retriever is a `Corpus` method —
`search_dense` (cosine between MiniLM embeddings of the title and of each paper's title; the
paper's BGE column of Tables 1-2 is this setting with another encoder) and `search_hybrid`
(reciprocal rank fusion of BM25 and dense, `corpus/hybrid.py`). Both are built by the corpus
layer; an agent for another retriever is this file's pattern with another method name.
"""
from __future__ import annotations

from scholarbench.benchmarks.researcharena.agents.base import arena_agent
from scholarbench.benchmarks.researcharena.agents.title_bm25 import TitleSearch


@arena_agent("title-dense")
class TitleDense(TitleSearch):
    name = "title-dense"
    method = "search_dense"
    needs_embedder = True


@arena_agent("title-hybrid")
class TitleHybrid(TitleSearch):
    name = "title-hybrid"
    method = "search_hybrid"
    needs_embedder = True
