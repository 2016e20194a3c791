"""Uzzi novelty: the randomisation keeps degrees and is reproducible, z-scores of a hand case,
the percentile rule, and a re-implementation in plain Python on random graphs. Also SoS."""
from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import ReferencePopulation, build_graph, novelty, randomise, sos
from scholarbench.graph.randomise import Randomisation


def random_graph(seed, n=60, m=500):
    rng = np.random.default_rng(seed)
    ids = [f"p{i:03d}" for i in range(n)]
    years = [None if rng.random() < 0.1 else int(rng.integers(2000, 2004)) for _ in ids]
    venues = [None if rng.random() < 0.1 else f"v{rng.integers(0, 5)}" for _ in ids]
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    return build_graph(ids, years, venues, [ids[i] for i in a], [ids[j] for j in b])


@pytest.mark.parametrize("stratify", ["years", "none"])
def test_randomisation_keeps_degrees(stratify):
    g = random_graph(0)
    rand = randomise(g, 5, seed=7, stratify=stratify)
    cites_in = np.bincount(g.cited, minlength=g.n_papers)
    year_key = np.where(g.has_year, g.year, -1)
    flows = Counter(zip(year_key[g.citing].tolist(), year_key[g.cited].tolist()))
    for cited in rand.cited:
        assert not np.array_equal(cited, g.cited)                       # it did move edges
        assert np.array_equal(np.bincount(cited, minlength=g.n_papers), cites_in)
        # every paper keeps its references (citing column untouched, one row per edge)
        if stratify == "years":   # and the citation flow between each pair of years
            assert Counter(zip(year_key[g.citing].tolist(), year_key[cited].tolist())) == flows
            for p in range(g.n_papers):   # each paper's citations per citing year
                mine = cited == p
                assert Counter(year_key[g.citing[mine]].tolist()) == Counter(
                    year_key[g.citing[g.cited == p]].tolist())


def test_randomisation_is_seeded():
    g = random_graph(1)
    a, b, c = randomise(g, 3, seed=5), randomise(g, 3, seed=5), randomise(g, 3, seed=6)
    assert all(np.array_equal(x, y) for x, y in zip(a.cited, b.cited))
    assert not all(np.array_equal(x, y) for x, y in zip(a.cited, c.cited))
    first = novelty(g, randomisations=4, seed=11)
    again = novelty(g, randomisations=4, seed=11)
    assert np.array_equal(first.values, again.values, equal_nan=True)
    other = novelty(g, randomisations=4, seed=12)
    assert not np.array_equal(first.values, other.values, equal_nan=True)


def hand_graph():
    # p cites r1, r2 (both venue X); q cites r3, r4 (both venue Y); all in one year.
    ids = ["p", "q", "r1", "r2", "r3", "r4"]
    return build_graph(ids, [2020, 2020, 2019, 2019, 2019, 2019], [None, None, "X", "X", "Y", "Y"],
                       ["p", "p", "q", "q"], ["r1", "r2", "r3", "r4"])


def test_z_score_hand_case():
    g = hand_graph()
    r1, r2, r3, r4 = (g.pid(x) for x in ("r1", "r2", "r3", "r4"))
    # edges in order (p,r1) (p,r2) (q,r3) (q,r4); three chosen "randomisations":
    rand = Randomisation(seed=0, stratify="years", cited=(
        np.array([r1, r3, r2, r4], dtype=np.int32),    # p: X-Y, q: X-Y   -> XX 0, YY 0, XY 2
        np.array([r1, r2, r3, r4], dtype=np.int32),    # as observed      -> XX 1, YY 1
        np.array([r3, r4, r1, r2], dtype=np.int32)))   # p: Y-Y, q: X-X   -> XX 1, YY 1
    nv = novelty(g, randomised=rand, with_pairs=True)
    # XX: observed 1, randomised [0, 1, 1]: mean 2/3, sample sd sqrt(1/3) -> z = 1/sqrt(3)
    rows = {(r["v1"], r["v2"]): r for r in nv.pair_z.to_pylist()}
    x, y = g.venues.index("X"), g.venues.index("Y")
    assert (rows[(x, x)]["observed"], rows[(x, x)]["s1"], rows[(x, x)]["s2"]) == (1, 2, 2)
    assert rows[(x, x)]["z"] == pytest.approx(1 / math.sqrt(3))
    assert (x, y) not in rows                                       # never observed
    assert nv.values[g.pid("p")] == pytest.approx(1 / math.sqrt(3))
    assert nv.values[g.pid("q")] == pytest.approx(1 / math.sqrt(3))
    assert nv.pairs[g.pid("p")] == 1
    assert math.isnan(nv.values[r1])                                # no references: undefined


