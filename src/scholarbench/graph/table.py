"""All per-paper measures of a graph in one table, as `scholarbench graph metrics` writes it."""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scholarbench.errors import DataError
from scholarbench.graph.disruption import disruption
from scholarbench.graph.engine import Engine, open_engine
from scholarbench.graph.novelty import novelty
from scholarbench.graph.records import CitationGraph

COLUMNS = ("id", "cd_index", "disruption_scinet", "novelty", "citations", "references")


@dataclass(frozen=True, eq=False)
class PaperMetrics:
    """One row per listed paper (stubs left out), in id order; NaN = undefined."""
    ids: np.ndarray
    cd_index: np.ndarray
    disruption_scinet: np.ndarray
    novelty: np.ndarray
    citations: np.ndarray
    references: np.ndarray
    engine: str
    window: int | None
    seed: int
    randomisations: int

    def rows(self):
        for i in range(len(self.ids)):
            yield (str(self.ids[i]), float(self.cd_index[i]), float(self.disruption_scinet[i]),
                   float(self.novelty[i]), int(self.citations[i]), int(self.references[i]))


def paper_metrics(graph: CitationGraph, *, engine: str | Engine = "duckdb",
                  window: int | None = None, seed: int = 0, randomisations: int = 10,
                  percentile: int = 10, stratify: str = "years") -> PaperMetrics:
    eng, owned = open_engine(engine)
    try:
        d = disruption(graph, window=window, engine=eng)
        nv = novelty(graph, randomisations=randomisations, seed=seed, percentile=percentile,
                     stratify=stratify, engine=eng)
    finally:
        if owned:
            eng.close()
    keep = graph.listed
    return PaperMetrics(ids=graph.ids[keep], cd_index=d.cd[keep], disruption_scinet=d.scinet[keep],
                        novelty=nv.values[keep], citations=d.citations[keep],
                        references=d.references[keep], engine=eng.name, window=window,
                        seed=seed, randomisations=randomisations)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def write_metrics_csv(metrics: PaperMetrics, path: str | Path) -> None:
    """CSV with a header; an undefined value is an empty cell; floats as Python's repr (exact)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for row in metrics.rows():
                writer.writerow([_cell(v) for v in row])
    except OSError as exc:
        raise DataError(f"cannot write: {exc.strerror}", file=str(path)) from exc
