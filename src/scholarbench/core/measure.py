"""A measure as an object: its namespaced name, parameters, direction, aggregator, provenance.

Modelled on ir_measures (`measures/base.py`): a measure is immutable, its printed form is its
identity and parses back (`metrics.names.MetricName`: `recall`, `sem_path(lambda=0.5)`,
`nDCG@10`), and it carries its own aggregator. Its *key* — the printed form without the
benchmark — is the column of scores.jsonl and summary.json it fills; its *qualified name*
`<benchmark>/<key>` is unique in the registry, so two benchmarks (or plug-ins) may both name a
measure `f1`.

The aggregate of a run is computed by the engine from the score rows alone (`core.summarise`):
by default the mean over the rows whose value is defined (errored and unscorable samples are
no result; undefined values are excluded and counted); a measure whose paper aggregates
otherwise (pooled counts, micro averages) declares it: `pooled` (`core.pooled`: a function of
column sums, e.g. Σ matched / Σ returned), or, for what that cannot express, its own
`aggregator(rows) -> value`.

Every aggregate gets a 95% confidence interval: a percentile bootstrap over the run's samples
(the numbers of `scipy.stats.bootstrap`, 2,000 resamples, fixed seed, so the same scores give
the same interval). The resamples are drawn in batches of at most `CI_BATCH_BYTES` of row
indices (the same index stream as one 2,000 × n draw: the same numbers, in bounded memory),
each batch shared by every measure resampled over as many rows (`intervals`); a mean and a
`pooled` measure are computed over them with numpy, an `aggregator` is re-run in Python on each
resample (slow: one list of rows per resample); the percentiles are scipy's, written out
(`_percentile_interval`). None with fewer than two defined values. docs/metrics.md
("Confidence intervals") says the method and its limits.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Sequence

from scholarbench.core.columns import NOT_COUNTED, ScoreRows, is_number
from scholarbench.core.display import Display
from scholarbench.core.pooled import ColumnSums, Pooled, Resamples
from scholarbench.metrics.names import MetricName

Row = dict[str, Any]
Aggregator = Callable[[Sequence[Row]], "float | None"]
Direction = Literal["higher", "lower", "none"]
CI_RESAMPLES = 2000
CI_SEED = 20251126
CI_LEVEL = 0.95
CI_BATCH_BYTES = 50_000_000        # row indices (int64) held at once by an interval
CI_METHOD = f"percentile bootstrap over samples, {CI_RESAMPLES} resamples, seed {CI_SEED}"


@dataclass(frozen=True)
class Measure(Display):
    """One measure of one benchmark. Equality and hashing are on the qualified name.

    Its display (label, direction, percent, decimals, sign, bounds) is what every table,
    report section and `compare` print it with (`core.display.Display`); unset, percent follows
    a "percent" unit, decimals are 2 for a percent and 4 otherwise, and the bounds (the plots'
    axis range) are [0, 1] for a "fraction" or "percent" unit and open otherwise."""
    benchmark: str
    key: str                                   # printed form: name and non-default parameters
    description: str = field(default="", compare=False)
    label: str = field(default="", compare=False)         # column header as in the paper
    direction: Direction = field(default="higher", compare=False)
    unit: str = field(default="", compare=False)          # "fraction", "distance", "1–5", …
    provenance: str = field(default="", compare=False)    # "paper eq. 4", "upstream variant …"
    judge: bool = field(default=False, compare=False)     # scored by an LLM judge
    aggregator: Aggregator | None = field(default=None, compare=False, repr=False)
    # a pooled aggregate declared as a function of column sums (`core.pooled`): its value and
    # its interval's resamples in numpy; sets `aggregator` to its value
    pooled: Pooled | None = field(default=None, compare=False, repr=False)
    # with an aggregator: the rows it draws on (resampled for the interval); default: all
    # counted rows. A pooled measure defined on few samples names them, so no resample is empty.
    defined_on: Callable[[Row], bool] | None = field(default=None, compare=False, repr=False)
    aggregate_note: str = field(default="mean over samples with a defined value",
                                compare=False)
    # a judge's measure: the row key whose value says the judge failed on that sample (the
    # summary entry counts those rows as `n_unscored`, part of `n_null`)
    unscored_key: str | None = field(default=None, compare=False)
    # the summary entry's (n, n_null) by the measure's own rule, over the counted rows: for a
    # measure only some rows carry (SciNet: a task of another kind is not its null) or a pooled
    # value counted as its per-sample twin; default `core.summary_metrics.measure_entry`'s
    counts: Callable[[Sequence[Row]], "tuple[int, int]"] | None = field(
        default=None, compare=False, repr=False)
    # how it prints (`core.display`); unset: from the unit (see the class docstring)
    percent: bool = field(default=None, compare=False)    # type: ignore[assignment]  # ×100
    decimals: int = field(default=None, compare=False)    # type: ignore[assignment]
    sign: str = field(default="%", compare=False)  # after a percent ("" under a "(%)" header)
    bounds: tuple[float | None, float | None] = field(    # the value's range (plot axes)
        default=None, compare=False)                      # type: ignore[assignment]

    def __post_init__(self) -> None:
        MetricName.parse(self.key)            # raises on a name that would not parse back
        if self.pooled is not None:           # (a `dataclasses.replace` copy passes both)
            object.__setattr__(self, "aggregator", self.pooled.value)
        if "/" in self.benchmark or not self.benchmark:
            raise ValueError(f"bad benchmark namespace {self.benchmark!r}")
        self._settle_display()

    def _settle_display(self) -> None:
        """Check the direction; fill the display fields left unset from the unit."""
        if self.direction not in ("higher", "lower", "none"):
            raise ValueError(f"{self.key}: direction {self.direction!r} is not "
                             "'higher', 'lower' or 'none'")
        if self.percent is None:
            object.__setattr__(self, "percent", self.unit == "percent")
        if self.decimals is None:
            object.__setattr__(self, "decimals", 2 if self.percent else 4)
        if self.bounds is None:
            object.__setattr__(self, "bounds", (0.0, 1.0) if self.unit in ("percent", "fraction")
                               else (None, None))

    @property
    def name(self) -> MetricName:
        return MetricName.parse(self.key)

    @property
    def qualified(self) -> str:
        return f"{self.benchmark}/{self.key}"

    def __str__(self) -> str:
        return self.qualified

    @staticmethod
    def split(text: str) -> tuple[str | None, str]:
        """'reportbench/ref_precision' → ('reportbench', 'ref_precision'); a bare key → (None, key)."""
        head, sep, tail = text.partition("/")
        return (head, tail) if sep else (None, text)

    def value(self, rows: Sequence[Row]) -> float | None:
        """The run's aggregate over `rows` (rows of errored/unscorable samples are skipped)."""
        counted = ScoreRows.of(rows).counted()
        if self.aggregator is not None:
            return self.aggregator(counted)
        values = counted.defined(self.key)
        return sum(values) / len(values) if values else None