def test_zero_spread_is_undefined():
    g = hand_graph()
    same = tuple(g.cited.copy() for _ in range(3))                  # no variation at all
    nv = novelty(g, randomised=Randomisation(seed=0, stratify="years", cited=same))
    assert np.isnan(nv.values).all()


def reference_novelty(g, rand, percentile=10, method="inverted_cdf", pairing="venue"):
    """Plain-Python novelty from the same randomisation: counts per (citing year, venue pair)
    (`pairing="paper"`: per pair of cited papers), the percentile by numpy's `method`."""
    def pair_counts(cited):
        per_paper: dict[int, Counter] = {}
        for c, r in zip(g.citing.tolist(), cited.tolist()):
            if pairing == "paper":
                per_paper.setdefault(c, Counter())[int(r)] += 1
            elif g.venue[r] >= 0:
                per_paper.setdefault(c, Counter())[int(g.venue[r])] += 1
        pairs = {}
        for c, hist in per_paper.items():
            refs = [v for v, m in hist.items() for _ in range(m)]
            pairs[c] = Counter(tuple(sorted(t)) for t in combinations(refs, 2))
        return pairs

    def stratum(c):
        if rand.stratify == "none":
            return 0
        return int(g.year[c]) if g.has_year[c] else -1

    def totals(pairs):
        t = Counter()
        for c, cnt in pairs.items():
            for key, k in cnt.items():
                t[(stratum(c), key)] += k
        return t

    observed = pair_counts(g.cited)
    obs = totals(observed)
    rnd = [totals(pair_counts(c)) for c in rand.cited]
    n = len(rnd)
    out = np.full(g.n_papers, np.nan)
    for c, cnt in observed.items():
        zs = []
        for key, k in cnt.items():
            xs = np.array([t[(stratum(c), key)] for t in rnd], dtype=float)
            sd = xs.std(ddof=1)
            if sd > 0:
                zs += [(obs[(stratum(c), key)] - xs.mean()) / sd] * k
        if zs:
            out[c] = np.percentile(zs, percentile, method=method)
    assert n == rand.n
    return out


@pytest.mark.parametrize("seed,stratify,percentile", [(3, "years", 10), (4, "none", 10),
                                                      (5, "years", 50)])
def test_matches_plain_python(seed, stratify, percentile):
    g = random_graph(seed)
    rand = randomise(g, 6, seed=seed, stratify=stratify)
    nv = novelty(g, randomised=rand, percentile=percentile)
    expected = reference_novelty(g, rand, percentile)
    assert np.isfinite(expected).sum() > 20
    np.testing.assert_allclose(nv.values, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed,rule,pairing", [(6, "linear", "venue"), (7, "inverted_cdf", "paper"),
                                               (8, "linear", "paper")])
def test_upstream_variants_match_plain_python(seed, rule, pairing):
    """SciNet's task1-novelty-sos.py: np.percentile (linear) and z-scores of paper pairs."""
    g = random_graph(seed, n=40, m=700)
    rand = randomise(g, 6, seed=seed, stratify="none")
    nv = novelty(g, randomised=rand, percentile_rule=rule, pairing=pairing)
    expected = reference_novelty(g, rand, 10, method=rule, pairing=pairing)
    assert np.isfinite(expected).sum() > 10
    np.testing.assert_allclose(nv.values, expected, rtol=1e-9, atol=1e-12)
    assert nv.percentile_rule == rule and nv.pairing == pairing
    default = novelty(g, randomised=rand)
    assert not np.allclose(nv.values, default.values, equal_nan=True)   # the variant matters


