"""All per-paper measures of a graph in one table, as `scholarbench graph metrics` writes it."""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.graph.disruption import disruption
from scholarbench.graph.engine import Engine, open_engine
from scholarbench.graph.novelty import novelty
from scholarbench.graph.records import CitationGraph
from scholarbench.graph.sketch import PRECISION

MEASURES = ("cd_index", "disruption_scinet", "disruption_scinet_upstream", "cd_index_approx",
            "novelty")
DEFAULT_MEASURES = ("cd_index", "disruption_scinet", "novelty")


def check_measures(measures: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The measures in table order, each once; an unknown name is an error."""
    unknown = [m for m in measures if m not in MEASURES]
    if unknown or not measures:
        what = f"unknown measure {unknown[0]!r}" if unknown else "no measure"
        raise ScholarbenchError(f"{what}; choose from {', '.join(MEASURES)}")
    return tuple(m for m in MEASURES if m in measures)


@dataclass(frozen=True, eq=False)
class PaperMetrics:
    """One row per listed paper (stubs left out), in id order; NaN = undefined.
    `measures` maps each computed measure to its values, in `MEASURES` order."""
    ids: np.ndarray
    measures: dict[str, np.ndarray]
    citations: np.ndarray
    references: np.ndarray
    engine: str
    window: int | None
    seed: int
    randomisations: int
    precision: int | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return ("id",) + tuple(self.measures) + ("citations", "references")

    def rows(self):
        cols = list(self.measures.values())
        for i in range(len(self.ids)):
            yield ((str(self.ids[i]),) + tuple(float(c[i]) for c in cols)
                   + (int(self.citations[i]), int(self.references[i])))


def _disruption_columns(graph: CitationGraph, wanted: tuple[str, ...], eng: Engine,
                        window: int | None, precision: int) -> dict[str, np.ndarray]:
    """Each disruption measure asked for, running only the queries it needs."""
    out: dict[str, np.ndarray] = {}
    if "cd_index" in wanted:
        d = disruption(graph, variant="cd", window=window, engine=eng)
        out["cd_index"], out["disruption_scinet"] = d.values, d.scinet
    elif "disruption_scinet" in wanted:
        out["disruption_scinet"] = disruption(graph, variant="scinet", window=window,
                                              engine=eng).values
    if "disruption_scinet_upstream" in wanted:
        out["disruption_scinet_upstream"] = disruption(graph, variant="scinet_upstream",
                                                       engine=eng).values
    if "cd_index_approx" in wanted:
        out["cd_index_approx"] = disruption(graph, variant="cd_approx", window=window,
                                            engine=eng, precision=precision).values
    return out


def paper_metrics(graph: CitationGraph, *, engine: str | Engine = "duckdb",
                  window: int | None = None, seed: int = 0, randomisations: int = 10,
                  percentile: int = 10, stratify: str = "years",
                  measures: tuple[str, ...] = DEFAULT_MEASURES,
                  precision: int = PRECISION) -> PaperMetrics:
    wanted = check_measures(measures)
    if "disruption_scinet_upstream" in wanted and window is not None:
        raise ScholarbenchError("disruption_scinet_upstream has no year rule, so no window: "
                                "leave out --window or that measure")
    eng, owned = open_engine(engine)
    try:
        computed = _disruption_columns(graph, wanted, eng, window, precision)
        if "novelty" in wanted:
            computed["novelty"] = novelty(graph, randomisations=randomisations, seed=seed,
                                          percentile=percentile, stratify=stratify,
                                          engine=eng).values
    finally:
        if owned:
            eng.close()
    keep = graph.listed
    return PaperMetrics(ids=graph.ids[keep], measures={m: computed[m][keep] for m in wanted},
                        citations=graph.citation_counts()[keep],
                        references=graph.reference_counts()[keep], engine=eng.name,
                        window=window, seed=seed, randomisations=randomisations,
                        precision=precision if "cd_index_approx" in wanted else None)


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
            writer.writerow(metrics.columns)
            for row in metrics.rows():
                writer.writerow([_cell(v) for v in row])
    except OSError as exc:
        raise DataError(f"cannot write: {exc.strerror}", file=str(path)) from exc
