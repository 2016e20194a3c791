"""How far judge-scored results can be trusted: a panel's judges against each other, each judge
against itself, and the rankings of several runs by each judge.

Everything here reads score rows (or summaries) alone, so `scholarbench aggregate RUN` rebuilds
it. A row of a panel-scored measure carries, beside the measure's panel value, every judge's own
value and (with repeats) each repeat's value (`panel_row`):

    {"novelty_llm": 6.0, "judges": {"a": {"novelty_llm": 7.0, "novelty_llm_samples": [7, 7],
                                          "novelty_llm_unscored": 0}, "b": {...}}}

- **between judges** (`between`): Krippendorff's α (the `krippendorff` package) over the rows
  as units and the judges as coders, each judge's value the mean of its repeats; interval level
  for scales, nominal for labels. A judge with no value on a row (every item unscored) is a
  missing rating, not a zero.
- **within a judge** (`within`): α over the rows as units and the repeats as coders; and the
  spread: the mean over rows with at least two defined repeats of the repeats' sample standard
  deviation (ddof 1).
- **rankings** (`rank_agreement`): Kendall τ-b (`scipy.stats.kendalltau`) between every pair of
  judges' orderings of several runs by their per-judge means, and whether every judge puts the
  same run on top.

α is None with fewer than two units rated by two coders, or when every rating is the same value
(α is undefined there: no variation to agree on).
"""
from __future__ import annotations

import math
import statistics
from itertools import combinations
from typing import Any, Mapping, Sequence

Row = Mapping[str, Any]
LEVELS = ("interval", "nominal")
NOT_COUNTED = ("error", "unscorable")
PANEL_KEY = "judges"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(float(value))


def samples_key(measure: str) -> str:
    return f"{measure}_samples"


def krippendorff_alpha(matrix: Sequence[Sequence[Any]], level: str = "interval"
                       ) -> float | None:
    """α of a coders × units matrix (None = missing); None when it is undefined."""
    import numpy as np
    import krippendorff
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if level == "interval" and _plain_numbers(matrix):
        return _interval_alpha_of(matrix)
    units = list(zip(*matrix)) if matrix else []
    paired = [u for u in units if sum(v is not None for v in u) >= 2]
    if len(paired) < 2 or len({v for u in paired for v in u if v is not None}) < 2:
        return None
    if level == "nominal":
        domain = sorted({str(v) for u in paired for v in u if v is not None})
        code = {v: float(i) for i, v in enumerate(domain)}
        data = [[np.nan if v is None else code[str(v)] for v in coder]
                for coder in zip(*paired)]
    else:
        data = [[np.nan if v is None else float(v) for v in coder] for coder in zip(*paired)]
    array = np.array(data, dtype=float)
    if level == "interval" and np.unique(array[~np.isnan(array)]).size > LIBRARY_VALUES:
        value = interval_alpha(array)
    else:
        value = float(krippendorff.alpha(reliability_data=array, level_of_measurement=level))
    return round(value, 12) if math.isfinite(value) else None


def _plain_numbers(matrix: Sequence[Sequence[Any]]) -> bool:
    """A non-empty rectangular matrix of None and finite ints and floats (not bools): what the
    numpy path below reads exactly as the lists would be read."""
    return bool(matrix) and len({len(coder) for coder in matrix}) == 1 and all(
        v is None or (v.__class__ is float and v - v == 0) or v.__class__ is int
        for coder in matrix for v in coder)


def _interval_alpha_of(matrix: Sequence[Sequence[Any]]) -> float | None:
    """`krippendorff_alpha` at the interval level over a rectangular matrix, in numpy: the
    same units kept (rated by two coders or more), the same test for a single value, the same
    array handed to the package (or `interval_alpha`)."""
    import numpy as np
    import krippendorff
    array = np.array([[np.nan if v is None else float(v) for v in coder] for coder in matrix],
                     dtype=float)
    rated = ~np.isnan(array)
    array = array[:, rated.sum(axis=0) >= 2]
    values = array[~np.isnan(array)]
    if array.shape[1] < 2 or np.unique(values).size < 2:
        return None
    if np.unique(values).size > LIBRARY_VALUES:
        value = interval_alpha(array)
    elif array.shape[0] <= 3:
        value = float(_few_coders_interval_alpha(array))
    else:
        value = float(krippendorff.alpha(reliability_data=array,
                                         level_of_measurement="interval"))
    return round(value, 12) if math.isfinite(value) else None


