"""The CD index of Funk & Owen-Smith (2017) and the variant SciNet's paper states.

For a focal paper f, the papers published after f (by year, strictly; within `window` years when
given) that cite f and/or at least one of f's references:
    n_i: cite f and none of its references      n_j: cite f and >= 1 of its references
    n_k: cite >= 1 of its references but not f
    cd     = (n_i - n_j) / (n_i + n_j + n_k)     (Funk & Owen-Smith)
    scinet = (n_i - n_j) / (n_i + n_j)           (SciNet, §3.1, as printed: no n_k term)
A value is NaN when f has no year, no references in the graph, or the denominator is 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import sql
from scholarbench.graph.engine import Engine, load_graph, open_engine
from scholarbench.graph.records import CitationGraph

VARIANTS = ("cd", "scinet")


@dataclass(frozen=True, eq=False)
class Disruption:
    """Arrays in pid order (aligned with `graph.ids`); `values` is the chosen variant."""
    ids: np.ndarray
    variant: str
    window: int | None
    engine: str
    n_i: np.ndarray
    n_j: np.ndarray
    n_k: np.ndarray
    references: np.ndarray
    citations: np.ndarray
    cd: np.ndarray
    scinet: np.ndarray

    @property
    def values(self) -> np.ndarray:
        return self.cd if self.variant == "cd" else self.scinet

    def as_dict(self) -> dict[str, float]:
        return {str(i): float(v) for i, v in zip(self.ids, self.values)}


def check_window(window: int | None) -> int | None:
    if window is None:
        return None
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ScholarbenchError(f"window must be a whole number of years >= 1, got {window!r}")
    return window


def disruption(graph: CitationGraph, *, variant: str = "cd", window: int | None = None,
               engine: str | Engine = "duckdb") -> Disruption:
    if variant not in VARIANTS:
        raise ScholarbenchError(f"unknown disruption variant {variant!r}; choose one of "
                                f"{', '.join(VARIANTS)}")
    window = check_window(window)
    eng, owned = open_engine(engine)
    try:
        load_graph(eng, graph)
        table = eng.query(sql.disruption(window))
    finally:
        if owned:
            eng.close()
    if table.num_rows != graph.n_papers:
        raise RuntimeError(f"{eng.name}: {table.num_rows} rows for {graph.n_papers} papers")

    def col(name: str) -> np.ndarray:
        return table.column(name).to_numpy(zero_copy_only=False)

    return Disruption(ids=graph.ids, variant=variant, window=window, engine=eng.name,
                      n_i=col("n_i"), n_j=col("n_j"), n_k=col("n_k"),
                      references=col("references_"), citations=col("citations"),
                      cd=col("cd").astype(np.float64), scinet=col("cd_scinet").astype(np.float64))
