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
