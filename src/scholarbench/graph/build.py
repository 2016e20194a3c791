"""Build a `CitationGraph` from paper and edge columns, applying the cleaning rules once.

Cleaning (stated in docs/scientometrics.md):
- a self-citation (citing == cited; arXiv versions produce some) is dropped and counted;
- a repeated (citing, cited) pair is kept once and counted;
- an id that appears in an edge but not among the papers becomes a *stub*: a paper with no year
  and no venue. Stubs take part in every measure (as references, citers, path nodes) but are not
  rows of the metrics table, because the user did not list them.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from scholarbench.graph.records import CitationGraph, GraphStats


def _str_array(values: Sequence[str] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return np.array([], dtype="<U1")
    return arr.astype(str)


def build_graph(paper_ids: Sequence[str] | np.ndarray,
                years: Sequence[int | None] | np.ndarray,
                venues: Sequence[str | None] | None,
                citing: Sequence[str] | np.ndarray,
                cited: Sequence[str] | np.ndarray,
                *, name: str = "graph") -> CitationGraph:
    """Paper ids must be unique (the file readers check this and name the line)."""
    pids_in = _str_array(paper_ids)
    citing_in, cited_in = _str_array(citing), _str_array(cited)
    if len(citing_in) != len(cited_in):
        raise ValueError("citing and cited differ in length")
    if len(np.unique(pids_in)) != len(pids_in):
        raise ValueError("paper ids are not unique")
    ids = np.unique(np.concatenate([pids_in, citing_in, cited_in]))
    n = len(ids)
    listed_pos = np.searchsorted(ids, pids_in)
    listed = np.zeros(n, dtype=bool)
    listed[listed_pos] = True

    year = np.zeros(n, dtype=np.int32)
    has_year = np.zeros(n, dtype=bool)
    year_in = [None if y is None else int(y) for y in years]
    if len(year_in) != len(pids_in):
        raise ValueError("years and paper ids differ in length")
    known = np.array([y is not None for y in year_in], dtype=bool)
    if known.any():
        year[listed_pos[known]] = np.array([y for y in year_in if y is not None], dtype=np.int32)
        has_year[listed_pos[known]] = True

    venue = np.full(n, -1, dtype=np.int32)
    venue_names: tuple[str, ...] = ()
    if venues is not None:
        venue_in = list(venues)
        if len(venue_in) != len(pids_in):
            raise ValueError("venues and paper ids differ in length")
        given = np.array([bool(v) for v in venue_in], dtype=bool)
        if given.any():
            names, codes = np.unique(np.array([v for v in venue_in if v], dtype=str),
                                     return_inverse=True)
            venue[listed_pos[given]] = codes.astype(np.int32)
            venue_names = tuple(str(v) for v in names)

    src = np.searchsorted(ids, citing_in).astype(np.int64)
    dst = np.searchsorted(ids, cited_in).astype(np.int64)
    self_loop = src == dst
    packed = np.unique((src[~self_loop] << 32) | dst[~self_loop])
    e_citing = (packed >> 32).astype(np.int32)
    e_cited = (packed & 0xFFFFFFFF).astype(np.int32)
    both = has_year[e_citing] & has_year[e_cited]
    stats = GraphStats(
        input_edges=len(src),
        self_citations=int(self_loop.sum()),
        duplicate_edges=int((~self_loop).sum() - len(packed)),
        stub_papers=int(n - listed.sum()),
        time_reversed_edges=int((both & (year[e_citing] < year[e_cited])).sum()),
    )
    return CitationGraph(ids=ids, year=year, has_year=has_year, venue=venue, venues=venue_names,
                         listed=listed, citing=e_citing, cited=e_cited, stats=stats, name=name)
