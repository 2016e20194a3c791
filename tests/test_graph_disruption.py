"""CD index (Funk & Owen-Smith) and SciNet's variant on hand-computed graphs (DuckDB engine; the
Spark engine runs the same SQL in test_graph_engines.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import shared_path
from scholarbench.errors import ScholarbenchError
from scholarbench.graph import build_graph, disruption
from scholarbench.graph.sources import arxiv2023_graph

# F (2005) cites R1, R2 (2000). After F: A (2006) cites F only -> n_i; B (2007) cites F and R1 ->
# n_j; C (2008) cites R2 only -> n_k; G (2012) cites F only -> n_i outside a 5-year window.
# Not counted: D (2004, before F) cites R1; E (2005, same year) cites F; U (no year) cites F.
PAPERS = {"R1": 2000, "R2": 2000, "F": 2005, "A": 2006, "B": 2007, "C": 2008, "D": 2004,
          "E": 2005, "G": 2012, "U": None}
EDGES = [("F", "R1"), ("F", "R2"), ("A", "F"), ("B", "F"), ("B", "R1"), ("C", "R2"),
         ("D", "R1"), ("E", "F"), ("G", "F"), ("U", "F"),
         ("F", "F"), ("A", "F")]          # a self-citation and a repeated edge: both dropped


def graph(papers=PAPERS, edges=EDGES):
    ids = list(papers)
    return build_graph(ids, [papers[i] for i in ids], None, [e[0] for e in edges],
                       [e[1] for e in edges])


def row(result, g, pid):
    i = g.pid(pid)
    return (int(result.n_i[i]), int(result.n_j[i]), int(result.n_k[i]), float(result.cd[i]),
            float(result.scinet[i]))


def test_cleaning_counts():
    g = graph()
    assert (g.stats.self_citations, g.stats.duplicate_edges, g.n_edges) == (1, 1, 10)


def test_each_of_ni_nj_nk():
    g = graph()
    d = disruption(g)
    n_i, n_j, n_k, cd, scinet = row(d, g, "F")
    assert (n_i, n_j, n_k) == (2, 1, 1)                  # A, G | B | C
    assert cd == pytest.approx((2 - 1) / (2 + 1 + 1))
    assert scinet == pytest.approx((2 - 1) / (2 + 1))
    assert d.variant == "cd" and d.values is d.cd
    assert disruption(g, variant="scinet").values[g.pid("F")] == pytest.approx(1 / 3)


def test_window():
    g = graph()
    assert row(disruption(g, window=5), g, "F")[:4] == (1, 1, 1, 0.0)   # G (2012) drops out
    assert row(disruption(g, window=2), g, "F")[:4] == (1, 1, 0, 0.0)   # C (2008) drops out
    assert row(disruption(g, window=100), g, "F") == row(disruption(g), g, "F")


def test_no_citers_and_no_references():
    g = graph()
    d = disruption(g)
    # A (2006) cites F; nobody cites A, but B and G (after 2006) cite F: n_k = 2, CD = 0;
    # SciNet's variant has no paper in its denominator: undefined.
    n_i, n_j, n_k, cd, scinet = row(d, g, "A")
    assert (n_i, n_j, n_k, cd) == (0, 0, 2, 0.0) and math.isnan(scinet)
    # G (2012): nothing after it at all -> undefined in both variants
    assert math.isnan(row(d, g, "G")[3]) and math.isnan(row(d, g, "G")[4])
    # R1 has citers but no references: undefined (cdindex would say 1.0)
    n_i, _, _, cd, scinet = row(d, g, "R1")
    assert n_i > 0 and math.isnan(cd) and math.isnan(scinet)
    # U has no year: undefined; and it never counted as a citer of F (checked above)
    assert math.isnan(row(d, g, "U")[3])


def test_citation_and_reference_counts():
    g = graph()
    d = disruption(g)
    i = g.pid("F")
    assert (d.citations[i], d.references[i]) == (5, 2)   # A, B, E, G, U (self-citation dropped)


def test_cycle_from_arxiv_versions():
    # X (2010) and Y (2011) cite each other: only the citation forward in time counts
    g = graph({"O": 2000, "X": 2010, "Y": 2011},
              [("X", "O"), ("X", "Y"), ("Y", "X")])
    d = disruption(g)
    assert row(d, g, "X")[:4] == (1, 0, 0, 1.0)          # Y cites X, not X's other reference O
    assert math.isnan(row(d, g, "Y")[3])                 # nothing after 2011
    assert g.stats.time_reversed_edges == 1


def test_bad_arguments():
    g = graph()
    with pytest.raises(ScholarbenchError, match="variant"):
        disruption(g, variant="cdx")
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ScholarbenchError, match="window"):
            disruption(g, window=bad)
    with pytest.raises(ScholarbenchError, match="engine"):
        disruption(g, engine="postgres")


def out_sets(g):
    cites: dict[int, set[int]] = {}
    for c, r in zip(g.citing.tolist(), g.cited.tolist()):
        cites.setdefault(c, set()).add(r)
    return cites


def brute_force(g, f, window=None, cites=None):
    """The definition, literally, for one focal paper."""
    cites = cites if cites is not None else out_sets(g)
    refs = cites.get(f, set())
    if not g.has_year[f] or not refs:
        return math.nan, math.nan
    ni = nj = nk = 0
    for c, out in cites.items():
        if not g.has_year[c] or not g.year[c] > g.year[f]:
            continue
        if window is not None and g.year[c] > g.year[f] + window:
            continue
        hit_f, hit_r = f in out, bool(out & refs)
        ni += hit_f and not hit_r
        nj += hit_f and hit_r
        nk += hit_r and not hit_f
    cd = (ni - nj) / (ni + nj + nk) if ni + nj + nk else math.nan
    return cd, ((ni - nj) / (ni + nj) if ni + nj else math.nan)


def random_graph(seed, n=70, m=400):
    rng = np.random.default_rng(seed)
    ids = [f"p{i:03d}" for i in range(n)]
    years = [None if rng.random() < 0.1 else int(rng.integers(2000, 2010)) for _ in ids]
    venues = [None if rng.random() < 0.1 else f"v{rng.integers(0, 4)}" for _ in ids]
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    return build_graph(ids, years, venues, [ids[i] for i in a], [ids[j] for j in b])


@pytest.mark.parametrize("seed,window", [(1, None), (2, None), (3, 3)])
def test_matches_the_definition_on_random_graphs(seed, window):
    g = random_graph(seed)
    d = disruption(g, window=window)
    cites = out_sets(g)
    for f in range(g.n_papers):
        cd, scinet = brute_force(g, f, window, cites)
        assert np.isclose(d.cd[f], cd, equal_nan=True), f
        assert np.isclose(d.scinet[f], scinet, equal_nan=True), f
    assert np.all((d.cd[np.isfinite(d.cd)] >= -1) & (d.cd[np.isfinite(d.cd)] <= 1))


def test_arxiv2023_matches_the_definition_on_a_sample():
    g = arxiv2023_graph(shared_path("data", "arxiv2023_citation_graph"))
    assert (g.n_papers, g.n_edges, g.stats.self_citations) == (33868, 305655, 17)
    d = disruption(g)
    defined = np.isfinite(d.cd)
    assert 15000 < defined.sum() < g.n_papers
    sample = np.random.default_rng(0).choice(np.flatnonzero(defined), 25, replace=False)
    cites = out_sets(g)
    for f in sample:
        assert d.cd[f] == pytest.approx(brute_force(g, int(f), cites=cites)[0], abs=1e-12)
