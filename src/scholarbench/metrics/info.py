"""What a results table needs to know about a metric (light: imports no metric library)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricInfo:
    key: str
    label: str           # column header as in the paper's tables
    higher_is_better: bool
    percent: bool        # shown ×100 with a % sign, as the paper does
    description: str
