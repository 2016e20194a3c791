"""NSR, NSP and Soft-F1 over hierarchy label lists (TaxoBench Appendix A.6, eq. 34-37)."""
from __future__ import annotations

import numpy as np


def soft_cardinality(sim: np.ndarray) -> float:
    """c(A) = Σ_i 1 / Σ_j Sim(a_i, a_j) for a square similarity matrix of one list."""
    if sim.size == 0:
        return 0.0
    return float(np.sum(1.0 / sim.sum(axis=1)))


def soft_scores(sim_all: np.ndarray, n_gold: int) -> dict[str, float | None]:
    """`sim_all` is Sim over the concatenation A ⊎ B (gold labels first, then model labels).

    NSR = (c(A)+c(B)−c(A⊎B))/c(A), NSP = (…)/c(B). With no model labels NSP is undefined
    (None) and NSR and Soft-F1 are 0.
    """
    a = sim_all[:n_gold, :n_gold]
    b = sim_all[n_gold:, n_gold:]
    c_a, c_b, c_ab = soft_cardinality(a), soft_cardinality(b), soft_cardinality(sim_all)
    overlap = c_a + c_b - c_ab
    nsr = overlap / c_a if c_a else None
    nsp = overlap / c_b if c_b else None
    if nsr is None or nsp is None:
        soft_f1 = 0.0 if (nsr == 0 or nsp == 0 or b.size == 0) else None
        return {"nsr": 0.0 if b.size == 0 else nsr, "nsp": nsp, "soft_f1": soft_f1}
    soft_f1 = 2 * nsp * nsr / (nsp + nsr) if nsp + nsr else 0.0
    return {"nsr": nsr, "nsp": nsp, "soft_f1": soft_f1}