def defined(rows: Sequence[Row], key: str) -> list[float]:
    """The values of `key` that are numbers (`is_number`), as floats, in row order."""
    if isinstance(rows, ScoreRows):
        return rows.defined(key)
    out = []
    for r in rows:
        value = r.get(key)
        if value.__class__ is float:            # the common case, without a call
            if value - value == 0:              # finite
                out.append(value)
        elif value is not None and is_number(value):
            out.append(float(value))
    return out


def interval(measure: Measure, rows: Sequence[Row]) -> list[float] | None:
    """[low, high] of the 95% percentile bootstrap of `measure`'s aggregate over `rows`."""
    return intervals((measure,), rows)[0]


def intervals(measures: Sequence[Measure], rows: Sequence[Row]) -> list[list[float] | None]:
    """Each measure's `interval`, in order. The measures resampled over the same number of
    rows share each batch of drawn row indices: every one of them would draw the same stream
    from the seed alone (`scipy.stats.bootstrap`'s draw, `_resample`), so k measures over the
    same rows cost one draw instead of k, for the same numbers."""
    out: list[list[float] | None] = []
    groups: dict[int, list[tuple[int, Statistic]]] = {}
    for i, measure in enumerate(measures):
        plan = _plan(measure, rows)
        out.append(None if isinstance(plan, _Resample) else plan)
        if isinstance(plan, _Resample):
            groups.setdefault(plan.n, []).append((i, plan.statistic))
    for n, jobs in groups.items():
        for (i, _), theta in zip(jobs, _resample(n, [s for _, s in jobs])):
            out[i] = _percentile_interval(theta)
    return out


Statistic = Callable[[Any], Any]      # a batch (`core.pooled.Resamples`) → its m values


@dataclass(frozen=True)
class _Resample:
    n: int                  # rows resampled
    statistic: Statistic


