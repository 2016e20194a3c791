"""`title-dense` and `title-hybrid`: the TITLE baseline with a dense or a hybrid retriever.

The extension point for retrievers beyond BM25: the query is the survey title, the leakage
filters are the same (`search_filters`), and the retriever is a `Corpus` method —
`search_dense` (cosine between MiniLM embeddings of the title and of each paper's title; the
paper's BGE column of Tables 1-2 is this setting with another encoder) and `search_hybrid`
(reciprocal rank fusion of BM25 and dense, `corpus/hybrid.py`). Both are built by the corpus
layer; an agent for another retriever is this file's pattern with another method name.
"""
from __future__ import annotations

from typing import Any

from scholarbench.agents.researcharena.base import (ArenaContext, ArenaOutput, ArenaQuery,
                                                    CorpusAgentMixin, search_filters)
from scholarbench.agents.researcharena.title_bm25 import positive_int
from scholarbench.registry import register_agent


class _TitleSearch(CorpusAgentMixin):
    name = ""
    method = ""
    tasks = ("discovery", "selection")
    needs_corpus = True
    needs_embedder = True

    def __init__(self, k: int = 100, fields: str = "title") -> None:
        self.k = positive_int("k", self.name, k)
        if fields not in ("title", "title+abstract"):
            raise ValueError(f"{self.name}: fields must be 'title' or 'title+abstract'")
        self.fields = fields

    def config(self) -> dict[str, Any]:
        return {"k": self.k, "fields": self.fields, "retriever": self.method,
                "query": "survey title, lower-cased",
                "filters": "non-survey, before cut-off, survey excluded"}

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus = self.need_corpus(ctx)
        search = getattr(corpus, self.method, None)
        if search is None:
            raise RuntimeError(f"{self.name}: this version of Corpus has no {self.method}()")
        if ctx.embedder is None:
            raise ValueError(f"{self.name} needs an embedder")
        hits = search(query.topic.lower(), self.k, ctx.embedder, fields=self.fields,
                      **search_filters(query))
        return ArenaOutput(ranking=[(p.paper_id, s) for p, s in hits if p.paper_id])


@register_agent("researcharena/title-dense")
class TitleDense(_TitleSearch):
    name = "title-dense"
    method = "search_dense"


@register_agent("researcharena/title-hybrid")
class TitleHybrid(_TitleSearch):
    name = "title-hybrid"
    method = "search_hybrid"
