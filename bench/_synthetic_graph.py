"""Seeded synthetic citation graphs that grow by papers at a fixed heavy-tailed citation
distribution (for bench/bench_graph_scale.py).

Model (every per-paper distribution is independent of the number of papers n):
- Years: `years` consecutive years starting at 1995; the papers of year y are a share of n
  proportional to (1 + growth)^y (science grows ~4 %/year), numbered in year order.
- References: each paper of year y > first draws K ~ NegativeBinomial(mean `refs`, dispersion
  `dispersion`), K >= 1 (a zero draw becomes 1); papers of the first year cite nothing.
- Each reference picks a cited year y - L with the lag L in 1..(y - first) from a geometric law
  truncated there, P(L) ~ q^(L - 1) with q = 1 - 1/`lag` (recent papers are cited more; no
  same-year citations), then a paper of that year with probability proportional to its fitness
  F ~ Pareto(`alpha`) (x_m = 1): a fixed fitness, not preferential attachment, so a paper's
  expected citations are its fitness times a factor that depends only on its year's share.
  Citation counts are a Poisson mixture over F, hence power-law with tail P(c > x) ~ x^-alpha;
  alpha = 2 gives Redner's (1998) p(c) ~ c^-3: the variance of c diverges (logarithmically),
  so the sum of squared citation counts per edge (W/E, the exact CD's rows) grows slowly with
  n and the largest count grows ~ n^(1/alpha), as on real graphs.
- A reference drawn twice by the same paper is kept once (reported: dup).
- Venues: `venues` of them, Zipf (p ~ 1/rank), drawn per paper (for novelty).
So doubling n doubles the expected edges with the same reference-count and citation-count
distributions. Generated in chunks of citing papers, each deduplicated on its own: peak memory
is about 16 bytes per edge plus one chunk.
"""
from __future__ import annotations

import numpy as np

FIRST_YEAR = 1995


def papers_for(edges: int, refs: float = 15.0, years: int = 30, growth: float = 0.04) -> int:
    """Papers whose expected number of (pre-dedup) edges is `edges`."""
    w = (1 + growth) ** np.arange(years)
    citing_share = w[1:].sum() / w.sum()
    nb_mean = refs + _p_zero(refs) * 1.0      # zero draws become one reference
    return int(round(edges / (citing_share * nb_mean)))


def _p_zero(refs: float, dispersion: float = 2.0) -> float:
    return (dispersion / (dispersion + refs)) ** dispersion


