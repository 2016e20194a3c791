"""Leaf-level metrics (TaxoBench §3.3.1): ARI and homogeneity/completeness/V-measure (sklearn)."""
from __future__ import annotations

from typing import Hashable, Sequence

from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure


def partition_scores(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> dict[str, float | None]:
    """Scores of one labelling against another over the same papers; None when there are none."""
    if len(truth) != len(predicted):
        raise ValueError("label lists differ in length")
    if not truth:
        return {"ari": None, "homogeneity": None, "completeness": None, "v_measure": None}
    codes_t = _codes(truth)
    codes_p = _codes(predicted)
    hom, comp, v = homogeneity_completeness_v_measure(codes_t, codes_p)
    return {"ari": float(adjusted_rand_score(codes_t, codes_p)), "homogeneity": float(hom),
            "completeness": float(comp), "v_measure": float(v)}


def _codes(labels: Sequence[Hashable]) -> list[int]:
    """Integer codes in first-seen order (labels may be tuples; sklearn wants 1-d arrays)."""
    table: dict[Hashable, int] = {}
    return [table.setdefault(label, len(table)) for label in labels]