def _few_coders_interval_alpha(data: Any) -> Any:
    """The `krippendorff` package's interval α of a coders × units array (NaN = missing) of at
    most three coders, without its units × values × values array (231 MB for 100,000 units of 17
    values). Its coincidence matrix o sums, over the units, (n_g·n_h − [g = h]·n_g)/(m − 1) with
    m ≤ 3 ratings: each term a multiple of 1/2, so every partial sum is exact in float64 and o,
    computed here as one product, is the package's to the bit; the rest is the package's four
    lines (`krippendorff.alpha`: n_v, e, d, 1 − Σ o·d / Σ e·d). Equal to the package's value in
    tests/test_agreement.py."""
    import numpy as np
    rated = ~np.isnan(data)
    domain = np.unique(data[rated])
    coded = np.where(rated, np.searchsorted(domain, np.where(rated, data, domain[0])), -1)
    counts = np.zeros((data.shape[1], domain.size))
    for coder in coded:                       # value counts per unit (N × V)
        kept = coder >= 0
        counts[np.flatnonzero(kept), coder[kept]] += 1
    weights = counts / (np.maximum(counts.sum(axis=1), 2) - 1)[:, np.newaxis]
    o = weights.T @ counts - np.diag(weights.sum(axis=0))
    n_v = o.sum(axis=0)
    e = np.divide(np.outer(n_v, n_v) - np.diagflat(n_v), n_v.sum() - 1, dtype=np.float64)
    d = (domain[:, np.newaxis] - domain[np.newaxis, :]).astype(np.float64) ** 2
    return 1 - (o * d).sum() / (e * d).sum()


# Past this many distinct values, interval α is computed by `interval_alpha`: the `krippendorff`
# package builds a values × values matrix (continuous per-judge scores on 1,000 tasks asked it
# for 28.8 GiB; issue 37).
LIBRARY_VALUES = 1000


def interval_alpha(data: Any) -> float:
    """Krippendorff's interval α of a coders × units array (NaN = missing) in O(ratings): with
    the squared-difference metric, the observed and expected disagreements are sums of squared
    differences, Σ_{i≠j}(v_i − v_j)² = 2(m·Σv² − (Σv)²), within each unit of m ≥ 2 ratings and
    over all n pairable ratings: α = 1 − (n − 1)·Σ_u D_u/(m_u − 1) / D. Equal to the
    `krippendorff` package's value (tests/test_agreement.py); written here because that package
    needs memory quadratic in the distinct values. NaN where the ratings do not vary."""
    import numpy as np      # deferred: numpy stays out of the modules the command line loads
    rated = ~np.isnan(data)
    m = rated.sum(axis=0)
    keep = m >= 2
    values = np.where(rated, data, 0.0)[:, keep]
    m, rated = m[keep], rated[:, keep]
    if m.size == 0:
        return float("nan")
    values = np.where(rated, values - values[rated].mean(), 0.0)   # centred: less cancellation
    s1, s2 = values.sum(axis=0), (values * values).sum(axis=0)
    within = float(np.sum(2.0 * (m * s2 - s1 * s1) / (m - 1)))
    n = int(m.sum())
    total = 2.0 * (n * float(s2.sum()) - float(s1.sum()) ** 2)
    return float("nan") if total == 0 else 1.0 - (n - 1) * within / total


def counted(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r.get("status") not in NOT_COUNTED]


def judges_of(rows: Sequence[Row], measure: str) -> list[str]:
    """The judges that rated `measure` on any row, in first-seen order."""
    out: dict[str, None] = {}
    for r in rows:
        for label, values in (r.get(PANEL_KEY) or {}).items():
            if label not in out and (values.__class__ is dict or isinstance(values, Mapping)) \
                    and measure in values:
                out[label] = None
    return list(out)


def _value(row: Row, label: str, measure: str) -> float | None:
    v = ((row.get(PANEL_KEY) or {}).get(label) or {}).get(measure)
    return float(v) if _number(v) else None


