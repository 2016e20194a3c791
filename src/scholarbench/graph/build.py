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
import pyarrow as pa
import pyarrow.compute as pc

from scholarbench.graph.records import CitationGraph, GraphStats


def _strings(values: Sequence[str] | np.ndarray | pa.Array | pa.ChunkedArray) -> pa.Array:
    """Ids as one Arrow string array: compact (no fixed-width unicode copies of every edge end),
    and hashed, sorted and looked up by Arrow's C++ kernels."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return values if values.type == pa.large_string() else values.cast(pa.large_string())
    if isinstance(values, np.ndarray):
        values = values.astype(str)
    return pa.array(values, type=pa.large_string())


def _positions(values: pa.Array, ids: pa.Array) -> np.ndarray:
    return pc.index_in(values, value_set=ids).to_numpy(zero_copy_only=False).astype(np.int64)


Ids = Sequence[str] | np.ndarray | pa.Array | pa.ChunkedArray


def build_graph(paper_ids: Ids, years: Sequence[int | None] | np.ndarray,
                venues: Sequence[str | None] | None, citing: Ids, cited: Ids,
                *, name: str = "graph") -> CitationGraph:
    """Paper ids must be unique (the file readers check this and name the line)."""
    pids_in = _strings(paper_ids)
    citing_in, cited_in = _strings(citing), _strings(cited)
    if len(citing_in) != len(cited_in):
        raise ValueError("citing and cited differ in length")
    if len(pc.unique(pids_in)) != len(pids_in):
        raise ValueError("paper ids are not unique")
    # sorted by UTF-8 bytes = by code point: numpy's order for the same strings
    every = pc.unique(pa.chunked_array([pids_in, citing_in, cited_in]))
    every = every.take(pc.sort_indices(every))
    ids = every.to_numpy(zero_copy_only=False).astype(str)
    n = len(ids)
    listed_pos = _positions(pids_in, every)
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

    src = _positions(citing_in, every)
    dst = _positions(cited_in, every)
    del citing_in, cited_in
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
