"""Leaf-level metrics (TaxoBench §3.3.1): ARI, homogeneity, completeness and V-measure.

All four come from one contingency table of the two labellings, built with numpy alone. The
formulas, their order of operations and every edge case are scikit-learn's (1.9:
`adjusted_rand_score`, `homogeneity_completeness_v_measure`, `mutual_info_score`, `_entropy`),
so the values are sklearn's; tests/test_leaf_contingency.py checks them against sklearn to 1e-12 on
seeded random and degenerate labellings and on the golden TaxoBench cases. sklearn is not imported
here: its input validation cost more than the arithmetic, and importing it cost most of a second.

- Entropies and mutual information in nats; a labelling with one cluster has entropy 0, and then
  MI = 0; homogeneity (completeness) is 1 when the truth (prediction) entropy is 0.
- V-measure with β = 1; 0 when homogeneity + completeness = 0.
- ARI from the pair confusion counts as Python integers; 1 when no pair disagrees (this covers
  identical partitions, all-singletons against all-singletons and one item).
- Empty input: sklearn's 1.0 everywhere from `cluster_scores`; `partition_scores` (the TaxoBench
  entry point) says None instead, an undefined value rather than a perfect one.
"""
from __future__ import annotations

from math import log
from typing import Hashable, Sequence

import numpy as np

_EPS = np.finfo(np.float64).eps


def partition_scores(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> dict[str, float | None]:
    """Scores of one labelling against another over the same papers; None when there are none."""
    if len(truth) != len(predicted):
        raise ValueError("label lists differ in length")
    if not len(truth):
        return {"ari": None, "homogeneity": None, "completeness": None, "v_measure": None}
    return cluster_scores(truth, predicted)


def cluster_scores(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> dict[str, float]:
    """ARI, homogeneity, completeness and V-measure of `predicted` against `truth` (sklearn's values)."""
    if len(truth) != len(predicted):
        raise ValueError("label lists differ in length")
    n = len(truth)
    if n == 0:
        return {"ari": 1.0, "homogeneity": 1.0, "completeness": 1.0, "v_measure": 1.0}
    t_codes, n_t = _codes(truth)
    p_codes, n_p = _codes(predicted)
    # The non-zero cells in row-major order, as scipy.sparse.find lists sklearn's CSR table.
    keys, cells = np.unique(t_codes * n_p + p_codes, return_counts=True)
    rows, cols = np.divmod(keys, n_p)
    row_sums = np.bincount(t_codes, minlength=n_t)     # class sizes, in code order
    col_sums = np.bincount(p_codes, minlength=n_p)     # cluster sizes
    hom, comp, v = _hcv(cells, rows, cols, row_sums, col_sums)
    return {"ari": _ari(cells, row_sums, col_sums, n), "homogeneity": hom, "completeness": comp,
            "v_measure": v}


def _codes(labels: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """Integer codes in first-seen order (labels may be tuples) and how many distinct labels."""
    table: dict[Hashable, int] = {}
    codes = np.fromiter((table.setdefault(label, len(table)) for label in labels), dtype=np.int64,
                        count=len(labels))
    return codes, len(table)


def _ari(cells: np.ndarray, row_sums: np.ndarray, col_sums: np.ndarray, n: int) -> float:
    """sklearn's adjusted_rand_score from the pair confusion matrix (ordered pairs)."""
    sum_squares = int((cells * cells).sum())
    tp = sum_squares - n
    fp = int((col_sums * col_sums).sum()) - sum_squares
    fn = int((row_sums * row_sums).sum()) - sum_squares
    tn = n * n - fp - fn - sum_squares
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def _entropy(sizes: np.ndarray) -> float:
    """sklearn's _entropy of a labelling given its cluster sizes (all > 0)."""
    if sizes.size == 1:
        return 0.0
    pi = sizes.astype(np.float64)
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - log(pi_sum))))


def _mutual_info(cells: np.ndarray, rows: np.ndarray, cols: np.ndarray, pi: np.ndarray,
                 pj: np.ndarray) -> float:
    """sklearn's mutual_info_score over the non-zero cells, term for term."""
    if pi.size == 1 or pj.size == 1:
        return 0.0
    total = cells.sum()
    contingency_nm = cells / total
    outer = pi.take(rows) * pj.take(cols)
    log_outer = -np.log(outer) + log(pi.sum()) + log(pj.sum())
    mi = contingency_nm * (np.log(cells) - log(total)) + contingency_nm * log_outer
    mi = np.where(np.abs(mi) < _EPS, 0.0, mi)
    return float(np.clip(mi.sum(), 0.0, None))


def _hcv(cells, rows, cols, row_sums, col_sums) -> tuple[float, float, float]:
    """sklearn's homogeneity_completeness_v_measure (β = 1)."""
    entropy_c, entropy_k = _entropy(row_sums), _entropy(col_sums)
    mi = _mutual_info(cells, rows, cols, row_sums, col_sums)
    homogeneity = mi / entropy_c if entropy_c else 1.0
    completeness = mi / entropy_k if entropy_k else 1.0
    if homogeneity + completeness == 0.0:
        v_measure = 0.0
    else:
        v_measure = 2.0 * homogeneity * completeness / (homogeneity + completeness)
    return float(homogeneity), float(completeness), float(v_measure)