def _samples(row: Row, label: str, measure: str) -> list[float | None]:
    values = ((row.get(PANEL_KEY) or {}).get(label) or {}).get(samples_key(measure)) or []
    return [float(v) if _number(v) else None for v in values]


class Ratings:
    """One measure's panel over the counted rows that carry it (`rows`): the judges that rate
    it (first-seen order), each judge's value per row (None: none) and its repeats' values on
    the rows that have some — read from the rows once, for the judges' means, each judge's
    repeats and α (`ratings_of`: several measures in one pass)."""

    def __init__(self, rows: Sequence[Row], measure: str) -> None:
        self.measure = measure
        self.rows = [r for r in counted(rows) if measure in r]
        self.labels = judges_of(self.rows, measure)
        self.values: dict[str, list[float | None]] = {j: [] for j in self.labels}
        self.samples: dict[str, list[Any]] = {j: [] for j in self.labels}
        _read(self.rows, [self])

    def means(self) -> dict[str, dict[str, Any]]:
        """`judge_means`."""
        out = {}
        for label in self.labels:
            values = [v for v in self.values[label] if v is not None]
            out[label] = {"mean": round(sum(values) / len(values), 12) if values else None,
                          "n": len(values), "n_null": len(self.rows) - len(values)}
        return out

    def within(self, label: str, level: str = "interval") -> dict[str, Any]:
        """`within`."""
        per_row = [[float(v) if _number(v) else None for v in s]
                   for s in self.samples.get(label, ())]
        return _within(per_row, level)

    def between(self, level: str = "interval") -> float | None:
        """`between`."""
        if len(self.labels) < 2:
            return None
        return krippendorff_alpha([self.values[j] for j in self.labels], level)


def ratings_of(rows: Sequence[Row], measures: Sequence[str]) -> dict[str, Ratings]:
    """Each measure's `Ratings`; when every counted row carries every measure (a panel's rows
    do), the rows are read once for all of them — the same judges, in the same order, and the
    same values as one `Ratings` per measure."""
    kept = counted(rows)
    if len(measures) < 2 or not all(m in r for r in kept for m in measures):
        return {m: Ratings(rows, m) for m in measures}
    found: dict[str, dict[str, None]] = {m: {} for m in measures}
    for r in kept:                        # `judges_of` of every measure in one pass
        for label, values in (r.get(PANEL_KEY) or {}).items():
            if values.__class__ is dict or isinstance(values, Mapping):
                for m in measures:
                    if label not in found[m] and m in values:
                        found[m][label] = None
    out = {}
    for m in measures:
        ratings = out[m] = Ratings.__new__(Ratings)
        ratings.measure, ratings.rows, ratings.labels = m, kept, list(found[m])
        ratings.values = {j: [] for j in ratings.labels}
        ratings.samples = {j: [] for j in ratings.labels}
    _read(kept, list(out.values()))
    return out


def _read(rows: Sequence[Row], ratings: Sequence[Ratings]) -> None:
    """Fill each `Ratings`' values and repeats from `rows` (its judges known), one pass."""
    empty: dict[str, Any] = {}
    by_label: dict[str, list[tuple[str, str, Any, Any]]] = {}
    for r in ratings:
        for label in r.labels:
            by_label.setdefault(label, []).append(
                (r.measure, samples_key(r.measure), r.values[label].append,
                 r.samples[label].append))
    each = list(by_label.items())
    for row in rows:
        panel = row.get(PANEL_KEY) or empty
        for label, wanted in each:
            entry = panel.get(label) or empty
            for measure, key, value, samples in wanted:
                v = entry.get(measure)
                value(v if v.__class__ is float and v - v == 0 else None if v is None
                      else float(v) if _number(v) else None)
                if repeats := entry.get(key):
                    samples(repeats)


def between(rows: Sequence[Row], measure: str, level: str = "interval") -> float | None:
    """α between the judges on `measure` over the counted rows."""
    return Ratings(rows, measure).between(level)


