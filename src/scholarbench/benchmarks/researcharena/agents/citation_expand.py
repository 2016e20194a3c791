"""`citation-expand`: title BM25 seeds, expanded along citation edges, reranked by rank fusion.

Our own baseline (not in the paper). For one survey topic:

1. BM25 over titles with the leakage filters (as `title-bm25`), to depth `depth` (1000).
   The top `seeds` (20) are the seeds.
2. Each seed s links to candidate papers d, with the strongest applicable weight:
   - ``direct`` (1.0): s cites d, or d cites s;
   - ``co_cited`` (0.5): some searchable paper cites both s and d;
   - ``coupled`` (0.25): d and s cite a common paper.
   Edge support of d = the sum of its links over the seeds (so a paper linked directly to two
   seeds has support 2).
3. The graph list: candidates with support >= `min_support` (2.0 — linked to at least two
   seeds directly, or to more seeds indirectly), ordered by support, then BM25 rank, then
   paper_id.
4. Fused score = 1/(60 + BM25 rank) + `graph_weight` (1.0) x 1/(60 + graph-list rank)
   (reciprocal rank fusion, Cormack et al. 2009, constant 60; a list not containing d adds 0).
5. Output: the BM25 top `keep` (50) unchanged, then the rest of the top k (100) by fused score
   (ties by paper_id). The scores returned are n - i + 1 for rank i of n (the head is pinned,
   so the fused scores themselves are not monotone in the output order). Keeping BM25's head makes the expansion a tail reranker: every measure
   at depth <= 50 equals title-bm25's, and the graph competes only for ranks 51-100.

Leakage. The graph is walked only through papers in the searchable collection D (non-surveys
known to precede the survey, `researcharena.tasks.SearchSpace`): a citer, a co-citing paper or
a coupled paper outside D is never used, and every candidate must be in D. Without this, the
survey itself (and any later survey on the topic) would co-cite its references with each
other — exactly the leak the paper's rule prevents.

Parameters were set by reasoning before measurement, then checked on the 101 real tasks (there
is no held-out split); docs/researcharena.md reports the measured sensitivity, including
settings that do worse. On our corpus the graph helps little: the gold papers mostly come from
ReportBench bibliographies, which have no edges of their own, while the citation graph is
arxiv-2023's, so papers with many edges are more often distractors.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, CorpusAgentMixin,
                                                               arena_agent, search_filters)
from scholarbench.benchmarks.researcharena.agents.graph import CitationGraph
from scholarbench.benchmarks.researcharena.agents.title_bm25 import positive_int
from scholarbench.corpus.store import Corpus
from scholarbench.benchmarks.researcharena.tasks import SearchSpace


@arena_agent("citation-expand")
class CitationExpand(CorpusAgentMixin):
    name = "citation-expand"
    tasks = ("discovery", "selection")
    needs_corpus = True
    needs_embedder = False

    def __init__(self, k: int = 100, seeds: int = 20, depth: int = 1000, keep: int = 50,
                 rrf_k: int = 60, graph_weight: float = 1.0, min_support: float = 2.0,
                 direct: float = 1.0, co_cited: float = 0.5, coupled: float = 0.25,
                 fields: str = "title") -> None:
        self.k = positive_int("k", self.name, k)
        self.seeds = positive_int("seeds", self.name, seeds)
        self.depth = positive_int("depth", self.name, depth)
        if not isinstance(keep, int) or isinstance(keep, bool) or keep < 0:
            raise ValueError(f"{self.name}: keep must be an integer >= 0, got {keep!r}")
        self.keep = keep
        self.rrf_k = positive_int("rrf_k", self.name, rrf_k)
        for label, value in (("graph_weight", graph_weight), ("min_support", min_support),
                             ("direct", direct), ("co_cited", co_cited), ("coupled", coupled)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{self.name}: {label} must be a number >= 0, got {value!r}")
        self.graph_weight, self.min_support = float(graph_weight), float(min_support)
        self.weights = {"direct": float(direct), "co_cited": float(co_cited),
                        "coupled": float(coupled)}
        if fields not in ("title", "title+abstract"):
            raise ValueError(f"{self.name}: fields must be 'title' or 'title+abstract'")
        self.fields = fields
        self._loaded: tuple[Path, CitationGraph, SearchSpace] | None = None

    def config(self) -> dict[str, Any]:
        return {"k": self.k, "seeds": self.seeds, "depth": self.depth, "keep": self.keep,
                "rrf_k": self.rrf_k, "graph_weight": self.graph_weight,
                "min_support": self.min_support, **self.weights, "fields": self.fields}

    def _graph(self, corpus: Corpus) -> tuple[CitationGraph, SearchSpace]:
        if self._loaded is None or self._loaded[0] != corpus.directory:
            self._loaded = (corpus.directory, CitationGraph.of(corpus), SearchSpace.of(corpus))
        return self._loaded[1], self._loaded[2]

    def support(self, seeds: list[str], graph: CitationGraph, space: SearchSpace,
                query: ArenaQuery) -> dict[str, float]:
        """Edge support of every candidate linked to a seed (see the module docstring)."""
        cutoff = query.cutoff

        def ok(pid: str) -> bool:
            return pid != query.survey_id and space.searchable(pid, cutoff)

        w = self.weights
        support: dict[str, float] = {}
        for seed in seeds:
            link: dict[str, float] = {}

            def offer(pid: str, weight: float) -> None:
                if weight > link.get(pid, 0.0):
                    link[pid] = weight

            refs = graph.references(seed)
            citers = [c for c in graph.citations(seed) if ok(c)]
            if w["coupled"]:
                for ref in refs:
                    for other in graph.citations(ref):
                        offer(other, w["coupled"])
            if w["co_cited"]:
                for citer in citers:
                    for other in graph.references(citer):
                        offer(other, w["co_cited"])
            if w["direct"]:
                for pid in refs:
                    offer(pid, w["direct"])
                for pid in citers:
                    offer(pid, w["direct"])
            for pid, weight in link.items():
                if pid != seed and ok(pid):
                    support[pid] = support.get(pid, 0.0) + weight
        return support

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus = self.need_corpus(ctx)
        graph, space = self._graph(corpus)
        hits = corpus.search_bm25(query.topic.lower(), max(self.depth, self.k),
                                  fields=self.fields, **search_filters(query))
        ranked = [p.paper_id for p, _ in hits if p.paper_id]
        bm25_rank = {pid: i for i, pid in enumerate(ranked, start=1)}
        support = self.support(ranked[:self.seeds], graph, space, query)
        graph_list = sorted((pid for pid, s in support.items() if s >= self.min_support),
                            key=lambda pid: (-support[pid], bm25_rank.get(pid, len(ranked) + 1),
                                             pid))
        fused: dict[str, float] = {}
        for pid, rank in bm25_rank.items():
            fused[pid] = 1.0 / (self.rrf_k + rank)
        for rank, pid in enumerate(graph_list, start=1):
            fused[pid] = fused.get(pid, 0.0) + self.graph_weight / (self.rrf_k + rank)
        head = ranked[:min(self.keep, self.k)]
        taken = set(head)
        tail = sorted((pid for pid in fused if pid not in taken),
                      key=lambda pid: (-fused[pid], pid))[:self.k - len(head)]
        output = head + tail
        from_graph = sum(1 for pid in tail if bm25_rank.get(pid, self.k + 1) > self.k)
        # scores are the output order (the head is pinned, so fused scores are not monotone)
        return ArenaOutput(ranking=[(pid, float(len(output) - i)) for i, pid in enumerate(output)],
                           info={"seeds": len(ranked[:self.seeds]),
                                 "graph_candidates": len(graph_list),
                                 "new_from_graph": from_graph})
