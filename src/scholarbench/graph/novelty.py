"""Novelty after Uzzi, Mukherjee, Stringer & Jones (2013), "Atypical combinations".

Every pair of a paper's references maps to the unordered pair of the two cited papers' venues
(arXiv category, OpenAlex source; a reference with no venue is left out). A venue pair's observed
count in a stratum (the citing papers' year, Uzzi's per-year counts) is the number of such
reference pairs over all papers of that stratum; its z-score compares that count with the counts
in N seeded degree-preserving randomisations of the network (`randomise`). A paper's novelty is
the 10th percentile of the z-scores of its reference pairs (inverted-CDF percentile, each pair of
references one observation); low = novel. NaN when the paper has no pair with a defined z-score.

Named variants of SciNet's `Evaluation/task1-novelty-sos.py` @ ed5c76f:
- `pairing="paper"`: a reference pair is the two cited papers themselves (SciNet's
  `all_paper_z_score` keyed by (id_min, id_max) work ids), not their venues. Observed and
  randomised counts are then co-citation counts of paper pairs.
- `percentile_rule="linear"`: `np.percentile(z, 10)` (linear interpolation between the closest
  ranks) instead of the inverted CDF; z = {-5, 2, 10} gives -3.6 instead of -5.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import sql
from scholarbench.graph.engine import Engine, load_graph, open_engine
from scholarbench.graph.randomise import Randomisation, nets_table, randomise
from scholarbench.graph.records import CitationGraph

PERCENTILE_RULES = ("inverted_cdf", "linear")


@dataclass(frozen=True, eq=False)
class Novelty:
    """`values` and `pairs` in pid order; `pair_z` (stratum, v1, v2, observed, s1, s2, z) when
    asked for. `pairs` counts the reference pairs with a defined z-score."""
    ids: np.ndarray
    values: np.ndarray
    pairs: np.ndarray
    randomisations: int
    seed: int
    stratify: str
    percentile: int
    engine: str
    percentile_rule: str = "inverted_cdf"
    pairing: str = "venue"
    pair_z: pa.Table | None = None

    def as_dict(self) -> dict[str, float]:
        return {str(i): float(v) for i, v in zip(self.ids, self.values)}


def novelty(graph: CitationGraph, *, randomisations: int = 10, seed: int = 0,
            percentile: int = 10, stratify: str = "years", engine: str | Engine = "duckdb",
            randomised: Randomisation | None = None, with_pairs: bool = False,
            percentile_rule: str = "inverted_cdf", pairing: str = "venue") -> Novelty:
    """`randomised` reuses randomisations made earlier (e.g. to run two engines on the same)."""
    if isinstance(percentile, bool) or not isinstance(percentile, int) or not 0 < percentile <= 100:
        raise ScholarbenchError(f"percentile must be an integer in 1..100, got {percentile!r}")
    if percentile_rule not in PERCENTILE_RULES:
        raise ScholarbenchError(f"unknown percentile rule {percentile_rule!r}; choose one of "
                                f"{', '.join(PERCENTILE_RULES)}")
    if pairing not in sql.PAIRINGS:
        raise ScholarbenchError(f"unknown novelty pairing {pairing!r}; choose one of "
                                f"{', '.join(sql.PAIRINGS)}")
    rand = randomised or randomise(graph, randomisations, seed, stratify)
    by_year = rand.stratify == "years"
    eng, owned = open_engine(engine)
    try:
        load_graph(eng, graph)
        eng.register("nets", nets_table(graph, rand))
        table = eng.query(sql.novelty(rand.n, by_year, percentile, percentile_rule, pairing))
        pair_z = eng.query(sql.pair_z(rand.n, by_year, pairing)) if with_pairs else None
    finally:
        if owned:
            eng.close()
    values = np.full(graph.n_papers, np.nan)
    pairs = np.zeros(graph.n_papers, dtype=np.int64)
    pid = table.column("pid").to_numpy()
    values[pid] = table.column("novelty").to_numpy(zero_copy_only=False)
    pairs[pid] = table.column("pairs").to_numpy()
    return Novelty(ids=graph.ids, values=values, pairs=pairs, randomisations=rand.n,
                   seed=rand.seed, stratify=rand.stratify, percentile=percentile,
                   engine=eng.name, pair_z=pair_z, percentile_rule=percentile_rule,
                   pairing=pairing)
