"""`title-bm25`: ResearchArena's TITLE baseline (§6.1) with BM25.

The query is the survey title, lower-cased (the paper lower-cases titles because S2ORC's
capitalisation varies; our BM25 tokenizer lower-cases anyway, so this changes nothing here and
is kept for fidelity). BM25 (bm25s) searches the corpus with the leakage filters — only
non-surveys known to precede the survey, the survey itself excluded — and returns the top k
(100, as upstream's `retrieve_bm25.py` asks Elasticsearch for 100 hits).

Field: titles by default (`fields="title"`). Upstream indexes title, abstract and full text in
Elasticsearch; in our corpus only some sources carry abstracts (TaxoBench and part of
ReportBench), so a title + abstract index would let "has an abstract" give papers away (see
`agents/bm25_title.py`). `fields="title+abstract"` is there for corpora whose papers all have
abstracts.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, CorpusAgentMixin,
                                                               arena_agent, search_filters)


def positive_int(name: str, agent: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{agent}: {name} must be a positive integer, got {value!r}")
    return value


class TitleSearch(CorpusAgentMixin):
    """The TITLE baseline over one `Corpus` search method (`method`); subclasses name it."""
    name = ""
    method = "search_bm25"
    tasks = ("discovery", "selection")
    needs_corpus = True
    needs_embedder = False

    def __init__(self, k: int = 100, fields: str = "title") -> None:
        self.k = positive_int("k", self.name, k)
        if fields not in ("title", "title+abstract"):
            raise ValueError(f"{self.name}: fields must be 'title' or 'title+abstract'")
        self.fields = fields

    def config(self) -> dict[str, Any]:
        out = {"k": self.k, "fields": self.fields, "query": "survey title, lower-cased",
               "filters": "non-survey, before cut-off, survey excluded"}
        if self.method != "search_bm25":
            out["retriever"] = self.method
        return out

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus = self.need_corpus(ctx)
        args: list[Any] = [query.topic.lower(), self.k]
        if self.needs_embedder:
            if ctx.embedder is None:
                raise ValueError(f"{self.name} needs an embedder")
            args.append(ctx.embedder)
        hits = getattr(corpus, self.method)(*args, fields=self.fields, **search_filters(query))
        return ArenaOutput(ranking=[(p.paper_id, s) for p, s in hits if p.paper_id])


@arena_agent("title-bm25")
class TitleBM25(TitleSearch):
    name = "title-bm25"
