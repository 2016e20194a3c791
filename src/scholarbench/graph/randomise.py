"""Seeded degree-preserving randomisations of a citation network, made once in numpy so that
every engine counts the very same randomised edges.

Each randomisation permutes the `cited` ends of the edges among themselves: every paper keeps its
number of references (its `citing` rows are untouched) and every paper keeps its number of
citations (the multiset of `cited` values is unchanged). With `stratify="years"` (Uzzi et al.'s
Monte Carlo switching) the permutation happens separately inside each (citing year, cited year)
stratum, so each paper also keeps how many of its references point to each year and how many of
its citations come from each year. Unknown years form their own stratum value.

A permuted edge may become a self-citation or repeat another edge (the switching is not
rejection-sampled); venue-pair counts are what novelty needs, and they stay well defined.

Reproducibility: the permutation of stratum (a, b) in randomisation r uses its own generator,
`numpy.random.default_rng(SeedSequence([seed, r, a, b]))` with a, b = year + 1 (0 = unknown), so a
result does not depend on the order strata are processed in, and a very large graph can be
randomised one stratum at a time.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scholarbench.errors import ScholarbenchError
from scholarbench.graph.records import CitationGraph

STRATIFY = ("years", "none")


@dataclass(frozen=True, eq=False)
class Randomisation:
    seed: int
    stratify: str
    cited: tuple[np.ndarray, ...]   # one permuted `cited` column per randomisation, edge order

    @property
    def n(self) -> int:
        return len(self.cited)


def _year_code(graph: CitationGraph, pids: np.ndarray) -> np.ndarray:
    """year + 1, or 0 when unknown (non-negative, as SeedSequence needs; years are >= 0)."""
    return np.where(graph.has_year[pids], graph.year[pids].astype(np.int64) + 1, 0)


def randomise(graph: CitationGraph, n: int, seed: int, stratify: str = "years") -> Randomisation:
    if stratify not in STRATIFY:
        raise ScholarbenchError(f"stratify must be one of {STRATIFY}, got {stratify!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ScholarbenchError("need at least 2 randomisations for a standard deviation, "
                                f"got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ScholarbenchError(f"seed must be a non-negative integer, got {seed!r}")
    if stratify == "years":
        a = _year_code(graph, graph.citing)
        b = _year_code(graph, graph.cited)
        if (a < 0).any() or (b < 0).any():
            raise ScholarbenchError("stratify='years' needs years >= 0")
    else:
        a = b = np.zeros(graph.n_edges, dtype=np.int64)
    order = np.lexsort((b, a))                      # edges grouped by stratum (a, b)
    sa, sb = a[order], b[order]
    change = np.flatnonzero((np.diff(sa) != 0) | (np.diff(sb) != 0)) + 1
    starts = np.concatenate([[0], change]).astype(np.int64)
    ends = np.concatenate([change, [len(order)]]).astype(np.int64)
    cited_sorted = graph.cited[order]
    out = []
    for r in range(1, n + 1):
        permuted = np.empty_like(cited_sorted)
        for lo, hi in zip(starts, ends):
            rng = np.random.default_rng(np.random.SeedSequence(
                [seed, r, int(sa[lo]), int(sb[lo])]))
            permuted[lo:hi] = rng.permutation(cited_sorted[lo:hi])
        cited = np.empty_like(permuted)
        cited[order] = permuted
        out.append(cited)
    return Randomisation(seed=seed, stratify=stratify, cited=tuple(out))


def nets_table(graph: CitationGraph, rand: Randomisation) -> pa.Table:
    """`nets(r, citing, cited)`: r = 0 the observed edges, r = 1..N the randomised ones."""
    e = graph.n_edges
    r = np.repeat(np.arange(rand.n + 1, dtype=np.int32), e)
    citing = np.tile(graph.citing.astype(np.int32), rand.n + 1)
    cited = np.concatenate([graph.cited.astype(np.int32),
                            *[c.astype(np.int32) for c in rand.cited]])
    return pa.table({"r": r, "citing": citing, "cited": cited})
