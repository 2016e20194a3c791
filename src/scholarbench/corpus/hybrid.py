"""Hybrid search: reciprocal rank fusion (RRF) of a BM25 and a dense ranking.

RRF (Cormack, Clarke and Buettcher, SIGIR 2009): a document's fused score is

    score(d) = sum over the rankings r that contain d of 1 / (K + rank_r(d))

with ranks starting at 1 and K = 60 (the paper's constant). A ranking that does not contain d
adds nothing. Equal fused scores are ordered by paper_id. Each sum is taken with `math.fsum`
(correctly rounded), so documents with the same ranks in any order get bit-identical scores and
the paper_id tie-break is reached.

`Corpus.search_hybrid` fuses the top `DEPTH` = 100 of `search_bm25` and of `search_dense`
(same query, same fields and filters, so filters apply before either list is cut) and returns
the top k of the fusion. BM25 lists only papers sharing a query term, so its list can be
shorter than the depth; a paper found by one retriever only is still fused, with one term.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

K = 60        # Cormack et al. 2009
DEPTH = 100   # how many results of each retriever are fused


def rrf(rankings: Iterable[Sequence[str]], k: int = K) -> list[tuple[str, float]]:
    """Fuse rankings (each a list of paper_ids, best first) into [(paper_id, score)], highest
    score first, equal scores by paper_id. An id repeated within one ranking counts at its
    first (best) rank only."""
    if k < 0:
        raise ValueError(f"rrf: k must be >= 0, got {k}")
    terms: dict[str, list[float]] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, pid in enumerate(ranking, start=1):
            if pid in seen:
                continue
            seen.add(pid)
            terms.setdefault(pid, []).append(1.0 / (k + rank))
    fused = [(pid, math.fsum(parts)) for pid, parts in terms.items()]
    fused.sort(key=lambda item: (-item[1], item[0]))
    return fused
