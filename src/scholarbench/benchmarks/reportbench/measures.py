"""ReportBench's measures, declared once: every key its summaries report under `metrics`.

Each is a `core.measure.Measure` (key, label as the paper's Table 1 prints it, direction,
unit, provenance, `judge`, and how the report prints it: decimals, percent, bounds). Its
family is `family_of(m)` (a judged statement rate, else a reference measure), a micro aggregate
over the run is `is_pooled(m)` (it declares `pooled`), the headline is `HEADLINE`. The key
lists of the rest of the package are derived from `MEASURES`: the score rows' reference keys (`scoring.REF_KEYS`),
the statement rates (`statement_rows.STATEMENT_RATES`), the summary's `metrics`
(`benchmark.measures` of a run's rows), the headline and the judge-scored keys (`benchmark`), the report's
columns (`section.COLUMNS`, `REF_KEYS`, `RATES`) and `score reportbench`'s means
(`score_files.METRICS`). Adding a measure is one `_declare(...)` here plus the code computing
its per-survey value (docs/reportbench.md, "Measures").

Per-survey measures (not `is_pooled`) aggregate as the plain mean over the surveys where the
value is defined: the reference metrics over every counted survey (a survey without a report
scores 0), the statement rates over the judged reports where the rate is defined. The micro
(pooled) measures sum the per-survey counts every score row carries (`n_matched`, `ref_count`,
`n_gt_matched`, `n_gt`; the statement counts of `statement_rows.STATEMENT_COUNTS`) and divide
once: their `pooled` ratio (`core.pooled.ratio`) is what the summary's `micro` blocks hold, so
the engine's bootstrap interval resamples surveys and recomputes the pooled ratio (in numpy,
over the count columns) — over the surveys the ratio draws
on (`defined_on`: the counted surveys; for a statement rate the judged reports with at least
one item in its denominator), so no resample is left with nothing to divide.
"""
from __future__ import annotations

from typing import Any, Callable, Literal, Sequence

from scholarbench.core.columns import where
from scholarbench.core.measure import Measure, defined
from scholarbench.core.pooled import Pooled, ratio

BENCHMARK = "reportbench"
Row = dict[str, Any]
NOT_COUNTED = ("error", "unscored", "unscorable")      # left out of every mean (scoring.py)


Family = Literal["reference", "statement"]
HEADLINE = ("ref_precision", "ref_recall", "ref_count")     # `Benchmark.headline`


def family_of(measure: Measure) -> Family:
    """A statement rate (its judges read the report) or a reference measure."""
    return "statement" if measure.judge else "reference"


def is_pooled(measure: Measure) -> bool:
    """A micro aggregate over the run (no per-survey value)."""
    return measure.pooled is not None


def counted(rows: Sequence[Row]) -> Sequence[Row]:
    """The rows in the means: every survey but errored and unscored ones (`core.columns.where`:
    on a run's score rows, their columns come along)."""
    return where(rows, _is_counted)


def _ratio(numerator: str, denominator: str) -> Pooled:
    """Pooled numerator / denominator over the counted surveys (0 when nothing to divide,
    as the per-survey metric)."""
    return ratio((numerator,), (denominator,), where=_is_counted, at_zero=0.0)


def _is_counted(row: Row) -> bool:
    return row.get("status") not in NOT_COUNTED


# the statement items each pooled rate divides by: a report with none adds nothing to the
# ratio, so its interval resamples only the reports that have some (`Measure.defined_on`)
DENOMINATORS = {"cited_match_rate": ("n_cited_checked", "n_cited_unreachable"),
                "cited_match_rate_checkable": ("n_cited_checked",),
                "noncited_accuracy": ("n_noncited_correct", "n_noncited_incorrect"),
                "noncited_accuracy_upstream": ("n_noncited_correct", "n_noncited_incorrect",
                                               "n_noncited_tie")}


def _has_items(key: str) -> Callable[[Row], bool]:
    def defined_on(row: Row) -> bool:
        return row.get("statements") == "judged" and \
            sum(row.get(k, 0) or 0 for k in DENOMINATORS[key]) > 0
    return defined_on


# each pooled statement rate: its numerator and denominator counts (`statement_rows.micro_rates`)
NUMERATORS = {"cited_match_rate": ("n_cited_matched",),
              "cited_match_rate_checkable": ("n_cited_matched",),
              "noncited_accuracy": ("n_noncited_correct",),
              "noncited_accuracy_upstream": ("n_noncited_correct",)}


def _judged(row: Row) -> bool:
    return row.get("statements") == "judged"


def _pooled_statement(key: str) -> Pooled:
    """The statement rate `key` over every judged statement item of the run (None where
    nothing is in its denominator)."""
    return ratio(NUMERATORS[key], DENOMINATORS[key], where=_judged)


def _counts(key: str, family: str, pooled: bool
            ) -> Callable[[Sequence[Row]], tuple[int, int]]:
    """The summary entry's (n, n_null) over the counted surveys (`unscored` ones left out
    too): a per-survey measure counts its defined values; a pooled reference ratio every
    counted survey; a pooled statement rate the judged reports."""
    def count(rows: Sequence[Row]) -> tuple[int, int]:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.reportbench.statement_rows import judged_rows
        kept = counted(rows)
        if not pooled:
            n = len(defined(kept, key))
        else:
            n = len(kept) if family == "reference" else len(judged_rows(rows))
        return n, len(kept) - n
    return count