def synthetic_graph(edges: int, seed: int = 0, *, refs: float = 15.0, dispersion: float = 2.0,
                    alpha: float = 2.0, lag: float = 6.0, years: int = 30,
                    growth: float = 0.04, venues: int = 200, chunk: int = 1_000_000):
    from scholarbench.graph.records import CitationGraph, GraphStats
    n = papers_for(edges, refs, years, growth)
    rng = np.random.default_rng(seed)
    w = (1 + growth) ** np.arange(years)
    per_year = np.floor(n * w / w.sum()).astype(np.int64)
    per_year[-1] += n - per_year.sum()
    start = np.concatenate([[0], np.cumsum(per_year)])            # papers of year k: start[k]..
    year = np.repeat(np.arange(years, dtype=np.int32), per_year)
    fitness_cum = np.cumsum(rng.pareto(alpha, n) + 1.0)
    fc0 = np.concatenate([[0.0], fitness_cum])                    # fc0[i] = sum F[:i]
    k = rng.negative_binomial(dispersion, dispersion / (dispersion + refs), n)
    k = np.maximum(k, 1).astype(np.int64)
    k[: start[1]] = 0
    q = 1.0 - 1.0 / lag
    parts, drawn = [], 0
    ck = np.cumsum(k)
    i = int(start[1])
    while i < n:                                   # chunks of citing papers
        done = int(ck[i - 1]) if i else 0
        j = max(i + 1, int(np.searchsorted(ck, done + chunk, side="right")))
        citing = np.repeat(np.arange(i, j, dtype=np.int64), k[i:j])
        drawn += len(citing)
        span = year[citing].astype(np.int64)                    # lags 1..span possible
        u = rng.random(len(citing))
        lags = 1 + np.floor(np.log1p(-u * (1 - q ** span)) / np.log(q)).astype(np.int64)
        lags = np.clip(lags, 1, span)
        cy = year[citing] - lags
        lo, hi = fc0[start[cy]], fc0[start[cy + 1]]
        x = lo + rng.random(len(citing)) * (hi - lo)
        cited = np.searchsorted(fitness_cum, x, side="right")
        cited = np.minimum(cited, start[cy + 1] - 1)           # guard the float edge case
        packed = np.sort((citing << 32) | cited)
        parts.append(packed[np.concatenate([[True], packed[1:] != packed[:-1]])])
        del citing, span, u, lags, cy, lo, hi, x, cited
        i = j
    packed = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    del parts
    zipf = 1.0 / np.arange(1, venues + 1)
    venue = rng.choice(venues, n, p=zipf / zipf.sum()).astype(np.int32)
    graph = CitationGraph(
        ids=np.char.add("p", np.char.zfill(np.arange(n).astype(str), 9)),
        year=(FIRST_YEAR + year).astype(np.int32), has_year=np.ones(n, bool), venue=venue,
        venues=tuple(f"v{v}" for v in range(venues)), listed=np.ones(n, bool),
        citing=(packed >> 32).astype(np.int32), cited=(packed & 0xFFFFFFFF).astype(np.int32),
        stats=GraphStats(drawn, 0, drawn - len(packed), 0, 0), name=f"synthetic-{edges}")
    return graph


def coupled_rows(graph) -> tuple[int, int]:
    """(W, W_after): the coupling join's rows Σ_r c_r² before the year rule, and after it
    (pairs of citers a, b of the same reference with year(b) > year(a)), from a (reference,
    citing year) histogram."""
    c = np.bincount(graph.cited, minlength=graph.n_papers).astype(np.int64)
    w = int((c * c).sum())
    y = graph.year[graph.citing].astype(np.int64)
    y0, ny = int(y.min()), int(y.max() - y.min() + 1)
    key = graph.cited.astype(np.int64) * ny + (y - y0)
    uk, cnt = np.unique(key, return_counts=True)
    r = uk // ny
    # within each reference (keys sorted by year), later = citers of r in strictly later years
    tot = c[r]
    cum = np.cumsum(cnt)
    first = np.searchsorted(r, r, side="left")
    before_incl = cum - np.where(first > 0, cum[first - 1], 0)
    later = tot - before_incl
    return w, int((cnt * later).sum())


def approx_rows(graph, precision: int) -> int:
    """An upper bound of the rows of cd_approx's widest join: Σ_r c_r · min(c_r, 2^precision)
    (each edge f -> r meets at most one register row per register set by r's citers)."""
    c = np.bincount(graph.cited, minlength=graph.n_papers).astype(np.int64)
    return int((c * np.minimum(c, 1 << precision)).sum())


def describe(graph) -> dict:
    """The distribution check printed at each size."""
    c = np.bincount(graph.cited, minlength=graph.n_papers).astype(np.int64)
    r = np.bincount(graph.citing, minlength=graph.n_papers).astype(np.int64)
    citers = r[r > 0]
    e = graph.n_edges
    return {"papers": graph.n_papers, "edges": e, "mean_refs": float(citers.mean()),
            "refs_sq_per_edge": float((r * r).sum() / e), "max_citations": int(c.max()),
            "cited_share": float((c > 0).mean()), "p99_citations": float(np.quantile(c, 0.99)),
            "W_per_edge": float((c * c).sum() / e), "dup": graph.stats.duplicate_edges}
