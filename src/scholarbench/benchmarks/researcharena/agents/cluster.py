"""`cluster` (ResearchArena): the CLUSTERING baseline for information organisation (§6.1).

"The CLUSTERING approach employs Ward's method for hierarchical clustering on the BGE embedding
of every reference article, and the final dendrogram is extracted as typology. The label in
each node is computed as the most important TF-IDF word, with ngrams ranging from 1 to 3."

This is the paper's *intermediate* setting (with oracle, Table 3 "Oracle: Yes"): the agent is
given the survey's references R (§5: "references R from the original survey paper could be
provided to the agents") — every resolved reference, searchable or not, as title + abstract
from the corpus. The clustering itself is `scholarbench.agents.cluster.cluster_papers`
(shared with TaxoBench's `cluster`); we embed with the project's MiniLM, not BGE. The
mind-map is the clustering tree with its papers removed: the topic is the single top-level
heading and the categories hang below it (`data.typology.mindmap_from_taxonomy`).
"""
from __future__ import annotations

from typing import Any

from scholarbench.agents.cluster import ClusterParams, cluster_papers
from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, CorpusAgentMixin,
                                                               arena_agent)
from scholarbench.data.typology import mindmap_from_taxonomy
from scholarbench.text.normalize import normalize_title


@arena_agent("cluster")
class ArenaCluster(CorpusAgentMixin):
    name = "cluster"
    tasks = ("organisation",)
    needs_corpus = True
    needs_embedder = True

    def __init__(self, max_depth: int = 3, branching: int = 4, min_leaf: int = 3,
                 leaf_divisor: int = 12) -> None:
        self.params = ClusterParams(max_depth, branching, min_leaf, leaf_divisor)

    def config(self) -> dict[str, Any]:
        return {**self.params.config(), "references": "given (oracle)"}

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        corpus = self.need_corpus(ctx)
        if ctx.embedder is None:
            raise ValueError("cluster needs an embedder")
        papers = corpus.get_by_ids(list(query.references or ()))
        if not any(normalize_title(p.title) for p in papers):
            return ArenaOutput(error="no references to cluster")
        tree = cluster_papers(papers, query.topic, ctx.embedder,
                              **self.params.as_dict())
        return ArenaOutput(mindmap=mindmap_from_taxonomy(tree),
                           info={"papers": len(papers)})