def _declare(key: str, label: str, description: str, provenance: str, *,
             family: Family, direction: Any = "higher", unit: str = "fraction",
             pooled: Pooled | None = None, aggregate_note: str = "", defined_on: Any = None,
             decimals: int = 4, percent: bool = False,
             bounds: tuple[float | None, float | None] = (0.0, 1.0)) -> Measure:
    return Measure(BENCHMARK, key, description=description, label=label,
                      direction=direction, unit=unit, provenance=provenance,
                      judge=family == "statement", pooled=pooled,
                      counts=_counts(key, family, pooled is not None),
                      defined_on=defined_on or (_is_counted if pooled else None),
                      aggregate_note=aggregate_note or (
                          "mean over the counted surveys" if family == "reference" else
                          "mean over the judged reports where the rate is defined"),
                   decimals=decimals, percent=percent, bounds=bounds)


_MICRO = "pooled (micro) over the counted surveys: summed counts, one division"
_MICRO_ST = "pooled (micro) over every judged statement item of the run"
_UPSTREAM = "upstream metrics_calculator.py @ 1826140"

MEASURES: tuple[Measure, ...] = (
    _declare("ref_precision", "Precision", "matched references / distinct references with a "
             "title", "paper §2.2 content quality, §3.2 (Table 1 Precision)",
             family="reference", decimals=3),
    _declare("ref_recall", "Recall", "ground-truth titles matched / distinct ground-truth "
             "titles", "paper §2.2 content quality, §3.2 (Table 1 Recall)",
             family="reference", decimals=3),
    _declare("ref_count", "Ref Num", "distinct references in the precision denominator",
             "paper §3.2 (Table 1 Ref Num)", family="reference", direction="none",
             unit="references", decimals=2, bounds=(0.0, None)),
    _declare("cited_match_rate", "Match Rate", "cited statements matched by their source / "
             "(checked + unreachable pairs)",
             "paper §2.2 cited statements, §3.2 (Table 1 Match Rate)", family="statement",
             percent=True, decimals=2),
    _declare("cited_match_rate_checkable", "Match Rate (checkable)", "matched / checked "
             "pairs (unreachable sources left out)", f"{_UPSTREAM} alignment_rate",
             family="statement", percent=True, decimals=2),
    _declare("noncited_accuracy", "Factual Acc", "non-cited statements voted correct / "
             "(correct + incorrect)",
             "paper §2.2 non-cited statements, §3.2 (Table 1 Factual Acc)", family="statement",
             percent=True, decimals=2),
    _declare("noncited_accuracy_upstream", "Factual Acc (ties wrong)", "correct / (correct "
             "+ incorrect + tie)", f"{_UPSTREAM} (ties in the denominator)",
             family="statement", percent=True, decimals=2),
    _declare("ref_precision_micro", "Precision (micro)", "Σ matched references / Σ ref_count",
             "upstream's micro figure (related_work_evaluator.py)", family="reference",
             pooled=_ratio("n_matched", "ref_count"), aggregate_note=_MICRO, decimals=3),
    _declare("ref_recall_micro", "Recall (micro)", "Σ matched ground-truth titles / Σ n_gt",
             "upstream's micro figure (related_work_evaluator.py)", family="reference",
             pooled=_ratio("n_gt_matched", "n_gt"), aggregate_note=_MICRO, decimals=3),
    _declare("cited_match_rate_micro", "Match Rate (micro)", "Σ matched / Σ (checked + "
             "unreachable) pairs", "paper §2.2 cited statements, pooled over pairs",
             family="statement",
             pooled=_pooled_statement("cited_match_rate"),
             defined_on=_has_items("cited_match_rate"), aggregate_note=_MICRO_ST,
             percent=True, decimals=2),
    _declare("cited_match_rate_checkable_micro", "Match Rate (checkable, micro)",
             "Σ matched / Σ checked pairs", f"{_UPSTREAM} alignment_rate, pooled",
             family="statement", pooled=_pooled_statement("cited_match_rate_checkable"),
             defined_on=_has_items("cited_match_rate_checkable"),
             aggregate_note=_MICRO_ST, percent=True, decimals=2),
    _declare("noncited_accuracy_micro", "Factual Acc (micro)", "Σ correct / Σ (correct + "
             "incorrect) statements", "paper §2.2 non-cited statements, pooled over statements",
             family="statement", pooled=_pooled_statement("noncited_accuracy"),
             defined_on=_has_items("noncited_accuracy"),
             aggregate_note=_MICRO_ST, percent=True, decimals=2),
    _declare("noncited_accuracy_upstream_micro", "Factual Acc (ties wrong, micro)",
             "Σ correct / Σ (correct + incorrect + tie) statements",
             f"{_UPSTREAM}, pooled over statements", family="statement",
             pooled=_pooled_statement("noncited_accuracy_upstream"),
             defined_on=_has_items("noncited_accuracy_upstream"),
             aggregate_note=_MICRO_ST, percent=True, decimals=2),
)
BY_KEY: dict[str, Measure] = {m.key: m for m in MEASURES}


def keys(family: str | None = None, *, pooled: bool | None = False) -> tuple[str, ...]:
    """The keys of `family` (all families by default), per-survey ones unless `pooled`."""
    return tuple(m.key for m in MEASURES if family in (None, family_of(m))
                 and (pooled is None or is_pooled(m) == pooled))


def reportbench_measures() -> tuple[Measure, ...]:
    return MEASURES


def micro_key(key: str) -> str:
    return f"{key}_micro"


__all__ = ["BY_KEY", "HEADLINE", "MEASURES", "counted", "family_of", "is_pooled", "keys",
           "micro_key", "reportbench_measures"]
