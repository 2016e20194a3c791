"""The HyperLogLog registers behind the approximate CD index (graph.sketch) and the variant's
agreement with the exact one."""
from __future__ import annotations

import numpy as np
import pytest

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import build_graph, disruption
from scholarbench.graph.sketch import estimate, registers


def union_estimate(table, members, precision):
    """The sketch of a set, merged by hand the way the SQL merges it (MIN w per register)."""
    reg = table.column("reg").to_numpy()[members]
    w = table.column("w").to_numpy()[members]
    best = {}
    for r, x in zip(reg.tolist(), w.tolist()):
        best[r] = min(best.get(r, x), x)
    return estimate(np.array([len(best)]), np.array([sum(best.values())]), precision)[0]


def test_register_rows_are_well_formed():
    t = registers(50_000, precision=10)
    reg, w = t.column("reg").to_numpy(), t.column("w").to_numpy()
    assert reg.min() >= 0 and reg.max() < 1 << 10
    # w = 2^(R - rho) with R = 49 - p: a power of two from 1 to 2^(48 - p)
    assert np.all((w & (w - 1)) == 0) and w.min() >= 1 and w.max() <= 1 << 38
    # about half the hashes have rho = 1 (top remaining bit set): w = 2^38
    assert 0.45 < np.mean(w == 1 << 38) < 0.55
    assert np.array_equal(registers(50_000, 10).column("w"), t.column("w"))   # deterministic
    assert not np.array_equal(registers(50_000, 10, seed=1).column("w").to_numpy(), w)


@pytest.mark.parametrize("precision", [8, 12])
def test_estimates_are_within_a_few_standard_errors(precision):
    n_all = 200_000
    t = registers(n_all, precision)
    rng = np.random.default_rng(0)
    se = 1.04 / np.sqrt(1 << precision)
    for size in (10, 1_000, 30_000, 150_000):
        members = rng.choice(n_all, size, replace=False)
        est = union_estimate(t, members, precision)
        assert abs(est - size) / size < 4 * se + (0.2 if size == 10 else 0), (size, est)


def test_merging_is_order_free_and_duplicate_free():
    t = registers(10_000, 12)
    members = np.arange(0, 10_000, 7)
    once = union_estimate(t, members, 12)
    assert union_estimate(t, np.concatenate([members, members[::-1]]), 12) == once
    assert estimate(np.array([0]), np.array([0]), 12)[0] == 0.0


def test_precision_is_checked():
    for bad in (3, 17, 12.0, True):
        with pytest.raises(ScholarbenchError, match="precision"):
            registers(10, bad)


def random_graph(seed, n=400, m=5000):
    rng = np.random.default_rng(seed)
    ids = [f"w{i:04d}" for i in range(n)]
    years = [int(y) for y in rng.integers(1990, 2010, n)]
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    return build_graph(ids, years, None, [ids[i] for i in a], [ids[j] for j in b])


def test_approximate_cd_index_tracks_the_exact_one():
    g = random_graph(3)
    exact = disruption(g, variant="cd")
    approx = disruption(g, variant="cd_approx", precision=14)
    # n_i and n_j (so the numerator and the sign) are exact; only n_k is estimated
    assert np.array_equal(approx.n_i, exact.n_i) and np.array_equal(approx.n_j, exact.n_j)
    assert np.array_equal(np.isfinite(approx.values), np.isfinite(exact.values))
    ok = np.isfinite(exact.values)
    assert np.all(np.sign(approx.values[ok]) == np.sign(exact.values[ok]))
    c2_exact = (exact.n_j + exact.n_k)[ok]
    c2_approx = (approx.n_j + approx.n_k)[ok]
    rel = np.abs(c2_approx - c2_exact)[c2_exact > 0] / c2_exact[c2_exact > 0]
    assert np.median(rel) < 0.02 and rel.max() < 0.1
    assert np.max(np.abs(approx.values[ok] - exact.values[ok])) < 0.05
    # a coarser sketch is further off
    coarse = disruption(g, variant="cd_approx", precision=4)
    err = np.abs(coarse.values[ok] - exact.values[ok]).mean()
    assert err > np.abs(approx.values[ok] - exact.values[ok]).mean()


def test_window_and_variants_share_the_exact_counts():
    g = random_graph(4)
    for window in (None, 5):
        cd = disruption(g, variant="cd", window=window)
        sc = disruption(g, variant="scinet", window=window)
        assert sc.n_k is None and cd.n_k is not None
        assert np.array_equal(cd.scinet, sc.values, equal_nan=True)
        assert np.array_equal(cd.n_j, sc.n_j)
    with pytest.raises(AttributeError):
        disruption(g, variant="scinet").cd


def test_where_hub_references_go_changes_the_work_not_the_registers():
    """A hub's citers are merged once per focal year, other references' citers come one row
    each: every split gives the same registers, so the same estimates bit for bit."""
    g = random_graph(5)
    counts = g.citation_counts()
    assert 0 < np.median(counts) < counts.max()
    for window in (None, 4):
        runs = [disruption(g, variant="cd_approx", window=window, precision=6, hubs_above=h)
                for h in (0, int(np.median(counts)), None, int(counts.max()))]
        for other in runs[1:]:
            assert np.array_equal(runs[0].n_k, other.n_k)
            assert np.array_equal(runs[0].values, other.values, equal_nan=True)
        assert np.isfinite(runs[0].values).sum() > 100
