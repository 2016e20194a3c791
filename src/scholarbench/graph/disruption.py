"""The CD index of Funk & Owen-Smith (2017), the variant SciNet's paper states, SciNet's upstream
task-1 code's own variant, and an approximate CD index for billion-edge graphs.

For a focal paper f, the papers published after f (by year, strictly; within `window` years when
given) that cite f and/or at least one of f's references:
    n_i: cite f and none of its references      n_j: cite f and >= 1 of its references
    n_k: cite >= 1 of its references but not f
    cd        = (n_i - n_j) / (n_i + n_j + n_k)  (Funk & Owen-Smith)
    scinet    = (n_i - n_j) / (n_i + n_j)        (SciNet, §3.1, as printed: no n_k term)
    cd_approx = cd with |C2| = n_j + n_k estimated by HyperLogLog (`graph.sketch`); n_i, n_j
                and so the sign are exact
    scinet_upstream = scinet without the year rule: every citer of f counts, and papers with no
                year are kept (SciNet's `Evaluation/task1-disruptive-sos.py`)
A value is NaN when f has no references in the graph or the denominator is 0, and (all but
scinet_upstream) when f has no year.

Each variant runs only the SQL it needs (`graph.cd_sql`): scinet and scinet_upstream cost about
edges x references; cd adds the coupled pairs (f, r, c), the sum of squared citation counts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import cd_sql, sketch
from scholarbench.graph.engine import Engine, load_graph, open_engine
from scholarbench.graph.records import CitationGraph

VARIANTS = ("cd", "scinet", "scinet_upstream", "cd_approx")
# The |C2| aggregate runs in chunks of focal papers (pid modulo k), each meeting about this many
# coupling-join rows (before the year rule): it bounds the aggregate's memory, and smaller hash
# tables were also faster (arxiv-2023, 8 chunks: 290 MB peak for `graph metrics` CD measures,
# 1.2-1.8x the throughput of the one-piece floor query). Each chunk re-reads the edge table,
# hence the cap.
CHUNK_ROWS = 6_000_000
MAX_CHUNKS = 64


@dataclass(frozen=True, eq=False)
class Disruption:
    """Arrays in pid order (aligned with `graph.ids`); `values` is the chosen variant.

    `n_k` is None for the variants without it (float estimates for cd_approx); `scinet` is
    SciNet's printed variant from the same n_i, n_j (None for scinet_upstream)."""
    ids: np.ndarray
    variant: str
    window: int | None
    engine: str
    n_i: np.ndarray
    n_j: np.ndarray
    n_k: np.ndarray | None
    references: np.ndarray
    citations: np.ndarray
    values: np.ndarray
    scinet: np.ndarray | None
    precision: int | None = None

    @property
    def cd(self) -> np.ndarray:
        if self.variant not in ("cd", "cd_approx"):
            raise AttributeError(f"variant {self.variant!r} has no CD index")
        return self.values

    def as_dict(self) -> dict[str, float]:
        return {str(i): float(v) for i, v in zip(self.ids, self.values)}


def check_window(window: int | None) -> int | None:
    if window is None:
        return None
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ScholarbenchError(f"window must be a whole number of years >= 1, got {window!r}")
    return window


def _ratio(num: np.ndarray, den: np.ndarray, defined: np.ndarray) -> np.ndarray:
    """num / den in float64 (one correctly rounded division, as the engines' SQL would do),
    NaN where not `defined` or den == 0."""
    out = np.full(len(num), np.nan)
    ok = defined & (den != 0)
    out[ok] = num[ok].astype(np.float64) / den[ok].astype(np.float64)
    return out


def chunks_for(graph: CitationGraph, cap: int | None = None,
               chunk_rows: int = CHUNK_ROWS) -> int:
    """How many chunks the |C2| query runs in. Exact: the coupling join's rows, the sum of
    squared citation counts; sketched: each edge f -> r brings at most `cap` registers of r."""
    counts = graph.citation_counts()
    per_edge = counts if cap is None else np.minimum(counts, cap)
    rows = int((counts * per_edge).sum())
    return max(1, min(MAX_CHUNKS, math.ceil(rows / chunk_rows)))


