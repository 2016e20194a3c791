"""Krippendorff's α at any number of distinct values (issue 37): the O(ratings) interval α equals
the `krippendorff` package's, and a panel of continuous scores on many tasks no longer needs a
values × values matrix."""
from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from scholarbench.metrics.agreement import LIBRARY_VALUES, interval_alpha, krippendorff_alpha


@pytest.mark.parametrize("seed", range(12))
def test_interval_alpha_equals_the_package(seed):
    rng = np.random.default_rng(seed)
    coders, units = int(rng.integers(2, 5)), int(rng.integers(3, 80))
    truth = rng.normal(size=units)
    data = truth + rng.normal(scale=float(rng.uniform(0.1, 2)), size=(coders, units))
    data = data.round(int(rng.integers(0, 4))) + 100        # an offset: cancellation is handled
    data[rng.random((coders, units)) < 0.25] = np.nan        # missing ratings
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert interval_alpha(data) == pytest.approx(expected, abs=1e-9)


def test_hand_computed_and_degenerate_cases():
    # two coders, units (1, 1), (2, 3): D_o = (0 + 2·1/1)/4 = 0.5; D_e = Σ_{i≠j}/(n(n−1))
    # over 1, 1, 2, 3: 2·(4·15 − 49)/12 = 11/6; α = 1 − 0.5/(11/6) = 1 − 3/11
    assert interval_alpha(np.array([[1.0, 2.0], [1.0, 3.0]])) == pytest.approx(8 / 11)
    assert interval_alpha(np.array([[1.0, 1.0], [1.0, 1.0]])) != interval_alpha(
        np.array([[1.0, 1.0], [1.0, 1.0]]))                  # no variation: NaN
    assert np.isnan(interval_alpha(np.array([[1.0, np.nan], [np.nan, 2.0]])))  # nothing paired


def test_many_continuous_scores_are_agreed_on_without_a_quadratic_matrix():
    rng = np.random.default_rng(7)
    truth = rng.uniform(0, 10, size=30_000)
    matrix = [list(truth + rng.normal(scale=0.5, size=truth.size)) for _ in range(3)]
    assert len({v for row in matrix for v in row}) > LIBRARY_VALUES
    alpha = krippendorff_alpha(matrix)
    # var(truth) = 100/12, noise 0.25: α ≈ 1 − 0.25/(100/12 + 0.25) ≈ 0.971
    assert alpha == pytest.approx(1 - 0.25 / (100 / 12 + 0.25), abs=0.01)


def _alpha_from_lists(matrix, level="interval"):
    """krippendorff_alpha as it read the matrix before issue 37's columns: unit by unit."""
    units = list(zip(*matrix)) if matrix else []
    paired = [u for u in units if sum(v is not None for v in u) >= 2]
    if len(paired) < 2 or len({v for u in paired for v in u if v is not None}) < 2:
        return None
    data = [[np.nan if v is None else float(v) for v in coder] for coder in zip(*paired)]
    array = np.array(data, dtype=float)
    if np.unique(array[~np.isnan(array)]).size > LIBRARY_VALUES:
        value = interval_alpha(array)
    else:
        value = float(krippendorff.alpha(reliability_data=array, level_of_measurement=level))
    return round(value, 12) if np.isfinite(value) else None


@pytest.mark.parametrize("seed", range(10))
def test_the_numpy_read_of_a_panel_gives_the_alpha_the_lists_gave(seed):
    rng = np.random.default_rng(seed)
    coders, units = int(rng.integers(2, 4)), int(rng.integers(1, 60))
    pool = [None, 0, 1, 2, 0.5, -0.125, 3.0] if seed % 2 else [None, 1.0, 1.0, 1]
    matrix = [[pool[int(i)] for i in rng.integers(0, len(pool), units)] for _ in range(coders)]
    assert krippendorff_alpha(matrix) == _alpha_from_lists(matrix)


def test_a_panel_of_one_value_or_too_few_paired_units_has_no_alpha():
    assert krippendorff_alpha([[1, 1.0, None], [1.0, 1, 2]]) is None          # one value
    assert krippendorff_alpha([[1, None, 3], [2, 5, None]]) is None           # one unit paired
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 4]]) == _alpha_from_lists([[1, 2, 3], [1, 2, 4]])


@pytest.mark.parametrize("seed", range(16))
def test_alpha_of_two_or_three_coders_is_the_packages_to_the_bit(seed):
    """`_few_coders_interval_alpha` (no units × values × values array) equals
    `krippendorff.alpha` exactly: with at most three ratings per unit every partial sum of its
    coincidence matrix is exact."""
    from scholarbench.metrics.agreement import _few_coders_interval_alpha
    rng = np.random.default_rng(seed)
    coders, units = int(rng.integers(2, 4)), int(rng.integers(3, 3000))
    pool = rng.choice([-2.0, -0.125, 0.0, 0.5, 1.0, 3.0, 7.25, 1e-3], int(rng.integers(2, 8)),
                      replace=False)
    data = rng.choice(pool, (coders, units))
    data[rng.random((coders, units)) < 0.2] = np.nan
    data = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
    if len(np.unique(data[~np.isnan(data)])) < 2:
        return
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert _few_coders_interval_alpha(data) == want


@pytest.mark.parametrize("carry_all", [True, False])
def test_several_measures_read_in_one_pass_are_read_as_one_by_one(carry_all):
    """`ratings_of`: the judges (first-seen order, per measure), values and repeats of each
    measure are those `Ratings` reads for that measure alone."""
    import random
    from scholarbench.metrics.agreement import Ratings, ratings_of
    rng = random.Random(carry_all)
    rows = []
    for i in range(300):
        panel = {}
        for label in rng.sample(["c", "a", "b"], rng.randint(0, 3)):
            entry = {m: rng.choice([None, 1, 2.5, 0.0, True, "x"]) for m in ("m1", "m2")
                     if rng.random() < 0.8}
            entry["m1_samples"] = [rng.choice([1, None, 2.0]) for _ in range(rng.randint(0, 2))]
            panel[label] = entry
        row = {"status": rng.choice(["scored", "error"]), "judges": panel, "m1": 1, "m2": 2}
        if not carry_all and rng.random() < 0.1:
            del row["m2"]
        rows.append(row)
    together = ratings_of(rows, ["m1", "m2"])
    for m in ("m1", "m2"):
        alone = Ratings(rows, m)
        assert together[m].labels == alone.labels and together[m].rows == alone.rows
        assert together[m].values == alone.values
        assert together[m].samples == alone.samples
        assert together[m].means() == alone.means()