def test_percentile_rules_hand_case():
    """z = {-5, 2, 10}: the inverted CDF gives -5, np.percentile(z, 10) gives -3.6; a pair
    weighted 2 counts twice (z = {-5, 2, 2, 10}: linear -5 + 7 * 0.3 = -2.9)."""
    import duckdb
    from scholarbench.graph import sql
    con = duckdb.connect()
    con.execute("CREATE TABLE own AS SELECT * FROM (VALUES (1, -5.0, 1), (1, 2.0, 1), "
                "(1, 10.0, 1), (2, -5.0, 1), (2, 2.0, 2), (2, 10.0, 1), (3, 4.0, 1)) "
                "t(pid, z, k)")
    def run(rule):
        rows = con.execute("WITH " + sql.percentile_of("own", 10, rule)).fetchall()
        return {pid: value for pid, value, _ in rows}
    assert run("inverted_cdf") == {1: -5.0, 2: -5.0, 3: 4.0}
    lin = run("linear")
    assert lin[1] == pytest.approx(np.percentile([-5, 2, 10], 10)) == pytest.approx(-3.6)
    assert lin[2] == pytest.approx(np.percentile([-5, 2, 2, 10], 10)) == pytest.approx(-2.9)
    assert lin[3] == 4.0


def test_bad_arguments():
    g = hand_graph()
    with pytest.raises(ScholarbenchError, match="randomisations"):
        novelty(g, randomisations=1)
    with pytest.raises(ScholarbenchError, match="percentile"):
        novelty(g, percentile=0)
    with pytest.raises(ScholarbenchError, match="seed"):
        novelty(g, seed=-1)
    with pytest.raises(ScholarbenchError, match="stratify"):
        novelty(g, stratify="venue")
    with pytest.raises(ScholarbenchError, match="percentile rule"):
        novelty(g, percentile_rule="nearest")
    with pytest.raises(ScholarbenchError, match="pairing"):
        novelty(g, pairing="author")


def test_sos_transforms():
    cd = ReferencePopulation.of("four papers", "disruption", [0.4, 0.1, np.nan, 0.3, 0.2])
    assert cd.size == 4
    np.testing.assert_allclose(sos([0.3, 0.4, 0.05, 0.2, np.nan], cd),
                               [7.5, 10.0, 0.0, 5.0, np.nan])
    z = ReferencePopulation.of("four papers", "novelty", [-2.0, -1.0, 0.0, 1.0])
    np.testing.assert_allclose(sos([-2.0, 1.0, 5.0, -9.0], z), [10.0, 2.5, 0.0, 10.0])
    with pytest.raises(ScholarbenchError, match="no defined"):
        ReferencePopulation.of("empty", "novelty", [np.nan])
    with pytest.raises(ScholarbenchError, match="measure"):
        ReferencePopulation.of("x", "citations", [1.0])


def test_sos_rank_kind_is_percentileofscore_rank():
    """SciNet's task1-*-rank.py: percentileofscore(kind="rank") / 10; novelty on negated values.
    Hand case: R = {-4, -2, -2, 0, 1, 3}; novelty -2: (5 at or above + 3 above + 1) / 2 / 6
    -> 7.5 (weak: 8.333); disruption R = {-0.5, 0, 0, 0.5, 1}, 0.0: (3 + 1 + 1) / 2 / 5 -> 5.0
    (weak 6.0); a value not in R: its weak rank (0.25 in R -> 3 / 5 -> 6.0)."""
    z = ReferencePopulation.of("six", "novelty", [-4, -2, -2, 0, 1, 3])
    assert sos(-2.0, z, kind="rank")[0] == pytest.approx(7.5)
    assert sos(-2.0, z)[0] == pytest.approx(25 / 3)
    cd = ReferencePopulation.of("five", "disruption", [-0.5, 0, 0, 0.5, 1])
    assert sos(0.0, cd, kind="rank")[0] == pytest.approx(5.0)
    assert sos(0.25, cd, kind="rank")[0] == sos(0.25, cd)[0] == pytest.approx(6.0)
    assert sos(0.0, cd)[0] == pytest.approx(6.0)
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    ref = rng.integers(-5, 5, 200).astype(float)
    for v in (-5.0, -1.0, 0.0, 0.5, 4.0, 9.0):
        assert sos(v, ReferencePopulation.of("r", "disruption", ref), kind="rank")[0] == \
            pytest.approx(stats.percentileofscore(ref, v, kind="rank") / 10)
        assert sos(v, ReferencePopulation.of("r", "novelty", ref), kind="rank")[0] == \
            pytest.approx(stats.percentileofscore(-ref, -v, kind="rank") / 10)
    with pytest.raises(ScholarbenchError, match="kind"):
        sos(0.0, cd, kind="mean")