def _by_focal(eng: Engine, queries: list[str], n: int, columns: tuple[str, ...]) -> list:
    """Run queries returning (f, columns...) and scatter them into pid-order arrays (0 where a
    paper has no row): no join back to the papers table, no ORDER BY."""
    out = [np.zeros(n, dtype=np.int64) for _ in columns]
    for query in queries:
        table = eng.query(query)
        f = table.column("f").to_numpy(zero_copy_only=False)
        for arr, name in zip(out, columns):
            arr[f] = table.column(name).to_numpy(zero_copy_only=False)
    return out


def disruption(graph: CitationGraph, *, variant: str = "cd", window: int | None = None,
               engine: str | Engine = "duckdb", precision: int = sketch.PRECISION,
               chunk_rows: int = CHUNK_ROWS, hubs_above: int | None = None) -> Disruption:
    """`hubs_above` (cd_approx): references cited more than this many times have their citers'
    registers merged once per focal year; default 2^precision, where the register cap binds.
    It changes the work, never the result."""
    if variant not in VARIANTS:
        raise ScholarbenchError(f"unknown disruption variant {variant!r}; choose one of "
                                f"{', '.join(VARIANTS)}")
    window = check_window(window)
    if variant == "cd_approx":
        sketch.check_precision(precision)
    if variant == "scinet_upstream" and window is not None:
        raise ScholarbenchError("variant scinet_upstream has no year rule, so no window")
    n = graph.n_papers
    eng, owned = open_engine(engine)
    try:
        load_graph(eng, graph)
        rule = variant != "scinet_upstream"
        nc, n1 = _by_focal(eng, [cd_sql.cited_counts(window, rule)], n, ("nc", "n1"))
        (nr,) = _by_focal(eng, [cd_sql.reference_counts()], n, ("nr",))
        (nj,) = _by_focal(eng, [cd_sql.shared(window, rule)], n, ("nj",))
        n2 = None
        if variant == "cd":
            k = chunks_for(graph, chunk_rows=chunk_rows)
            (n2,) = _by_focal(eng, [cd_sql.coupled(window, i, k) for i in range(k)], n, ("n2",))
        elif variant == "cd_approx":
            eng.register("hll", sketch.registers(n, precision))
            hubs = (1 << precision) if hubs_above is None else int(hubs_above)
            eng.materialize("hll_hubs", cd_sql.hub_references(hubs))
            eng.materialize("hll_unions", cd_sql.sketch_unions(window))
            k = chunks_for(graph, cap=hubs, chunk_rows=chunk_rows)
            nz, z = _by_focal(eng, [cd_sql.sketched(window, i, k) for i in range(k)], n,
                              ("nz", "z"))
            n2 = sketch.estimate(nz, z, precision)
    finally:
        if owned:
            eng.close()
    n_i, n_j = n1 - nj, nj
    dated = graph.has_year if variant != "scinet_upstream" else np.ones(n, bool)
    base = dated & (nr > 0)
    scinet = _ratio(n_i - n_j, n_i + n_j, base)
    n_k = None
    if variant == "cd":
        n_k = n2 - nj
        values = _ratio(n_i - n_j, n_i + n_j + n_k, base)
    elif variant == "cd_approx":
        # |C2| >= n_j exactly; the estimate may fall below it
        n_k = np.maximum(n2 - nj, 0.0)
        values = _ratio(n_i - n_j, n_i + n_j + n_k, base)
    else:
        values = scinet
    return Disruption(ids=graph.ids, variant=variant, window=window, engine=eng.name,
                      n_i=n_i, n_j=n_j, n_k=n_k, references=nr, citations=nc, values=values,
                      scinet=None if variant == "scinet_upstream" else scinet,
                      precision=precision if variant == "cd_approx" else None)
