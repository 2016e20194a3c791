"""DeepSynth-Eval's measures as `core.measure.Measure` objects — the one list of them.

Four measures, each in both scoring variants (`scores.VARIANTS`; upstream's keys carry
``(upstream=1)``), registered as ``deepsynth/<key>``. Every one is scored by the checklist
judge. Overall, General and Constraint are per-task values averaged over the tasks where they
are defined (macro: the engine's default aggregate). Precision is pooled over the run's labels
— Σ correct / Σ (correct + incorrect) over every task — so its measure declares it `pooled`
(`core.pooled`), from each score row's ``n_correct`` and ``n_incorrect``; the confidence
interval then resamples tasks and pools again, over those count columns in numpy. Everything
else that lists the measures (the benchmark's headline and judge-scored keys, the terminal
summary, the report section's columns) reads
`BASES` / `measures_for`. Shown as the paper's Table 1 prints them: ×100 with one decimal, no
"%" (the table's title says "(%)"); a group score has no lower bound (down to -1/clip_factor).
"""
from __future__ import annotations

from functools import lru_cache, partial
from typing import Any, Sequence

from scholarbench.core.measure import Measure
from scholarbench.core.pooled import Pooled, divide
from scholarbench.core.registry import add_measures
from scholarbench.metrics.agreement import PANEL_KEY

BENCHMARK = "deepsynth"
_PRECISION_NOTE = ("pooled: Σ n_correct / Σ (n_correct + n_incorrect) over the run's tasks "
                   "(micro), not a mean of per-task values")


@lru_cache(maxsize=None)
def pooled_precision(variant: str) -> Pooled:
    """Σ correct / Σ (correct + incorrect) over `rows`; at 0/0 null under the paper's rules,
    0 under upstream's (as `scores.aggregate`). Rows of a judge panel (`judges`): that pooled
    precision per judge, then the mean over the judges (`panel.precision_by_judge`), in the
    order the judges first appear in the rows.

    Its columns: whether a row has a panel, the row's correct and mentioned counts, then for
    each judge whether the row has its entry and that entry's two counts."""
    at_zero = 0.0 if variant == "upstream" else None

    def columns(rows: Sequence[dict[str, Any]]) -> list[list[Any]]:
        labels: dict[str, None] = {}
        for r in rows:
            labels.update(dict.fromkeys(r.get(PANEL_KEY) or {}))
        out = [[1 if r.get(PANEL_KEY) else 0 for r in rows], *_counts(rows)]
        for label in labels:
            entries = [(r.get(PANEL_KEY) or {}).get(label) for r in rows]
            out.append([0 if e is None else 1 for e in entries])
            out += _counts([e or {} for e in entries])
        return out

    def from_columns(rows: Any) -> list[Any] | None:
        """The same columns from the run's score rows (`core.columns.ScoreRows.per_row`: each
        row's terms computed once over all rows, a subset's sliced); the judges as `columns`
        finds them in these rows."""
        if not len(rows):
            return None
        labels: dict[str, None] = {}
        for panel in rows.values(PANEL_KEY):
            labels.update(dict.fromkeys(panel or {}))
        judges = tuple(labels)
        return rows.per_row(("deepsynth:precision", judges), partial(_terms, judges))

    def combine(sums: Any) -> Any:
        import numpy as np      # deferred: `run --help` must not import numpy
        plain = divide(sums[..., 1], sums[..., 2], at_zero)
        total, count = np.zeros(plain.shape), np.zeros(plain.shape)
        for j in range(3, sums.shape[-1], 3):       # the judges, in order: Python's sum
            value = divide(sums[..., j + 1], sums[..., j + 2], at_zero)
            kept = (sums[..., j] > 0) & ~np.isnan(value)
            total, count = total + np.where(kept, value, 0.0), count + kept
        return np.where(sums[..., 0] > 0, divide(total, count, at_zero), plain)
    return Pooled(columns, combine, "Σ n_correct / Σ (n_correct + n_incorrect)", from_columns)


def _counts(rows: Sequence[dict[str, Any]]) -> list[list[int]]:
    """[correct, correct + incorrect] of each row."""
    correct = [int(r.get("n_correct") or 0) for r in rows]
    return [correct, [c + int(r.get("n_incorrect") or 0) for c, r in zip(correct, rows)]]


def _terms(judges: tuple[str, ...], row: dict[str, Any]) -> tuple[int, ...]:
    """A row's terms in `columns`' order: (has a panel, correct, correct + incorrect), then for
    each judge (has its entry, its correct, its correct + incorrect)."""
    panel = row.get(PANEL_KEY)
    correct = int(row.get("n_correct") or 0)
    out = [1 if panel else 0, correct, correct + int(row.get("n_incorrect") or 0)]
    for label in judges:
        entry = (panel or {}).get(label)
        correct = int((entry or {}).get("n_correct") or 0)
        out += (0 if entry is None else 1, correct,
                correct + int((entry or {}).get("n_incorrect") or 0))
    return tuple(out)


# base name, label, description, provenance (the paper's §3.5 equations; precision: Table 1)
BASES: tuple[tuple[str, str, str, str], ...] = (
    ("dse_overall", "Overall",
     "weighted mean of min(1, S_k/θ_k) over all checklist groups, macro over tasks",
     "paper §3.5 eq. 4 (S_all)"),
    ("dse_general", "General", "the same over general (non-strict) groups",
     "paper §3.5 eq. 2 (S_gen)"),
    ("dse_constraint", "Constraint", "the same over constraint (strict) groups",
     "paper §3.5 eq. 3 (S_con)"),
    ("dse_precision", "Precision",
     "correct / (correct + incorrect) judge labels, pooled over the run's tasks",
     "paper Table 1 Precision; upstream score.py"),
)
BASE_KEYS: tuple[str, ...] = tuple(b[0] for b in BASES)
TASK_KEYS: tuple[str, ...] = tuple(k for k in BASE_KEYS if k != "dse_precision")
LABELS: dict[str, str] = {b[0]: b[1] for b in BASES}


def _build(variant: str) -> tuple[Measure, ...]:
    # deferred: a top-level import would close an import cycle
    from scholarbench.benchmarks.deepsynth.scores import metric_key
    upstream = " (upstream score.py rules)" if variant == "upstream" else ""
    out = []
    for base, label, description, provenance in BASES:
        pooled = base == "dse_precision"
        out.append(Measure(
            BENCHMARK, metric_key(base, variant), description=description + upstream,
            label=label, direction="higher", unit="fraction", judge=True,
            provenance=provenance + (", upstream variant" if upstream else ""),
            pooled=pooled_precision(variant) if pooled else None,
            percent=True, decimals=1, sign="", bounds=(0.0, 1.0) if pooled else (None, 1.0),
            **({"aggregate_note": _PRECISION_NOTE} if pooled else {})))
    return tuple(out)


_BY_VARIANT: dict[str, tuple[Measure, ...]] = {}


def measures_for(variant: str) -> tuple[Measure, ...]:
    """The four measures of one scoring variant, in the paper's column order."""
    if variant not in _BY_VARIANT:
        _BY_VARIANT[variant] = _build(variant)
    return _BY_VARIANT[variant]


def all_measures() -> tuple[Measure, ...]:
    # deferred: a top-level import would close an import cycle
    from scholarbench.benchmarks.deepsynth.scores import VARIANTS
    return tuple(m for v in VARIANTS for m in measures_for(v))


def register() -> None:
    add_measures(all_measures())


__all__ = ["BASES", "BASE_KEYS", "LABELS", "TASK_KEYS", "all_measures", "measures_for",
           "pooled_precision", "register"]
