"""Percentile ("SoS", 0-10) transforms: where a paper's novelty or disruption falls in a stated
reference population.

    disruption: sos(v) = 10 * #{x in R : x <= v} / |R|     (higher CD = more disruptive)
    novelty:    sos(v) = 10 * #{x in R : x >= v} / |R|     (lower z  = more novel)

So 10 is the most novel / disruptive paper of R, and a tie counts in the paper's favour (the
"weak" percentile rank of scipy.stats.percentileofscore). `kind="rank"` is
`percentileofscore(kind="rank")`, what SciNet's `Evaluation/task1-novelty-rank.py` and
`task1-disruption-rank.py` @ ed5c76f use (the novelty one ranks -v in -R, the same direction as
here): with `strict` = #{x in R beyond v} and `weak` = strict + #{x = v}, the count is
(strict + weak + 1) / 2 when v is in R (the mean 1-based rank of its ties), else weak. R holds the defined (finite) values of
the population; an undefined value (NaN) maps to NaN. SciNet ranks against "a global reference
corpus of millions of papers" it did not release; here R is whatever the caller states, by
default every paper of the graph with a defined value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scholarbench.errors import ScholarbenchError

DIRECTIONS = {"disruption": True, "novelty": False}   # measure -> higher value is "more"


@dataclass(frozen=True, eq=False)
class ReferencePopulation:
    name: str               # what the population is, printed beside every SoS figure
    measure: str            # "disruption" or "novelty"
    values: np.ndarray      # sorted, finite

    @classmethod
    def of(cls, name: str, measure: str, values: np.ndarray) -> "ReferencePopulation":
        if measure not in DIRECTIONS:
            raise ScholarbenchError(f"measure must be one of {sorted(DIRECTIONS)}, got {measure!r}")
        arr = np.asarray(values, dtype=np.float64)
        arr = np.sort(arr[np.isfinite(arr)])
        if arr.size == 0:
            raise ScholarbenchError(f"reference population {name!r} has no defined {measure} value")
        return cls(name=name, measure=measure, values=arr)

    @property
    def size(self) -> int:
        return int(self.values.size)


KINDS = ("weak", "rank")


def sos(values: np.ndarray | float, population: ReferencePopulation,
        kind: str = "weak") -> np.ndarray:
    """The 0-10 percentile of each value in the population (NaN stays NaN)."""
    if kind not in KINDS:
        raise ScholarbenchError(f"percentile kind must be one of {KINDS}, got {kind!r}")
    v = np.atleast_1d(np.asarray(values, dtype=np.float64))
    ref = population.values
    if DIRECTIONS[population.measure]:
        weak = np.searchsorted(ref, v, side="right")             # x <= v
        strict = np.searchsorted(ref, v, side="left")            # x < v
    else:
        weak = ref.size - np.searchsorted(ref, v, side="left")   # x >= v
        strict = ref.size - np.searchsorted(ref, v, side="right")  # x > v
    count = weak if kind == "weak" else (weak + strict + (strict < weak)) / 2.0
    out = 10.0 * count / ref.size
    out[~np.isfinite(v)] = np.nan
    return out
