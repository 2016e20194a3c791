"""The in-memory citation graph every measure reads, and what cleaning it removed.

Papers are numbered 0..n-1 in the sort order of their id strings (`pid`), so a pid order is an
id order. Edges are `citing` -> `cited` pid pairs after cleaning (see `build.build_graph`).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class GraphStats:
    """What building the graph found in its input and removed or added."""
    input_edges: int
    self_citations: int        # citing == cited: dropped
    duplicate_edges: int       # the same (citing, cited) again: dropped
    stub_papers: int           # ids seen only in edges: kept, with no year and no venue
    time_reversed_edges: int   # kept edges whose citing paper has an earlier year than the cited


@dataclass(frozen=True, eq=False)
class CitationGraph:
    ids: np.ndarray            # str, sorted; pid = position
    year: np.ndarray           # int32; meaningful only where `has_year`
    has_year: np.ndarray       # bool
    venue: np.ndarray          # int32 code into `venues`, -1 = no venue
    venues: tuple[str, ...]
    listed: np.ndarray         # bool: given in the papers table (False: a stub from the edges)
    citing: np.ndarray         # int32 pids, sorted by (citing, cited), no self-loops or duplicates
    cited: np.ndarray
    stats: GraphStats
    name: str = "graph"
    token: str = field(default_factory=lambda: uuid.uuid4().hex)  # identity for engine caches

    @property
    def n_papers(self) -> int:
        return len(self.ids)

    @property
    def n_edges(self) -> int:
        return len(self.citing)

    def pid(self, paper_id: str) -> int | None:
        """The pid of an id, or None when the graph has no such paper."""
        i = int(np.searchsorted(self.ids, paper_id))
        return i if i < len(self.ids) and self.ids[i] == paper_id else None

    def citation_counts(self) -> np.ndarray:
        """In-corpus citations of each paper (distinct citing papers, self-citations excluded)."""
        return np.bincount(self.cited, minlength=self.n_papers).astype(np.int64)

    def reference_counts(self) -> np.ndarray:
        return np.bincount(self.citing, minlength=self.n_papers).astype(np.int64)