def within(rows: Sequence[Row], measure: str, label: str, level: str = "interval"
           ) -> dict[str, Any]:
    """One judge against itself on `measure`: α across its repeats and their mean spread."""
    per_row = [_samples(r, label, measure) for r in counted(rows) if measure in r]
    return _within([s for s in per_row if s], level)


def _within(per_row: list[list[float | None]], level: str) -> dict[str, Any]:
    k = max((len(s) for s in per_row), default=0)
    if k < 2:
        return {"repeats": k, "alpha": None, "spread": None, "spread_n": 0}
    matrix = [[s[i] if i < len(s) else None for s in per_row] for i in range(k)]
    sds = [statistics.stdev(d) for s in per_row if len(d := [v for v in s if v is not None]) >= 2]
    return {"repeats": k, "alpha": krippendorff_alpha(matrix, level),
            "spread": round(sum(sds) / len(sds), 12) if sds else None, "spread_n": len(sds)}


def judge_means(rows: Sequence[Row], measure: str) -> dict[str, dict[str, Any]]:
    """Each judge's mean of `measure` over the counted rows where it has a value."""
    return Ratings(rows, measure).means()


def panel_summary(rows: Sequence[Row], measures: Mapping[str, str],
                  levels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """{"judge_panel": {name: {judge: {mean, n, n_null, repeats, spread, spread_n,
    alpha_repeats}}}, "judge_agreement": {name: {level, alpha, n_judges}}} for each measure rated by a judge
    panel or with repeats; `measures` maps a row's column to the summary's name of it."""
    per_judge: dict[str, Any] = {}
    agreement: dict[str, Any] = {}
    every = ratings_of(rows, list(measures))
    for column, name in measures.items():
        level = (levels or {}).get(column, "interval")
        ratings = every[column]
        means = ratings.means()
        if not means:
            continue
        for label, entry in means.items():
            w = ratings.within(label, level)
            entry.update(repeats=w["repeats"], spread=w["spread"], spread_n=w["spread_n"],
                         alpha_repeats=w["alpha"])
        per_judge[name] = means
        agreement[name] = {"level": level, "n_judges": len(means),
                           "alpha": ratings.between(level)}
    return {"judge_panel": per_judge, "judge_agreement": agreement} if per_judge else {}


def rank_agreement(runs: Mapping[str, Mapping[str, float | None]]) -> dict[str, Any]:
    """`runs`: run → {judge: its mean of one measure} (`per_judge_of`). Kendall τ-b between
    every two judges' orderings of the runs both scored, and whether each judge's top run is
    the same (`top_run`: that run, else None; `top_stays`)."""
    from scipy.stats import kendalltau
    labels: list[str] = []
    for means in runs.values():
        labels += [j for j in means if j not in labels]
    pairs: dict[str, Any] = {}
    for a, b in combinations(labels, 2):
        both = [(m[a], m[b]) for m in runs.values()
                if _number(m.get(a)) and _number(m.get(b))]
        tau = None
        if len(both) >= 2:
            result = kendalltau([x for x, _ in both], [y for _, y in both])
            tau = round(float(result.statistic), 12) if math.isfinite(result.statistic) \
                else None
        pairs[f"{a} ~ {b}"] = {"tau": tau, "n_runs": len(both)}
    tops = {}
    for label in labels:
        scored = {run: m[label] for run, m in runs.items() if _number(m.get(label))}
        best = max(scored.values(), default=None)
        leaders = [run for run, v in scored.items() if v == best]
        tops[label] = leaders[0] if len(leaders) == 1 else None
    same = len(set(tops.values())) == 1 and None not in tops.values() and bool(tops)
    return {"kendall_tau": pairs, "top_by_judge": tops, "top_stays": same,
            "top_run": next(iter(tops.values())) if same else None}


def per_judge_of(summary: Mapping[str, Any], measure: str) -> dict[str, float | None]:
    """{judge: mean} of `measure` in a run's summary (its `judge_panel` block)."""
    entry = (summary.get("judge_panel") or {}).get(measure) or {}
    return {label: e.get("mean") for label, e in entry.items() if isinstance(e, Mapping)}


__all__ = ["Ratings", "between", "judge_means", "krippendorff_alpha", "panel_summary",
           "per_judge_of", "rank_agreement", "ratings_of", "within"]
