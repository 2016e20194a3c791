"""`bm25-title`: Deep Research baseline. BM25 over the corpus with the survey topic as the query,
then the `cluster` taxonomy of the top k papers.

It searches paper titles by default (`fields="title"`, ResearchArena's TITLE-style retrieval):
in the default corpus only TaxoBench's own papers carry abstracts, so a title + abstract index
would let "has an abstract" give the expert papers away (measured: recall@50 jumps from ~0.2 to
~0.5 with BM25's length normalisation off). `fields="title+abstract"` is there for corpora whose
papers all have abstracts.

The survey itself is never returned: any paper whose normalised title equals the survey's is
excluded before the top k are taken, so it does not use up one of the k places.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.taxobench.agents.base import AgentContext
from scholarbench.agents.cluster import ClusterParams, cluster_papers
from scholarbench.corpus.store import Corpus
from scholarbench.records import Paper, TaxoPrediction, TaxoTask
from scholarbench.benchmarks.taxobench.agents import register_taxo_agent
from scholarbench.text.normalize import normalize_title


@register_taxo_agent("bm25-title")
class BM25TitleAgent:
    name = "bm25-title"
    modes = ("deep-research",)
    needs_corpus = True

    def __init__(self, k: int = 50, fields: str = "title", **cluster_params: Any) -> None:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"bm25-title: k must be a positive integer, got {k!r}")
        self.k = k
        self.fields = fields
        self.cluster = ClusterParams(**cluster_params)
        self._corpus: Corpus | None = None
        self._corpus_dir: Path | None = None

    def config(self) -> dict[str, Any]:
        return {"k": self.k, "query": "topic", "fields": self.fields,
                **self.cluster.as_dict()}

    def corpus(self, corpus_dir: Path | None) -> Corpus:
        """The opened corpus, cached per directory."""
        if corpus_dir is None:
            raise ValueError("bm25-title needs a corpus: ctx.corpus_dir is None (build one with "
                             "scholarbench.corpus.build.build_corpus and pass its directory)")
        corpus_dir = Path(corpus_dir)
        if self._corpus is None or self._corpus_dir != corpus_dir:
            self._corpus = Corpus.open(corpus_dir)
            self._corpus_dir = corpus_dir
        return self._corpus

    def retrieve(self, task: TaxoTask, ctx: AgentContext) -> list[Paper]:
        """The top `k` papers for the topic by BM25 over `fields`, the survey excluded (every
        corpus paper whose normalised title is the survey's or the topic's), best first."""
        corpus = self.corpus(ctx.corpus_dir)
        # paper ids are derived from the normalised title, so this excludes every spelling
        survey_ids = {pid for t in (task.survey, task.topic) if normalize_title(t)
                      for pid in corpus.resolve_all(t)}
        hits = corpus.search_bm25(task.topic, self.k, exclude_ids=survey_ids,
                                  fields=self.fields)
        return [paper for paper, _ in hits]

    def generate(self, task: TaxoTask, ctx: AgentContext) -> TaxoPrediction:
        papers = self.retrieve(task, ctx)
        retrieved = [p.title for p in papers]
        if not papers:
            return TaxoPrediction(task.id, None, retrieved=[],
                                  error="BM25 retrieved no paper for the topic")
        taxonomy = cluster_papers(papers, task.topic, ctx.embedder,
                                  **self.cluster.as_dict())
        return TaxoPrediction(task.id, taxonomy, retrieved=retrieved)
