"""`disruption(graph, variant="scinet_upstream")`: SciNet's upstream task-1 disruption (no n_k, no
year rule, undated papers kept) against the plain-Python reference `upstream_disruption.py`, which
was checked against upstream's own `Evaluation/task1-disruptive-sos.py` (equal on all 33,868
arxiv-2023 papers). Values must be bit-identical: each is one division of two exact integers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import shared_path
from upstream_disruption import upstream_task1_disruption

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import build_graph, disruption
from scholarbench.graph.sources import arxiv2023_graph

# F (2005) cites R1, R2 (2000). Citers of F:
#   A (2006) cites F only                   -> n_i
#   B (2007) cites F and R1                 -> n_j
#   D (2003, BEFORE F) cites F and R2       -> n_j (upstream has no year rule)
#   E (2005, same year as F) cites F only   -> n_i
#   U (no year) cites F only                -> n_i (undated citers count)
#   C (2008) cites R2 but not F             -> n_k: not a term of upstream's index
# upstream D(F) = (3 - 2) / (3 + 2) = 0.2
# project "scinet" (citers after 2005 only: A, B): (1 - 1) / 2 = 0.0
# V (no year) cites R1; W (2010) cites V only -> n_i; X (2011) cites V and R1 -> n_j;
# Y (no year) cites V only -> n_i.  upstream D(V) = (2 - 1) / 3 = 1/3 (undated focal is defined);
# project "scinet": V has no year -> undefined.
PAPERS = {"R1": 2000, "R2": 2000, "F": 2005, "A": 2006, "B": 2007, "C": 2008, "D": 2003,
          "E": 2005, "U": None, "V": None, "W": 2010, "X": 2011, "Y": None}
EDGES = [("F", "R1"), ("F", "R2"),
         ("A", "F"), ("B", "F"), ("B", "R1"), ("C", "R2"), ("D", "F"), ("D", "R2"),
         ("E", "F"), ("U", "F"),
         ("V", "R1"), ("W", "V"), ("X", "V"), ("X", "R1"), ("Y", "V")]


def graph(papers=PAPERS, edges=EDGES):
    ids = list(papers)
    return build_graph(ids, [papers[i] for i in ids], None, [e[0] for e in edges],
                       [e[1] for e in edges])


def upstream_values(g) -> np.ndarray:
    """The reference on the graph's clean edges, as a pid-ordered array (NaN = undefined)."""
    ref = upstream_task1_disruption(g.citing.tolist(), g.cited.tolist(), list(range(g.n_papers)))
    return np.array([math.nan if ref[f] is None else ref[f] for f in range(g.n_papers)])


def value(g, d, paper):
    return float(d.values[g.pid(paper)])


def assert_bit_equal(got: np.ndarray, want: np.ndarray, g) -> None:
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == want.shape
    undefined = np.isnan(want)
    wrong = np.flatnonzero((np.isnan(got) != undefined) | (~undefined & (got != want)))
    assert wrong.size == 0, [(g.ids[i], got[i], want[i]) for i in wrong[:10]]


def test_hand_made_graph():
    g = graph()
    d = disruption(g, variant="scinet_upstream")
    assert d.variant == "scinet_upstream"
    assert value(g, d, "F") == 0.2                  # D (earlier), E (same year), U (undated) count
    assert value(g, d, "V") == 1 / 3                # undated focal paper, undated citer Y
    # R1, R2: cited but no references -> undefined (no references in the graph)
    assert math.isnan(value(g, d, "R1")) and math.isnan(value(g, d, "R2"))
    # A, B, C, D, E, U, W, X, Y have references but nobody cites them: n_i + n_j = 0 -> undefined
    for paper in "ABCDEUWXY":
        assert math.isnan(value(g, d, paper)), paper
    assert_bit_equal(d.values, upstream_values(g), g)


def test_a_citer_before_the_focal_paper_counts():
    # O (2000); X (2010) cites O and Y; Y (2011) cites X (an arXiv-version cycle).
    # X: citers [Y]; refs(Y) = {X} shares nothing with refs(X) = {O, Y} -> n_i = 1 -> 1.0
    # Y: citers [X] (2010, before Y); refs(X) = {O, Y} vs refs(Y) = {X}: nothing shared -> 1.0
    # project "scinet": Y has no later citer -> undefined.
    g = graph({"O": 2000, "X": 2010, "Y": 2011}, [("X", "O"), ("X", "Y"), ("Y", "X")])
    d = disruption(g, variant="scinet_upstream")
    assert value(g, d, "X") == 1.0 and value(g, d, "Y") == 1.0
    assert math.isnan(value(g, disruption(g, variant="scinet"), "Y"))
    # an earlier citer that also cites a reference of f counts as n_j:
    # P (1990) cites Q (1995, a time-reversed edge) and R; Q cites R. Q: citers [P], refs(P) =
    # {Q, R} shares R with refs(Q) = {R} -> n_j = 1 -> (0 - 1) / 1 = -1.0
    g = graph({"P": 1990, "Q": 1995, "R": 1980}, [("P", "Q"), ("P", "R"), ("Q", "R")])
    assert value(g, disruption(g, variant="scinet_upstream"), "Q") == -1.0


