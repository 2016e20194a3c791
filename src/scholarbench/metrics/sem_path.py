"""SEM-PATH (TaxoBench §3.3.2, Appendix A.4, Algorithm 1)."""
from __future__ import annotations

from typing import Callable, Sequence

Distance = Callable[[str, str], float]


def chain_cost(a: Sequence[str], b: Sequence[str], delta: Distance, lam: float = 1.0) -> float:
    """J(S, Ŝ): the shorter chain matched to an ordered subsequence of the longer, plus λ per
    unmatched label of the longer chain (eq. 30-32)."""
    if len(a) > len(b):
        a, b = b, a
    p, q = len(a), len(b)
    inf = float("inf")
    prev = [0.0] * (q + 1)               # dp[0, j] = 0
    for i in range(1, p + 1):
        row = [inf] * (q + 1)
        for j in range(i, q + 1):
            row[j] = min(prev[j - 1] + delta(a[i - 1], b[j - 1]), row[j - 1])
        prev = row
    return prev[q] + lam * (q - p)


def sem_path_score(pairs: Sequence[tuple[Sequence[Sequence[str]], Sequence[Sequence[str]]]],
                   delta: Distance, lam: float = 1.0) -> float | None:
    """Mean of 1/(1+J_d) over aligned papers; each paper gives its candidate ancestor chains on
    both sides and J_d is the best (lowest) pair. None when no paper is aligned."""
    if not pairs:
        return None
    total = 0.0
    for gold_chains, pred_chains in pairs:
        best = min(chain_cost(g, p, delta, lam) for g in gold_chains for p in pred_chains)
        total += 1.0 / (1.0 + best)
    return total / len(pairs)