def _plan(measure: Measure, rows: Sequence[Row]) -> "list[float] | None | _Resample":
    """A measure's interval without resampling (None: too few values; [v, v]: one value),
    or what to resample."""
    import numpy as np     # deferred: `run --help` must not import numpy
    counted = ScoreRows.of(rows).counted()
    if measure.aggregator is None:
        values = counted.numbers(measure.key)
        values = values[~np.isnan(values)]
        if len(values) < 2:
            return None
        if np.all(values == values[0]):
            return [float(values[0])] * 2

        def mean(batch: Any) -> Any:
            return _mean(batch.gathered(values), axis=-1)
        return _Resample(len(values), mean)
    if measure.defined_on is not None:
        counted = counted.where(measure.defined_on)
    if not _two_with_a_number(counted):
        return None
    if measure.pooled is not None:
        pooled = measure.pooled
        sums = ColumnSums(pooled.arrays(counted))

        def statistic(batch: Any) -> Any:
            return pooled.combine(sums.of(batch))
        return _Resample(len(counted), statistic)
    aggregator = measure.aggregator

    def each(batch: Any) -> Any:      # the slow path: Python per resample
        return np.array([_float(aggregator([counted[int(i)] for i in row]))
                         for row in batch.idx])
    return _Resample(len(counted), each)


def _two_with_a_number(rows: Sequence[Row]) -> bool:
    """Whether at least two rows hold a number (stops at the second)."""
    found = 0
    for r in rows:
        if any(is_number(v) for v in r.values()):
            found += 1
            if found == 2:
                return True
    return False


def _mean(x: Any, axis: int = -1) -> Any:
    import numpy as np     # deferred: `run --help` must not import numpy
    return np.mean(x, axis=axis)


def _float(value: float | None) -> float:
    return math.nan if value is None else float(value)


def batch_size(n: int, width: int) -> int:
    """Resamples per batch: at most `CI_BATCH_BYTES` of int64 row indices (and as much again
    per gathered column), whatever n."""
    return max(1, min(CI_RESAMPLES, CI_BATCH_BYTES // (8 * max(1, n) * max(1, width))))


def _resample(n: int, statistics: Sequence[Statistic]) -> list[Any]:
    """Each statistic's values on the `CI_RESAMPLES` resamples of n rows: the row indices
    drawn as `scipy.stats.bootstrap` draws them (`rng.integers(0, n, (batch, n))` from a
    Generator seeded `CI_SEED`; batches of any size give the one stream), `batch_size` at a
    time, each batch handed to every statistic."""
    import numpy as np     # deferred: `run --help` must not import numpy
    rng = np.random.default_rng(CI_SEED)
    parts: list[list[Any]] = [[] for _ in statistics]
    size, buffers = batch_size(n, 1), {}
    for start in range(0, CI_RESAMPLES, size):
        batch = Resamples(rng.integers(0, n, size=(min(size, CI_RESAMPLES - start), n),
                                       dtype=np.int64), buffers)
        for part, statistic in zip(parts, statistics):
            part.append(statistic(batch))
    return [np.concatenate(part) for part in parts]


def _percentile_interval(theta: Any) -> list[float] | None:
    """The percentile interval of the resampled values `theta` as `scipy.stats.bootstrap`
    (method "percentile") computes it — `scipy.stats.quantile(theta, [α, 1 − α])`, the
    "linear" (Hyndman–Fan type 7) quantile, α = (1 − CI_LEVEL)/2 in theta's dtype — written
    out in numpy, so that an interval does not import scipy.stats (~1 s; tests compare it with
    scipy's bootstrap); None when it is not finite (a NaN among the resamples: a degenerate
    one)."""
    import numpy as np     # deferred: `run --help` must not import numpy
    if np.isnan(theta).any():
        return None
    alpha = np.asarray((1 - CI_LEVEL) / 2, dtype=theta.dtype)
    p = np.stack((alpha, 1 - alpha), axis=-1)
    y = np.sort(theta)
    n = np.asarray(y.shape[-1], dtype=theta.dtype)
    jg = p * n + (1 - p)
    jp1 = jg // 1
    j = jp1 - 1
    g = jg % 1
    g[j < 0] = 0
    j, jp1 = np.clip(j, 0., n - 1), np.clip(jp1, 0., n - 1)
    ci = (1 - g) * y[j.astype(np.int64)] + g * y[jp1.astype(np.int64)]
    low, high = float(ci[0]), float(ci[1])
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return [round(low, 12), round(high, 12)]


__all__ = ["CI_BATCH_BYTES", "CI_METHOD", "Measure", "batch_size", "defined", "interval",
           "intervals", "is_number"]