def test_cleaning_is_the_graphs():
    # build_graph drops the self-citation F -> F and the repeated A -> F before any measure, so
    # D(F) stays 0.2 (upstream run on tables that kept F -> F would give -1.0; see the reference).
    g = graph(edges=EDGES + [("F", "F"), ("A", "F")])
    assert (g.stats.self_citations, g.stats.duplicate_edges) == (1, 1)
    assert value(g, disruption(g, variant="scinet_upstream"), "F") == 0.2


def test_no_window():
    # the variant has no year rule, so a citation window has nothing to apply to
    with pytest.raises(ScholarbenchError, match="window"):
        disruption(graph(), variant="scinet_upstream", window=5)


def random_graph(seed, n=80, m=500, undated=0.15):
    rng = np.random.default_rng(seed)
    ids = [f"p{i:03d}" for i in range(n)]
    years = [None if rng.random() < undated else int(rng.integers(2000, 2010)) for _ in ids]
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)     # any direction, loops, repeats
    return build_graph(ids, years, None, [ids[i] for i in a], [ids[j] for j in b])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_graphs_match_the_reference(seed):
    g = random_graph(seed)
    assert_bit_equal(disruption(g, variant="scinet_upstream").values, upstream_values(g), g)


def year_rule_reference(g) -> np.ndarray:
    """The reference's counting restricted to dated focal papers and citers of a later year:
    what the project's "scinet" variant computes."""
    refs: dict[int, set[int]] = {}
    citers: dict[int, list[int]] = {}
    for c, r in zip(g.citing.tolist(), g.cited.tolist()):
        refs.setdefault(c, set()).add(r)
        citers.setdefault(r, []).append(c)
    out = np.full(g.n_papers, math.nan)
    for f in range(g.n_papers):
        if not g.has_year[f] or not refs.get(f):
            continue
        later = [c for c in citers.get(f, []) if g.has_year[c] and g.year[c] > g.year[f]]
        if later:
            n_j = sum(1 for c in later if refs[f] & refs.get(c, set()))
            out[f] = (len(later) - 2 * n_j) / len(later)
    return out


@pytest.mark.parametrize("seed", [5, 6])
def test_the_two_scinet_variants_differ_only_by_the_year_rule(seed):
    g = random_graph(seed)
    assert_bit_equal(disruption(g, variant="scinet").values, year_rule_reference(g), g)
    # and on the hand-made graph they do differ, on exactly the papers the year rule touches
    h = graph()
    up = disruption(h, variant="scinet_upstream").values
    sn = disruption(h, variant="scinet").values
    differ = {str(h.ids[i]) for i in range(h.n_papers)
              if not (np.isnan(up[i]) and np.isnan(sn[i])) and up[i] != sn[i]}
    assert differ == {"F", "V"}


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_equal_to_scinet_when_every_citer_is_later_and_every_paper_dated(seed):
    rng = np.random.default_rng(seed)
    n = 90
    ids = [f"q{i:03d}" for i in range(n)]
    years = [int(y) for y in rng.integers(1990, 2020, n)]
    pairs = [(i, j) for i, j in zip(rng.integers(0, n, 700), rng.integers(0, n, 700))
             if years[i] > years[j]]                       # citing strictly later than cited
    g = build_graph(ids, years, None, [ids[i] for i, _ in pairs], [ids[j] for _, j in pairs])
    assert g.has_year.all() and g.stats.time_reversed_edges == 0
    assert len(pairs) > 300
    up = disruption(g, variant="scinet_upstream").values
    assert_bit_equal(disruption(g, variant="scinet").values, up, g)
    assert np.isfinite(up).sum() > 20
    assert_bit_equal(up, upstream_values(g), g)


@pytest.fixture(scope="module")
def arxiv2023():
    return arxiv2023_graph(shared_path("data", "arxiv2023_citation_graph"))


def test_arxiv2023_sample_matches_the_reference(arxiv2023):
    g = arxiv2023
    ref = upstream_values(g)
    d = disruption(g, variant="scinet_upstream")
    sample = np.random.default_rng(0).choice(g.n_papers, 300, replace=False)
    assert_bit_equal(d.values[sample], ref[sample], g)
    assert np.isfinite(ref[sample]).sum() == 255         # 45 of the 300 are undefined
    # the whole graph (measured against upstream's own script: see upstream_disruption.py)
    assert np.isfinite(d.values).sum() == np.isfinite(ref).sum() == 28452
    assert (np.isfinite(d.values) & ~g.has_year).sum() == 8530      # undated focal papers
    sn = disruption(g, variant="scinet").values
    both = np.isfinite(sn) & np.isfinite(d.values)
    assert (both.sum(), (sn[both] == d.values[both]).sum()) == (16969, 12193)
    assert not (np.isfinite(sn) & ~np.isfinite(d.values)).any()
