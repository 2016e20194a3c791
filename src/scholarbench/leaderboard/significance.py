"""Whether the gap between two adjacent entries of a leaderboard is significant.

The two runs are paired on the task ids both scored (a value each; undefined values leave the
pair out). The gap is mean(upper − lower) over those pairs, and its 95% interval the paired
bootstrap percentile interval of `report.compare.paired_bootstrap_ci` (the pairs resampled
with replacement `n_boot` times, numpy `default_rng(seed)`: the same numbers on every build).
A gap is significant when that interval excludes 0 on the side of the better entry — for a
lower-is-better measure the differences are negated first, so a positive gap always favours the
upper entry. No correction for the several gaps of one table is applied.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from scholarbench.report.compare import paired_bootstrap_ci

N_BOOT = 10_000
SEED = 0


@dataclass(frozen=True)
class Gap:
    """The upper entry's advantage over the lower one on their shared tasks."""
    n_pairs: int
    diff: float | None             # mean advantage of the upper entry (None: no pair)
    ci_low: float | None
    ci_high: float | None

    @property
    def significant(self) -> bool:
        return self.ci_low is not None and self.ci_low > 0


def paired_gap(upper: Mapping[str, float | None], lower: Mapping[str, float | None], *,
               higher_better: bool = True, n_boot: int = N_BOOT, seed: int = SEED) -> Gap:
    """The gap of `upper` over `lower` (task id → value), see the module docstring."""
    shared = [t for t in upper if t in lower and upper[t] is not None and lower[t] is not None]
    if not shared:
        return Gap(0, None, None, None)
    a = np.array([upper[t] for t in shared], dtype=float)
    b = np.array([lower[t] for t in shared], dtype=float)
    diffs = a - b if higher_better else b - a
    low, high = paired_bootstrap_ci(diffs, n_boot, seed)
    return Gap(len(shared), float(diffs.mean()), low, high)


__all__ = ["Gap", "N_BOOT", "SEED", "paired_gap"]
